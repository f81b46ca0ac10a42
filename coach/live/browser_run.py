"""The browser's camera as a live run: streamlit-webrtc's callback leaves each frame (timed by its pts) in a
1-slot mailbox (`PushSource`, newest frame wins) and returns at once with the frame annotated with the newest
analysis, so the callback never waits for the pose model; each time the stream starts, a new live session
starts with its first frame."""

from __future__ import annotations

import threading
import time
from collections import deque

import numpy as np

from ..capture import Frame
from ..overlay import Overlay
from ..store import now_iso
from .mailbox import Closed, Mailbox
from .runs import LiveRun, figures_of


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


class BrowserRun(LiveRun):
    """The browser's camera (streamlit-webrtc). Each time the stream starts a new live session starts with its
    first frame; `stop()` (the component's STOP, or the stream ending) closes it."""

    kind = "browser"
    picture_from = "browser"
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
        self.pushed = 0  # frames the browser delivered, all streams: the board's "is a picture arriving?"
        self.board.frames_in = lambda: self.pushed

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
        self.pushed += 1  # only this (callback) thread writes it
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
        self.board.figures_fn = lambda: figures_of(session, lambda: src.box.dropped)
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

    def streaming(self, playing: bool) -> None:
        """The page saw the browser's stream play (or not): while it plays, frames are expected."""
        self.board.expect_pictures(playing)

    def stop(self) -> None:
        with self._lock:
            src, session = self._src, self.session
        if session is not None:
            session.stop()
        if src is not None:
            src.close()

    def check_samples(self) -> list[Frame]:
        return list(self.check_frames)
