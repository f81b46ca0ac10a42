"""Shot metrics: one value per shot from the shot's frames and phases (tempo, stillness, release travel…),
`fn(shot: ShotFrames) -> float`. Lengths in shoulder widths (SW), times in seconds."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from coach import geometry as g
from coach.kinematics import angle
from coach.phases.params import P

from .frame import FOREARM_MIN_SW, draw_hand_to_chin
from .registry import METRICS, MIN_MEASURED_SHARE, metric

if TYPE_CHECKING:
    from coach.kinematics import Body


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
    # deg, the picture's roll the standing trunk showed before the raise (metrics/frame.py camera_roll); 0 unseen
    camera_roll: float = 0.0

    def between(self, start: int | None, end: int | None) -> list:
        if start is None or end is None:
            return []
        return [b for b in self.bodies if start <= b.index < end]

    def time_s(self, frame: int | None) -> float | None:
        for b in self.bodies:
            if b.index >= (frame if frame is not None else 1 << 62):
                return b.t_s
        return None


def _median_seen(win: list, value, parts: tuple[str, ...]) -> float:
    """Median of value(body) over the frames of `win` that show `parts` and give a value (not NaN); NaN unless
    at least 3 do, and MIN_MEASURED_SHARE of the window (the flight of a fast release the pose mostly lost at
    15 fps leaves two or three frames, of the arm misread in the blur)."""
    vals = [v for v in (value(b) for b in win if b.visible(parts)) if not math.isnan(v)]
    return float(np.median(vals)) if len(vals) >= max(3, MIN_MEASURED_SHARE * len(win)) else math.nan


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
    0.5 s are over did not film the follow-through: not measurable.

    The travel is measured from where the hand left: the last frame before the release that shows both
    wrists, within the window's length before it. A hand first seen already in flight (the pose lost it at the
    anchor: fault_head_trunk at 270p, first seen 1 SW out) would measure only the rest of the flight; with
    no frame of the hold seen, where it left from is unknown: not measurable."""
    if shot.release is None:
        return math.nan
    t0 = shot.time_s(shot.release)
    t_end = shot.time_s(shot.end)
    if t0 is None or t_end is None or t_end < t0 + RELEASE_WINDOW_S - 1e-6:
        return math.nan
    seen = ("draw_wrist", "bow_wrist")
    held = [b for b in shot.between(shot.anchor, shot.release) if b.t_s >= t0 - RELEASE_WINDOW_S and b.visible(seen)]
    flight = [b for b in shot.between(shot.release, shot.end + 1) if b.t_s <= t0 + RELEASE_WINDOW_S and b.visible(seen)]
    if not held or len(flight) < 2:
        return math.nan
    after = held[-1:] + flight
    span = [b.dist_sw(*seen) for b in after]
    travel = float(max(span) - span[0])
    if after[-1].t_s < t0 + DEAD_RELEASE_SEEN_S and travel < HAND_LEFT_FACE_SW:
        return math.nan
    return travel


BOW_ARM_STEADY_SW = 0.15
# A creep is the draw hand's: the bow arm stays (pose noise ±0.05 SW). A bow wrist that came this share of the
# span's closing toward its shoulder moved with the draw hand, MediaPipe misreading both hands in a compressed,
# low-resolution or cropped picture: the tracker's own test for a misread hold (coach/phases/params.py).
BOW_SHARE_OF_A_MISREAD_CREEP = P.misread_bow_share
# ... once the span closed by more than the pose's own noise: a closing within it is no creep to explain, and
# a share of it is noise too (a clean hold's 0.01 SW, its bow wrist 0.005, was once "not assessable").
CREEP_NOISE_SW = 0.05


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
    # its shoulder, or comes in with the draw hand, MediaPipe lost the hands (string, bow and arrow cross
    # them) and no creep can be told.
    bow, creep = change("bow_wrist", "bow_shoulder"), change("draw_wrist", "bow_wrist")
    if abs(bow) > BOW_ARM_STEADY_SW or (creep > CREEP_NOISE_SW and bow >= BOW_SHARE_OF_A_MISREAD_CREEP * creep):
        return math.nan
    return creep


def _hand_left_face(shot: ShotFrames) -> bool:
    """The draw hand was seen leaving the face after the release: the follow-through can be judged. After a
    dead release (or with the hand unseen) what follows is 後手小's, not a bent arm or a dropped hand."""
    return shot.release is not None and release_travel(shot) >= HAND_LEFT_FACE_SW


@metric("follow_through_arm", "shot", "deg")
def follow_through_arm(shot: ShotFrames) -> float:
    """Median draw-arm angle (shoulder–elbow–wrist) 0.2–0.6 s after release; 180 = arm straight back.
    Not measured when the hand never left the face: that is 後手小 (release_travel), not a bent arm.
    Frames whose draw forearm is foreshortened (pointing into the depth, as a face-on camera sees an arm
    going straight back) are not read: MediaPipe then puts the wrist either side of the elbow, and the same
    straight arm reads 170° on one copy of a video and 40° on another (fault_bow_arm, 30 % brighter)."""
    if not _hand_left_face(shot):
        return math.nan
    t0 = shot.time_s(shot.release)
    win = [b for b in shot.between(shot.release, shot.end + 1) if t0 + 0.2 <= b.t_s <= t0 + 0.6]
    return _median_seen(win, _draw_arm_angle, ("draw_shoulder", "draw_elbow", "draw_wrist"))


def _draw_arm_angle(body: Body) -> float:
    """The draw arm's angle at the elbow, NaN when the forearm is too short in the image to give one."""
    if body.dist_sw("draw_elbow", "draw_wrist") < FOREARM_MIN_SW:
        return math.nan
    return angle(body, "draw_elbow")


def wrist_below_shoulder(body: Body, camera_roll: float = 0.0) -> float:
    """Draw wrist below the draw shoulder, along the vertical of the picture turned back level (`camera_roll`:
    8 deg of roll moves a hand 1.75 SW behind the shoulder 0.24 SW up or down), in SW; + = lower.

    Level is the world's level (平如水準; face-on camera square and at shoulder height), not the shoulder
    line: when the trunk leans, an archer still shooting at the target sends the hand straight back level
    (the arrow stays on the target), and the shoulder line tilted by the lean would put a hand 1.5–2 SW
    behind the shoulder 0.6–0.8 SW "off" it. The lean is upright_trunk's fault; measuring from the draw
    shoulder itself still cancels how far that shoulder sinks or rises with it."""
    if not body.sw > 0:
        return math.nan
    toward = 1.0 if body.sides.handedness == "right" else -1.0  # the bow side, as camera_roll takes it
    return g.drop_when_level(body.p("draw_shoulder"), body.p("draw_wrist"), camera_roll, toward) / body.sw


@metric("follow_through_wrist_drop", "shot", "SW")
def follow_through_wrist_drop(shot: ShotFrames) -> float:
    """Median height of the draw wrist below the draw shoulder 0.2–0.6 s after release, in SW (壓肘仰腕:
    shoulder, arm and wrist level). Not measured when the hand never left the face, as for the arm angle:
    what the pose then shows after the "release" is both arms coming down after a dead release (後手小)."""
    if not _hand_left_face(shot):
        return math.nan
    t0 = shot.time_s(shot.release)
    win = [b for b in shot.between(shot.release, shot.end + 1) if t0 + 0.2 <= b.t_s <= t0 + 0.6]
    return _median_seen(win, lambda b: wrist_below_shoulder(b, shot.camera_roll), ("draw_shoulder", "draw_wrist"))


@metric("draw_length", "shot", "SW")
def draw_length(shot: ShotFrames) -> float:
    """Median wrist-to-wrist distance over the hold, in SW (鏃不上指: reach full draw every time)."""
    hold = shot.between(shot.anchor, shot.release)
    return _median_seen(hold, lambda b: b.dist_sw("bow_wrist", "draw_wrist"), ("bow_wrist", "draw_wrist"))


@metric("anchor_height", "shot", "SW")
def anchor_height(shot: ShotFrames) -> float:
    """Median draw-wrist height below the mouth line over the hold, in SW (按手頤下)."""
    hold = shot.between(shot.anchor, shot.release)
    return _median_seen(hold, draw_hand_to_chin, METRICS["draw_hand_to_chin"].landmarks)
