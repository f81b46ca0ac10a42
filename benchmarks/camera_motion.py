"""The same shots filmed by a camera that moves: every real track (../shared/realpose) and committed golden track
with the camera rolled, panning and zooming (coach/track_transforms.py), analysed as `coach analyze --pose-track`
does. Printed per track: the transforms whose result is not the original's (same shots, releases ±1 frame, no
fault the original lacks; benchmarks/metamorphic.py `compare`), and a summary line.

    python benchmarks/camera_motion.py

The analysis is body-relative, so a pan or a zoom should change nothing; a roll would change every angle measured
against the picture's vertical or horizontal, so the trunk's lean is judged against the archer's own standing
trunk, and the arrow's tilt and the follow-through hand's drop with the camera's roll that trunk shows taken out.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from metamorphic import compare  # noqa: E402

from coach.track_transforms import pan, tilt, zoom  # noqa: E402

TRANSFORMS = {
    "tilt+5": lambda t: tilt(t, 5.0),
    "tilt-8": lambda t: tilt(t, -8.0),
    "pan.05": lambda t: pan(t, 0.05, 3.0),
    "pan.15": lambda t: pan(t, 0.15, 4.0),
    "zoom1.3": lambda t: zoom(t, 1.3),
    "zoom0.7": lambda t: zoom(t, 0.7),
}


def tracks() -> list[Path]:
    real = ROOT.parent / "shared" / "realpose"
    return sorted(real.glob("*.pose.json")) + sorted((ROOT / "tests" / "golden").glob("*.pose.json.gz"))


def run(doc: str, transforms: dict, argv: list[str] | None) -> tuple[int, int]:
    """Every track analysed as it is and through each transform asked for (`--transforms`), one line per track:
    the transforms whose result is not the original's. (transformed tracks that gave the same, all of them)."""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("--transforms", default=",".join(transforms), help="comma-separated, of " + ", ".join(transforms))
    args = ap.parse_args(argv)
    from coach.pipeline import analyze_track
    from coach.pose_frame import load_posetrack

    names = args.transforms.split(",")
    same = total = 0
    for path in tracks():
        track = load_posetrack(path)
        base = analyze_track(track)
        differ = []
        for name in names:
            verdict = compare(base, analyze_track(transforms[name](track)), False)
            total += 1
            same += verdict.startswith("same")
            if not verdict.startswith("same"):
                differ.append(f"{name}: {verdict}")
        print(f"{path.name.split('.pose')[0]:40} {'; '.join(differ) or 'same under every transform'}", flush=True)
    return same, total


def main(argv: list[str] | None = None) -> int:
    same, total = run(__doc__, TRANSFORMS, argv)
    print(f"camera motion: {same}/{total} transformed tracks give the original's shots and verdicts")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
