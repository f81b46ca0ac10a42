"""The frames behind an instant replay: a bounded ring of downscaled analysed frames with their FrameResults.

The analysis thread offers every frame it analysed; when a shot completes, `clip(shot)` takes that shot's
frames (raise → end of follow-through) out of the ring for the window to play back, slowed down, while the
analysis goes on. The ring also serves the session store's key frames (`grab`, like store.RingFrameGrabber).
"""

from __future__ import annotations

import threading
from collections import deque
from dataclasses import dataclass, field

import cv2
import numpy as np

from ..results import FrameResult, ShotResult


@dataclass(slots=True)
class ReplayClip:
    shot: ShotResult
    frames: list[tuple[np.ndarray, FrameResult]]  # (downscaled BGR, result in source pixels)
    scale: float  # image pixels per source pixel
    faults: tuple[str, ...] = ()

    @property
    def duration_s(self) -> float:
        if len(self.frames) < 2:
            return 0.0
        return (self.frames[-1][1].t_ms - self.frames[0][1].t_ms) / 1000.0


@dataclass
class FrameRing:
    """The last `seconds` of analysed frames (at most 30 a second are analysed on a 2-core machine; a faster
    camera's extra frames are dropped before analysis), each at most `max_side` pixels on its longer side."""

    fps: float = 30.0
    seconds: float = 12.0
    max_side: int = 480  # 480×270 BGR ≈ 0.4 MB a frame: 12 s at ≤ 30 analysed frames/s ≈ 140 MB
    _ring: deque = field(init=False)
    scale: float = field(init=False, default=1.0)

    def __post_init__(self) -> None:
        self._ring = deque(maxlen=max(1, int(min(self.fps, 30.0) * self.seconds)))
        self._lock = threading.Lock()

    def offer(self, image: np.ndarray, result: FrameResult) -> None:
        h, w = image.shape[:2]
        s = min(1.0, self.max_side / max(h, w))
        small = cv2.resize(image, (round(w * s), round(h * s)), interpolation=cv2.INTER_AREA) if s < 1 else image.copy()
        self.scale = s
        with self._lock:
            self._ring.append((result.index, small, result))

    def __len__(self) -> int:
        return len(self._ring)

    def nbytes(self) -> int:
        with self._lock:
            return sum(img.nbytes for _, img, _ in self._ring)

    def between(self, lo: int, hi: int) -> list[tuple[np.ndarray, FrameResult]]:
        with self._lock:
            return [(img, r) for i, img, r in self._ring if lo <= i <= hi]

    def clip(self, shot: ShotResult, lead_s: float = 0.5) -> ReplayClip | None:
        """The shot from just before its raise (or its anchor) to the end of its follow-through."""
        start = next(
            (f for f in (shot.raise_start_frame, shot.draw_start_frame, shot.anchor_frame) if f is not None), None
        )
        end = shot.end_frame if shot.end_frame is not None else shot.release_frame
        if start is None or end is None:
            return None
        frames = self.between(start - int(lead_s * self.fps), end)
        if not frames:
            return None
        return ReplayClip(shot, frames, self.scale, tuple(f.rule for f in shot.faults))

    # the session store's grabber interface (SessionRecorder key frames)
    def grab(self, indices: list[int]) -> dict[int, np.ndarray]:
        want = set(indices)
        with self._lock:
            return {i: img for i, img, _ in self._ring if i in want}

    def close(self) -> None:
        with self._lock:
            self._ring.clear()


class ReplayPlayer:
    """Plays one clip once at `speed` (0.5 = half speed) against the caller's clock; never blocks."""

    def __init__(self, speed: float = 0.5):
        self.speed = speed
        self.clip: ReplayClip | None = None
        self._t0 = 0.0
        self._i = 0

    def start(self, clip: ReplayClip, now: float) -> None:
        self.clip, self._t0, self._i = clip, now, 0

    @property
    def playing(self) -> bool:
        return self.clip is not None

    def frame(self, now: float) -> tuple[np.ndarray, FrameResult] | None:
        """The frame due at `now`, or None once the clip is over (the player then stops)."""
        c = self.clip
        if c is None or not c.frames:
            self.clip = None
            return None
        t_first = c.frames[0][1].t_ms
        due_ms = t_first + (now - self._t0) * 1000.0 * self.speed
        while self._i + 1 < len(c.frames) and c.frames[self._i + 1][1].t_ms <= due_ms:
            self._i += 1
        if self._i + 1 >= len(c.frames) and due_ms > c.frames[-1][1].t_ms + 500:
            self.clip = None  # hold the last frame half a second, then stop
            return None
        return c.frames[self._i]
