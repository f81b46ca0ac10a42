"""A live coaching session: the capture thread, the analysis thread, and what they hand to the view.

    session = LiveSession(FrameSource(0), on_shot=[print_shot])
    session.start()            # opens the source here: a bad camera index raises CoachError at once
    ...                        # main thread: draw session.view.get() in a window, or just wait
    reports = session.wait()   # after stop() or the end of a file: one SessionReport per session

The analysis thread runs `Analyzer(mode="live").push(frame)` — the very pipeline of recorded analysis, with the
causal filter — on the newest frame only. Every completed shot goes to the listeners at once (the session
store commits it there), and a replay clip of it to the window.
"""

from __future__ import annotations

import threading
import time
from collections import Counter, deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import numpy as np

from posture_rules.pack import Profile, RulePack, load_pack

from ..analyzer import Analyzer, ShotListener
from ..capture import FrameSource
from ..errors import CoachError
from ..pose import PoseEstimator, make_estimator
from ..recording import Recorder
from ..results import CompletedShot, FrameResult, SessionReport, ShotResult
from .feeder import Arrival, Feeder
from .mailbox import Closed, Mailbox
from .replay import FrameRing, ReplayClip


@dataclass(slots=True)
class LiveFrame:
    """What the window draws: the frame, its analysis (None while paused) and when it arrived / was ready."""

    image: np.ndarray
    result: FrameResult | None
    new_faults: tuple[str, ...]
    arrived: float
    ready: float
    session: int


@dataclass
class LiveStats:
    released: int = 0  # frames the source delivered to the analysis
    analysed: int = 0
    dropped: int = 0  # frames replaced in the mailbox before the analysis could take them
    paused: int = 0  # frames skipped while paused
    latencies_ms: deque = field(default_factory=lambda: deque(maxlen=100_000))  # arrival → FrameResult ready
    analysis_ms: deque = field(default_factory=lambda: deque(maxlen=100_000))  # pose + analysis alone

    def percentile(self, q: float, which: str = "latencies_ms") -> float | None:
        xs = getattr(self, which)
        return float(np.percentile(np.asarray(xs), q)) if xs else None

    @property
    def analysed_share(self) -> float | None:
        return self.analysed / self.released if self.released else None

    def to_json(self) -> dict:
        r = lambda x: None if x is None else round(x, 2)  # noqa: E731
        return {
            "frames_released": self.released,
            "frames_analysed": self.analysed,
            "frames_dropped": self.dropped,
            "frames_paused": self.paused,
            "analysed_share": r(self.analysed_share),
            "latency_ms": {
                "p50": r(self.percentile(50)),
                "p95": r(self.percentile(95)),
                "max": r(self.percentile(100)),
            },
            "analysis_ms": {"p50": r(self.percentile(50, "analysis_ms")), "p95": r(self.percentile(95, "analysis_ms"))},
        }


@dataclass
class Tally:
    """Shots and faults of the current session, for the window's corner."""

    shots: int = 0
    clean: int = 0
    faults: Counter = field(default_factory=Counter)

    def add(self, shot: ShotResult) -> None:
        self.shots += 1
        rules = {f.rule for f in shot.faults}
        self.clean += not rules
        self.faults.update(rules)


FaultListener = Callable[[str, FrameResult], None]
SessionListener = Callable[[SessionReport, "LiveSession"], None]
RecorderFactory = Callable[[int, FrameRing | None], "Recorder | None"]  # (session number, ring) → recorder


class LiveSession:
    def __init__(
        self,
        source: FrameSource | Callable[[], FrameSource] | str | int,
        *,
        pack: RulePack | None = None,
        profile: Profile | None = None,
        estimator: PoseEstimator | None = None,
        model: str | None = None,
        realtime: bool | None = None,
        no_drop: bool = False,
        keep_frames: bool = False,
        on_shot: Iterable[ShotListener] = (),
        on_fault: Iterable[FaultListener] = (),
        on_frame: Iterable[Callable[[LiveFrame], None]] = (),
        on_session: Iterable[SessionListener] = (),
        on_status: Callable[[str], None] | None = None,
        recorder_factory: RecorderFactory | None = None,
        retries: int = 3,
        retry_wait_s: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
    ):
        if isinstance(source, str | int):
            spec = source
            source = lambda: FrameSource(spec)  # noqa: E731
        self.pack = pack or load_pack()
        self.profile = profile or Profile()
        self.clock = clock
        self.frames: Mailbox[Arrival] = Mailbox()
        self.view: Mailbox[LiveFrame] = Mailbox()  # newest analysed frame for the window
        self.replays: Mailbox[ReplayClip] = Mailbox()  # newest completed shot for the instant replay
        self.feeder = Feeder(
            source,
            self.frames,
            realtime=realtime,
            no_drop=no_drop,
            retries=retries,
            retry_wait_s=retry_wait_s,
            on_status=on_status,
            clock=clock,
        )
        self._estimator = estimator
        self._model = model
        self._keep_frames = keep_frames
        self.shot_listeners = list(on_shot)
        self.fault_listeners = list(on_fault)
        self.frame_listeners = list(on_frame)
        self.session_listeners = list(on_session)
        self.recorder_factory = recorder_factory
        self.on_status = on_status or (lambda msg: None)
        self.stats = LiveStats()
        self.tally = Tally()
        self.reports: list[SessionReport] = []
        self.error: BaseException | None = None
        self.session_no = 0
        self.analyzer: Analyzer | None = None
        self.ring: FrameRing | None = None
        self.recorder: Recorder | None = None
        self._paused = threading.Event()
        self._rotate = threading.Event()
        self._prev_active: set[str] = set()
        self._thread: threading.Thread | None = None
        self._own_estimator = estimator is None

    # ---- control (any thread) --------------------------------------------------------------------------
    def start(self) -> LiveSession:
        src = self.feeder.open()  # raises CoachError now for a missing camera or file
        self.fps, self.width, self.height = src.fps, src.width, src.height
        self.source_name = str(src.source)
        if self._estimator is None:
            self._estimator = make_estimator(self._model)
        self._thread = threading.Thread(target=self._run, name="coach-live-analysis", daemon=True)
        self.feeder.start()
        self._thread.start()
        return self

    def stop(self) -> None:
        """End the session: the capture stops, the analysis finishes what it has and reports."""
        self.feeder.stop()

    def toggle_pause(self) -> bool:
        if self._paused.is_set():
            self._paused.clear()
        else:
            self._paused.set()
        return self._paused.is_set()

    @property
    def paused(self) -> bool:
        return self._paused.is_set()

    def new_session(self) -> None:
        """Close the current session (report, store) and start counting a new one."""
        self._rotate.set()

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def wait(self, timeout: float | None = None) -> list[SessionReport]:
        if self._thread is not None:
            self._thread.join(timeout)
        self.feeder.join(1.0)
        if self.error is not None:
            raise self.error
        if self.feeder.error is not None:
            raise self.feeder.error
        return self.reports

    # ---- the analysis thread ---------------------------------------------------------------------------
    def _new_analyzer(self) -> None:
        self.session_no += 1
        self.tally = Tally()
        self._prev_active = set()
        self.ring = FrameRing(self.fps) if self._keep_frames else None
        self.recorder = self.recorder_factory(self.session_no, self.ring) if self.recorder_factory else None
        listeners: list[ShotListener] = [self._shot_done]
        if self.recorder is not None:
            listeners.insert(0, self.recorder.on_shot)
        self.analyzer = Analyzer(
            self.fps,
            self.width,
            self.height,
            pack=self.pack,
            profile=self.profile,
            mode="live",
            estimator=self._estimator,
            source=self.source_name,
            on_shot=listeners,
        )

    def _finish_analyzer(self) -> SessionReport | None:
        if self.analyzer is None:
            return None
        report = self.analyzer.finish()
        report.meta["live"] = {"session": self.session_no, **self.stats.to_json()}
        if self.recorder is not None:
            self.recorder.finish(report)
        self.reports.append(report)
        for cb in self.session_listeners:
            cb(report, self)
        return report

    def _shot_done(self, done: CompletedShot) -> None:
        self.tally.add(done.result)
        if self.ring is not None:
            clip = self.ring.clip(done.result)
            if clip is not None:
                self.replays.put(clip)
        for cb in self.shot_listeners:
            cb(done)

    def _run(self) -> None:
        try:
            self._new_analyzer()  # here: the session store's SQLite connection belongs to this thread
            self._loop()
            self._finish_analyzer()
        except BaseException as e:  # surfaced by wait()
            self.error = e
            self.feeder.stop()
        finally:
            self.view.close()
            self.replays.close()
            self.stats.dropped = self.frames.dropped
            self.stats.released = self.feeder.released
            if self._own_estimator and self._estimator is not None:
                self._estimator.close()
            if self.recorder is not None:
                self.recorder.close()
                self.recorder = None

    def _loop(self) -> None:
        while True:
            if self._rotate.is_set():
                self._rotate.clear()
                self._finish_analyzer()
                if self.recorder is not None:
                    self.recorder.close()
                    self.recorder = None
                self._new_analyzer()
            try:
                item = self.frames.get(timeout=0.1)
            except Closed:
                return
            if item is None:
                continue
            if self._paused.is_set():
                self.stats.paused += 1
                self._publish(LiveFrame(item.frame.image, None, (), item.arrived, self.clock(), self.session_no))
                continue
            t0 = self.clock()
            results = self.analyzer.push(item.frame)
            ready = self.clock()
            self.stats.analysed += 1
            self.stats.analysis_ms.append((ready - t0) * 1000.0)
            for r in results:
                if r.index != item.frame.index:
                    continue  # live mode emits each frame at once; anything else is not this frame
                self.stats.latencies_ms.append((ready - item.arrived) * 1000.0)
                active = set(r.active_faults)
                new = tuple(f for f in r.active_faults if f not in self._prev_active)
                self._prev_active = active
                if self.ring is not None:
                    self.ring.offer(item.frame.image, r)
                lf = LiveFrame(item.frame.image, r, new, item.arrived, ready, self.session_no)
                self._publish(lf)
                for rid in new:
                    for cb in self.fault_listeners:
                        cb(rid, r)
            self.stats.dropped = self.frames.dropped
            self.stats.released = self.feeder.released

    def _publish(self, lf: LiveFrame) -> None:
        try:
            self.view.put(lf)
        except Closed:
            pass
        for cb in self.frame_listeners:
            cb(lf)


def open_source(spec: str | int) -> Callable[[], FrameSource]:
    """An opener for the feeder (called again to reopen a lost camera); errors are one-line CoachErrors."""

    def _open() -> FrameSource:
        try:
            return FrameSource(spec)
        except CoachError:
            raise
        except Exception as e:  # OpenCV backends raise odd things for odd URLs
            raise CoachError(spec, f"cannot be opened ({e})") from None

    return _open
