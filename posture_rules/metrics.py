"""The measurements rules are judged on, in a registry: rules name a metric, never code.

Three scopes:
- frame: one value per frame from a Body (pure function); the engine caches them once per frame;
- shot: one value per shot from the shot's frames and phases (tempo, stillness, release travel…);
- session: one value from all shots (spread, rhythm).
A frame metric lists the landmarks it needs, so the engine can say "not assessable" when they are hidden.
Lengths are in shoulder widths (SW), angles in degrees, times in seconds.

One module over ~400 lines because it is the registry: every metric a rule pack may name is listed here, side by
side, so a reader sees them all in one place (each function is short and pure).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING

import numpy as np

from coach import geometry as g
from coach.kinematics import ANGLES, angle, point_names

if TYPE_CHECKING:
    from coach.kinematics import Body

SCOPES = ("frame", "shot", "session")


@dataclass(frozen=True, slots=True)
class Metric:
    name: str
    scope: str
    fn: Callable
    unit: str
    landmarks: tuple[str, ...] = ()
    relative_to_setup: bool = False  # judged as the change from the archer's own setup pose
    doc: str = ""


_REGISTRY: dict[str, Metric] = {}
METRICS = MappingProxyType(_REGISTRY)


def metric(name: str, scope: str, unit: str, landmarks: tuple[str, ...] = (), relative_to_setup=False):
    if scope not in SCOPES:
        raise ValueError(f"scope must be one of {SCOPES}")

    def deco(fn: Callable) -> Callable:
        if name in _REGISTRY:
            raise ValueError(f"metric {name!r} registered twice")
        _REGISTRY[name] = Metric(name, scope, fn, unit, landmarks, relative_to_setup, (fn.__doc__ or "").strip())
        return fn

    return deco


def _angle_metric(metric_name: str, angle_name: str, doc: str) -> None:
    def fn(body: Body) -> float:
        return angle(body, angle_name)

    fn.__doc__ = doc
    metric(metric_name, "frame", "deg", point_names(ANGLES[angle_name]))(fn)


FOREARM_MIN_SW = 0.6  # a draw forearm shorter than this in the image points at the camera


@metric("draw_elbow_elevation", "frame", "deg", point_names(ANGLES["draw_elbow_elevation"]))
def draw_elbow_elevation(body: Body) -> float:
    """Draw elbow above (+) or below (−) the arrow line bow wrist → draw wrist, as an angle at the draw wrist.

    Not measurable when the draw forearm is foreshortened (elbow within 0.6 SW of the wrist in the image:
    the forearm points into the depth): then a few pixels of landmark error swing the angle by tens of
    degrees, and MediaPipe puts a hidden elbow low behind the head."""
    if body.dist_sw("draw_elbow", "draw_wrist") < FOREARM_MIN_SW:
        return math.nan
    return angle(body, "draw_elbow_elevation")


_angle_metric("arrow_tilt", "arrow_tilt", "Tilt of the line bow wrist → draw wrist; + when the bow hand is higher.")
_angle_metric("bow_elbow_angle", "bow_elbow", "Bow-arm angle shoulder–elbow–wrist; 180° = straight.")
_angle_metric("draw_elbow_angle", "draw_elbow", "Draw-arm angle shoulder–elbow–wrist.")
_angle_metric("shoulder_tilt", "shoulder_tilt", "Tilt of the shoulder line; + when the bow shoulder is higher.")
_angle_metric("trunk_lean", "trunk_lean", "Angle of hip-centre → shoulder-centre from vertical.")


@metric("head_pitch", "frame", "deg", ("nose", "bow_ear", "draw_ear"), relative_to_setup=True)
def head_pitch(body: Body) -> float:
    """Nose height above the ear line, as an angle over half a shoulder width; + = head tipped back."""
    ear_mid = body.mid("bow_ear", "draw_ear")
    nose = body.p("nose")
    return math.degrees(math.atan2(ear_mid[1] - nose[1], 0.5 * body.sw))


ANCHOR_MAX_FROM_NOSE_SW = 1.5


@metric("draw_hand_to_chin", "frame", "SW", ("draw_wrist", "draw_mouth", "bow_mouth", "nose"))
def draw_hand_to_chin(body: Body) -> float:
    """Vertical position of the draw wrist below the mouth line, in SW; + = lower than the mouth.
    Not measured when the draw wrist is over 1.5 SW from the nose: at full draw the hand is at the face,
    so such a point is MediaPipe swapping or losing the wrist, not an anchor."""
    if body.dist_sw("draw_wrist", "nose") > ANCHOR_MAX_FROM_NOSE_SW:
        return math.nan
    mouth = body.mid("bow_mouth", "draw_mouth")
    return (body.p("draw_wrist")[1] - mouth[1]) / body.sw


@metric("ankle_spread", "frame", "SW", ("bow_ankle", "draw_ankle"))
def ankle_spread(body: Body) -> float:
    """Distance between the ankles in SW (學射錄: feet about a shoulder and a half apart)."""
    return body.dist_sw("bow_ankle", "draw_ankle")


@metric("front_foot_turn", "frame", "deg", ("bow_heel", "bow_foot_index", "draw_heel", "draw_foot_index"))
def front_foot_turn(body: Body) -> float:
    """Angle between the front foot (heel → toe) and the line from the rear heel to the front heel, i.e.
    the target direction for a square stance; 0 = toes at the target, 90 = T."""
    front = body.p("bow_foot_index") - body.p("bow_heel")
    line = body.p("bow_heel") - body.p("draw_heel")
    return g.joint_angle(body.p("bow_heel") + front, body.p("bow_heel"), body.p("bow_heel") + line)


@metric("shoulder_turn", "frame", "log", ("bow_shoulder", "draw_shoulder", "bow_hip", "draw_hip"))
def shoulder_turn(body: Body) -> float:
    """log(projected shoulder width / torso length). Face-on, a shoulder line turned open or closed off the
    line to the target narrows by cos(turn) while the torso length stays: square ≈ −0.3…−0.6 (build), and
    every 10° of turn beyond ~25° lowers it fast (log cos 40° = −0.27). Mirror-safe: no left/right in it."""
    torso = g.distance(body.mid("bow_shoulder", "draw_shoulder"), body.mid("bow_hip", "draw_hip"))
    shoulders = g.distance(body.p("bow_shoulder"), body.p("draw_shoulder"))
    return math.log(shoulders / torso) if torso > 0 and shoulders > 0 else math.nan


def _trunk_up(body: Body) -> np.ndarray:
    """Unit vector from the hip centre to the shoulder centre (the trunk's own "up")."""
    v = body.mid("bow_shoulder", "draw_shoulder") - body.mid("bow_hip", "draw_hip")
    n = float(np.hypot(v[0], v[1]))
    return v / n if n > 0 else np.array([math.nan, math.nan])


@metric("shoulder_level", "frame", "deg", ("bow_shoulder", "draw_shoulder", "bow_hip", "draw_hip"))
def shoulder_level(body: Body) -> float:
    """Tilt of the shoulder line against the trunk's own perpendicular; + when the bow shoulder is higher.
    A whole-body lean tilts the shoulders too, but that is upright_trunk's fault, not a shrugged shoulder."""
    s = body.p("bow_shoulder") - body.p("draw_shoulder")
    n = float(np.hypot(s[0], s[1]))
    if n == 0:
        return math.nan
    up = _trunk_up(body)
    # image y grows downward; the trunk's up vector points up, so the dot product is + for a higher bow side
    return math.degrees(math.asin(max(-1.0, min(1.0, float(np.dot(s / n, up))))))


# ---- shot metrics: fn(shot: ShotFrames) -> float ----------------------------------------------------------


@dataclass(slots=True)
class ShotFrames:
    """A shot's frames (Bodies, in order) with its phase frames, as the shot metrics see them."""

    bodies: list
    raise_start: int
    draw_start: int | None
    anchor: int
    release: int | None
    end: int
    hold_start: int | None = None  # the hold's first frame (coach.phases.phase_windows); the anchor if not given

    def between(self, start: int | None, end: int | None) -> list:
        if start is None or end is None:
            return []
        return [b for b in self.bodies if start <= b.index < end]

    def time_s(self, frame: int | None) -> float | None:
        for b in self.bodies:
            if b.index >= (frame if frame is not None else 1 << 62):
                return b.t_s
        return None


@metric("draw_time", "shot", "s")
def draw_time(shot: ShotFrames) -> float:
    """Time from draw start to full draw (引弓不得急…不得緩). A draw start on (or after) the anchor frame
    means the onset was not found: not measurable, rather than a 0-second "rushed" draw."""
    if shot.draw_start is None or shot.draw_start >= shot.anchor:
        return math.nan
    a, d = shot.time_s(shot.anchor), shot.time_s(shot.draw_start)
    return math.nan if a is None or d is None else a - d


@metric("hold_time", "shot", "s")
def hold_time(shot: ShotFrames) -> float:
    """Time at full draw, anchor to release (審)."""
    a, r = shot.time_s(shot.anchor), shot.time_s(shot.release)
    return math.nan if a is None or r is None else r - a


@metric("hold_motion", "shot", "SW")
def hold_motion(shot: ShotFrames) -> float:
    """RMS motion of nose and shoulder centre during the hold, relative to the hips, in SW (無動容).

    The full draw (settling at the anchor, before the hold's first frame) is left out and a straight-line drift
    is removed, so a slow
    settle does not count as restlessness — a sway or a wobble does. Each frame is scaled by its own
    torso length (hip centre → shoulder centre), converted to SW with the hold's median torso/SW ratio:
    the running SW unit moves in steps and lags a zooming (handheld) camera, and either reads as motion."""
    hold = shot.between(shot.anchor if shot.hold_start is None else shot.hold_start, shot.release)
    if not hold:
        return math.nan
    pts, ts, ratio = [], [], []
    for b in hold:
        if not b.visible(("nose", "bow_shoulder", "draw_shoulder", "bow_hip", "draw_hip")):
            continue
        hip = b.mid("bow_hip", "draw_hip")
        up = b.mid("bow_shoulder", "draw_shoulder") - hip
        torso = float(np.hypot(up[0], up[1]))
        if not torso > 0 or not b.sw > 0:
            continue
        pts.append(np.concatenate([(b.p("nose") - hip) / torso, up / torso]))
        ts.append(b.t_s)
        ratio.append(torso / b.sw)
    if len(pts) < 5:
        return math.nan
    a, t = np.array(pts), np.array(ts)
    x = np.column_stack([t - t.mean(), np.ones_like(t)])
    coef, *_ = np.linalg.lstsq(x, a, rcond=None)
    resid = a - x @ coef
    return float(np.sqrt(np.mean(np.sum(resid**2, axis=1) / 2)) * np.median(ratio))


HAND_LEFT_FACE_SW = 0.3  # release travel below this is a dead release (後手小), judged by that rule
RELEASE_WINDOW_S = 0.5
DEAD_RELEASE_SEEN_S = 0.4  # a hand still at the face this long after the release did not fly back


@metric("release_travel", "shot", "SW")
def release_travel(shot: ShotFrames) -> float:
    """How far the draw wrist moves away from the bow wrist in the 0.5 s after release (後手小 if small).

    A dead release is a hand seen staying at the face, so it needs the hand tracked to 0.4 s after the
    release: MediaPipe often loses the draw arm as it flies back (the upper body folds, the wrists swap;
    the stream drops those frames), and the few smoothed frames before the loss show only the start of
    the travel. A small travel seen only that briefly is not measurable; a travel already past
    HAND_LEFT_FACE_SW in those frames is a hand that left the face, lost or not. A video that ends before the
    0.5 s are over did not film the follow-through: not measurable."""
    if shot.release is None:
        return math.nan
    t0 = shot.time_s(shot.release)
    t_end = shot.time_s(shot.end)
    if t0 is None or t_end is None or t_end < t0 + RELEASE_WINDOW_S - 1e-6:
        return math.nan
    after = [b for b in shot.between(shot.release - 1, shot.end + 1) if b.t_s <= t0 + RELEASE_WINDOW_S]
    after = [b for b in after if b.visible(("draw_wrist", "bow_wrist"))]
    if len(after) < 3:
        return math.nan
    span = [b.dist_sw("draw_wrist", "bow_wrist") for b in after]
    travel = float(max(span) - span[0])
    if after[-1].t_s < t0 + DEAD_RELEASE_SEEN_S and travel < HAND_LEFT_FACE_SW:
        return math.nan
    return travel


BOW_ARM_STEADY_SW = 0.15


@metric("pre_release_creep", "shot", "SW")
def pre_release_creep(shot: ShotFrames) -> float:
    """Forward creep of the draw hand before release (兩摘): the wrist-to-wrist span 0.35–0.7 s before the
    release minus the span in its last 0.1 s, medians, in SW; + = the hand crept forward. Medians over
    windows, not a max, so one jittery frame is not a creep; not measurable when the bow wrist moved too."""
    if shot.release is None:
        return math.nan
    hold = [b for b in shot.between(shot.anchor, shot.release) if b.visible(("draw_wrist", "bow_wrist"))]
    if not hold:
        return math.nan
    t_end = hold[-1].t_s
    before = [b for b in hold if t_end - 0.7 <= b.t_s < t_end - 0.35]
    last = [b for b in hold if b.t_s >= t_end - 0.1]
    if len(before) < 3 or len(last) < 2:
        return math.nan

    def change(a: str, b: str) -> float:
        return float(np.median([x.dist_sw(a, b) for x in before]) - np.median([x.dist_sw(a, b) for x in last]))

    # The bow arm holds still while the draw hand creeps; when the tracked bow wrist itself jumps against
    # its shoulder, MediaPipe lost the hands (string, bow and arrow cross them) and no creep can be told.
    if abs(change("bow_wrist", "bow_shoulder")) > BOW_ARM_STEADY_SW:
        return math.nan
    return change("draw_wrist", "bow_wrist")


def _hand_left_face(shot: ShotFrames) -> bool:
    """The draw hand was seen leaving the face after the release: the follow-through can be judged. After a
    dead release (or with the hand unseen) what follows is 後手小's, not a bent arm or a dropped hand."""
    return shot.release is not None and release_travel(shot) >= HAND_LEFT_FACE_SW


@metric("follow_through_arm", "shot", "deg")
def follow_through_arm(shot: ShotFrames) -> float:
    """Median draw-arm angle (shoulder–elbow–wrist) 0.2–0.6 s after release; 180 = arm straight back.
    Not measured when the hand never left the face: that is 後手小 (release_travel), not a bent arm."""
    if not _hand_left_face(shot):
        return math.nan
    t0 = shot.time_s(shot.release)
    win = [b for b in shot.between(shot.release, shot.end + 1) if t0 + 0.2 <= b.t_s <= t0 + 0.6]
    vals = [angle(b, "draw_elbow") for b in win if b.visible(("draw_shoulder", "draw_elbow", "draw_wrist"))]
    return float(np.median(vals)) if len(vals) >= 3 else math.nan


def wrist_below_shoulder(body: Body) -> float:
    """Draw wrist below the draw shoulder, along the image vertical, in SW; + = lower.

    Level is the world's level (平如水準; face-on camera square and at shoulder height), not the shoulder
    line: when the trunk leans, an archer still shooting at the target sends the hand straight back level
    (the arrow stays on the target), and the shoulder line tilted by the lean would put a hand 1.5–2 SW
    behind the shoulder 0.6–0.8 SW "off" it. The lean is upright_trunk's fault; measuring from the draw
    shoulder itself still cancels how far that shoulder sinks or rises with it."""
    if not body.sw > 0:
        return math.nan
    return float(body.p("draw_wrist")[1] - body.p("draw_shoulder")[1]) / body.sw


@metric("follow_through_wrist_drop", "shot", "SW")
def follow_through_wrist_drop(shot: ShotFrames) -> float:
    """Median height of the draw wrist below the draw shoulder 0.2–0.6 s after release, in SW (壓肘仰腕:
    shoulder, arm and wrist level). Not measured when the hand never left the face, as for the arm angle:
    what the pose then shows after the "release" is both arms coming down after a dead release (後手小)."""
    if not _hand_left_face(shot):
        return math.nan
    t0 = shot.time_s(shot.release)
    win = [b for b in shot.between(shot.release, shot.end + 1) if t0 + 0.2 <= b.t_s <= t0 + 0.6]
    vals = [wrist_below_shoulder(b) for b in win if b.visible(("draw_shoulder", "draw_wrist"))]
    return float(np.median(vals)) if len(vals) >= 3 else math.nan


@metric("draw_length", "shot", "SW")
def draw_length(shot: ShotFrames) -> float:
    """Median wrist-to-wrist distance over the hold, in SW (鏃不上指: reach full draw every time)."""
    vals = [
        b.dist_sw("bow_wrist", "draw_wrist")
        for b in shot.between(shot.anchor, shot.release)
        if b.visible(("bow_wrist", "draw_wrist"))
    ]
    return float(np.median(vals)) if len(vals) >= 3 else math.nan


@metric("anchor_height", "shot", "SW")
def anchor_height(shot: ShotFrames) -> float:
    """Median draw-wrist height below the mouth line over the hold, in SW (按手頤下)."""
    vals = [
        draw_hand_to_chin(b)
        for b in shot.between(shot.anchor, shot.release)
        if b.visible(_REGISTRY["draw_hand_to_chin"].landmarks)
    ]
    return float(np.median(vals)) if len(vals) >= 3 else math.nan


# ---- session metrics: fn(values: dict[str, list[float]], release_times: list[float]) -> float ------------


# A spread from two shots is half their difference: one shot a little off (an anchor placed a few frames
# early on an eased draw) makes it, so consistency is judged from the third shot on (間若一: its intervals).
MIN_SPREAD_SHOTS = 3


def _cv(x: list[float], n_min: int = MIN_SPREAD_SHOTS) -> float:
    a = np.array([v for v in x if v is not None and math.isfinite(v)])
    return float(np.std(a, ddof=1) / np.mean(a)) if len(a) >= max(n_min, 2) and np.mean(a) != 0 else math.nan


def _sd(x: list[float], n_min: int = MIN_SPREAD_SHOTS) -> float:
    a = np.array([v for v in x if v is not None and math.isfinite(v)])
    return float(np.std(a, ddof=1)) if len(a) >= max(n_min, 2) else math.nan


@metric("draw_length_cv", "session", "ratio")
def draw_length_cv(per_shot: dict, releases: list[float]) -> float:
    """Coefficient of variation of the draw length across shots."""
    return _cv(per_shot.get("draw_length", []))


@metric("anchor_spread", "session", "SW")
def anchor_spread(per_shot: dict, releases: list[float]) -> float:
    """Standard deviation of the anchor height across shots, in SW."""
    return _sd(per_shot.get("anchor_height", []))


@metric("draw_time_sd", "session", "s")
def draw_time_sd(per_shot: dict, releases: list[float]) -> float:
    """Spread of draw time across shots."""
    return _sd(per_shot.get("draw_time", []))


@metric("hold_time_sd", "session", "s")
def hold_time_sd(per_shot: dict, releases: list[float]) -> float:
    """Spread of hold time across shots."""
    return _sd(per_shot.get("hold_time", []))


@metric("release_interval_cv", "session", "ratio")
def release_interval_cv(per_shot: dict, releases: list[float]) -> float:
    """Coefficient of variation of the interval between releases (間若一)."""
    r = sorted(t for t in releases if t is not None)
    return _cv(list(np.diff(r)), n_min=MIN_SPREAD_SHOTS - 1)


def _mean(x: list[float]) -> float:
    a = np.array([v for v in x if v is not None and math.isfinite(v)])
    return float(np.mean(a)) if len(a) else math.nan


@metric("draw_time_mean", "session", "s")
def draw_time_mean(per_shot: dict, releases: list[float]) -> float:
    """Mean draw time across shots."""
    return _mean(per_shot.get("draw_time", []))


@metric("hold_time_mean", "session", "s")
def hold_time_mean(per_shot: dict, releases: list[float]) -> float:
    """Mean hold time across shots."""
    return _mean(per_shot.get("hold_time", []))


@metric("release_interval_mean", "session", "s")
def release_interval_mean(per_shot: dict, releases: list[float]) -> float:
    """Mean interval between releases."""
    r = sorted(t for t in releases if t is not None)
    return _mean(list(np.diff(r))) if len(r) >= 2 else math.nan
