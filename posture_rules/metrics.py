"""The measurements rules are judged on, in a registry: rules name a metric, never code.

Three scopes:
- frame: one value per frame from a Body (pure function); the engine caches them once per frame;
- shot: one value per shot from the shot's frames and phases (tempo, stillness, release travel…);
- session: one value from all shots (spread, rhythm).
A frame metric lists the landmarks it needs, so the engine can say "not assessable" when they are hidden.
Lengths are in shoulder widths (SW), angles in degrees, times in seconds.
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


_angle_metric(
    "draw_elbow_elevation",
    "draw_elbow_elevation",
    "Draw elbow above (+) or below (−) the arrow line bow wrist → draw wrist, as an angle at the draw wrist.",
)
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


@metric("draw_hand_to_chin", "frame", "SW", ("draw_wrist", "draw_mouth", "bow_mouth", "nose"))
def draw_hand_to_chin(body: Body) -> float:
    """Vertical position of the draw wrist below the mouth line, in SW; + = lower than the mouth."""
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


@metric(
    "shoulder_turn",
    "frame",
    "ratio",
    ("bow_shoulder", "draw_shoulder", "bow_hip", "draw_hip"),
    relative_to_setup=True,
)
def shoulder_turn(body: Body) -> float:
    """Projected shoulder width over projected hip width. Judged as the change from the archer's own setup:
    a shoulder line turning open or closed off the hip line narrows it (by 1 − cos of the turn)."""
    hips = g.distance(body.p("bow_hip"), body.p("draw_hip"))
    return g.distance(body.p("bow_shoulder"), body.p("draw_shoulder")) / hips if hips > 0 else math.nan


# ---- shot metrics: fn(shot: ShotFrames) -> float ----------------------------------------------------------


@dataclass(slots=True)
class ShotFrames:
    """A shot's frames (Bodies, in order) with its phase frames, as the shot metrics see them."""

    bodies: list
    raise_start: int
    draw_start: int
    anchor: int
    release: int | None
    end: int

    def between(self, start: int | None, end: int | None) -> list:
        if start is None or end is None:
            return []
        return [b for b in self.bodies if start <= b.index < end]

    def time_s(self, frame: int | None) -> float | None:
        for b in self.bodies:
            if b.index >= (frame if frame is not None else 1 << 62):
                return b.t_s
        return None


def _rel_wrist(bodies: list, name: str) -> np.ndarray:
    """Wrist positions relative to the draw shoulder, in SW: cancels a panning camera."""
    return np.array([(b.p(name) - b.p("draw_shoulder")) / b.sw for b in bodies])


@metric("draw_time", "shot", "s")
def draw_time(shot: ShotFrames) -> float:
    """Time from draw start to full draw (引弓不得急…不得緩)."""
    a, d = shot.time_s(shot.anchor), shot.time_s(shot.draw_start)
    return math.nan if a is None or d is None else a - d


@metric("hold_time", "shot", "s")
def hold_time(shot: ShotFrames) -> float:
    """Time at full draw, anchor to release (審)."""
    a, r = shot.time_s(shot.anchor), shot.time_s(shot.release)
    return math.nan if a is None or r is None else r - a


@metric("hold_motion", "shot", "SW")
def hold_motion(shot: ShotFrames) -> float:
    """RMS motion of nose and shoulder centre during the hold, relative to the hips, in SW (無動容)."""
    hold = shot.between(shot.anchor, shot.release)
    pts = []
    for b in hold:
        if not b.visible(("nose", "bow_shoulder", "draw_shoulder", "bow_hip", "draw_hip")):
            continue
        hip = b.mid("bow_hip", "draw_hip")
        pts.append(np.concatenate([(b.p("nose") - hip) / b.sw, (b.mid("bow_shoulder", "draw_shoulder") - hip) / b.sw]))
    if len(pts) < 5:
        return math.nan
    a = np.array(pts)
    return float(np.sqrt(np.mean(np.sum((a - a.mean(axis=0)) ** 2, axis=1) / 2)))


@metric("release_travel", "shot", "SW")
def release_travel(shot: ShotFrames) -> float:
    """How far the draw wrist moves away from the bow wrist in the 0.5 s after release (後手小 if small)."""
    if shot.release is None:
        return math.nan
    t0 = shot.time_s(shot.release)
    after = [b for b in shot.between(shot.release - 1, shot.end + 1) if b.t_s <= t0 + 0.5]
    after = [b for b in after if b.visible(("draw_wrist", "bow_wrist"))]
    if len(after) < 3:
        return math.nan
    span = [b.dist_sw("draw_wrist", "bow_wrist") for b in after]
    return float(max(span) - span[0])


@metric("pre_release_creep", "shot", "SW")
def pre_release_creep(shot: ShotFrames) -> float:
    """Forward creep of the draw wrist toward the bow wrist in the last 0.3 s before release (兩摘)."""
    if shot.release is None:
        return math.nan
    t_rel = shot.time_s(shot.release)
    win = [b for b in shot.between(shot.anchor, shot.release) if b.t_s >= t_rel - 0.3]
    win = [b for b in win if b.visible(("draw_wrist", "bow_wrist"))]
    if len(win) < 3:
        return math.nan
    span = np.array([b.dist_sw("draw_wrist", "bow_wrist") for b in win])
    return float(span.max() - span[-1])


@metric("follow_through_arm", "shot", "deg")
def follow_through_arm(shot: ShotFrames) -> float:
    """Median draw-arm angle (shoulder–elbow–wrist) 0.2–0.6 s after release; 180 = arm straight back."""
    if shot.release is None:
        return math.nan
    t0 = shot.time_s(shot.release)
    win = [b for b in shot.between(shot.release, shot.end + 1) if t0 + 0.2 <= b.t_s <= t0 + 0.6]
    vals = [angle(b, "draw_elbow") for b in win if b.visible(("draw_shoulder", "draw_elbow", "draw_wrist"))]
    return float(np.median(vals)) if len(vals) >= 3 else math.nan


@metric("follow_through_wrist_drop", "shot", "SW")
def follow_through_wrist_drop(shot: ShotFrames) -> float:
    """Median height of the draw wrist below the draw shoulder 0.2–0.6 s after release, in SW."""
    if shot.release is None:
        return math.nan
    t0 = shot.time_s(shot.release)
    win = [b for b in shot.between(shot.release, shot.end + 1) if t0 + 0.2 <= b.t_s <= t0 + 0.6]
    vals = [
        (b.p("draw_wrist")[1] - b.p("draw_shoulder")[1]) / b.sw
        for b in win
        if b.visible(("draw_shoulder", "draw_wrist"))
    ]
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


def _cv(x: list[float]) -> float:
    a = np.array([v for v in x if v is not None and math.isfinite(v)])
    return float(np.std(a, ddof=1) / np.mean(a)) if len(a) >= 2 and np.mean(a) != 0 else math.nan


def _sd(x: list[float]) -> float:
    a = np.array([v for v in x if v is not None and math.isfinite(v)])
    return float(np.std(a, ddof=1)) if len(a) >= 2 else math.nan


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
    return _cv(list(np.diff(r))) if len(r) >= 3 else math.nan
