"""Frames from any OpenCV source — a camera index, a file, a URL — each with its index and container time.

Time comes from the container (CAP_PROP_POS_MSEC), never the wall clock: frames are dropped live and
phone videos have variable frame rates. Phone videos carry their rotation in the container (the track
matrix); OpenCV can apply it, but the opencv-contrib-python build that mediapipe brings has
CAP_PROP_ORIENTATION_AUTO off by default, so we turn it on — otherwise a portrait video arrives on its side
and MediaPipe finds no upright person.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from dataclasses import dataclass

# FFmpeg's complaints about a damaged file ("Invalid NAL unit size") mean nothing to a coach, and its decoder
# threads print them after a read returns, so no stderr redirection around the read can catch them all:
# OpenCV's FFmpeg backend reads this log level when it opens a file. COACH_NATIVE_LOGS=1 keeps them.
if not os.environ.get("COACH_NATIVE_LOGS"):
    os.environ.setdefault("OPENCV_FFMPEG_LOGLEVEL", "-8")  # AV_LOG_QUIET

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from .errors import CoachError, VideoError
from .quiet import native_stderr_silenced
from .safe_io import name_problem, printable, require_regular_file

# The video files a folder is searched for (`coach batch`) and the dashboard takes as an upload: what FFmpeg
# reads and cameras write (.mts/.m2ts: camcorders; .3gp: old phones; .mpg: DVD and capture cards; .gif: a shot
# shared as an animation, 10-15 fps).
VIDEO_EXTENSIONS = frozenset(
    {".mp4", ".m4v", ".mov", ".avi", ".mkv", ".webm", ".mts", ".m2ts", ".3gp", ".mpg", ".mpeg", ".wmv", ".flv", ".gif"}
)


@dataclass(slots=True)
class Frame:
    index: int
    t_ms: float
    image: np.ndarray  # BGR uint8, upright


def parse_source(source: str | int | os.PathLike) -> str | int:
    """'0' → camera 0; anything else is a path or URL. A file that exists is a file, even one named `123`."""
    if isinstance(source, int):
        return source
    s = os.fspath(source)
    return int(s) if s.strip().isdigit() and not os.path.lexists(s) else s


class FrameSource:
    """Iterate frames of a camera, file or URL. Use as a context manager or call close()."""

    def __init__(self, source: str | int | os.PathLike):
        self.source = parse_source(source)
        self.is_camera = isinstance(self.source, int)
        self.is_file = not self.is_camera and "://" not in str(self.source)
        if self.is_file:
            # Regular, readable, UTF-8-named files only: OpenCV segfaults on a name that is not UTF-8, blocks
            # on a FIFO, and calls an unreadable file "not a video" (coach/safe_io.py)
            try:
                p = require_regular_file(self.source, "video file")
            except CoachError as e:
                raise VideoError(e.path, e.problem) from None
            if p.stat().st_size == 0:
                raise VideoError(p, "is empty (0 bytes)")
        elif not self.is_camera and name_problem(self.source):
            raise VideoError(printable(self.source), "the address is not valid UTF-8")
        with native_stderr_silenced():
            self._cap = cv2.VideoCapture(self.source if self.is_camera else str(self.source))
        if not self._cap.isOpened():
            what = (
                f"camera {self.source} does not exist or cannot be opened"
                if self.is_camera
                else "cannot be opened as a video (not a video file, or a codec OpenCV lacks)"
            )
            raise VideoError(self.source, what)
        self._cap.set(cv2.CAP_PROP_ORIENTATION_AUTO, 1)
        fps = self._cap.get(cv2.CAP_PROP_FPS)
        self.fps = float(fps) if fps and 1.0 <= fps <= 1000.0 else 30.0
        self.width = int(self._cap.get(cv2.CAP_PROP_FRAME_WIDTH))
        self.height = int(self._cap.get(cv2.CAP_PROP_FRAME_HEIGHT))
        n = int(self._cap.get(cv2.CAP_PROP_FRAME_COUNT))
        self.frame_count_hint = n if n > 0 else None
        self._first: Frame | None = None
        self._index = 0
        self._last_t = -1.0
        self._t0 = time.monotonic()
        if self.is_file:
            # Read one frame now so a file with a video header but no decodable frames fails here,
            # with its name, rather than later as "no person found".
            with native_stderr_silenced():
                self._first = self._read()
            if self._first is None:
                self.close()
                raise VideoError(self.source, "has no decodable video frames (corrupt or truncated)")
            h, w = self._first.image.shape[:2]
            self.width, self.height = w, h

    def _read(self) -> Frame | None:
        ok, img = self._cap.read()
        if not ok or img is None:
            return None
        t = self._cap.get(cv2.CAP_PROP_POS_MSEC)
        if t is None or t <= self._last_t:
            # Some containers report 0 or repeat a time, and some camera backends give none at all: a file
            # falls back to its nominal rate, a live source to the moment the frame was grabbed.
            t = self._index * 1000.0 / self.fps if self.is_file else (time.monotonic() - self._t0) * 1000.0
            t = max(t, self._last_t + 1e-3)
        frame = Frame(self._index, float(t), img)
        self._index += 1
        self._last_t = frame.t_ms
        return frame

    def __iter__(self) -> Iterator[Frame]:
        if self._first is not None:
            f, self._first = self._first, None
            yield f
        while True:
            f = self._read()
            if f is None:
                return
            yield f

    def close(self) -> None:
        self._cap.release()

    def __enter__(self) -> FrameSource:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
