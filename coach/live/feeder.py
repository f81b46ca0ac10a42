"""The capture thread: frames from a camera, URL or file into a `Mailbox`, each stamped with its arrival time.

A file is fed as if it were a camera: each frame is released when its container time (`t_ms`) comes due on a
monotonic clock, whether or not the analysis took the previous one, so a test or benchmark that uses a video
file sees exactly what a camera would give: frames at the real rate, with the analyser's misses dropped.
With `no_drop` a file is fed at the pace the analysis acknowledges instead: a frame is released when it comes due
and the analysis has taken the one before, the clock stopping while the analysis is behind, so every frame is
analysed at no more than the real rate however busy the machine (a coach replaying a recording wants every
frame; a test of what the analysis finds must not depend on the machine's load).
A camera or URL is released as fast as it delivers. When a live source stops delivering (camera unplugged,
stream down) the source is reopened a few times before giving up with a one-line error; each attempt is posted as a
status line, and so is the first frame after a reopen ("reconnected"), which ends the retrying one.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from ..capture import Frame, FrameSource
from ..errors import CoachError
from .mailbox import Closed, Mailbox


@dataclass(slots=True)
class Arrival:
    frame: Frame
    arrived: float  # clock() when the frame was released to the analysis


Status = Callable[[str], None]


class Feeder:
    """Reads `open_source()` in its own thread (`start()`), releasing frames into `mailbox`.

    `realtime`: pace frames by their t_ms (files); default: True for files, False for cameras and URLs.
    `no_drop`: a file only: release a frame only once the analysis has taken the one before (nothing dropped).
    `retries`: how often a live source that stops delivering is reopened before the feeder gives up; the
    reason is then in `.error` (a CoachError) and the mailbox is closed.
    """

    def __init__(
        self,
        open_source: Callable[[], FrameSource] | FrameSource,
        mailbox: Mailbox[Arrival],
        *,
        realtime: bool | None = None,
        retries: int = 3,
        retry_wait_s: float = 1.0,
        on_status: Status | None = None,
        clock: Callable[[], float] = time.monotonic,
        max_frames: int | None = None,
        no_drop: bool = False,
    ):
        if isinstance(open_source, FrameSource) or not callable(open_source):
            first = open_source
            self._open = lambda: first
        else:
            self._open = open_source
        self.mailbox = mailbox
        self.realtime = realtime
        self.retries = retries
        self.retry_wait_s = retry_wait_s
        self.on_status = on_status or (lambda msg: None)
        self.clock = clock
        self.max_frames = max_frames
        self.no_drop = no_drop
        self.released = 0
        self.read_errors = 0
        self.error: CoachError | None = None
        self.source: FrameSource | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # ---- control ---------------------------------------------------------------------------------------
    def open(self) -> FrameSource:
        """Open the source now (in the caller's thread) so a bad camera index or file fails before any thread."""
        if self.source is None:
            self.source = self._open()
        return self.source

    def start(self) -> Feeder:
        self.open()
        self._thread = threading.Thread(target=self.run, name="coach-live-capture", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()

    def join(self, timeout: float | None = None) -> None:
        if self._thread is not None:
            self._thread.join(timeout)

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    # ---- the thread ------------------------------------------------------------------------------------
    def _wait(self, seconds: float) -> bool:
        """Sleep, waking early on stop(); True if stopped."""
        return self._stop.wait(seconds) if seconds > 0 else self._stop.is_set()

    def _wait_taken(self) -> bool:
        """`no_drop`: wait until the analysis has taken the frame in the mailbox, waking on stop(); True if
        stopped. Polled in short waits: stop() sets an event the mailbox's condition does not see."""
        while not self.mailbox.wait_taken(0.1):
            if self._stop.is_set() or self.mailbox.closed:
                return True
        return self._stop.is_set()

    def run(self) -> None:
        src = self.open()
        live = getattr(src, "is_camera", False) or not getattr(src, "is_file", True)
        if self.no_drop and live:
            self.error = CoachError(_name(src), "frames can be held back for the analysis only from a video file")
            self.mailbox.close()
            src.close()
            return
        realtime = (not live) if self.realtime is None else self.realtime
        index_base, t_base, last_index, last_t = 0, 0.0, -1, -1.0
        gap_ms: float | None = None  # set after a reopen: the time the source was away
        t_start = first_t = None
        due = 0.0  # when the frame being released comes due (realtime)
        fails = 0  # reopen attempts since the last frame
        try:
            while not self._stop.is_set():
                for f in _frames(src):
                    fails = 0
                    frame = f
                    if gap_ms is not None:  # first frame after a reopen: continue from where the old source was
                        # and say it is back: the retrying line posted while it was away must not stand
                        self.on_status(f"{_name(src)}: reconnected after {gap_ms / 1000.0:.1f} s")
                        index_base, t_base, gap_ms = last_index + 1 - f.index, last_t + gap_ms - f.t_ms, None
                    if index_base or t_base:  # a reopened source counts from 0 again: keep index and time going
                        frame = Frame(f.index + index_base, f.t_ms + t_base, f.image)
                    if frame.t_ms <= last_t:
                        frame.t_ms = last_t + 1e-3
                    last_index, last_t = frame.index, frame.t_ms
                    if self.no_drop and self._wait_taken():
                        return
                    if realtime:
                        if t_start is None:
                            t_start, first_t = self.clock(), frame.t_ms
                        due = t_start + (frame.t_ms - first_t) / 1000.0
                        if self._wait(due - self.clock()):
                            return
                    elif self._stop.is_set():
                        return
                    now = self.clock()
                    if self.no_drop and realtime and now > due:
                        t_start += now - due  # held back (the analysis, a busy machine): the clock stopped meanwhile
                    try:
                        self.mailbox.put(Arrival(frame, now))
                    except Closed:
                        return
                    self.released += 1
                    if self.max_frames is not None and self.released >= self.max_frames:
                        return
                if self._stop.is_set() or not live:
                    return  # a file ends here
                # a live source stopped delivering: reopen it a few times
                self.read_errors += 1
                name = _name(src)
                src.close()
                lost_at = self.clock()
                while True:
                    fails += 1
                    if fails > self.retries:
                        self.error = CoachError(name, f"camera lost: no frames after {self.retries} retries")
                        return
                    self.on_status(f"{name}: camera lost (read failed); retrying ({fails}/{self.retries}) …")
                    if self._wait(self.retry_wait_s):
                        return
                    try:
                        src = self.source = self._open()
                        break
                    except Exception:  # still gone (CoachError), or a backend's own complaint
                        continue
                gap_ms = max((self.clock() - lost_at) * 1000.0, 1.0)
        finally:
            try:
                src.close()
            except Exception:
                pass
            self.mailbox.close()


def _frames(src) -> Iterable[Frame]:
    try:
        yield from src
    except Exception:  # a backend that raises mid-stream is a lost source, like one that returns no frame
        return


def _name(src) -> str:
    s = getattr(src, "source", src)
    return f"camera {s}" if isinstance(s, int) else os.fspath(s) if isinstance(s, str | os.PathLike) else str(s)
