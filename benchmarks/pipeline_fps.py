"""Raw MediaPipe fps vs whole-pipeline fps on the same clip, measured side by side in one run.

    python benchmarks/pipeline_fps.py [VIDEO] [--rounds N] [--handedness right|left]

"raw" = decode + the bundled pose model; "pipeline" = the same plus smoothing, kinematics, phases and the
rule engine (coach.analyzer.Analyzer). Rounds alternate raw / pipeline so both see the same machine noise;
the best round of each is compared. The ratio is what matters on a noisy 2-core machine. --handedness analyses
as for an archer's profile that gives the hand (the tracker then also watches the other hand's full draws).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from coach.analyzer import Analyzer  # noqa: E402
from coach.capture import FrameSource  # noqa: E402
from coach.pose import make_estimator  # noqa: E402
from posture_rules.pack import Profile  # noqa: E402


def run(path: Path, with_pipeline: bool, profile: Profile) -> tuple[float, int, int]:
    est = make_estimator()
    src = FrameSource(path)
    analyzer = (
        Analyzer(src.fps, src.width, src.height, profile=profile, mode="recorded", source=str(path))
        if with_pipeline
        else None
    )
    n = 0
    t0 = time.perf_counter()
    with src:
        for frame in src:
            pf = est.estimate(frame)
            if analyzer is not None:
                analyzer.push_pose(pf)
            n += 1
    shots = len(analyzer.finish().shots) if analyzer is not None else 0
    dt = time.perf_counter() - t0
    est.close()
    return n / dt, n, shots


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("video", nargs="?", default=str(ROOT / "sample_videos" / "clean_rh_3shots.mp4"))
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--handedness", choices=("right", "left"), default=None)
    args = ap.parse_args()
    path = Path(args.video)
    profile = Profile(handedness=args.handedness)
    raw, pipe = [], []
    for r in range(args.rounds):
        fps_raw, n, _ = run(path, False, profile)
        fps_pipe, _, shots = run(path, True, profile)
        raw.append(fps_raw)
        pipe.append(fps_pipe)
        print(f"round {r + 1}: raw {fps_raw:6.1f} fps   pipeline {fps_pipe:6.1f} fps   ({n} frames, {shots} shots)")
    best_raw, best_pipe = max(raw), max(pipe)
    print(f"clip: {path.name}")
    print(f"raw MediaPipe fps:  {best_raw:.1f}")
    print(f"whole-pipeline fps: {best_pipe:.1f}")
    print(f"ratio pipeline/raw: {best_pipe / best_raw:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
