"""PoseFrame in, Body out: pixels, smoothing and the shoulder-width unit, the same for live and recorded.

Live uses the causal One-Euro filter (no waiting); recorded video uses the centred window, which delays
its output by `lag` frames but adds no phase lag. Everything downstream sees only Body objects.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator

import numpy as np

from .filters import CenteredSmoother, OneEuroFilter
from .kinematics import Body, ShoulderWidth
from .landmarks import N_LANDMARKS, SIDES, SideMap
from .pose_frame import PoseFrame, PoseTrack


class BodyStream:
    def __init__(self, fps: float, width: int, height: int, mode: str = "recorded", handedness: str = "right"):
        if mode not in ("recorded", "live"):
            raise ValueError(f"mode must be 'recorded' or 'live', not {mode!r}")
        self.mode = mode
        self.sides: SideMap = SIDES[handedness]
        self._scale = np.array([width, height], dtype=float)
        self._centered = CenteredSmoother(fps) if mode == "recorded" else None
        self._one_euro = OneEuroFilter() if mode == "live" else None
        self._pending: deque[tuple[int, float, np.ndarray, np.ndarray]] = deque()
        self._sw = ShoulderWidth(window=int(max(fps, 1) * 3))
        self._xy = np.empty((N_LANDMARKS, 2))
        self._nan_xy = np.full((N_LANDMARKS, 2), np.nan)
        self._zero_vis = np.zeros(N_LANDMARKS)

    @property
    def lag(self) -> int:
        return self._centered.lag if self._centered else 0

    def set_handedness(self, handedness: str) -> None:
        self.sides = SIDES[handedness]

    def push(self, pf: PoseFrame) -> list[Body]:
        if pf.landmarks is None:
            raw, vis = self._nan_xy, self._zero_vis
        else:
            np.multiply(pf.landmarks[:, :2], self._scale, out=self._xy)
            raw, vis = self._xy.copy(), pf.landmarks[:, 3].copy()
            # Landmarks MediaPipe itself doubts are treated as missing before smoothing, so a guessed
            # wrist behind the bow does not drag the smoothed one.
            raw[vis < 0.3] = np.nan
        if self._one_euro is not None:
            return [self._make(pf.index, pf.t_ms, self._one_euro(raw, pf.t_ms / 1000.0), vis, raw)]
        self._pending.append((pf.index, pf.t_ms, vis, raw))
        sm = self._centered.push(raw)
        return [] if sm is None else [self._emit(sm)]

    def flush(self) -> list[Body]:
        if self._centered is None:
            return []
        return [self._emit(sm) for sm in self._centered.flush()]

    def _emit(self, smoothed: np.ndarray) -> Body:
        index, t_ms, vis, raw = self._pending.popleft()
        return self._make(index, t_ms, smoothed, vis, raw)

    def _make(self, index: int, t_ms: float, xy: np.ndarray, vis: np.ndarray, raw: np.ndarray) -> Body:
        sw = self._sw.update(xy, vis)
        return Body(index, t_ms, xy, vis, sw, self.sides, raw)


def bodies_from_track(track: PoseTrack, handedness: str = "right", mode: str = "recorded") -> Iterator[Body]:
    """Every frame of a pose track as a Body, in order (used by re-analysis and tests)."""
    stream = BodyStream(track.fps, track.width, track.height, mode, handedness)
    for pf in track.frames:
        yield from stream.push(pf)
    yield from stream.flush()
