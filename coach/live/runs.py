"""The dashboard's live runs: a live session for an archer (`LiveRun`: the archer's profile, the board its threads
post to, every shot recorded as it completes), fed by a camera, a video file or a URL on this machine
(`CameraRun`) or by the browser's camera (`BrowserRun`, coach/live/browser_run.py)."""

from __future__ import annotations

import threading
from collections.abc import Callable

from posture_rules.pack import RulePack, load_pack

from ..capture import parse_source
from ..recording import ArcherRecording, open_archer
from ..store import now_iso
from .board import Board, Figures
from .session import LiveSession, open_source


def _recorder_factory(who: ArcherRecording, source: str, pack: RulePack, board: Board):
    started = now_iso()

    def factory(n: int, ring):
        # called in the analysis thread: the recorder's SQLite connection belongs to it
        # the session id is known once the recorder writes (at the first shot): the board hears it then
        return who.recorder(source, pack, grabber=ring, chash=f"live:{source}:{started}:{n}", on_start=board.add_sid)

    return factory


def figures_of(session: LiveSession, dropped_before: Callable[[], int] = lambda: 0) -> Figures:
    """The page's figures. `dropped_before`: frames dropped before the feeder took them (the browser's push
    mailbox); the camera delivered them too, so they count in `released` as well as in `dropped`."""
    s = session.stats
    before = dropped_before()
    try:
        p50 = s.percentile(50) if s.latencies_ms else None
    except RuntimeError:  # the analysis thread appended while we read; next poll
        p50 = None
    return Figures(
        released=session.feeder.released + before,
        analysed=s.analysed,
        dropped=session.frames.dropped + before,
        latency_p50_ms=p50,
    )


def kind_of_source(spec: str | int) -> str:
    """A camera index, a stream URL or a video file (what the page tells a coach to check)."""
    if isinstance(spec, int):
        return "camera"
    return "stream" if "://" in str(spec) else "file"


class LiveRun:
    """A live session for an archer, its threads posting to `board`; CameraRun and BrowserRun feed it."""

    kind = "run"
    picture_from = "camera"  # what the page names when no picture arrives (board.PICTURE_FROM)

    def __init__(self, db, archer: str, source: str, *, pack: RulePack | None = None, model: str | None = None):
        self.db = db
        self.pack = pack or load_pack()
        self.model = model
        # the archer and their saved profile; a bad store fails here, before any thread
        self.who = open_archer(db, archer)
        self.archer, self.profile = self.who.name, self.who.profile
        self.board = Board(self.profile.apply(self.pack), source, self.archer, self.picture_from)
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
            recorder_factory=_recorder_factory(self.who, name, self.pack, board),
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


class CameraRun(LiveRun):
    """A camera index, video file (fed at its real frame rate, like a camera) or URL on the dashboard's machine."""

    kind = "camera"

    def __init__(self, db, archer: str, spec: str | int, **kw):
        self.spec = parse_source(spec) if isinstance(spec, str) else spec
        self.picture_from = kind_of_source(self.spec)
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
        self.board.figures_fn = lambda: figures_of(session)
        self.board.frames_in = lambda: session.feeder.released
        self.board.expect_pictures(True)  # the model is loaded and the source open: frames are due from now
        self._watch(session)
        return self

    def stop(self) -> None:
        if self.session is not None:
            self.session.stop()
