"""A live run's board: what its worker threads post (frames, confirmed faults, shots, status, the end) and the
page reads, under one lock. `snapshot()` copies it for one page run; `image()` / `jpeg()` draw the newest
analysed frame with the live view (skeleton, phase, held faults, tally, the last shot's card).

No picture: while a source is expected to deliver (from its start, or while the browser's stream plays) and its
count of delivered frames (`frames_in`, the feeder's or the browser callback's counter) has not moved for
`NO_PICTURE_S`, the snapshot says so (`no_picture`), and the page says what to check instead of a black view. The
count is read when the page polls, never per frame."""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

import cv2
import numpy as np

from posture_rules.pack import RulePack

from ..errors import CoachError
from ..results import CompletedShot, FrameResult, ShotResult
from .session import LiveFrame, Tally

MAX_EVENTS = 200
# The page's picture: a 640-px JPEG made here with OpenCV (which lets go of the GIL) rather than the full frame
# handed to st.image, which copies it to RGB and encodes it with PIL at quality 90 in the dashboard's process,
# beside the analysis; a 1080p camera's frame is ~5× the work and the bytes of a 960×540 one.
PAGE_MAX_SIDE = 640
PAGE_JPEG_QUALITY = 75
# A source that has delivered nothing for this long since it started (or since its last frame) is said to give no
# picture. A laptop camera or a file gives its first frame within a second or two of opening, and a stream's
# frames come many a second, so 5 s is "something is wrong", yet short enough that a coach is not left waiting.
NO_PICTURE_S = 5.0
PICTURE_FROM = ("camera", "file", "stream", "browser")  # where the picture comes from: what the page says to check


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
    no_picture: bool = False  # expected to deliver, and no frame came for NO_PICTURE_S
    picture_from: str = "camera"  # one of PICTURE_FROM
    expecting: bool = False  # frames are expected (started, or the browser's stream plays)
    status_age_s: float = 0.0  # how long ago `status` was posted (a "reconnected" note is shown for a while only)

    @property
    def running(self) -> bool:
        return self.state in ("starting", "running")


class Board:
    """What the worker threads post and the page reads, under one lock."""

    def __init__(self, pack: RulePack, source: str, archer: str, picture_from: str = "camera"):
        self.pack = pack
        self.source, self.archer = source, archer
        self.picture_from = picture_from
        self._lock = threading.Lock()
        self._draw_lock = threading.Lock()
        self.state = "starting"
        self.session_no = 0
        self.events: deque[FaultEvent] = deque(maxlen=MAX_EVENTS)
        self.shots: list[ShotResult] = []
        self.tally = Tally()
        self.status = ""
        self._status_at = 0.0  # when `status` was posted
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
        self.frames_in: Callable[[], int] = int  # frames the source delivered so far (set by the run); int() == 0
        self._expect_since: float | None = None  # when the source was started: pictures are expected from then
        self._count_seen, self._count_at = 0, 0.0  # frames_in() when the page last saw it change, and when

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

    def on_shot(self, done: CompletedShot) -> None:
        with self._lock:
            self.shots.append(done.result)
            self.tally.add(done.result)
            if done.handedness:
                self.handedness = done.handedness

    def on_status(self, msg: str) -> None:
        """The capture thread's status line (retrying, reconnected): the newest stands for the one before."""
        now = time.monotonic()
        with self._lock:
            self.status, self._status_at = msg, now

    def add_sid(self, sid: int) -> None:
        with self._lock:
            if sid not in self.sids:
                self.sids.append(sid)

    def ended(self, error: BaseException | None = None) -> None:
        with self._lock:
            if error is not None:
                self.error = str(error) if isinstance(error, CoachError) else f"{type(error).__name__}: {error}"
            self.state = "failed" if self.error else "stopped"
        self.expect_pictures(False)

    # ---- told by the run or the page --------------------------------------------------------------------
    def expect_pictures(self, on: bool, now: float | None = None) -> None:
        """The source is started (or the browser's stream plays): frames are expected from now on; idempotent,
        the first moment kept. `on=False`: stopped, nothing expected."""
        with self._lock:
            if not on:
                self._expect_since = None
            elif self._expect_since is None:
                self._expect_since = time.monotonic() if now is None else now

    def _no_picture(self, now: float) -> bool:
        """Under the lock: is the source expected to deliver, and has its count not moved for NO_PICTURE_S?"""
        n = self.frames_in()
        if n != self._count_seen:
            self._count_seen, self._count_at = n, now
        if self._expect_since is None:
            return False
        return now - max(self._count_at, self._expect_since) >= NO_PICTURE_S

    # ---- read by the page -----------------------------------------------------------------------------
    def snapshot(self, now: float | None = None) -> Snapshot:
        now = time.monotonic() if now is None else now
        self.last_seen = now
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
                no_picture=self._no_picture(now),
                picture_from=self.picture_from,
                expecting=self._expect_since is not None,
                status_age_s=now - self._status_at,
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
