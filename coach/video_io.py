"""H.264 MP4 writing through PyAV (no ffmpeg binary is available, and browsers need H.264 + yuv420p)."""

from __future__ import annotations

import os
from fractions import Fraction
from pathlib import Path
from types import TracebackType

import av
import numpy as np


class VideoWriter:
    """Context manager that encodes BGR uint8 frames into a browser-playable MP4.

    Frames get consecutive integer timestamps in a 1/fps time base, so a decoder returns exactly as many
    frames as were written, first frame = index 0.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        width: int,
        height: int,
        fps: float,
        crf: int = 23,
        preset: str = "medium",
        rotation: int = 0,
    ) -> None:
        if width % 2 or height % 2:
            # yuv420p subsamples chroma 2x2; odd sizes are rejected by libx264 or by browsers.
            raise ValueError(f"width and height must be even, got {width}x{height}")
        self.path = Path(path)
        self.width = width
        self.height = height
        self.fps = fps
        self.crf = crf
        self.preset = preset
        self.rotation = rotation  # display matrix, degrees counter-clockwise (a phone held upright: -90)
        self.frames_written = 0
        self._container: av.container.OutputContainer | None = None
        self._stream: av.video.stream.VideoStream | None = None
        self._time_base = Fraction(1, 1)

    def __enter__(self) -> VideoWriter:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # A str path keeps non-ASCII (e.g. Chinese) names intact; PyAV hands it to libavformat as UTF-8.
        container = av.open(str(self.path), mode="w", format="mp4", options={"movflags": "+faststart"})
        rate = Fraction(self.fps).limit_denominator(1001)
        stream = container.add_stream("libx264", rate=rate)
        stream.width = self.width
        stream.height = self.height
        stream.pix_fmt = "yuv420p"
        # "high" profile + yuv420p plays in every mainstream browser; crf trades size for quality.
        stream.options = {"crf": str(self.crf), "preset": self.preset, "profile": "high"}
        if self.rotation:
            if not hasattr(stream, "set_display_rotation"):  # older PyAV
                container.close()
                raise RuntimeError(f"PyAV {av.__version__} cannot write a display matrix (rotation)")
            stream.set_display_rotation(self.rotation)
        self._time_base = 1 / rate
        self._container = container
        self._stream = stream
        return self

    def write(self, frame_bgr: np.ndarray) -> None:
        if self._stream is None or self._container is None:
            raise RuntimeError("VideoWriter used outside its context")
        if frame_bgr.shape != (self.height, self.width, 3) or frame_bgr.dtype != np.uint8:
            raise ValueError(
                f"expected uint8 frame of shape {(self.height, self.width, 3)}, got "
                f"{frame_bgr.dtype} {frame_bgr.shape}"
            )
        frame = av.VideoFrame.from_ndarray(np.ascontiguousarray(frame_bgr), format="bgr24")
        frame.pts = self.frames_written
        frame.time_base = self._time_base
        for packet in self._stream.encode(frame):
            self._container.mux(packet)
        self.frames_written += 1

    def close(self) -> None:
        if self._stream is None or self._container is None:
            return
        container, stream = self._container, self._stream
        self._container = self._stream = None  # closed once, whatever happens below
        try:
            for packet in stream.encode(None):
                container.mux(packet)
        finally:
            container.close()

    def abort(self) -> None:
        """After a failed write (a full disk): no flush, no faststart pass over a file that cannot grow;
        release FFmpeg's handles and let the caller delete the partial file."""
        container, self._container, self._stream = self._container, None, None
        if container is not None:
            try:
                container.close()
            except Exception:  # noqa: BLE001 - the first error is the one to report
                pass

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if exc_type is None:
            self.close()
        else:
            self.abort()


def read_frames(path: str | os.PathLike[str], upright: bool = False):
    """Yield decoded frames as BGR uint8 arrays, in presentation order. PyAV hands frames as stored; with
    ``upright`` they are turned by the container's display matrix (a phone's portrait clip), as players do."""
    with av.open(str(path)) as container:
        for frame in container.decode(video=0):
            img = frame.to_ndarray(format="bgr24")
            k = int(round(getattr(frame, "rotation", 0) or 0)) // 90 % 4 if upright else 0
            yield np.ascontiguousarray(np.rot90(img, k)) if k else img
