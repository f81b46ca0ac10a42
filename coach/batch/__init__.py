"""Batch analysis: every video under some folders, in parallel, into the session store; resumable.

    coach batch clips/ more.mp4 --workers 2 --archer-from-folder --out summary.csv

One task — `analyse_task(job)`: one video in, its store writes out — runs on a local process pool
(`concurrent.futures.ProcessPoolExecutor`, "spawn": MediaPipe is not fork-safe) or on a Ray cluster
(`--engine ray`). The parent lists the videos, hashes each one just before handing it out (so hashing
overlaps analysis), skips what the store already holds, keeps a bounded number of tasks in flight (memory
does not grow with the size of the batch), shows progress with an ETA, writes each finished video to the
store and prints a summary at the end.

Who writes SQLite — the parent only. Workers run the store's own `SessionRecorder` (so series, key frames
and the report are made by exactly the code `coach analyze --archer` uses) against `StoreOpLog`, which
records the recorder's store calls instead of running them; the parent replays them into the real store.
Why not let each worker write its own session (WAL would allow it, writers taking turns via busy_timeout)?
  * it is the only design that works unchanged on a Ray cluster: a worker on another machine cannot open
    the SQLite file (WAL needs shared memory on one host; SQLite over network file systems corrupts);
  * one writer: no lock waits and no "database is locked" under load, whatever the number of workers;
  * resumption is per video anyway: re-analysing a half-recorded video starts again at frame 0 (the
    recorder replaces shots by index), so committing shot by shot from the worker would buy nothing.
A video's writes are a handful of short transactions (begin, one per shot, finish). A kill between them
leaves the session marked incomplete; the next run analyses that video again, reusing the same session row
(keyed by archer + content hash) and replacing its shots — nothing is duplicated, nothing lost. Readers (the
dashboard, `coach sessions`) keep reading while the batch writes: that is what WAL is for.

Memory stays flat in video length: frames are streamed by `analyze_video` and never held; what a worker keeps
is per shot (the shot, its metric series, two JPEG key frames ≈ 0.1–0.2 MB), and the parent holds at most
`2 × workers` results at a time.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from ..errors import CoachError
from .discovery import UNASSIGNED_ARCHER, VIDEO_EXTENSIONS, archer_from_folder, find_videos
from .options import BatchOptions, default_workers
from .progress import ProgressLine
from .runners import _run_pool, _run_ray
from .summary import (
    DONE,
    DUPLICATE,
    FAILED,
    SKIPPED,
    BatchResult,
    Outcome,
    format_summary,
    session_summary,
    summary_csv,
    write_csv,
)
from .task import OPS, Job, StoreOpLog, TaskResult, analyse_task, replay, worker_init

__all__ = [
    "DONE",
    "DUPLICATE",
    "FAILED",
    "OPS",
    "SKIPPED",
    "UNASSIGNED_ARCHER",
    "VIDEO_EXTENSIONS",
    "BatchOptions",
    "BatchResult",
    "Job",
    "Outcome",
    "StoreOpLog",
    "TaskResult",
    "analyse_task",
    "archer_from_folder",
    "default_workers",
    "find_videos",
    "format_summary",
    "replay",
    "run_batch",
    "session_summary",
    "summary_csv",
    "worker_init",
    "write_csv",
]


# ---- the batch -----------------------------------------------------------------------------------------
def run_batch(paths: Sequence[str | os.PathLike], opts: BatchOptions, *, task: Callable | None = None) -> BatchResult:
    """Analyse every video under `paths` into the store (`opts.db`); see the module docstring."""
    from posture_rules.pack import load_pack

    from ..store import Store

    videos = find_videos(paths)
    if not videos:
        raise CoachError(
            ", ".join(map(str, paths)), f"no video files found (looked for {', '.join(sorted(VIDEO_EXTENSIONS))})"
        )
    pack = load_pack(opts.pack_path)
    workers = opts.workers or default_workers()
    if workers < 1:
        raise CoachError(None, f"--workers must be at least 1, not {workers}")
    t_start = time.monotonic()
    run = _BatchRun(videos, opts, Store.open(opts.db), pack, ProgressLine(len(videos), enabled=opts.progress))
    interrupted = False
    try:
        run.bar.start_clock()
        runner = _run_ray if opts.engine == "ray" else _run_pool
        runner(run.jobs(), opts, workers, run.collect, run.crashed, run.bar, task)
    except KeyboardInterrupt:
        interrupted = True
    finally:
        run.bar.close()
        run.store.close()
    for o in run.outcomes:
        if o.status == "pending":
            o.status, o.note = "not run", "interrupted" if interrupted else ""
    rules = [r.id for r in pack.rules]
    return BatchResult(run.outcomes, rules, time.monotonic() - t_start, workers, opts.engine, interrupted)


class _BatchRun:
    """The parent's side of one batch: hands out jobs, writes each finished video to the store (the only
    writer), and keeps one outcome per video."""

    def __init__(self, videos: list[Path], opts: BatchOptions, store, pack, bar: ProgressLine):
        from ..safe_io import printable

        self.videos, self.opts, self.store, self.pack, self.bar = videos, opts, store, pack, bar
        # names as printable text: an undecodable byte or an escape sequence must not reach the terminal or CSV
        self.outcomes: list[Outcome] = [Outcome(printable(v), "", "pending") for v in videos]
        self.archers: dict[str, tuple] = {}  # name -> (Archer, Profile)
        self.queued: dict[tuple[int, str], int] = {}  # (archer id, content hash) -> key of the first video with it

    def archer_for(self, v: Path) -> tuple:
        from ..recording import ProfileChoice, ensure_archer

        opts = self.opts
        name = opts.archer or (archer_from_folder(v) if opts.archer_from_folder else UNASSIGNED_ARCHER)
        if name not in self.archers:
            # as `coach analyze --archer`: profile flags given on the command line are saved to the archer,
            # otherwise the archer's saved profile is used
            self.archers[name] = ensure_archer(self.store, name, ProfileChoice(**opts.profile_overrides))
        return self.archers[name]

    def jobs(self):
        """Hash, check the store and yield jobs lazily, so hashing overlaps the analysis."""
        from ..safe_io import require_regular_file
        from ..store import content_hash

        store, bar, opts = self.store, self.bar, self.opts
        for key, v in enumerate(self.videos):
            o = self.outcomes[key]
            try:
                # regular, readable, UTF-8-named files only, checked before anything else: a FIFO would block
                # the hashing forever, and a name OpenCV crashes on must not become the "first" of its
                # content (its valid copies would be called duplicates of a video never analysed)
                require_regular_file(v, "video file")
                archer, profile = self.archer_for(v)
                o.archer = archer.name
                size = v.stat().st_size
                chash = content_hash(v)
            except CoachError as e:
                o.status, o.error = FAILED, e.problem
                bar.video_skipped(f"error    {o.path}: {e.problem}")
                continue
            except OSError as e:
                o.status, o.error = FAILED, f"cannot be read ({e.strerror or type(e).__name__})"
                bar.video_skipped(f"error    {o.path}: {o.error}")
                continue
            sid = None if opts.force else store.completed_session(archer.id, chash, self.pack)
            if sid is not None:
                o.status, o.session = SKIPPED, sid
                o.shots, o.frames, o.faults, o.note = session_summary(store, sid)
                bar.video_skipped(f"skipped  {o.path} (already in the store: session {sid})")
                continue
            first = self.queued.get((archer.id, chash))
            if first is not None:  # a copy of a video in this batch: one session per archer and content
                o.status, o.note = DUPLICATE, f"same content as {self.outcomes[first].path}"
                bar.video_skipped(f"dup      {o.path} (same content as {self.outcomes[first].path})")
                continue
            self.queued[(archer.id, chash)] = key
            bar.add_work(size)
            yield Job(
                key=key,
                path=str(v.resolve()),
                display=str(v),
                archer=archer,
                profile=profile.to_json(),
                pack_path=opts.pack_path,
                model=opts.model,
                chash=chash,
                size=size,
                full_rate=opts.full_rate,
            )

    def collect(self, job: Job, res: TaskResult) -> None:
        o = self.outcomes[job.key]
        o.seconds, o.worker_maxrss_mb, o.worker_pid = res.seconds, res.maxrss_mb, res.pid
        if not res.ok:
            o.status, o.error = FAILED, res.error or "failed"
            self.bar.video_done(job.key, job.size, res.video_s, f"error    {o.path}: {o.error}", failed=True)
            return
        sid = replay(self.store, res.begin, res.ops, self.pack)
        o.status, o.session = DONE, sid
        o.shots, o.frames, o.faults, o.note = session_summary(self.store, sid)
        o.frames = res.report.frame_count
        self.bar.video_done(
            job.key,
            job.size,
            res.video_s,
            f"done     {o.path}: {o.shots} shot(s), {sum(o.faults.values())} fault(s)"
            f"{f' — {o.note}' if o.note else ''} [{res.seconds:.1f} s]",
        )

    def crashed(self, job: Job, why: str) -> None:
        o = self.outcomes[job.key]
        o.status, o.error = FAILED, why
        self.bar.video_done(job.key, job.size, 0, f"error    {o.path}: {why}", failed=True)
