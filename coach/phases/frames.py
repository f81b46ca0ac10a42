"""What the tracker keeps of each Body (`TrackFrame`: body-relative points in U, smoothed and raw) and the pure
geometry on a buffer of them: distances, the span between the wrists, centred time derivatives, the anchor
pose and stillness at the anchor, how fast the arms move."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import Enum

import numpy as np

from ..kinematics import Body
from ..landmarks import INDEX, LEFT_SHOULDER, NOSE, RIGHT_SHOULDER
from .params import P

L_WRIST, R_WRIST = INDEX["left_wrist"], INDEX["right_wrist"]
L_HIP, R_HIP = INDEX["left_hip"], INDEX["right_hip"]
L_ELBOW, R_ELBOW = INDEX["left_elbow"], INDEX["right_elbow"]
# Where the draw hand may anchor: the nose for an under-chin anchor; the mouth corners and ears for a side
# anchor with the head turned to the target (the nose then points away from the draw hand).
FACE_POINTS = [NOSE, INDEX["mouth_left"], INDEX["mouth_right"], INDEX["left_ear"], INDEX["right_ear"]]


@dataclass(slots=True)
class TrackFrame:
    """What the tracker keeps of one Body: body-relative points in U, smoothed and raw."""

    index: int
    t: float  # seconds
    lw: np.ndarray  # left wrist (2,), relative to the shoulder midpoint, in U; NaN if missing
    rw: np.ndarray
    nose: np.ndarray
    face: np.ndarray  # (len(FACE_POINTS), 2) nose, mouth corners, ears; NaN rows where missing
    raw_lw: np.ndarray  # the same from raw_xy (relative to the raw shoulder midpoint)
    raw_rw: np.ndarray
    sw_px: float = math.nan  # this frame's own shoulder width in pixels (raw): a cut or a new scene changes it
    torso_px: float = math.nan  # ... and its torso's length (shoulder to hip midpoints), NaN where hips are not seen
    # The elbows, each relative to its own shoulder (U), smoothed and raw, and the shoulder line (right minus left
    # shoulder, U): the draw elbow stands in for a draw hand hidden behind the head (`elbow.py`, behind views).
    le: np.ndarray = field(default_factory=lambda: _NAN2)
    re: np.ndarray = field(default_factory=lambda: _NAN2)
    raw_le: np.ndarray = field(default_factory=lambda: _NAN2)
    raw_re: np.ndarray = field(default_factory=lambda: _NAN2)
    sh: np.ndarray = field(default_factory=lambda: _NAN2)
    repeat: bool = False  # the pose of the picture before, again (`Body.repeat`): no new look at the archer

    def wrists(self, handedness: str) -> tuple[np.ndarray, np.ndarray]:
        """(bow, draw) wrists: a right-handed archer holds the bow in the left hand."""
        return (self.lw, self.rw) if handedness == "right" else (self.rw, self.lw)

    def raw_draw(self, handedness: str) -> np.ndarray:
        return self.raw_rw if handedness == "right" else self.raw_lw

    def raw_bow(self, handedness: str) -> np.ndarray:
        return self.raw_lw if handedness == "right" else self.raw_rw

    def draw_elbow(self, handedness: str) -> np.ndarray:
        """The draw elbow relative to the draw shoulder (U, smoothed; NaN where MediaPipe doubts it)."""
        return self.re if handedness == "right" else self.le

    def raw_draw_elbow(self, handedness: str) -> np.ndarray:
        return self.raw_re if handedness == "right" else self.raw_le

    def draw_shoulder(self, handedness: str) -> np.ndarray:
        """The draw shoulder relative to the shoulder midpoint (U)."""
        return self.sh * (0.5 if handedness == "right" else -0.5)


def _torso(xy: np.ndarray, vis: np.ndarray) -> float:
    """The torso's length in pixels (shoulder midpoint to hip midpoint); NaN where the hips are not seen."""
    if vis[L_HIP] < 0.5 or vis[R_HIP] < 0.5:
        return math.nan
    sh = (xy[LEFT_SHOULDER] + xy[RIGHT_SHOULDER]) * 0.5
    return float(np.hypot(*(sh - (xy[L_HIP] + xy[R_HIP]) * 0.5)))


def _unit(body: Body) -> float:
    sw = body.sw if body.sw > 0 else math.nan
    torso = _torso(body.xy, body.vis)
    if not math.isnan(torso):
        return torso * P.torso_to_sw_min if math.isnan(sw) else max(sw, torso * P.torso_to_sw_min)
    return sw


_NAN2 = np.full(2, np.nan)
_NAN_FACE = np.full((len(FACE_POINTS), 2), np.nan)


# Per side, the elbow and its shoulder: `_frame` takes each elbow relative to its own shoulder.
_ELBOWS, _ELBOW_SHOULDERS = [L_ELBOW, R_ELBOW], [LEFT_SHOULDER, RIGHT_SHOULDER]


def _frame(body: Body) -> TrackFrame | None:
    u = _unit(body)
    xy = body.xy
    origin = (xy[LEFT_SHOULDER] + xy[RIGHT_SHOULDER]) * 0.5
    if math.isnan(u) or u <= 0 or np.isnan(origin).any():
        return None
    rel = (xy[[L_WRIST, R_WRIST, *FACE_POINTS]] - origin) / u
    elbows = (xy[_ELBOWS] - xy[_ELBOW_SHOULDERS]) / u
    if body.raw_xy is not None:
        raw = body.raw_xy
        raw_origin = (raw[LEFT_SHOULDER] + raw[RIGHT_SHOULDER]) * 0.5
        if np.isnan(raw_origin).any():
            raw_origin = origin
        raw_rel = (raw[[L_WRIST, R_WRIST]] - raw_origin) / u
        raw_elbows = (raw[_ELBOWS] - raw[_ELBOW_SHOULDERS]) / u
    else:
        raw, raw_rel, raw_elbows = xy, rel[:2], elbows
    sw_px = float(np.hypot(*(raw[LEFT_SHOULDER] - raw[RIGHT_SHOULDER])))
    t = body.t_ms / 1000.0
    sh = (xy[RIGHT_SHOULDER] - xy[LEFT_SHOULDER]) / u
    return TrackFrame(
        body.index,
        t,
        rel[0],
        rel[1],
        rel[2],
        rel[2:],
        raw_rel[0],
        raw_rel[1],
        sw_px,
        _torso(raw, body.vis),
        elbows[0],
        elbows[1],
        raw_elbows[0],
        raw_elbows[1],
        sh,
        body.repeat,
    )


def _dist(a: np.ndarray, b: np.ndarray) -> float:
    return math.hypot(a[0] - b[0], a[1] - b[1])


def _span(f: TrackFrame) -> float:
    return _dist(f.lw, f.rw)


def _rate(
    buf: Sequence[TrackFrame], i: int, value: Callable[[TrackFrame], float], half: float = P.deriv_half_s
) -> float:
    """Centred time derivative of value(frame) at buf[i] over ±half seconds (one-sided at the ends)."""
    t0 = buf[i].t
    lo = i
    while lo > 0 and t0 - buf[lo - 1].t <= half + 1e-6:
        lo -= 1
    hi = i
    while hi < len(buf) - 1 and buf[hi + 1].t - t0 <= half + 1e-6:
        hi += 1
    # Live capture drops frames: with no neighbour inside the window, use the nearest one (if recent enough),
    # so a 10-15 fps analysis still has speeds. At the full rate the window always has its neighbours.
    if lo == i and i > 0 and t0 - buf[i - 1].t <= P.deriv_max_gap_s:
        lo = i - 1
    if hi == i and i < len(buf) - 1 and buf[i + 1].t - t0 <= P.deriv_max_gap_s:
        hi = i + 1
    if hi == lo:
        return math.nan
    a, b = value(buf[lo]), value(buf[hi])
    # A frame the pose lost at an end of the window (someone walking past, a dropped frame): the derivative is
    # taken from the outermost frames inside the window that were seen, not lost with it.
    while math.isnan(a) and lo < i:
        lo += 1
        a = value(buf[lo])
    while math.isnan(b) and hi > i:
        hi -= 1
        b = value(buf[hi])
    if hi == lo:
        return math.nan
    return (b - a) / (buf[hi].t - buf[lo].t)


def _newest_judged(buf: Sequence[TrackFrame], half: float) -> int:
    """Position of the newest frame whose centred derivative over ±half seconds has both sides."""
    i = len(buf) - 1
    while i > 0 and buf[-1].t - buf[i].t < half - 1e-6:
        i -= 1
    return i


def _face_dist(f: TrackFrame, p: np.ndarray) -> float:
    """Distance from p to the nearest visible face point (NaN if none)."""
    d = np.hypot(*(f.face - p).T)
    return math.nan if np.isnan(d).all() else float(np.nanmin(d))


def _ahead(f: TrackFrame, handedness: str, draw: np.ndarray | None = None) -> float:
    """How far the draw wrist (or the point `draw`) is in front of the nose, towards the bow hand (negative:
    behind the face)."""
    bow = f.wrists(handedness)[0]
    draw = f.wrists(handedness)[1] if draw is None else draw
    v = bow - f.nose
    n = math.hypot(v[0], v[1])
    return math.nan if not n > 0 else float((draw - f.nose) @ v) / n


def anchor_pose(f: TrackFrame, handedness: str) -> bool:
    """One wrist at the face (back from the set, not in front of it) and the other arm out, about level with
    the shoulders (stillness aside)."""
    bow, draw = f.wrists(handedness)
    if np.isnan(bow[0]) or np.isnan(draw[0]) or np.isnan(f.nose[0]):
        return False
    return (
        _face_dist(f, draw) < P.anchor_face_max_sw
        and bow_arm_out(f, bow)
        and _dist(bow, draw) > P.anchor_span_min_sw
        and _ahead(f, handedness) < P.anchor_ahead_max_sw
    )


def bow_arm_out(f: TrackFrame, bow: np.ndarray) -> bool:
    """The bow arm out at full draw: the bow wrist well away from the nose and not far below the shoulders."""
    return _dist(bow, f.nose) > P.arm_out_min_sw and bow[1] < P.bow_below_shoulder_max_sw


def _still_at_anchor(buf: Sequence[TrackFrame], i: int, side: str) -> bool:
    """The draw hand has stopped and the span no longer grows. A glitching bow wrist may make the span
    shrink for a few frames; only growth means the draw goes on."""
    h = P.anchor_deriv_half_s
    vx = _rate(buf, i, lambda f: f.wrists(side)[1][0], h)
    vy = _rate(buf, i, lambda f: f.wrists(side)[1][1], h)
    return math.hypot(vx, vy) < P.anchor_hand_speed_sw_s and not _rate(buf, i, _span, h) > P.anchor_span_speed_sw_s


def _motion(buf: Sequence[TrackFrame], i: int, side: str) -> float:
    """How fast the arms move at buf[i]: bow-wrist speed plus draw-wrist speed (U/s, body-relative)."""
    bow = math.hypot(_rate(buf, i, lambda f: f.wrists(side)[0][0]), _rate(buf, i, lambda f: f.wrists(side)[0][1]))
    draw = math.hypot(_rate(buf, i, lambda f: f.wrists(side)[1][0]), _rate(buf, i, lambda f: f.wrists(side)[1][1]))
    return bow + draw


def fastest_draw_step(buf: Sequence[TrackFrame], lo: int, hi: int, side: str) -> float:
    """The fastest raw frame-to-frame speed of the draw wrist over buf[lo..hi] (U/s; 0 where never seen twice)."""
    fastest = 0.0
    for k in range(max(lo, 1), hi + 1):
        a, b = buf[k - 1].raw_draw(side), buf[k].raw_draw(side)
        dt = buf[k].t - buf[k - 1].t
        if dt > 0 and not (np.isnan(a[0]) or np.isnan(b[0])):
            fastest = max(fastest, _dist(a, b) / dt)
    return fastest


def _nan_low(y: float) -> float:
    return -math.inf if math.isnan(y) else y


@dataclass(frozen=True, slots=True)
class ArcherSize:
    """How big the archer is in the picture (pixels): shoulder width and torso length (NaN where unknown)."""

    sw_px: float = math.nan
    torso_px: float = math.nan

    @staticmethod
    def of(frames: Sequence[TrackFrame]) -> ArcherSize:
        """The median of each measure over `frames` (a hold), NaN where no frame shows it."""
        sw = [g.sw_px for g in frames if g.sw_px > 0]
        torso = [g.torso_px for g in frames if g.torso_px > 0]
        return ArcherSize(float(np.median(sw)) if sw else math.nan, float(np.median(torso)) if torso else math.nan)

    def shoulders_of(self, g: TrackFrame) -> bool:
        """`g` shows the archer's shoulders at this width (within P.view_same_scale)."""
        return _near(g.sw_px, self.sw_px)

    def torso_of(self, g: TrackFrame) -> bool:
        """`g` shows the archer's torso at this length (within P.view_same_scale)."""
        return _near(g.torso_px, self.torso_px)


def _near(v: float, ref: float) -> bool:
    return v > 0 and ref > 0 and abs(v / ref - 1.0) <= P.view_same_scale


class ViewAfter(str, Enum):
    """What the frames after a release show of the archer seen in the hold (`view_after`)."""

    SAME = "same"  # the archer at the hold's size, or nothing to look at (the video ended)
    # The torso at its hold's length, but never the shoulders at their hold's width: the same archer, whom
    # MediaPipe read with shoulders a different width in the hold than after it (clean_rh_3shots at 480p: 0.6 of
    # their width through the whole hold). The hold's points are not to be trusted: its marks are uncertain.
    MISREAD = "misread"
    CHANGED = "changed"  # an edit's cut or dissolve, a camera swung away: whether an arrow left cannot be told


def view_after(after: Sequence[TrackFrame], hold: ArcherSize, ended: bool = True) -> ViewAfter:
    """Whether the frames `after` a release show the archer of the hold, by two frames in a row at the hold's
    size (or the last frame, where the video `ended` there). One frame alone is a glimpse: a dissolve shows the
    archer fading at their own size for a frame before the picture loses them (real10)."""
    if not after or (math.isnan(hold.sw_px) and math.isnan(hold.torso_px)):
        return ViewAfter.SAME
    if _seen_again(after, hold.shoulders_of, ended):
        return ViewAfter.SAME
    return ViewAfter.MISREAD if _seen_again(after, hold.torso_of, ended) else ViewAfter.CHANGED


def _seen_again(after: Sequence[TrackFrame], same: Callable[[TrackFrame], bool], ended: bool) -> bool:
    if ended and same(after[-1]):
        return True
    # In a row: one after the other as the tracker was given them (a frame with nobody in it is among them; a
    # frame the live view dropped is not, so the rule holds at any rate). A frame that repeats the picture before
    # (`Body.repeat`) is that one seen again, not a second look: a glimpse repeated is still a glimpse.
    return any(same(a) and same(b) and not b.repeat for a, b in zip(after, after[1:]))


def unseen_since(buf: Sequence[TrackFrame], t: float) -> float:
    """`t`, or, where the frames just before it showed nobody (no shoulders found), the time of the first of them:
    since when the archer had not been seen at `t`."""
    for k in range(len(buf) - 1, -1, -1):
        if buf[k].t < t and buf[k].sw_px > 0:
            return min(t, buf[k + 1].t) if k + 1 < len(buf) else t
    return t


def find(buf: Sequence[TrackFrame], index: int) -> int | None:
    """Position of frame `index` in the buffer (ordered by frame index), walking from the end, where the frames
    sought usually are; None if it is not there."""
    for i in range(len(buf) - 1, -1, -1):
        if buf[i].index == index:
            return i
        if buf[i].index < index:
            return None
    return None
