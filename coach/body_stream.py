"""PoseFrame in, Body out: pixels, smoothing and the shoulder-width unit, the same for live and recorded.

Live uses the causal One-Euro filter (no waiting); recorded video uses the centred window, which delays
its output by `lag` frames but adds no phase lag. Everything downstream sees only Body objects.

Before smoothing, MediaPipe's glitches are taken out of the raw points: frames where the upper body folds
(shoulders snapping together) lose their upper body and a mirrored upper body (shoulders ordered against
the hips) gets its left/right labels back (`UpperBodyGuard`, both modes, causal); in
recorded video jumps of up to 0.1 s (1-3 frames at 30 fps) are replaced by the median of their ±0.1 s window
(`Despiker`, which adds its own delay of as many frames). `Body.raw_xy` carries the cleaned, unsmoothed points.

The despiker and the smoothers see the points relative to the shoulder midpoint, and that midpoint apart
(`_on_body`): where every point is read the centred smoother gives the same sum, but a median or an average over
frames where a point was misread or missing is then one of where it was on the body, not of where it was in a
picture the camera moved meanwhile (a pan made MediaPipe's hand at the anchor jump 0.2 U in the despiker's output
and a stance_high shot went unseen), and the One-Euro filter smooths a still archer as still while the camera
pans (its cutoff rises with the speed it sees).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator

import numpy as np

from .body_guard import UPPER_BODY, SomeoneElse, UpperBodyGuard
from .filters import CenteredSmoother, Despiker, OneEuroFilter
from .kinematics import Body, ShoulderWidth
from .landmarks import LEFT_SHOULDER, N_LANDMARKS, RIGHT_SHOULDER, SIDES, SideMap
from .pose_frame import PoseFrame, PoseTrack

VIS_MIN = 0.3
VIS_MIN_MIRRORED = 0.1


class BodyStream:
    def __init__(self, fps: float, width: int, height: int, mode: str = "recorded", handedness: str = "right"):
        if mode not in ("recorded", "live"):
            raise ValueError(f"mode must be 'recorded' or 'live', not {mode!r}")
        self.mode = mode
        self.sides: SideMap = SIDES[handedness]
        self._scale = np.array([width, height], dtype=float)
        self._picture = (int(width), int(height))
        self._centered = CenteredSmoother(fps) if mode == "recorded" else None
        self._one_euro = OneEuroFilter() if mode == "live" else None
        self._guard = UpperBodyGuard()
        self._someone_else = SomeoneElse()
        self._despike = Despiker.for_fps(fps) if mode == "recorded" else None
        self._pending: deque[tuple[int, float, np.ndarray, bool]] = deque()  # (index, t_ms, vis, repeat) to output
        self._clean: deque[np.ndarray] = deque()  # despiked raw points awaiting the smoother
        self._sw = ShoulderWidth(window=int(max(fps, 1) * 3))
        self._xy = np.empty((N_LANDMARKS, 2))
        self._nan_xy = np.full((N_LANDMARKS, 2), np.nan)
        self._zero_vis = np.zeros(N_LANDMARKS)
        self._origin = np.zeros(2)  # the last shoulder midpoint read (`_on_body`)
        self._before = np.full((N_LANDMARKS, 4), np.nan)  # the last frame's landmarks as read, for `repeat`

    @property
    def lag(self) -> int:
        return self._centered.lag + self._despike.k if self._centered else 0

    def set_handedness(self, handedness: str) -> None:
        self.sides = SIDES[handedness]

    def push(self, pf: PoseFrame) -> list[Body]:
        repeat = self._repeats(pf.landmarks)
        if pf.landmarks is not None:
            np.multiply(pf.landmarks[:, :2], self._scale, out=self._xy)
        if pf.landmarks is None or self._someone_else(self._xy, self._guard.scale, pf.t_ms / 1000.0):
            raw, vis = self._nan_xy, self._zero_vis
        else:
            # Live, the raw points are the Body's own; recorded video keeps them only as `_on_body` lays them out.
            raw = self._xy.copy() if self._one_euro is not None else self._xy
            vis = pf.landmarks[:, 3].copy()
            repaired = self._guard(raw, vis, pf.t_ms / 1000.0)
            # Landmarks MediaPipe itself doubts are treated as missing before smoothing, so a guessed
            # wrist behind the bow does not drag the smoothed one. In a frame it misread as facing away,
            # its visibilities describe that misreading (the "hidden" arm is the one in plain view).
            doubt = vis < VIS_MIN
            if repaired == "mirrored":
                doubt[UPPER_BODY] = vis[UPPER_BODY] < VIS_MIN_MIRRORED
            raw[doubt] = np.nan
        if self._one_euro is not None:
            smoothed = _in_picture(self._one_euro(self._on_body(raw), pf.t_ms / 1000.0), own=True)
            return [self._make(pf.index, pf.t_ms, smoothed, vis, raw, repeat)]
        self._pending.append((pf.index, pf.t_ms, vis, repeat))
        clean = self._despike.push(self._on_body(raw), self._guard.scale)
        return [] if clean is None else self._smooth(clean)

    def _repeats(self, landmarks: np.ndarray | None) -> bool:
        """`landmarks` are the last frame's to the bit: the pose of the same picture, which the estimator gives a
        duplicated frame again (`pose.RepeatsSeen`). The points arrive at a track file's 1e-5 precision
        (`pose_frame.at_file_precision`), and no two pictures give the model 132 numbers equal even to that."""
        if landmarks is None:
            self._before.fill(np.nan)
            return False
        if landmarks.shape != self._before.shape:
            self._before = np.full(landmarks.shape, np.nan)
        same = bool(np.array_equal(landmarks, self._before))
        np.copyto(self._before, landmarks)
        return same

    def _on_body(self, raw: np.ndarray) -> np.ndarray:
        """(N_LANDMARKS + 1, 2): the points relative to the shoulder midpoint, then that midpoint (the last one read
        while the shoulders are not); `_in_picture` puts them back."""
        origin = 0.5 * (raw[LEFT_SHOULDER] + raw[RIGHT_SHOULDER])
        if not np.isnan(origin).any():
            self._origin = origin
        out = np.empty((N_LANDMARKS + 1, 2))
        np.subtract(raw, self._origin, out=out[:N_LANDMARKS])
        out[N_LANDMARKS] = self._origin
        return out

    def flush(self) -> list[Body]:
        if self._centered is None:
            return []
        out = []
        for clean in self._despike.flush():
            out += self._smooth(clean)
        return out + [self._emit(sm) for sm in self._centered.flush()]

    def _smooth(self, clean_on_body: np.ndarray) -> list[Body]:
        self._clean.append(_in_picture(clean_on_body))
        sm = self._centered.push(clean_on_body)
        return [] if sm is None else [self._emit(sm)]

    def _emit(self, smoothed_on_body: np.ndarray) -> Body:
        index, t_ms, vis, repeat = self._pending.popleft()
        return self._make(index, t_ms, _in_picture(smoothed_on_body, own=True), vis, self._clean.popleft(), repeat)

    def _make(
        self, index: int, t_ms: float, xy: np.ndarray, vis: np.ndarray, raw: np.ndarray, repeat: bool = False
    ) -> Body:
        sw = self._sw.update(index, xy, vis)
        return Body(index, t_ms, xy, vis, sw, self.sides, raw, repeat, self._picture)


def _in_picture(on_body: np.ndarray, own: bool = False) -> np.ndarray:
    """The points in the picture again from `BodyStream._on_body`'s layout: a new array, or `on_body`'s own rows
    where nothing else holds it (`own`: the smoothers' output, new each frame)."""
    points = on_body[:N_LANDMARKS]
    return np.add(points, on_body[N_LANDMARKS], out=points if own else None)


def bodies_from_track(track: PoseTrack, handedness: str = "right", mode: str = "recorded") -> Iterator[Body]:
    """Every frame of a pose track as a Body, in order (used by re-analysis and tests)."""
    stream = BodyStream(track.fps, track.width, track.height, mode, handedness)
    for pf in track.frames:
        yield from stream.push(pf)
    yield from stream.flush()
