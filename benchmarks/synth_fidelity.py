"""Does MediaPipe Pose see the synthetic archer where the sidecar says it is?

Runs the bundled MediaPipe Pose model (full, model_complexity=1) on every clip in sample_videos/ and prints,
per clip, the detection rate and the median 2D error of shoulders, elbows, wrists, hips, knees and ankles
(landmarks 11-16, 23-28) against the ground truth, in shoulder widths (SW, from the truth, per frame).

    python benchmarks/synth_fidelity.py [--dir sample_videos] [--per-joint]

Exit code 1 if any clip misses the bar (detection >= 95 %, median error <= 0.10 SW).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from coach.synth.fidelity import BODY_JOINTS, measure  # noqa: E402

MIN_DETECTION = 0.95
MAX_MEDIAN_SW = 0.10


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dir", default=str(Path(__file__).resolve().parents[1] / "sample_videos"))
    ap.add_argument("--per-joint", action="store_true", help="also print each joint's median error")
    args = ap.parse_args()
    clips = sorted(p for p in Path(args.dir).glob("*.mp4") if p.with_suffix(".truth.json").exists())
    if not clips:
        print(f"no clips with sidecars in {args.dir}", file=sys.stderr)
        return 2
    head = f"{'clip':20s} {'frames':>6s} {'detected':>9s} {'median err (SW)':>16s}  ok"
    if args.per_joint:
        head += "  " + " ".join(f"{k:>5d}" for k in BODY_JOINTS)
    print(head)
    failed = 0
    t0 = time.time()
    for mp4 in clips:
        f = measure(mp4)
        ok = f.detection_rate >= MIN_DETECTION and f.median_error_sw <= MAX_MEDIAN_SW
        failed += not ok
        line = (
            f"{mp4.stem:20s} {f.frames:6d} {100 * f.detection_rate:8.1f}% {f.median_error_sw:16.3f}"
            f"  {'yes' if ok else 'NO'}"
        )
        if args.per_joint:
            line += "  " + " ".join(f"{f.per_joint_median_sw[k]:5.2f}" for k in BODY_JOINTS)
        print(line, flush=True)
    print(f"{len(clips)} clips, {failed} below the bar, {time.time() - t0:.0f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
