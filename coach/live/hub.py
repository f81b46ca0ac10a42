"""The dashboard's live runs, without Streamlit: what the worker threads hand to the page.

    run = CameraRun(db, "王小明", "0").start()        # a camera, file (fed at its real rate) or URL on this machine
    run = BrowserRun(db, "王小明")                     # the browser's camera: run.callback is streamlit-webrtc's
    snap = run.board.snapshot()                        # the page's view: faults, shots, tally, figures (any thread)
    image = run.board.image("zh")                      # the newest analysed frame, annotated

Both are `LiveSession`s — capture into a 1-slot mailbox, `Analyzer(mode="live")` in its own analysis thread, every
completed shot committed to the session store the moment it completes. The browser's frames come through a
`PushSource`: streamlit-webrtc's callback leaves each frame (timed by its pts) in a 1-slot mailbox and returns at
once with the frame annotated with the newest analysis, so the callback never waits for the pose model.

Worker threads write only to a run's `Board` (a lock-protected object); the page reads snapshots of it. Nothing
here touches `st.session_state`. Runs live in `REGISTRY`, a module-level registry that also stops runs nobody
looks at any more (a closed tab): a camera run when no page has polled it for `IDLE_STOP_S`, a browser run when
its frames stopped coming for `NO_FRAMES_STOP_S`. Stopping loses nothing: shots are already in the store, and the
session is closed with its report.
"""

from __future__ import annotations

import os
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

import cv2
import numpy as np

from posture_rules.pack import Profile, RulePack, load_pack

from ..capture import Frame, parse_source
from ..errors import CoachError
from ..overlay import Overlay
from ..results import FrameResult, ShotResult
from ..store import Store, now_iso
from .mailbox import Closed, Mailbox
from .session import LiveFrame, LiveSession, Tally, open_source

MAX_EVENTS = 200
# The page's picture: a 640-px JPEG made here with OpenCV (which lets go of the GIL) rather than the full frame
# handed to st.image, which copies it to RGB and encodes it with PIL at quality 90 in the dashboard's process,
# beside the analysis; a 1080p camera's frame is ~5× the work and the bytes of a 960×540 one.
PAGE_MAX_SIDE = 640
PAGE_JPEG_QUALITY = 75
IDLE_STOP_S = float(os.environ.get("COACH_LIVE_IDLE_S", "120"))
NO_FRAMES_STOP_S = 15.0


@dataclass(slots=True)
class FaultEvent:
    """A fault confirmed during the session, the moment it was confirmed."""

    rule: str
    t_s: float  # session time (source time) of the frame
    shot: int | None
    phase: str


@dataclass(slots=True)
class Figures:
    released: int = 0  # frames the camera delivered
    analysed: int = 0
    dropped: int = 0  # frames the analysis could not take (replaced in a 1-slot mailbox)
    latency_p50_ms: float | None = None

    @property
    def analysed_share(self) -> float | None:
        return self.analysed / self.released if self.released else None


@dataclass
class Snapshot:
    """A copy of a run's board for one page run."""

    source: str
    archer: str
    state: str  # starting | running | stopped | failed
    session_no: int
    events: list[FaultEvent]
    shots: list[ShotResult]
    tally: Tally
    figures: Figures
    status: str = ""
    error: str = ""
    sids: list[int] = field(default_factory=list)  # session store ids of this run's sessions
    has_frame: bool = False

    @property
    def running(self) -> bool:
        return self.state in ("starting", "running")


class Board:
    """What the worker threads post and the page reads, under one lock."""

    def __init__(self, pack: RulePack, source: str, archer: str):
        self.pack = pack
        self.source, self.archer = source, archer
        self._lock = threading.Lock()
        self._draw_lock = threading.Lock()
        self.state = "starting"
        self.session_no = 0
        self.events: deque[FaultEvent] = deque(maxlen=MAX_EVENTS)
        self.shots: list[ShotResult] = []
        self.tally = Tally()
        self.status = ""
        self.error = ""
        self.sids: list[int] = []
        self.latest: LiveFrame | None = None
        self.latest_result: FrameResult | None = None
        self.handedness = "right"
        self.figures_fn: Callable[[], Figures] = Figures
        self.last_seen = time.monotonic()  # the page last looked
        self._views: dict[str, object] = {}
        self._carded = 0
        self._jpeg: dict[str, tuple[tuple, bytes]] = {}  # lang → (what it was drawn from, the JPEG)
        self._frames = 0  # frames posted: what the page's picture was drawn from

    # ---- posted by worker threads ---------------------------------------------------------------------
    def new_session(self, n: int) -> None:
        with self._lock:
            self.session_no = n
            self.events.clear()
            self.shots = []
            self.tally = Tally()
            self.latest = self.latest_result = None
            self._carded = 0
            self.error = ""
            self.state = "running"

    def on_frame(self, lf: LiveFrame) -> None:
        with self._lock:
            self.latest = lf
            self._frames += 1
            if lf.result is not None:
                self.latest_result = lf.result

    def on_fault(self, rule: str, r: FrameResult) -> None:
        with self._lock:
            self.events.append(FaultEvent(rule, r.t_ms / 1000.0, r.shot, r.phase))

    def on_shot(self, shot: ShotResult, analyzer=None) -> None:
        with self._lock:
            self.shots.append(shot)
            self.tally.add(shot)
            if analyzer is not None and analyzer.handedness:
                self.handedness = analyzer.handedness

    def on_status(self, msg: str) -> None:
        with self._lock:
            self.status = msg

    def add_sid(self, sid: int) -> None:
        with self._lock:
            if sid not in self.sids:
                self.sids.append(sid)

    def ended(self, error: BaseException | None = None) -> None:
        with self._lock:
            if error is not None:
                self.error = str(error) if isinstance(error, CoachError) else f"{type(error).__name__}: {error}"
            self.state = "failed" if self.error else "stopped"

    # ---- read by the page -----------------------------------------------------------------------------
    def snapshot(self) -> Snapshot:
        self.last_seen = time.monotonic()
        figures = self.figures_fn()
        with self._lock:
            tally = Tally(self.tally.shots, self.tally.clean, self.tally.faults.copy())
            return Snapshot(
                self.source,
                self.archer,
                self.state,
                self.session_no,
                list(self.events),
                list(self.shots),
                tally,
                figures,
                self.status,
                self.error,
                list(self.sids),
                self.latest is not None,
            )

    def jpeg(self, lang: str = "zh") -> bytes | None:
        """The page's picture: `image()` at most PAGE_MAX_SIDE pixels on its longer side, as JPEG bytes. The same
        bytes while no new frame was analysed (paused, stopped), so the browser is not sent the picture again."""
        with self._lock:
            key = (self._frames, len(self.shots), self.session_no)
        cached = self._jpeg.get(lang)
        if cached is not None and cached[0] == key:
            return cached[1]
        img = self.image(lang)
        if img is None:
            return None
        h, w = img.shape[:2]
        s = PAGE_MAX_SIDE / max(h, w)
        if s < 1.0:
            img = cv2.resize(img, (round(w * s), round(h * s)), interpolation=cv2.INTER_AREA)
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, PAGE_JPEG_QUALITY])
        if not ok:
            return None
        data = buf.tobytes()
        self._jpeg[lang] = (key, data)
        return data

    def image(self, lang: str = "zh") -> np.ndarray | None:
        """The newest frame with skeleton, phase, held faults, classical line, tally and the last shot's card."""
        from .view import LiveView

        with self._lock:
            lf, shots, handed = self.latest, list(self.shots), self.handedness
            tally = Tally(self.tally.shots, self.tally.clean, self.tally.faults.copy())
        if lf is None:
            return None
        with self._draw_lock:  # LiveView is not thread-safe; two tabs may draw at once
            view = self._views.get(lang)
            if view is None:
                view = self._views[lang] = LiveView(self.pack, lang, handed)
            now = time.monotonic()
            view.overlay.handedness = handed
            if len(shots) > self._carded:
                view.shot_done(shots[-1], now)
                self._carded = len(shots)
            view.state.session = max(1, self.session_no)
            return view.compose(lf, tally, now)


def _profile_for(db: os.PathLike | str, archer: str) -> tuple[str, Profile]:
    """The archer (created if new) and their saved profile; fails here, before any thread, on a bad store."""
    with Store.open(db) as store:
        a = store.ensure_archer(archer)
    return a.name, a.profile()


def _recorder_factory(db, archer: str, source: str, pack: RulePack, profile: Profile, board: Board):
    from .cli import LiveRecorder

    started = now_iso()

    def factory(n: int, ring):
        # called in the analysis thread: the recorder's SQLite connection belongs to it
        # the session id is known once the recorder writes (at the first shot): the board hears it then
        return LiveRecorder(db, archer, source, pack, profile, ring, f"live:{source}:{started}:{n}", board.add_sid)

    return factory


def _figures(session: LiveSession, extra_dropped: Callable[[], int] = lambda: 0) -> Figures:
    s = session.stats
    try:
        p50 = s.percentile(50) if s.latencies_ms else None
    except RuntimeError:  # the analysis thread appended while we read; next poll
        p50 = None
    return Figures(
        released=session.feeder.released,
        analysed=s.analysed,
        dropped=session.frames.dropped + extra_dropped(),
        latency_p50_ms=p50,
    )


class _Run:
    kind = "run"

    def __init__(self, db, archer: str, source: str, *, pack: RulePack | None = None, model: str | None = None):
        self.db = db
        self.pack = pack or load_pack()
        self.model = model
        self.archer, self.profile = _profile_for(db, archer)
        self.board = Board(self.profile.apply(self.pack), source, self.archer)
        self.session: LiveSession | None = None
        self._monitor: threading.Thread | None = None

    def _make_session(self, source, name: str, session_no: int) -> LiveSession:
        board = self.board
        session = LiveSession(
            source,
            pack=self.pack,
            profile=self.profile,
            model=self.model,
            keep_frames=True,  # the ring gives the store its key frames
            on_shot=[board.on_shot],
            on_fault=[board.on_fault],
            on_frame=[board.on_frame],
            on_status=board.on_status,
            recorder_factory=_recorder_factory(self.db, self.archer, name, self.pack, self.profile, board),
        )
        session.session_no = session_no - 1  # LiveSession counts up as it opens its analyzer
        return session

    def _watch(self, session: LiveSession) -> None:
        def wait() -> None:
            try:
                session.wait()
            except BaseException as e:  # surfaced on the page as one line
                self.board.ended(e)
            else:
                self.board.ended()

        self._monitor = threading.Thread(target=wait, name=f"coach-live-{self.kind}-monitor", daemon=True)
        self._monitor.start()

    @property
    def running(self) -> bool:
        return self.board.state in ("starting", "running")

    def join(self, timeout: float | None = None) -> None:
        if self._monitor is not None:
            self._monitor.join(timeout)


class CameraRun(_Run):
    """A camera index, video file (fed at its real frame rate, like a camera) or URL on the dashboard's machine."""

    kind = "camera"

    def __init__(self, db, archer: str, spec: str | int, **kw):
        self.spec = parse_source(spec) if isinstance(spec, str) else spec
        super().__init__(db, archer, str(self.spec), **kw)

    def start(self) -> CameraRun:
        """Open the source now (a missing camera or file raises CoachError here) and start the threads."""
        session = self._make_session(open_source(self.spec), str(self.spec), 1)
        self.board.new_session(1)
        try:
            session.start()
        except BaseException as e:
            self.board.ended(e)
            raise
        self.session = session
        self.board.figures_fn = lambda: _figures(session)
        self._watch(session)
        return self

    def stop(self) -> None:
        if self.session is not None:
            self.session.stop()


class PushSource:
    """A FrameSource that others push frames into (the browser camera): a 1-slot mailbox, newest frame wins."""

    is_camera = True
    is_file = False
    frame_count_hint = None

    def __init__(self, name: str, width: int, height: int, fps: float = 30.0):
        self.source, self.width, self.height, self.fps = name, width, height, fps
        self.box: Mailbox[Frame] = Mailbox()

    def push(self, frame: Frame) -> bool:
        """Leave the frame for the capture thread; False once closed. Never blocks."""
        try:
            self.box.put(frame)
        except Closed:
            return False
        return True

    def __iter__(self):
        while True:
            try:
                f = self.box.get()
            except Closed:
                return
            if f is not None:
                yield f

    def close(self) -> None:
        self.box.close()

    @property
    def closed(self) -> bool:
        return self.box.closed


class BrowserRun(_Run):
    """The browser's camera (streamlit-webrtc). Each time the stream starts a new live session starts with its
    first frame; `stop()` (the component's STOP, or the stream ending) closes it."""

    kind = "browser"
    CHECK_EVERY_S = 0.25
    CHECK_FRAMES = 12

    def __init__(self, db, archer: str, **kw):
        super().__init__(db, archer, "browser camera", **kw)
        self.board.state = "stopped"
        self._lock = threading.Lock()
        self._src: PushSource | None = None
        self._n = 0
        self._t0: float | None = None
        self._sessions = 0
        self._overlay: Overlay | None = None  # used by the callback thread only
        self.check_frames: deque[Frame] = deque(maxlen=self.CHECK_FRAMES)
        self._last_check = -1e9
        self.last_frame = 0.0  # monotonic time of the last frame from the browser

    # ---- streamlit-webrtc's video_frame_callback (its own thread) ------------------------------------------
    def callback(self, frame):
        import av

        img = frame.to_ndarray(format="bgr24")
        out = self.push(img, frame.time)
        new = av.VideoFrame.from_ndarray(out, format="bgr24")
        new.pts, new.time_base = frame.pts, frame.time_base
        return new

    def push(self, img: np.ndarray, t_s: float | None) -> np.ndarray:
        """Hand one browser frame (BGR, its pts in seconds) to the analysis; returns it annotated. Never waits."""
        now = time.monotonic()
        self.last_frame = now
        with self._lock:
            src = self._src
            if src is None or src.closed:
                src = self._begin(img)
            if t_s is None:  # no pts: the moment it arrived
                t_s = now
            if self._t0 is None:
                self._t0 = t_s
            f = Frame(self._n, (t_s - self._t0) * 1000.0, img)
            self._n += 1
        src.push(f)
        if now - self._last_check >= self.CHECK_EVERY_S:
            self._last_check = now
            self.check_frames.append(Frame(f.index, f.t_ms, img.copy()))
        return self._annotate(img.copy())

    def _begin(self, img: np.ndarray) -> PushSource:
        h, w = img.shape[:2]
        self._sessions += 1
        n = self._sessions
        src = self._src = PushSource(f"browser camera {w}×{h}", w, h)
        self._n, self._t0 = 0, None
        self.board.state = "starting"
        name = f"browser:{now_iso()}"
        # the pose model loads in its own thread; frames wait in the mailbox meanwhile (newest wins)
        threading.Thread(target=self._start_session, args=(src, name, n), daemon=True).start()
        return src

    def _start_session(self, src: PushSource, name: str, n: int) -> None:
        try:
            session = self._make_session(src, name, n)
            self.board.new_session(n)
            session.start()
        except BaseException as e:
            src.close()
            self.board.ended(e)
            return
        with self._lock:
            self.session = session
            closed = src.closed
        self.board.figures_fn = lambda: _figures(session, lambda: src.box.dropped)
        self._watch(session)
        if closed:  # stopped while the model was loading
            session.stop()

    def _annotate(self, img: np.ndarray) -> np.ndarray:
        r = self.board.latest_result
        if r is None:
            return img
        if self._overlay is None:
            self._overlay = Overlay(self.board.pack, self.board.handedness, english=False)
        h, w = img.shape[:2]
        if self._src is not None and (self._src.width, self._src.height) != (w, h):
            return img  # the camera changed size; the newest analysis is of another picture
        self._overlay.handedness = self.board.handedness
        return self._overlay.draw(img, r)

    def stop(self) -> None:
        with self._lock:
            src, session = self._src, self.session
        if session is not None:
            session.stop()
        if src is not None:
            src.close()

    def check_samples(self) -> list[Frame]:
        return list(self.check_frames)


class Registry:
    """The dashboard's live runs by key, and a watchdog stopping the ones nobody watches."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._runs: dict[str, _Run] = {}
        self._watchdog: threading.Thread | None = None

    def get(self, key: str) -> _Run | None:
        with self._lock:
            return self._runs.get(key)

    def put(self, key: str, run: _Run) -> _Run:
        with self._lock:
            old = self._runs.get(key)
            self._runs[key] = run
            if self._watchdog is None:
                self._watchdog = threading.Thread(target=self._watch, name="coach-live-watchdog", daemon=True)
                self._watchdog.start()
        if old is not None and old is not run:
            old.stop()
        return run

    def pop(self, key: str) -> _Run | None:
        with self._lock:
            run = self._runs.pop(key, None)
        if run is not None:
            run.stop()
        return run

    def runs(self) -> list[_Run]:
        with self._lock:
            return list(self._runs.values())

    def reap(self, now: float | None = None) -> list[_Run]:
        """Stop the runs nobody is looking at any more; returns them."""
        now = time.monotonic() if now is None else now
        stopped = []
        for run in self.runs():
            if not run.running:
                continue
            if isinstance(run, BrowserRun):
                idle = run.last_frame and now - run.last_frame > NO_FRAMES_STOP_S
            else:
                idle = now - run.board.last_seen > IDLE_STOP_S
            if idle:
                run.stop()
                stopped.append(run)
        return stopped

    def _watch(self) -> None:
        while True:
            time.sleep(2.0)
            try:
                self.reap()
            except Exception:  # the watchdog must outlive any one run's trouble
                pass


REGISTRY = Registry()
