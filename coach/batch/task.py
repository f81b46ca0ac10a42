"""One video in, its store writes out: the task a worker process or a Ray worker runs (`analyse_task`), the
op-log standing in for the store there, and its replay into the real store by the parent."""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..errors import CoachError
from ..results import SessionReport

# One inference thread per worker: the workers are the parallelism. Set before the native libraries load.
THREAD_ENV = {
    "OMP_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "TF_NUM_INTRAOP_THREADS": "1",
    "TF_NUM_INTEROP_THREADS": "1",
}


# ---- the task ------------------------------------------------------------------------------------------
@dataclass(slots=True)
class Job:
    """One video to analyse; plain data so it pickles to a process or a Ray worker."""

    key: int
    path: str  # absolute, so a worker with another working directory finds it
    display: str  # as the user will recognise it
    archer: object  # coach.store.Archer (id valid in the parent's store)
    profile: dict  # Profile.to_json()
    pack_path: str | None
    model: str | None
    chash: str
    size: int
    attempts: int = 0
    full_rate: bool = False  # BatchOptions.full_rate


class StoreOpLog:
    """Stands in for `coach.store.Store` inside a worker: the `SessionRecorder` calls it as it would the
    store, and every call is kept, in order, for the parent to replay (`replay`). It has exactly the store
    methods the recorder writes with (`OPS`): any other call fails here, in the worker, not at replay.
    Only `begin_session` returns something (a placeholder id)."""

    def __init__(self) -> None:
        self.begin: tuple | None = None
        self.ops: list[tuple[str, tuple, dict]] = []

    def begin_session(self, archer, source, chash, pack, profile_json) -> int:
        self.begin = (archer, source, chash, profile_json)  # the parent passes its own (identical) pack
        return 0

    def set_session_media(self, sid: int, fps: float, width: int, height: int) -> None:
        self.ops.append(("set_session_media", (fps, width, height), {}))

    def record_shot(self, sid: int, shot, *, series=None, key_frames=()) -> None:
        self.ops.append(("record_shot", (shot,), {"series": series, "key_frames": list(key_frames)}))

    def finish_session(self, sid: int, report) -> None:
        self.ops.append(("finish_session", (report,), {}))

    def keep_pose_track(self, sid: int, blob: bytes) -> None:
        self.ops.append(("keep_pose_track", (blob,), {}))


# what a worker may ask the store to do
OPS = frozenset({"set_session_media", "record_shot", "finish_session", "keep_pose_track"})


def replay(store, oplog_begin: tuple, ops: Sequence[tuple[str, tuple, dict]], pack) -> int:
    """Write what a worker's `SessionRecorder` did into the real store; returns the session id."""
    archer, source, chash, profile_json = oplog_begin
    sid = store.begin_session(archer, source, chash, pack, profile_json)
    for name, args, kwargs in ops:
        if name not in OPS:
            raise ValueError(f"not a recorder's store operation: {name!r}")
        getattr(store, name)(sid, *args, **kwargs)
    return sid


_worker_state: dict = {}


def _limit_threads(threads: int = 1) -> None:
    """At most `threads` threads for OpenMP/BLAS/OpenCV in this worker (0: leave the libraries' defaults).
    Measured (benchmarks/batch_scaling.py): the pose model costs the same CPU per frame either way — it
    is effectively one thread — so the limit only keeps OpenCV's pool from oversubscribing the cores."""
    if threads <= 0:
        return
    for k in THREAD_ENV:
        os.environ.setdefault(k, str(threads))
    try:
        import cv2

        cv2.setNumThreads(threads)
    except ImportError:  # pragma: no cover - cv2 comes with mediapipe
        pass


MALLOC_ARENAS = 2
_M_ARENA_MAX = -8  # glibc's mallopt parameter number (malloc.h)


def few_malloc_arenas(arenas: int = MALLOC_ARENAS) -> None:
    """At most `arenas` malloc arenas in this process (glibc; elsewhere nothing happens). glibc gives threads
    that allocate at once arenas of their own, up to 8 a core, and keeps what is freed in each: a worker
    analysing video after video (a decoder and the model on two threads, frames of every size) held more each
    time (benchmarks/batch_scaling.py --many). Call before the threads start; 0 leaves glibc's default."""
    import ctypes

    if arenas <= 0:
        return
    try:
        ctypes.CDLL("libc.so.6").mallopt(_M_ARENA_MAX, arenas)
    except (OSError, AttributeError):  # not glibc (musl, macOS): its allocator is its own
        pass


def _watch_parent(parent_pid: int) -> None:
    """Exit when the parent is gone (SIGKILL, crash): a spawned pool worker would otherwise wait forever
    on its task queue, or analyse a video nobody will collect."""
    while True:
        time.sleep(1.0)
        if os.getppid() != parent_pid:
            os._exit(0)


def worker_init(
    progress_queue=None, threads: int = 1, parent_pid: int | None = None, malloc_arenas: int = MALLOC_ARENAS
) -> None:
    """Process-pool initializer: thread limits, malloc arenas (`few_malloc_arenas`; 0: glibc's own), progress
    channel, parent watchdog."""
    _limit_threads(threads)
    few_malloc_arenas(malloc_arenas)
    # Ctrl-C is the parent's to handle: it stops the workers itself and reports what is done
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if progress_queue is not None:
        progress_queue.cancel_join_thread()  # a worker's exit never waits on unread progress messages
    _worker_state["queue"] = progress_queue
    if parent_pid is not None:
        threading.Thread(target=_watch_parent, args=(parent_pid,), daemon=True, name="parent-watch").start()


def _pack(path: str | None):
    cache = _worker_state.setdefault("packs", {})
    if path not in cache:
        from posture_rules.pack import load_pack

        cache[path] = load_pack(path)
    return cache[path]


def _maxrss_mb() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # Linux: kB


@dataclass(frozen=True, slots=True)
class VideoProgress:
    """A worker's word on a running video, sent at most every `PROGRESS_EVERY_S`: how much of the video's own
    time the analysis has covered (every frame decoded counts, whether or not the model ran on it: adaptive
    analysis skims idle stretches, so frames analysed would say little about how far along a video is)."""

    key: int
    covered_s: float
    total_s: float | None  # None: the container does not say how long the video is


PROGRESS_EVERY_S = 0.5


@dataclass(slots=True)
class TaskResult:
    """What a worker hands back for one video: its store writes to replay (`begin`, `ops`) and the report when
    it worked, the problem in one line when it did not, and what the video cost the worker."""

    key: int
    pid: int
    ok: bool = False
    frames: int = 0
    error: str = ""
    begin: tuple | None = None
    ops: list[tuple[str, tuple, dict]] = field(default_factory=list)
    report: SessionReport | None = None
    seconds: float = 0.0
    maxrss_mb: float = 0.0
    video_s: float = 0.0  # the video's own time covered (all of it when `ok`)


def analyse_task(job: Job) -> TaskResult:
    """Analyse one video (in a worker). Never raises for a bad video: the outcome says what went wrong."""
    from posture_rules.pack import Profile

    from ..pipeline import analyze_video
    from ..recording import SessionRecorder

    t0 = time.perf_counter()
    out = TaskResult(job.key, os.getpid())
    progress = _progress_sender(job, out, _worker_state.get("queue"))
    recorder = None
    try:
        pack = _pack(job.pack_path)
        profile = Profile.from_json(job.profile)
        log = StoreOpLog()
        recorder = SessionRecorder(log, job.archer, job.path, pack, profile, chash=job.chash)
        report = analyze_video(
            job.path,
            pack=pack,
            profile=profile,
            model=job.model,
            on_shot=[recorder.on_shot],
            on_pose=[recorder.on_pose],
            progress=progress,
            full_rate=job.full_rate,
        )
        recorder.finish(report)
        recorder = None
        out.ok, out.begin, out.ops, out.report, out.frames = True, log.begin, log.ops, report, report.frame_count
        out.video_s = report.frame_count / report.fps if report.fps else out.video_s
    except CoachError as e:
        out.error = e.problem
    except Exception as e:  # one bad file never stops the batch
        out.error = f"{type(e).__name__}: {e}".splitlines()[0]
    finally:
        if recorder is not None:
            recorder.close()
    out.seconds = time.perf_counter() - t0
    out.maxrss_mb = _maxrss_mb()
    return out


def _progress_sender(job: Job, out: TaskResult, queue):
    """The `progress(frames covered, total)` callback for `analyze_video`: keeps `out` up to date and, at most
    every PROGRESS_EVERY_S, tells the parent how much of the video's time is covered (`VideoProgress`)."""
    if queue is None:  # nobody to tell (Ray): count only

        def count(n: int, total: int | None) -> None:
            out.frames = n

        return count
    fps = _frame_rate(job.path)
    last = [float("-inf")]

    def progress(n: int, total: int | None) -> None:
        out.frames, out.video_s = n, n / fps
        now = time.monotonic()
        if now - last[0] >= PROGRESS_EVERY_S:
            last[0] = now
            msg = VideoProgress(job.key, n / fps, total / fps if total else None)
            with contextlib.suppress(Exception):  # progress is a nicety; never fail a video for it
                queue.put_nowait(msg)

    return progress


def _frame_rate(path: str) -> float:
    """The rate the analysis reads the video at (coach/capture.py), to turn frames covered into seconds. A video
    that cannot be opened gets the nominal 30: the analysis then reports what is wrong with it."""
    from ..capture import FrameSource

    try:
        with FrameSource(path) as src:
            return src.fps
    except Exception:
        return 30.0


def _ray_task(job: Job) -> TaskResult:
    if not _worker_state.get("ray_ready"):
        _limit_threads(1)
        few_malloc_arenas()  # a Ray worker, too, analyses video after video
        _worker_state["ray_ready"] = True
    return analyse_task(job)
