"""How much the pose model's landmarks depend on its history (issue #17: why the model starts afresh where a
dense stretch begins, in the adaptive and the full-rate run alike, coach/sampling.py).

    python benchmarks/model_history.py                                   # clean_rh_3shots, frame 250 seen twice
    python benchmarks/model_history.py --video sample_videos/fault_hold.mp4 --at 100 --seconds 10

Runs MediaPipe (coach.pose.MediaPipePose, as the analysis does) over the clip twice, side by side: once on every
frame, once with frame --at seen twice. Each frame still gets its own picture; only the model's history differs,
by one frame, as it does after an adaptive run's look-back (coach/sampling.py). Prints, every 10 frames from
--at, the largest difference in the shoulders, elbows and wrists (px), and the largest of all in px and in
shoulder widths. MediaPipe follows its region of interest and smooths over the frames it saw: the difference
shrinks to a tenth of a pixel over a second of standing, and where the model can read a pose two ways (the draw
hand at the face) that tenth of a pixel can become tens of pixels.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from coach.capture import FrameSource  # noqa: E402
from coach.errors import CoachError  # noqa: E402
from coach.landmarks import INDEX, LEFT_SHOULDER, RIGHT_SHOULDER  # noqa: E402
from coach.pose import MediaPipePose  # noqa: E402

ARMS = [INDEX[f"{side}_{joint}"] for joint in ("shoulder", "elbow", "wrist") for side in ("left", "right")]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--video", type=Path, default=ROOT / "sample_videos" / "clean_rh_3shots.mp4")
    ap.add_argument("--at", type=int, default=250, help="the frame the second run's model sees twice")
    ap.add_argument("--seconds", type=float, default=8.0, help="how long after it to compare")
    args = ap.parse_args()
    try:
        source = FrameSource(args.video)  # the analysis' own reader: its frame numbers, times and rotation
    except CoachError as e:
        print(e)
        return 1
    end = args.at + int(args.seconds * source.fps)
    plain, perturbed = MediaPipePose(), MediaPipePose()
    rows: list[tuple[int, float, float]] = []  # frame, largest difference (px), shoulder width (px)
    with source:
        for frame in source:
            if frame.index >= end:
                break
            a = plain.estimate(frame)
            if frame.index == args.at:
                perturbed.estimate(frame)
            b = perturbed.estimate(frame)
            if frame.index >= args.at and a.landmarks is not None and b.landmarks is not None:
                size = (source.width, source.height)
                diff = np.abs(a.landmarks[ARMS, :2] - b.landmarks[ARMS, :2]) * size
                sw = float(np.hypot(*((a.landmarks[LEFT_SHOULDER, :2] - a.landmarks[RIGHT_SHOULDER, :2]) * size)))
                rows.append((frame.index, float(diff.max()), sw))
    plain.close()
    perturbed.close()
    if not rows:
        print(f"{args.video}: nobody found from frame {args.at} on")
        return 1
    print(f"{args.video.name}: frame {args.at} seen twice by the second run; largest arm difference (px) per frame:")
    for k in range(0, len(rows), 10):
        chunk = rows[k : k + 10]
        print(f"  {chunk[0][0]:5d}  " + " ".join(f"{d:6.2f}" for _, d, _ in chunk))
    f, d, _ = max(rows, key=lambda r: r[1])
    sw = float(np.median([r[2] for r in rows]))  # the archer's shoulder width, as the plain run read it
    print(f"largest: {d:.1f} px at frame {f} ({d / sw:.2f} of the archer's {sw:.0f} px shoulder width)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
