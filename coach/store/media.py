"""Key-frame images for the session store: grabbers that hand the recorder the frames a completed shot asks for
(from the video file, or from a ring of recent live frames), and the JPEG thumbnails the store keeps; and where a
store's annotated videos live beside it (the dashboard writes them, `coach delete` removes them)."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

KEY_FRAME_KINDS = ("full_draw", "release")
JPEG_QUALITY = 85
THUMB_MAX_SIDE = 720  # key frames are stored at most this wide/high


def media_dir(db: Path) -> Path:
    """Where the annotated videos and uploads of the store `db` live: $COACH_MEDIA, else `<db name>-media/`."""
    return Path(os.environ.get("COACH_MEDIA") or db.parent / f"{db.stem}-media")


def annotated_video(media: Path, sid: int) -> Path:
    return media / f"session-{sid}.mp4"


class VideoFrameGrabber:
    """Key-frame images for the recorder, read from the same file by a second, forward-only reader.

    The analyzer's listener has no images, and keeping every frame would cost memory; this reader decodes
    ahead only when a shot completes, up to that shot's key frames (shots complete in order), so there is no
    per-frame database or file work. Frame i here is frame i of `FrameSource` (both count decoded frames)."""

    def __init__(self, path: str | os.PathLike):
        self.path = str(path)
        self._cap = None
        self._next = 0

    def _open(self) -> None:
        import cv2

        if self._cap is not None:
            self._cap.release()
        self._cap = cv2.VideoCapture(self.path)
        self._cap.set(cv2.CAP_PROP_ORIENTATION_AUTO, 1)
        self._next = 0

    def grab(self, indices: list[int]) -> dict[int, np.ndarray]:
        out: dict[int, np.ndarray] = {}
        for i in sorted(set(indices)):
            if self._cap is None or i < self._next:
                self._open()
            while self._next < i:
                if not self._cap.grab():
                    return out
                self._next += 1
            ok, img = self._cap.read()
            self._next += 1
            if not ok or img is None:
                return out
            out[i] = img
        return out

    def close(self) -> None:
        if self._cap is not None:
            self._cap.release()
            self._cap = None


class RingFrameGrabber:
    """For live sources: keep the last `size` frames, downscaled, and hand out the ones a shot asks for."""

    def __init__(self, size: int = 600, max_side: int = THUMB_MAX_SIDE):
        from collections import deque

        self._ring: deque[tuple[int, np.ndarray]] = deque(maxlen=size)
        self.max_side = max_side
        self.scale = 1.0

    def offer(self, index: int, image: np.ndarray) -> None:
        small, self.scale = _downscale(image, self.max_side)
        self._ring.append((index, small if small is not image else image.copy()))

    def grab(self, indices: list[int]) -> dict[int, np.ndarray]:
        want = set(indices)
        return {i: img for i, img in self._ring if i in want}

    def close(self) -> None:
        self._ring.clear()


def _downscale(image: np.ndarray, max_side: int) -> tuple[np.ndarray, float]:
    import cv2

    h, w = image.shape[:2]
    s = min(1.0, max_side / max(h, w))
    if s >= 1.0:
        return image, 1.0
    return cv2.resize(image, (round(w * s), round(h * s)), interpolation=cv2.INTER_AREA), s


def encode_thumbnail(image: np.ndarray, source_width: int) -> tuple[bytes, float]:
    """JPEG of the frame at most THUMB_MAX_SIDE; returns (bytes, thumbnail pixels per source pixel)."""
    import cv2

    small, _ = _downscale(image, THUMB_MAX_SIDE)
    ok, buf = cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
    if not ok:
        raise RuntimeError("JPEG encoding failed")
    return buf.tobytes(), small.shape[1] / max(source_width, 1)
