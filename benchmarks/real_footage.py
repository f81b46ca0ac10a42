"""The analysis on real archers and on the synthetic clips, in one run, so a change that helps one and hurts the
other is seen at once.

    python benchmarks/real_footage.py                    # ../shared/realpose and the committed sample tracks
    python benchmarks/real_footage.py --realpose DIR --no-synthetic

Real footage: every labelled track in ../shared/realpose (`coach.labels/1`) is analysed as
`coach analyze --pose-track` does, with its sound envelope where it has one, and scored by `coach.evaluate`:
per clip the releases found against the labelled ones, anchor and draw-start errors, extra shots and the faults
flagged; then `releases within ±2: N/M, anchors within tolerance: N/M (of those marked sure: N/M), extra
shots: N, faults on labelled-clean shots: N` (faults that the clip's observations contradict, `tests/support/realpose_observed.py`).
Synthetic: `benchmarks/rule_accuracy.py` on the committed pose tracks of the sample clips (tests/golden).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))


def real(folder: Path, sound: bool = True) -> str:
    from coach.labels import evaluate_folder
    from tests.support.realpose_observed import OBSERVED_PASSING

    # the same figures as `coach eval DIR` on a club's exported corrections
    lines, _, _ = evaluate_folder(folder, sound=sound, observed=OBSERVED_PASSING)
    return "\n".join(lines)


def synthetic() -> str:
    import rule_accuracy

    text, s = rule_accuracy.run(ROOT / "sample_videos", None, ROOT / "tests" / "golden")
    o = s["overall"]
    p = o["tp"] / (o["tp"] + o["fp"]) if o["tp"] + o["fp"] else float("nan")
    r = o["tp"] / (o["tp"] + o["fn"]) if o["tp"] + o["fn"] else float("nan")
    from coach.results import SHOT_MARKS

    marks = "/".join(str(sum(s["mark_abs_errors"][m])) for m in SHOT_MARKS)
    return (
        f"{text}\n\nsynthetic: releases within ±2: {s['release_within_tol']}/{s['truth_shots']}, precision {p:.2f}, "
        f"recall {r:.2f} (TP/FP/FN {o['tp']}/{o['fp']}/{o['fn']}), faults on clean clips: {s['clean_clip_flags']}, "
        f"phase marks Σ|error| raise/draw/anchor/release: {marks} frames"
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--realpose", default=str(ROOT.parent / "shared" / "realpose"), help="labelled tracks")
    ap.add_argument("--no-sound", action="store_true", help="ignore the clips' sound envelopes")
    ap.add_argument("--no-synthetic", action="store_true", help="skip the synthetic clips")
    args = ap.parse_args(argv)
    folder = Path(args.realpose)
    out = []
    if folder.is_dir():
        out.append(real(folder, sound=not args.no_sound))
    else:
        out.append(f"real footage: {folder} not found, skipped")
    if not args.no_synthetic:
        out.append(synthetic())
    print("\n\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
