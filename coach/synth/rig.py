"""Forward kinematics: a Pose and a BodyShape give the 3D joint positions of the mannequin."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from coach.synth.body import BodyShape
from coach.synth.pose import Pose

UP = np.array([0.0, 1.0, 0.0])


def rot_x(deg: float) -> np.ndarray:
    c, s = np.cos(np.radians(deg)), np.sin(np.radians(deg))
    return np.array([[1, 0, 0], [0, c, -s], [0, s, c]])


def rot_y(deg: float) -> np.ndarray:
    c, s = np.cos(np.radians(deg)), np.sin(np.radians(deg))
    return np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]])


def rot_z(deg: float) -> np.ndarray:
    c, s = np.cos(np.radians(deg)), np.sin(np.radians(deg))
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])


def unit(v: np.ndarray) -> np.ndarray:
    n = np.linalg.norm(v)
    return v / n if n > 1e-12 else v


@dataclass(frozen=True)
class Rig:
    """Named 3D points (world metres) plus the head frame, for a right-handed archer."""

    joints: dict[str, np.ndarray]
    head_rot: np.ndarray  # columns: head right(+x = person's left), up, forward
    trunk_rot: np.ndarray


_N_SWIVEL = 360
_PHI = np.linspace(0.0, 2 * np.pi, _N_SWIVEL, endpoint=False)


def _elbow_circle(s: np.ndarray, w: np.ndarray, a: float, b: float) -> tuple[np.ndarray, np.ndarray]:
    """All elbow positions compatible with shoulder s, wrist w and segment lengths a, b."""
    d = w - s
    dist = np.linalg.norm(d)
    u = d / dist
    x = (a * a - b * b + dist * dist) / (2 * dist)
    rho = np.sqrt(max(a * a - x * x, 0.0))
    e1 = unit(np.cross(u, UP if abs(u[1]) < 0.95 else np.array([1.0, 0, 0])))
    e2 = np.cross(u, e1)
    centre = s + u * x
    pts = centre + rho * (np.cos(_PHI)[:, None] * e1 + np.sin(_PHI)[:, None] * e2)
    return pts, centre


def _reachable(s: np.ndarray, target: np.ndarray, a: float, b: float) -> np.ndarray:
    # Clamp out-of-reach targets instead of failing: keyframes are authored for an average body.
    d = target - s
    dist = np.linalg.norm(d)
    lo, hi = abs(a - b) * 1.05 + 1e-3, (a + b) * 0.999
    return s + unit(d) * float(np.clip(dist, lo, hi))


def _pole_score(pts: np.ndarray, centre: np.ndarray, pole: np.ndarray) -> np.ndarray:
    rel = pts - centre
    rel = rel / np.maximum(np.linalg.norm(rel, axis=1, keepdims=True), 1e-9)
    return -(rel @ unit(pole))


def _angdiff(a: np.ndarray, b: float) -> np.ndarray:
    return np.abs((a - b + np.pi) % (2 * np.pi) - np.pi)


def solve_rig(pose: Pose, body: BodyShape) -> Rig:
    k = body.scale
    j: dict[str, np.ndarray] = {}

    # Legs: ankles are placed by the stance; the pelvis drops if the legs cannot reach.
    leg = body.thigh + body.shank
    ah = body.ankle_height
    ankle_l = np.array([pose.stance_half * k, ah, 0.0])
    ankle_r = np.array([-pose.stance_half * k, ah, 0.0])
    hip_y = body.hip_height
    for ank, side in ((ankle_l, 1), (ankle_r, -1)):
        dx = ank[0] - side * body.hip_half
        need = np.sqrt(max((leg * 0.985) ** 2 - dx * dx, 0.0)) + ah
        hip_y = min(hip_y, need)
    pelvis = np.array([0.0, hip_y, 0.0])
    j["pelvis"] = pelvis
    j["hip_l"] = pelvis + np.array([body.hip_half, 0, 0])
    j["hip_r"] = pelvis + np.array([-body.hip_half, 0, 0])
    j["ankle_l"], j["ankle_r"] = ankle_l, ankle_r
    for side, yaw in (("l", pose.front_foot_yaw), ("r", pose.rear_foot_yaw)):
        fdir = np.array([np.cos(np.radians(yaw)), 0.0, np.sin(np.radians(yaw))])
        ank = j[f"ankle_{side}"]
        j[f"heel_{side}"] = ank - fdir * 0.028 * body.stature + np.array([0, -0.7 * ah, 0])
        j[f"toe_{side}"] = ank + fdir * 0.118 * body.stature + np.array([0, -0.75 * ah, 0])
        hip = j[f"hip_{side}"]
        # Knees bend over the feet, as they do when a stance is taken.
        pts, centre = _elbow_circle(hip, ank, body.thigh, body.shank)
        j[f"knee_{side}"] = pts[np.argmin(_pole_score(pts, centre, fdir + np.array([0, 0, 1.0])))]

    # Trunk rotates about the pelvis; everything above it follows.
    rt = rot_z(pose.trunk_roll) @ rot_x(-pose.trunk_pitch) @ rot_y(pose.trunk_yaw)
    up_len = body.shoulder_height - hip_y
    neck = pelvis + rt @ np.array([0.0, up_len, -0.005 * body.stature])
    j["neck"] = neck
    j["shoulder_l"] = pelvis + rt @ np.array([body.shoulder_half, up_len, 0.0])
    j["shoulder_r"] = pelvis + rt @ np.array([-body.shoulder_half, up_len, 0.0])
    j["chest"] = pelvis + rt @ np.array([0.0, up_len * 0.72, 0.0])
    j["belly"] = pelvis + rt @ np.array([0.0, up_len * 0.3, 0.0])

    # The head keeps itself level when the trunk leans (righting reflex): yaw and pitch are world-relative, so a
    # leaning trunk does not also read as a tilted head.
    rh = rot_y(pose.head_yaw) @ rot_x(-pose.head_pitch)
    pivot = neck + rt @ np.array([0.0, 0.070 * body.stature, -0.008 * body.stature])
    head = pivot + rh @ np.array([0.0, body.eye_height - body.shoulder_height - 0.070 * body.stature, 0.0])
    j["head"] = head
    j["head_pivot"] = pivot
    r = body.head_radius
    s = body.stature / 1.75

    def hp(x: float, y: float, z: float) -> np.ndarray:
        return head + rh @ (np.array([x, y, z]) * s)

    j["nose"] = hp(0.0, -0.012, 0.108)
    for side, sx in (("l", 1.0), ("r", -1.0)):
        for name, ex in (("eye_inner", 0.016), ("eye", 0.032), ("eye_outer", 0.047)):
            x = sx * ex
            z = np.sqrt(max((r / s) ** 2 - x * x - 0.012**2, 0.0)) + 0.001
            j[f"{name}_{side}"] = hp(x, 0.012, z)
        j[f"ear_{side}"] = hp(sx * 0.093, -0.008, -0.008)
        j[f"mouth_{side}"] = hp(sx * 0.022, -0.048, 0.083)
    j["chin"] = hp(0.0, -0.105, 0.06)
    j["jaw_top"] = hp(0.0, -0.01, 0.0)
    j["jaw_bottom"] = hp(0.0, -0.055, 0.025)

    # Bow arm: direction and elbow angle set the wrist; the elbow sags down and back when bent.
    a, b = body.upper_arm, body.forearm
    sb = j["shoulder_l"]
    el, az = np.radians(pose.bow_el), np.radians(pose.bow_az)
    bdir = np.array([np.cos(el) * np.cos(az), np.sin(el), np.cos(el) * np.sin(az)])
    ang = np.radians(np.clip(pose.bow_elbow, 20.0, 179.5))
    reach = np.sqrt(a * a + b * b - 2 * a * b * np.cos(ang))
    wb = sb + bdir * reach
    pts, centre = _elbow_circle(sb, wb, a, b)
    j["elbow_l"] = pts[np.argmin(_pole_score(pts, centre, np.array([0.2, -1.0, -0.35])))]
    j["wrist_l"] = wb

    # Draw arm: the wrist follows the authored hand path; the elbow is placed on the arrow line's angle.
    sd = j["shoulder_r"]
    wd = _reachable(sd, neck + rt @ (np.array([pose.draw_x, pose.draw_y, pose.draw_z]) * k), a, b)
    pts, centre = _elbow_circle(sd, wd, a, b)
    line = np.arctan2(wd[1] - wb[1], wd[0] - wb[0])
    target = line - np.radians(pose.draw_elbow_rel)  # the line points toward -x, so "above" is clockwise
    ang_pts = np.arctan2(pts[:, 1] - wd[1], pts[:, 0] - wd[0])
    by_angle = _angdiff(ang_pts, target) + 0.3 * (pts[:, 2] - wd[2])  # tie-break: elbow behind the body
    out = float(np.clip(pose.draw_elbow_out, 0.0, 1.0))
    natural = _pole_score(pts, centre, np.array([-0.3 - out, -1.0 + 1.2 * out, -0.5 + 0.5 * out]))
    w = float(np.clip(pose.draw_elbow_rel_weight, 0.0, 1.0))
    j["elbow_r"] = pts[np.argmin(w * by_angle + (1 - w) * natural)]
    j["wrist_r"] = wd

    for side in ("l", "r"):
        wr, elb = j[f"wrist_{side}"], j[f"elbow_{side}"]
        fdir = unit(wr - elb)
        lateral = unit(np.cross(fdir, UP if abs(fdir[1]) < 0.95 else np.array([0, 0, 1.0])))
        h = body.hand
        j[f"hand_{side}"] = wr + fdir * 0.42 * h
        j[f"index_{side}"] = wr + fdir * 0.62 * h + lateral * 0.12 * h
        j[f"pinky_{side}"] = wr + fdir * 0.55 * h - lateral * 0.12 * h
        j[f"thumb_{side}"] = wr + fdir * 0.40 * h + lateral * 0.2 * h + UP * 0.05 * h
    return Rig(joints=j, head_rot=rh, trunk_rot=rt)


MP_ORDER: tuple[str, ...] = (
    "nose",
    "eye_inner_l",
    "eye_l",
    "eye_outer_l",
    "eye_inner_r",
    "eye_r",
    "eye_outer_r",
    "ear_l",
    "ear_r",
    "mouth_l",
    "mouth_r",
    "shoulder_l",
    "shoulder_r",
    "elbow_l",
    "elbow_r",
    "wrist_l",
    "wrist_r",
    "pinky_l",
    "pinky_r",
    "index_l",
    "index_r",
    "thumb_l",
    "thumb_r",
    "hip_l",
    "hip_r",
    "knee_l",
    "knee_r",
    "ankle_l",
    "ankle_r",
    "heel_l",
    "heel_r",
    "toe_l",
    "toe_r",
)


def mirror_rig(rig: Rig) -> Rig:
    """Left-handed archer: mirror x and swap sides, so the person's own left/right stay anatomical."""
    m = np.diag([-1.0, 1.0, 1.0])
    out: dict[str, np.ndarray] = {}
    for name, p in rig.joints.items():
        if name.endswith("_l"):
            name = name[:-2] + "_r"
        elif name.endswith("_r"):
            name = name[:-2] + "_l"
        out[name] = m @ p
    return Rig(joints=out, head_rot=m @ rig.head_rot @ m, trunk_rot=m @ rig.trunk_rot @ m)
