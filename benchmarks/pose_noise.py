"""The same shots seen through a noisier pose: every real track (../shared/realpose) and committed golden track
with its landmarks jittered, frames lost at random, frames repeated, and frames taken unevenly (a phone's variable
frame rate: each frame up to a quarter of the frame interval early or late; coach/track_transforms.py), analysed as
`coach analyze --pose-track` does. Printed per track: the transforms whose result is not the original's (same
shots, releases ±1 frame, no fault the original lacks; benchmarks/metamorphic.py `compare`), and a summary line.

    python benchmarks/pose_noise.py

Another camera, another archer's size in the picture, another light give MediaPipe's points more jitter: the
real tracks' draw hand moves 0.005-0.034 shoulder widths from frame to frame in a steady hold, the synthetic
archer's 0.001. A release placed by a threshold one noisy frame can cross moves with it; these transforms find
such places without new labels.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from camera_motion import run  # noqa: E402

from coach.track_transforms import dropouts, jitter, repeated, uneven_times  # noqa: E402

TRANSFORMS = {
    **{f"jitter.01/{s}": (lambda t, s=s: jitter(t, 0.01, s)) for s in (1, 2)},
    **{f"jitter.02/{s}": (lambda t, s=s: jitter(t, 0.02, s)) for s in (1, 2)},
    **{f"drop5%/{s}": (lambda t, s=s: dropouts(t, 0.05, s)) for s in (1, 2)},
    "repeat/5": lambda t: repeated(t, 5),
    "uneven/1": lambda t: uneven_times(t, 0.25, 1),
}


def main(argv: list[str] | None = None) -> int:
    same, total = run(__doc__, TRANSFORMS, argv)
    print(f"pose noise: {same}/{total} noisier tracks give the original's shots and verdicts")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
