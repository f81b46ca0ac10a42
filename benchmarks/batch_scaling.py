"""Batch throughput with 1 and 2 worker processes, peak memory per worker, and memory vs video length.

    python benchmarks/batch_scaling.py [CLIP] [--videos N] [--long-repeat K] [--compare-threads] [--compare-full-rate]
    python benchmarks/batch_scaling.py /tmp/coach_long_session/long_session_10min_12shots_720p.mp4 --videos 2 \
        --skip-memory --compare-full-rate      # what adaptive analysis gains a batch of whole sessions (#17)

Part 1 — scaling: N copies of CLIP (each in its own archer folder, so none is a duplicate of another) go
through `coach.batch.run_batch` — the real path: hashing, store lookups, spawn workers, store writes — once
with 1 worker and once with 2, each into a fresh store. Printed: videos/min, frames/s, CPU seconds per frame
(all worker processes), speed-up, and the peak RSS each worker reported (`ru_maxrss`, which includes the
model and the decoder). Worker start-up (spawn + importing MediaPipe) is part of the wall time, as it is for
a user. With --compare-threads the 2-worker run is repeated without the one-thread-per-worker limits; with
--compare-full-rate, with the model on every frame (each worker's adaptive analysis has two busy threads, the
scout's and the analysis', so a batch with a worker on every core gains what the CPU time says, not the wall time
of one video).

Part 2 — flat memory: CLIP and a clip K times as long (CLIP concatenated K times with coach.video_io), each
with a 48 kHz sound track as long as the video (--no-audio: without), are each analysed in a fresh worker
process; its peak RSS is compared.

Part 3 — many videos in one worker (--many N): one worker analyses CLIP N times, as a long batch has it do, once
with the worker's few malloc arenas (coach.batch.task.few_malloc_arenas) and once with glibc's default; its peak
RSS after the first video and after the last, and the CPU time per video, side by side.

The machine's load average is printed before and after: on a shared 2-core machine other processes take
cores too and the speed-up says more about them than about the batch.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from coach.batch import DONE, BatchOptions, Job, analyse_task, run_batch, worker_init  # noqa: E402


def children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def scaling_run(folder: Path, workers: int, threads: int, tmp: Path, full_rate: bool = False) -> dict:
    db = tmp / f"bench_{workers}w_{threads}t{'_full' if full_rate else ''}.db"
    db.unlink(missing_ok=True)
    cpu0 = children_cpu()
    t0 = time.perf_counter()
    options = BatchOptions(workers=workers, archer_from_folder=True, db=db, progress=False)
    res = run_batch([folder], replace(options, threads_per_worker=threads, full_rate=full_rate))
    wall = time.perf_counter() - t0
    cpu = children_cpu() - cpu0
    done = [o for o in res.outcomes if o.status == DONE]
    if len(done) != len(res.outcomes):
        bad = [(o.path, o.status, o.error) for o in res.outcomes if o.status != DONE]
        raise SystemExit(f"benchmark videos did not all analyse: {bad}")
    frames = sum(o.frames or 0 for o in done)
    rss: dict[int, float] = {}
    for o in done:
        rss[o.worker_pid] = max(rss.get(o.worker_pid, 0.0), o.worker_maxrss_mb or 0.0)
    return {
        "workers": workers,
        "videos": len(done),
        "frames": frames,
        "wall": wall,
        "videos_per_min": len(done) / wall * 60,
        "fps": frames / wall,
        "cpu_per_frame_ms": cpu / frames * 1000 if frames else float("nan"),
        "cores_used": cpu / wall,
        "worker_rss": sorted(rss.values()),
    }


def concat_clip(src: Path, dst: Path, repeat: int, audio: bool) -> int:
    """`src`'s frames `repeat` times (coach.video_io.VideoWriter), then, with `audio`, a 48 kHz mono AAC track
    as long as the video muxed in beside it (a phone video always has sound; the pipeline decodes it)."""
    from coach.capture import FrameSource
    from coach.video_io import VideoWriter, read_frames

    with FrameSource(src) as fs:
        fps, w, h = fs.fps, fs.width, fs.height
    n = 0
    silent = dst.with_name(dst.stem + ".video.mp4") if audio else dst
    with VideoWriter(silent, w, h, fps, preset="veryfast") as vw:
        for _ in range(repeat):
            for img in read_frames(src):
                vw.write(img)
                n += 1
    if audio:
        add_noise_audio(silent, dst, n / fps)
        silent.unlink()
    return n


def add_noise_audio(video: Path, dst: Path, seconds: float, rate: int = 48000) -> None:
    import av
    import numpy as np

    rng = np.random.default_rng(0)
    with av.open(str(video)) as inp, av.open(str(dst), "w", format="mp4") as out:
        vin = inp.streams.video[0]
        vout = out.add_stream_from_template(vin)
        aout = out.add_stream("aac", rate=rate)
        aout.layout = "mono"
        for pkt in inp.demux(vin):
            if pkt.dts is None:
                continue
            pkt.stream = vout
            out.mux(pkt)
        pts, block = 0, 1024
        while pts < seconds * rate:
            frame = av.AudioFrame.from_ndarray(
                (rng.standard_normal((1, block)) * 0.05).astype(np.float32), format="fltp", layout="mono"
            )
            frame.sample_rate, frame.pts = rate, pts
            pts += block
            for p in aout.encode(frame):
                out.mux(p)
        for p in aout.encode(None):
            out.mux(p)


def _job(path: Path) -> Job:
    from coach.store import Archer, content_hash

    return Job(
        key=0,
        path=str(path.resolve()),
        display=path.name,
        archer=Archer(1, "bench", None, "mediterranean", "club", {}),
        profile={},
        pack_path=None,
        model=None,
        chash=content_hash(path),
        size=path.stat().st_size,
    )


def peak_rss_alone(path: Path) -> tuple[float, int, float]:
    """Analyse one video in a fresh spawned worker; (its peak RSS in MB, frames, seconds)."""
    import multiprocessing as mp
    from concurrent.futures import ProcessPoolExecutor

    ctx = mp.get_context("spawn")
    job = _job(path)
    with ProcessPoolExecutor(1, mp_context=ctx, initializer=worker_init, initargs=(None, 1, os.getpid())) as ex:
        res = ex.submit(analyse_task, job).result()
    if not res.ok:
        raise SystemExit(f"{path}: {res.error}")
    return res.maxrss_mb, res.frames, res.seconds


def many_in_one_worker(clip: Path, n: int, arenas: int) -> dict:
    """`clip` analysed `n` times by one spawned worker with `arenas` malloc arenas (0: glibc's default)."""
    import multiprocessing as mp
    from concurrent.futures import ProcessPoolExecutor

    job = _job(clip)
    rss = []
    cpu0 = children_cpu()
    init = (None, 1, os.getpid(), arenas)
    with ProcessPoolExecutor(1, mp_context=mp.get_context("spawn"), initializer=worker_init, initargs=init) as ex:
        for k in range(n):
            res = ex.submit(analyse_task, replace(job, key=k)).result()
            if not res.ok:
                raise SystemExit(f"{clip}: {res.error}")
            rss.append(res.maxrss_mb)
    return {"first": rss[0], "last": rss[-1], "cpu_per_video": (children_cpu() - cpu0) / n}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("clip", nargs="?", default=str(ROOT / "sample_videos" / "short_1shot.mp4"))
    ap.add_argument("--videos", type=int, default=6, help="copies of the clip in the scaling runs (default 6)")
    ap.add_argument("--long-repeat", type=int, default=6, help="the long clip is the clip this many times")
    ap.add_argument("--compare-threads", action="store_true", help="also run 2 workers without thread limits")
    ap.add_argument("--compare-full-rate", action="store_true", help="also run 2 workers with --full-rate")
    ap.add_argument("--no-audio", action="store_true", help="memory clips without a sound track")
    ap.add_argument("--skip-scaling", action="store_true")
    ap.add_argument("--skip-memory", action="store_true")
    ap.add_argument("--many", type=int, default=0, help="also: one worker analyses the clip N times (part 3)")
    args = ap.parse_args()
    clip = Path(args.clip)
    if not clip.is_file():
        raise SystemExit(f"{clip}: no such clip (render one with `coach synth --scenario short_1shot`)")
    tmp = Path(tempfile.mkdtemp(prefix="batch_bench_"))
    print(f"clip: {clip} ({clip.stat().st_size / 1e3:.0f} kB); cores: {os.cpu_count()}")
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    try:
        if not args.skip_scaling:
            folder = tmp / "videos"
            for i in range(args.videos):
                (folder / f"archer{i:02d}").mkdir(parents=True)
                shutil.copyfile(clip, folder / f"archer{i:02d}" / clip.name)
            runs = [("1 worker", scaling_run(folder, 1, 1, tmp)), ("2 workers", scaling_run(folder, 2, 1, tmp))]
            if args.compare_threads:
                runs.append(("2 workers, no limits", scaling_run(folder, 2, 0, tmp)))
            if args.compare_full_rate:
                runs.append(("2 workers, full rate", scaling_run(folder, 2, 1, tmp, full_rate=True)))
            by = dict(runs)
            print(
                f"\n{'':22}{'videos/min':>11}{'frames/s':>10}{'CPU ms/frame':>14}{'cores used':>11}{'wall s':>8}"
                "  peak RSS per worker"
            )
            for label, r in runs:
                rss = ", ".join(f"{x:.0f} MB" for x in r["worker_rss"])
                print(
                    f"{label:22}{r['videos_per_min']:11.2f}{r['fps']:10.1f}{r['cpu_per_frame_ms']:14.1f}"
                    f"{r['cores_used']:11.2f}{r['wall']:8.1f}  {rss}"
                )
            print(f"({by['1 worker']['videos']} videos, {by['1 worker']['frames']} frames per run)")
            print(f"speed-up 2 workers / 1 worker: {by['2 workers']['fps'] / by['1 worker']['fps']:.2f}x")
            print(
                "  (cores used = worker CPU seconds / wall seconds: well below the worker count means other "
                "processes had the cores)"
            )
            if args.compare_threads:
                print(
                    f"speed-up 2 workers without thread limits: {by['2 workers, no limits']['fps'] / by['1 worker']['fps']:.2f}x"
                )
            if args.compare_full_rate:
                full = by["2 workers, full rate"]
                print(
                    f"adaptive / full rate, 2 workers each: {by['2 workers']['fps'] / full['fps']:.2f}x the frames/s "
                    "(videos covered, not frames the model saw)"
                )
        if not args.skip_memory:
            short_clip, long_clip = tmp / "short_1x.mp4", tmp / f"long_{args.long_repeat}x.mp4"
            concat_clip(clip, short_clip, 1, not args.no_audio)
            n_long = concat_clip(clip, long_clip, args.long_repeat, not args.no_audio)
            short_rss, n_short, t_short = peak_rss_alone(short_clip)
            long_rss, n_long2, t_long = peak_rss_alone(long_clip)
            sound = "video only" if args.no_audio else "with a 48 kHz sound track"
            print(f"\nflat memory (one fresh worker per clip, {sound}):")
            print(f"  short clip {n_short:6d} frames: peak RSS {short_rss:6.0f} MB  ({t_short:.1f} s)")
            print(f"  long clip  {n_long2:6d} frames: peak RSS {long_rss:6.0f} MB  ({t_long:.1f} s)")
            print(
                f"  {n_long2 / max(n_short, 1):.1f}x the frames -> {long_rss / short_rss:.3f}x the peak RSS "
                f"(+{long_rss - short_rss:.1f} MB)"
            )
            assert n_long == n_long2, (n_long, n_long2)
        if args.many:
            print(f"\n{args.many} videos in one worker ({clip.name} each time):")
            for label, arenas in (("2 malloc arenas (the worker's)", 2), ("glibc's default arenas", 0)):
                r = many_in_one_worker(clip, args.many, arenas)
                print(
                    f"  {label:32} peak RSS {r['first']:6.0f} MB after 1, {r['last']:6.0f} MB after {args.many}; "
                    f"CPU {r['cpu_per_video']:.2f} s a video"
                )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
