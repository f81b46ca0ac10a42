"""The mannequin's solids: one capsule or sphere per body part, coloured by clothing."""

from __future__ import annotations

import numpy as np

from coach.synth.body import Appearance, BodyShape
from coach.synth.raster import Capsule
from coach.synth.rig import Rig

_EYE_WHITE = (235, 240, 240)
_PUPIL = (40, 30, 25)
_BROW = (40, 40, 45)
_LIPS = (70, 70, 160)


def _sphere(p: np.ndarray, r: float, colour: tuple[int, int, int], **kw: float) -> Capsule:
    return Capsule(p, p, r, r, colour, **kw)


def body_capsules(rig: Rig, body: BodyShape, look: Appearance) -> list[Capsule]:
    j = rig.joints
    s = body.stature / 1.75
    g = body.build * s
    rt, rh = rig.trunk_rot, rig.head_rot
    up_t = rt[:, 1]
    caps: list[Capsule] = []
    add = caps.append

    # Trunk: a waist tube, a chest bar between the shoulders and a pelvis bar, all in the shirt or trousers.
    shoulder_in_l = j["neck"] + (j["shoulder_l"] - j["neck"]) * 0.55 - up_t * 0.05 * s
    shoulder_in_r = j["neck"] + (j["shoulder_r"] - j["neck"]) * 0.55 - up_t * 0.05 * s
    add(Capsule(shoulder_in_l, shoulder_in_r, 0.095 * g, 0.095 * g, look.shirt))
    add(Capsule(j["neck"] - up_t * 0.015 * s, j["shoulder_l"], 0.06 * g, 0.058 * g, look.shirt))
    add(Capsule(j["neck"] - up_t * 0.015 * s, j["shoulder_r"], 0.06 * g, 0.058 * g, look.shirt))
    add(Capsule(j["belly"], j["chest"], 0.135 * g, 0.15 * g, look.shirt))
    add(Capsule(j["hip_l"] + up_t * 0.04 * s, j["hip_r"] + up_t * 0.04 * s, 0.085 * g, 0.085 * g, look.trousers))
    add(Capsule(j["pelvis"] + up_t * 0.06 * s, j["belly"], 0.12 * g, 0.13 * g, look.trousers))

    for side in ("l", "r"):
        sleeve = look.shirt if look.long_sleeves else look.skin
        add(Capsule(j[f"shoulder_{side}"], j[f"elbow_{side}"], 0.056 * g, 0.045 * g, look.shirt))
        add(Capsule(j[f"elbow_{side}"], j[f"wrist_{side}"], 0.043 * g, 0.032 * g, sleeve))
        add(Capsule(j[f"wrist_{side}"], j[f"hand_{side}"], 0.03 * s, 0.038 * s, look.skin))
        add(Capsule(j[f"hip_{side}"], j[f"knee_{side}"], 0.078 * g, 0.057 * g, look.trousers))
        add(Capsule(j[f"knee_{side}"], j[f"ankle_{side}"], 0.055 * g, 0.04 * g, look.trousers))
        mid_foot = (j[f"heel_{side}"] + j[f"toe_{side}"]) / 2
        add(Capsule(j[f"heel_{side}"], j[f"toe_{side}"], 0.037 * s, 0.035 * s, look.shoes))
        add(Capsule(j[f"ankle_{side}"], mid_foot, 0.043 * s, 0.038 * s, look.shoes))

    # Head: skull, jaw, hair cap (a slightly larger sphere pushed back and up), face features.
    r = body.head_radius
    fwd, up_h = rh[:, 2], rh[:, 1]
    add(Capsule(j["neck"], j["head_pivot"] + up_h * 0.01 * s, 0.05 * g, 0.048 * s, look.skin))
    add(_sphere(j["head"], r, look.skin))
    add(Capsule(j["jaw_top"], j["jaw_bottom"], 0.06 * s, 0.06 * s, look.skin))
    add(_sphere(j["head"] + up_h * 0.014 * s - fwd * 0.022 * s, r * 1.03, look.hair))
    for side in ("l", "r"):
        add(_sphere(j[f"ear_{side}"], 0.022 * s, look.skin))
        eye = j[f"eye_{side}"]
        add(_sphere(eye, 0.011 * s, _EYE_WHITE, ambient=0.7, diffuse=0.3))
        add(_sphere(eye + fwd * 0.008 * s, 0.0065 * s, _PUPIL))
        brow_a = j[f"eye_inner_{side}"] + up_h * 0.02 * s + fwd * 0.002 * s
        brow_b = j[f"eye_outer_{side}"] + up_h * 0.022 * s
        add(Capsule(brow_a, brow_b, 0.005 * s, 0.004 * s, _BROW))
    add(Capsule(j["head"] + rh @ np.array([0, 0.01, 0.085]) * s, j["nose"], 0.011 * s, 0.016 * s, look.skin))
    add(Capsule(j["mouth_l"], j["mouth_r"], 0.006 * s, 0.006 * s, _LIPS))
    return caps
