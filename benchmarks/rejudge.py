"""How long a coach waits for a correction: one shot re-judged from the kept pose track, with the session's
consistency rules, against what the model run over the same session would take.

    python benchmarks/rejudge.py [--copies 10] [--rounds 5]

The session is the committed three-shot track (tests/golden/clean_rh_3shots) played `--copies` times in a
row (30 shots by default), recorded into a temporary store as `coach analyze --archer` records it. Then one
shot's release is moved by 3 frames, `--rounds` times (best and median shown):
  - re-judge: `corrections.plan_correction` on the session's track already in memory (the dashboard's case);
  - apply: `corrections.apply_correction` from the store: reading and decoding the kept track, re-judging,
    and writing the correction in one transaction (the CLI's case).
Beside them: re-analysing the whole track without the model (`analyze_track`), and the model run itself
(MediaPipe on the sample clip's frames, scaled to the session's frame count).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from coach.pose_frame import PoseFrame, PoseTrack, load_posetrack, save_posetrack  # noqa: E402

TRACK = ROOT / "tests" / "golden" / "clean_rh_3shots.pose.json.gz"
VIDEO = ROOT / "sample_videos" / "clean_rh_3shots.mp4"


def repeated(track: PoseTrack, copies: int) -> PoseTrack:
    """The track played `copies` times in a row, frame numbers and times running on."""
    n = len(track.frames)
    dt = 1000.0 / track.fps
    frames = [
        PoseFrame(k * n + f.index, round(k * n * dt + f.t_ms, 2), f.landmarks)
        for k in range(copies)
        for f in track.frames
    ]
    return PoseTrack(track.fps, track.width, track.height, frames, source="rejudge-benchmark")


def model_fps(frames: int = 90) -> float:
    """MediaPipe's own speed here: decode + pose on the sample clip's first frames."""
    from coach.capture import FrameSource
    from coach.pose import make_estimator

    est = make_estimator()
    n = 0
    t0 = time.perf_counter()
    with FrameSource(VIDEO) as src:
        for frame in src:
            est.estimate(frame)
            n += 1
            if n >= frames:
                break
    dt = time.perf_counter() - t0
    est.close()
    return n / dt


def main(argv: list[str] | None = None) -> int:
    from coach.cli import main as coach
    from coach.corrections import Correction, apply_correction, plan_correction, session_track
    from coach.pipeline import analyze_track
    from coach.store import Store

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--copies", type=int, default=10, help="times the three-shot track is repeated")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--no-model", action="store_true", help="skip timing MediaPipe")
    args = ap.parse_args(argv)
    track = repeated(load_posetrack(TRACK), args.copies)
    with tempfile.TemporaryDirectory() as tmp:
        path, db = Path(tmp) / "session.pose.json", Path(tmp) / "bench.db"
        save_posetrack(track, path)
        t0 = time.perf_counter()
        analyze_track(track)
        full = time.perf_counter() - t0
        import contextlib
        import io

        with contextlib.redirect_stdout(io.StringIO()):
            coach(["analyze", "--pose-track", str(path), "--archer", "bench", "--handedness", "right", "--db", str(db)])
        with Store.open(db) as store:
            sid = store.sessions()[0].id
            shots = store.shots(sid)
            mid = len(shots) // 2
            t0 = time.perf_counter()
            st = session_track(store, sid)
            load = time.perf_counter() - t0
            session = store.session(sid)
            plan, apply, cpu = [], [], []
            for r in range(args.rounds):
                rel = shots[mid].result.release_frame + (3 if r % 2 == 0 else 0)
                c = Correction(sid, mid, "move", {"release": rel}, "bench")
                t0, c0 = time.perf_counter(), time.process_time()
                plan_correction(session, shots, st, c)
                plan.append(time.perf_counter() - t0)
                cpu.append(time.process_time() - c0)
                t0 = time.perf_counter()
                apply_correction(store, c)
                apply.append(time.perf_counter() - t0)
                shots = store.shots(sid)
                session = store.session(sid)
    n = len(track.frames)
    print(f"session: {len(shots)} shots, {n} frames ({n / track.fps:.0f} s at {track.fps:g} fps)")
    print(f"load + decode the kept track:             {load:.3f} s")
    print(
        f"re-judge one shot + the session (in memory): best {min(plan):.3f} s, median {statistics.median(plan):.3f} s "
        f"(CPU {min(cpu):.3f} s: the machine is shared)"
    )
    print(
        f"apply_correction from the store (CLI):      best {min(apply):.3f} s, median {statistics.median(apply):.3f} s"
    )
    print(f"re-analyse the whole track, no model:       {full:.2f} s")
    if not args.no_model:
        fps = model_fps()
        print(f"the model run over the session:             {n / fps:.1f} s (MediaPipe at {fps:.1f} fps here)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
