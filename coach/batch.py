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

import contextlib
import io
import os
import signal
import sys
import threading
import time
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .errors import CoachError
from .safe_io import FormulaSafeWriter

VIDEO_EXTENSIONS = frozenset(
    {".mp4", ".m4v", ".mov", ".avi", ".mkv", ".webm", ".mts", ".m2ts", ".3gp", ".mpg", ".mpeg", ".wmv", ".flv"}
)
UNASSIGNED_ARCHER = "unassigned"  # sessions of a batch run without --archer / --archer-from-folder

# One inference thread per worker: the workers are the parallelism. Set before the native libraries load.
THREAD_ENV = {
    "OMP_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "TF_NUM_INTRAOP_THREADS": "1",
    "TF_NUM_INTEROP_THREADS": "1",
}

DONE, SKIPPED, FAILED, DUPLICATE = "done", "skipped", "error", "duplicate"


# ---- finding the videos ----------------------------------------------------------------------------------
def find_videos(paths: Iterable[str | os.PathLike], extensions: frozenset[str] = VIDEO_EXTENSIONS) -> list[Path]:
    """Every video under the paths, recursively: a folder's files, then its sub-folders, each sorted by name.
    A file named directly is always taken; hidden files and folders are left out; a path given twice (or
    inside another) is listed once."""
    out: list[Path] = []
    seen: set[Path] = set()

    def add(p: Path) -> None:
        try:
            key = p.resolve()
        except (OSError, RuntimeError):  # a symlink loop: listed, and failed alone with its reason later
            key = Path(os.path.abspath(p))
        if key not in seen:
            seen.add(key)
            out.append(p)

    for raw in paths:
        p = Path(raw)
        if p.is_file():
            add(p)
        elif p.is_dir():
            for dirpath, dirnames, filenames in os.walk(p, followlinks=False):
                dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
                for name in sorted(filenames):
                    if not name.startswith(".") and Path(name).suffix.lower() in extensions:
                        add(Path(dirpath) / name)
        elif not p.exists():
            raise CoachError(p, "no such file or folder")
        else:
            raise CoachError(p, "is neither a file nor a folder")
    return out


def archer_from_folder(path: Path) -> str:
    """The archer a video belongs to under --archer-from-folder: the name of the folder holding it."""
    name = path.resolve().parent.name
    if not name:
        raise CoachError(path, "is not inside a folder named after an archer (--archer-from-folder)")
    return name


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


class StoreOpLog:
    """Stands in for `coach.store.Store` inside a worker: the `SessionRecorder` calls it as it would the
    store, and every call is kept, in order, for the parent to replay (`replay`). Only `begin_session`
    returns something (a placeholder id); every other method is recorded whatever its name, so a method the
    store adds later is carried over too."""

    def __init__(self) -> None:
        self.begin: tuple | None = None
        self.ops: list[tuple[str, tuple, dict]] = []

    def begin_session(self, archer, source, chash, pack, profile_json) -> int:
        self.begin = (archer, source, chash, profile_json)  # the parent passes its own (identical) pack
        return 0

    def ensure_archer(self, name, **kw):  # the parent always hands over an Archer; never reached
        raise RuntimeError("StoreOpLog: give SessionRecorder an Archer, not a name")

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)

        def record(sid, *args, **kwargs):
            self.ops.append((name, args, kwargs))

        return record


def replay(store, oplog_begin: tuple, ops: Sequence[tuple[str, tuple, dict]], pack) -> int:
    """Write what a worker's `SessionRecorder` did into the real store; returns the session id."""
    archer, source, chash, profile_json = oplog_begin
    sid = store.begin_session(archer, source, chash, pack, profile_json)
    for name, args, kwargs in ops:
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


def _watch_parent(parent_pid: int) -> None:
    """Exit when the parent is gone (SIGKILL, crash): a spawned pool worker would otherwise wait forever
    on its task queue, or analyse a video nobody will collect."""
    while True:
        time.sleep(1.0)
        if os.getppid() != parent_pid:
            os._exit(0)


def worker_init(progress_queue=None, threads: int = 1, parent_pid: int | None = None) -> None:
    """Process-pool initializer: thread limits, progress channel, parent watchdog."""
    _limit_threads(threads)
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


def profile_from_json(d: dict):
    from types import MappingProxyType

    from posture_rules.pack import Profile

    hand = d.get("handedness")
    return Profile(
        handedness=None if hand in (None, "auto") else hand,
        draw_style=d.get("draw_style", "mediterranean"),
        tolerance=d.get("tolerance", "club"),
        overrides=MappingProxyType({k: dict(v) for k, v in (d.get("overrides") or {}).items()}),
    )


def _maxrss_mb() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # Linux: kB


def analyse_task(job: Job) -> dict:
    """Analyse one video (in a worker). Never raises for a bad video: the outcome says what went wrong."""
    from .pipeline import analyze_video
    from .recording import SessionRecorder

    t0 = time.perf_counter()
    queue = _worker_state.get("queue")
    out = {"key": job.key, "ok": False, "pid": os.getpid(), "frames": 0}
    last = [0.0]

    def progress(n: int, total: int | None) -> None:
        out["frames"] = n
        now = time.monotonic()
        if queue is not None and now - last[0] >= 0.5:
            last[0] = now
            with contextlib.suppress(Exception):  # progress is a nicety; never fail a video for it
                queue.put_nowait((job.key, n, total))

    recorder = None
    try:
        pack = _pack(job.pack_path)
        profile = profile_from_json(job.profile)
        log = StoreOpLog()
        recorder = SessionRecorder(log, job.archer, job.path, pack, profile, chash=job.chash)
        report = analyze_video(
            job.path,
            pack=pack,
            profile=profile,
            model=job.model,
            on_shot=[recorder.on_shot],
            on_pose=[recorder.on_pose],
        )
        recorder.finish(report)
        recorder = None
        out.update(ok=True, begin=log.begin, ops=log.ops, report=report, frames=report.frame_count)
    except CoachError as e:
        out["error"] = e.problem
    except Exception as e:  # one bad file never stops the batch
        out["error"] = f"{type(e).__name__}: {e}".splitlines()[0]
    finally:
        if recorder is not None:
            recorder.close()
    out["seconds"] = time.perf_counter() - t0
    out["maxrss_mb"] = _maxrss_mb()
    return out


def _ray_task(job: Job) -> dict:
    if not _worker_state.get("ray_ready"):
        _limit_threads(1)
        _worker_state["ray_ready"] = True
    return analyse_task(job)


# ---- outcome and summary --------------------------------------------------------------------------------
@dataclass(slots=True)
class Outcome:
    path: str
    archer: str
    status: str  # done | skipped | duplicate | error
    session: int | None = None
    shots: int | None = None
    frames: int | None = None
    faults: dict[str, int] = field(default_factory=dict)
    note: str = ""
    error: str = ""
    seconds: float | None = None
    worker_maxrss_mb: float | None = None
    worker_pid: int | None = None


@dataclass(slots=True)
class BatchResult:
    outcomes: list[Outcome]
    rules: list[str]
    wall_s: float
    workers: int
    engine: str
    interrupted: bool = False

    def count(self, status: str) -> int:
        return sum(o.status == status for o in self.outcomes)

    @property
    def frames_analysed(self) -> int:
        return sum(o.frames or 0 for o in self.outcomes if o.status == DONE)


def session_summary(store, sid: int) -> tuple[int, int | None, dict[str, int], str]:
    """Shots, frames, faults per rule and notes of a stored session."""
    s = store.session(sid)
    shots = store.conn.execute("SELECT COUNT(*) FROM shots WHERE session_id = ?", (sid,)).fetchone()[0]
    faults: dict[str, int] = {}
    for rule, n in store.conn.execute(
        "SELECT rule, COUNT(*) FROM findings WHERE session_id = ? AND verdict = 'fault' GROUP BY rule", (sid,)
    ):
        faults[rule] = n
    notes = "; ".join((s.get("report") or {}).get("notes") or [])
    return int(shots), s.get("frame_count"), faults, notes


def completed_session(store, archer_id: int, chash: str, pack) -> int | None:
    """The session id if this archer's video (by content hash) was analysed to the end with this rule pack
    version. Thin adapter over the sessions table until the store offers it (see the module docstring of
    coach/store.py: sessions are unique per archer and content hash)."""
    finder = getattr(store, "completed_session", None)
    if callable(finder):  # the store's own, once it has one
        return finder(archer_id, chash, pack)
    row = store.conn.execute(
        "SELECT id FROM sessions WHERE archer_id = ? AND content_hash = ? AND complete = 1 "
        "AND pack_id = ? AND pack_version = ?",
        (archer_id, chash, pack.id, pack.version),
    ).fetchone()
    return int(row[0]) if row else None


CSV_FIXED = ("file", "archer", "status", "session", "shots", "frames")


def write_csv(result: BatchResult, out: str | os.PathLike) -> Path:
    p = Path(out)
    p.parent.mkdir(parents=True, exist_ok=True)
    with open(p, "w", newline="", encoding="utf-8") as f:
        f.write(summary_csv(result))
    return p


def summary_csv(result: BatchResult) -> str:
    buf = io.StringIO()
    w = FormulaSafeWriter(buf)  # file and archer names: never formulas in a spreadsheet
    w.writerow([*CSV_FIXED, *(f"faults:{r}" for r in result.rules), "faults_total", "note", "error"])
    for o in result.outcomes:
        w.writerow(
            [
                o.path,
                o.archer,
                o.status,
                "" if o.session is None else o.session,
                "" if o.shots is None else o.shots,
                "" if o.frames is None else o.frames,
                *(o.faults.get(r, 0) if o.shots is not None else "" for r in result.rules),
                sum(o.faults.values()) if o.shots is not None else "",
                o.note,
                o.error,
            ]
        )
    return buf.getvalue()


def format_summary(result: BatchResult) -> str:
    rows = [("file", "archer", "status", "shots", "faults by rule", "note / error")]
    for o in result.outcomes:
        faults = ", ".join(f"{r}×{n}" for r, n in sorted(o.faults.items(), key=lambda kv: (-kv[1], kv[0])))
        rows.append(
            (
                o.path,
                o.archer,
                o.status,
                "" if o.shots is None else str(o.shots),
                faults or ("—" if o.shots is not None else ""),
                o.error or o.note,
            )
        )
    widths = [min(max(_cols(r[i]) for r in rows), cap) for i, cap in enumerate((60, 16, 9, 5, 60, 200))]
    lines = []
    for k, r in enumerate(rows):
        cells = [_fit(c, w) for c, w in zip(r, widths)]
        lines.append("  ".join(c + " " * (w - _cols(c)) for c, w in zip(cells, widths)).rstrip())
        if k == 0:
            lines.append("  ".join("-" * w for w in widths))
    n = len(result.outcomes)
    fps = result.frames_analysed / result.wall_s if result.wall_s > 0 else 0.0
    lines.append(
        f"\n{n} video(s): {result.count(DONE)} analysed, {result.count(SKIPPED)} already in the store, "
        f"{result.count(DUPLICATE)} duplicate(s), {result.count(FAILED)} failed — "
        f"{_dur(result.wall_s)} on {result.workers} {result.engine} worker(s), {fps:.1f} frames/s"
    )
    if result.interrupted:
        lines.append("interrupted: run the same command again to continue where it stopped")
    return "\n".join(lines)


def _cols(text: str) -> int:
    """Terminal columns: CJK characters (archer names, folders) take two."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _fit(text: str, width: int) -> str:
    """Keep the end of a long cell (a file name's end says most), with an ellipsis in front."""
    if _cols(text) <= width:
        return text
    out = ""
    for ch in reversed(text):
        if _cols(out) + _cols(ch) > width - 1:
            break
        out = ch + out
    return "…" + out


def _dur(s: float) -> str:
    s = max(0, int(round(s)))
    h, rem = divmod(s, 3600)
    m, sec = divmod(rem, 60)
    return f"{h}h{m:02d}m" if h else (f"{m}m{sec:02d}s" if m else f"{sec}s")


# ---- progress ------------------------------------------------------------------------------------------
class ProgressLine:
    """Overall progress on stderr: one self-rewriting line on a terminal, one line per finished video
    otherwise (logs, CI). Work is weighted by file size; a running video counts by its frames."""

    def __init__(self, total_videos: int, stream=None, enabled: bool = True):
        self.stream = stream or sys.stderr
        self.enabled = enabled
        self.tty = enabled and hasattr(self.stream, "isatty") and self.stream.isatty()
        self.total_videos = total_videos
        self.finished = 0
        self.failed = 0
        self.skipped = 0
        self.bytes_total = 0
        self.bytes_done = 0.0
        self.running: dict[int, tuple[int, float]] = {}  # key -> (size, fraction)
        self.frames = 0
        self.running_frames: dict[int, int] = {}
        self.t0: float | None = None
        self.in_flight = 0  # handed to workers, not yet back
        self._last_draw = 0.0

    def start_clock(self) -> None:
        if self.t0 is None:
            self.t0 = time.monotonic()

    def add_work(self, size: int) -> None:
        self.bytes_total += size

    def update(self, key: int, size: int, frames: int, total: int | None) -> None:
        frac = min(frames / total, 0.99) if total else 0.0
        self.running[key] = (size, frac)
        self.running_frames[key] = frames
        self.draw()

    def video_done(self, key: int, size: int, frames: int, line: str, failed: bool = False) -> None:
        self.running.pop(key, None)
        self.running_frames.pop(key, None)
        self.finished += 1
        self.failed += failed
        self.bytes_done += size
        self.frames += frames
        self.event(line)

    def video_skipped(self, line: str | None = None) -> None:
        self.skipped += 1
        if line:
            self.event(line)

    def event(self, line: str) -> None:
        if not self.enabled:
            return
        if self.tty:
            self.stream.write("\r\x1b[2K")
        self.stream.write(f"{line}\n")
        if not self.tty:
            self.stream.write(self.status() + "\n")
        self.stream.flush()
        self.draw(force=True)

    def status(self) -> str:
        done = self.bytes_done + sum(s * f for s, f in self.running.values())
        frac = done / self.bytes_total if self.bytes_total else 1.0
        el = time.monotonic() - self.t0 if self.t0 else 0.0
        frames = self.frames + sum(self.running_frames.values())
        fps = frames / el if el > 0 else 0.0
        eta = f"ETA {_dur(el * (1 - frac) / frac)}" if 0.0 < frac < 1.0 and el > 2 else "ETA —"
        handled = self.finished + self.skipped
        extra = ", ".join(
            p
            for p in (f"{self.skipped} skipped" if self.skipped else "", f"{self.failed} failed" if self.failed else "")
            if p
        )
        return (
            f"[batch] {handled}/{self.total_videos} videos{f' ({extra})' if extra else ''} | {frac:4.0%} | "
            f"{fps:.1f} frames/s | {self.in_flight} in progress | {_dur(el)} elapsed | {eta}"
        )

    def draw(self, force: bool = False) -> None:
        if not self.tty:
            return
        now = time.monotonic()
        if not force and now - self._last_draw < 0.25:
            return
        self._last_draw = now
        self.stream.write("\r\x1b[2K" + self.status())
        self.stream.flush()

    def close(self) -> None:
        if self.tty:
            self.stream.write("\r\x1b[2K")
            self.stream.flush()


# ---- the batch -----------------------------------------------------------------------------------------
@dataclass
class BatchOptions:
    workers: int | None = None  # None: one per core
    archer: str | None = None
    archer_from_folder: bool = False
    db: str | os.PathLike | None = None
    pack_path: str | None = None
    model: str | None = None
    profile_overrides: dict = field(default_factory=dict)  # handedness / draw_style / tolerance given explicitly
    engine: str = "process"  # process | ray
    address: str | None = None  # Ray cluster address (None: start or join a local instance)
    force: bool = False  # analyse again even if the store has it
    threads_per_worker: int = 1
    in_flight_per_worker: int = 2
    progress: bool = True


def default_workers() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def run_batch(paths: Sequence[str | os.PathLike], opts: BatchOptions, *, task: Callable | None = None) -> BatchResult:
    """Analyse every video under `paths` into the store (`opts.db`); see the module docstring."""
    from posture_rules.pack import load_pack

    from .safe_io import printable, require_regular_file
    from .store import Store, content_hash

    videos = find_videos(paths)
    if not videos:
        raise CoachError(
            ", ".join(map(str, paths)), f"no video files found (looked for {', '.join(sorted(VIDEO_EXTENSIONS))})"
        )
    pack = load_pack(opts.pack_path)
    workers = opts.workers or default_workers()
    if workers < 1:
        raise CoachError(None, f"--workers must be at least 1, not {workers}")
    rules = [r.id for r in pack.rules]
    t_start = time.monotonic()
    store = Store.open(opts.db)
    # names as printable text: an undecodable byte or an escape sequence must not reach the terminal or CSV raw
    outcomes: list[Outcome] = [Outcome(printable(v), "", "pending") for v in videos]
    bar = ProgressLine(len(videos), enabled=opts.progress)
    archers: dict[str, object] = {}
    queued: dict[tuple[int, str], int] = {}  # (archer id, content hash) -> key of the first video with it

    def archer_for(v: Path):
        name = opts.archer or (archer_from_folder(v) if opts.archer_from_folder else UNASSIGNED_ARCHER)
        if name not in archers:
            # as `coach analyze --archer`: profile flags given on the command line are saved to the archer,
            # otherwise the archer's saved profile is used
            archers[name] = store.ensure_archer(name, **opts.profile_overrides)
        return archers[name]

    def make_jobs():
        """Hash, check the store and yield jobs lazily, so hashing overlaps the analysis."""
        for key, v in enumerate(videos):
            o = outcomes[key]
            try:
                # regular, readable, UTF-8-named files only, checked before anything else: a FIFO would block
                # the hashing forever, and a name OpenCV crashes on must not become the "first" of its
                # content (its valid copies would be called duplicates of a video never analysed)
                require_regular_file(v, "video file")
                archer = archer_for(v)
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
            sid = None if opts.force else completed_session(store, archer.id, chash, pack)
            if sid is not None:
                o.status, o.session = SKIPPED, sid
                o.shots, o.frames, o.faults, o.note = session_summary(store, sid)
                bar.video_skipped(f"skipped  {o.path} (already in the store: session {sid})")
                continue
            first = queued.get((archer.id, chash))
            if first is not None:  # a copy of a video in this batch: one session per archer and content
                o.status, o.note = DUPLICATE, f"same content as {outcomes[first].path}"
                bar.video_skipped(f"dup      {o.path} (same content as {outcomes[first].path})")
                continue
            queued[(archer.id, chash)] = key
            profile = archer.profile()
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
            )

    def collect(job: Job, res: dict) -> None:
        o = outcomes[job.key]
        o.seconds, o.worker_maxrss_mb, o.worker_pid = res.get("seconds"), res.get("maxrss_mb"), res.get("pid")
        if not res.get("ok"):
            o.status, o.error = FAILED, res.get("error") or "failed"
            bar.video_done(job.key, job.size, 0, f"error    {o.path}: {o.error}", failed=True)
            return
        sid = replay(store, res["begin"], res["ops"], pack)
        o.status, o.session = DONE, sid
        o.shots, o.frames, o.faults, o.note = session_summary(store, sid)
        o.frames = res["report"].frame_count
        bar.video_done(
            job.key,
            job.size,
            o.frames or 0,
            f"done     {o.path}: {o.shots} shot(s), {sum(o.faults.values())} fault(s)"
            f"{f' — {o.note}' if o.note else ''} [{res.get('seconds', 0):.1f} s]",
        )

    def crashed(job: Job, why: str) -> None:
        o = outcomes[job.key]
        o.status, o.error = FAILED, why
        bar.video_done(job.key, job.size, 0, f"error    {o.path}: {why}", failed=True)

    interrupted = False
    try:
        bar.start_clock()
        runner = _run_ray if opts.engine == "ray" else _run_pool
        runner(make_jobs(), opts, workers, collect, crashed, bar, task)
    except KeyboardInterrupt:
        interrupted = True
    finally:
        bar.close()
        store.close()
    for o in outcomes:
        if o.status == "pending":
            o.status, o.note = "not run", "interrupted" if interrupted else ""
    return BatchResult(outcomes, rules, time.monotonic() - t_start, workers, opts.engine, interrupted)


def _run_pool(jobs, opts: BatchOptions, workers: int, collect, crashed, bar: ProgressLine, task) -> None:
    """Local processes. A worker that dies (a segfault in a native decoder, the OOM killer) breaks the pool:
    the videos it was running are retried one at a time at the end, and one that kills its worker alone is
    reported as failed — the rest of the batch goes on."""
    import multiprocessing as mp
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
    from concurrent.futures.process import BrokenProcessPool

    task = task or analyse_task
    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    limit = max(1, workers * opts.in_flight_per_worker)
    jobs = iter(jobs)
    retry: list[Job] = []  # videos whose worker died while they ran: each is tried again alone, at the end

    def new_pool(n: int) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(
            max_workers=n,
            mp_context=ctx,
            initializer=worker_init,
            initargs=(queue, opts.threads_per_worker, os.getpid()),
        )

    def drain() -> None:
        while True:
            try:
                key, n, total = queue.get_nowait()
            except Exception:
                return
            j = running_jobs.get(key)
            if j is not None:
                bar.update(key, j.size, n, total)

    pool = new_pool(workers)
    pending: dict = {}
    running_jobs: dict[int, Job] = {}
    normal_done = False

    def submit(job: Job) -> None:
        pending[pool.submit(task, job)] = job
        running_jobs[job.key] = job

    def fill() -> None:
        nonlocal normal_done
        while not normal_done and len(pending) < limit:
            job = next(jobs, None)
            if job is None:
                normal_done = True
                break
            submit(job)
        if normal_done and not pending and retry:
            submit(retry.pop(0))  # a suspect, alone: if the pool breaks now, it was this video

    def lost(job: Job) -> None:
        running_jobs.pop(job.key, None)
        if job.attempts:  # it already ran alone
            crashed(job, "the worker analysing it died (a crash in a native library, or out of memory)")
        else:
            job.attempts += 1
            retry.append(job)

    try:
        while True:
            fill()
            if not pending:
                break
            bar.in_flight = len(pending)
            done, _ = wait(pending, timeout=0.3, return_when=FIRST_COMPLETED)
            drain()
            bar.draw()
            broken = False
            for fut in done:
                job = pending.pop(fut)
                try:
                    res = fut.result()
                except BrokenProcessPool:
                    broken = True
                    lost(job)
                    continue
                except Exception as e:  # a task that raised although it should not: report, carry on
                    running_jobs.pop(job.key, None)
                    crashed(job, f"{type(e).__name__}: {e}".splitlines()[0])
                    continue
                running_jobs.pop(job.key, None)
                collect(job, res)
            if broken:
                for fut in list(pending):  # the rest of the broken pool's work
                    lost(pending.pop(fut))
                pool.shutdown(wait=False, cancel_futures=True)
                pool = new_pool(workers)
    except BaseException:
        _kill_pool(pool)
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        queue.close()
        queue.join_thread()


def _kill_pool(pool) -> None:
    """Stop the workers now (Ctrl-C): a running video would otherwise be finished first."""
    procs = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for p in procs:
        with contextlib.suppress(Exception):
            p.terminate()


def _run_ray(jobs, opts: BatchOptions, workers: int, collect, crashed, bar: ProgressLine, task) -> None:
    """The same task on a Ray cluster (`pip install .[ray]`). Joins `opts.address` ("auto", "ray://…") or
    a Ray instance this process already started; otherwise starts a local one with `workers` CPUs. The video
    paths must be readable at the same absolute path on every node (shared storage); results come back here
    and the parent writes the store, as with local processes."""
    try:
        import ray
    except ImportError:
        raise CoachError(None, "--engine ray needs Ray: pip install 'shejing-coach[ray]'") from None
    started = False
    if not ray.is_initialized():
        kw = {"address": opts.address} if opts.address else {"num_cpus": workers, "include_dashboard": False}
        try:
            ray.init(log_to_driver=False, **kw)
        except (ConnectionError, RuntimeError, ValueError) as e:
            raise CoachError(opts.address, f"cannot connect to the Ray cluster ({e})") from None
        started = True
    remote = ray.remote(num_cpus=opts.threads_per_worker, max_retries=1)(task or _ray_task)
    cluster_cpus = int(ray.cluster_resources().get("CPU", workers))
    limit = max(1, cluster_cpus * opts.in_flight_per_worker)
    jobs = iter(jobs)
    pending: dict = {}
    exhausted = False
    try:
        while True:
            while not exhausted and len(pending) < limit:
                job = next(jobs, None)
                if job is None:
                    exhausted = True
                    break
                pending[remote.remote(job)] = job
            if not pending:
                break
            bar.in_flight = len(pending)
            ready, _ = ray.wait(list(pending), num_returns=1, timeout=0.5)
            bar.draw()
            for ref in ready:
                job = pending.pop(ref)
                try:
                    res = ray.get(ref)
                except Exception as e:  # the worker died, or the task could not run there
                    crashed(job, f"Ray task failed: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}")
                    continue
                collect(job, res)
    except BaseException:
        for ref in pending:
            with contextlib.suppress(Exception):
                ray.cancel(ref, force=True)
        raise
    finally:
        if started:
            ray.shutdown()
