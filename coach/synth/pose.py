"""Pose parameters and their keyframe interpolation.

Poses are authored for a right-handed archer in a world frame where +x points at the target, +y is up and
+z points from the archer's chest toward the face-on camera; a left-handed archer is the mirror image.
Lengths are metres for a 1.75 m archer (scaled by ``BodyShape.scale``), angles are degrees.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace

import numpy as np


@dataclass(frozen=True)
class Pose:
    stance_half: float = 0.20  # half the ankle spread along the shooting line
    front_foot_yaw: float = 20.0  # front foot direction, degrees from the target direction toward the camera
    rear_foot_yaw: float = 80.0
    trunk_roll: float = 0.0  # + leans away from the target
    trunk_pitch: float = 0.0  # + leans back
    trunk_yaw: float = 0.0  # + turns the chest toward the target
    head_yaw: float = 75.0  # + turns the face toward the target
    head_pitch: float = 0.0  # + tilts the head back (chin up)
    bow_az: float = 10.0  # bow-arm direction: azimuth from the target direction toward the camera
    bow_el: float = -75.0  # bow-arm elevation
    bow_elbow: float = 165.0  # interior elbow angle of the bow arm
    draw_x: float = -0.20  # draw wrist relative to the neck base (rotates with the trunk)
    draw_y: float = -0.62
    draw_z: float = 0.05
    draw_elbow_rel: float = 0.0  # draw elbow above the arrow line (bow wrist -> draw wrist), image plane
    draw_elbow_rel_weight: float = 0.0  # 1: place the draw elbow by draw_elbow_rel; 0: let it hang naturally
    draw_elbow_out: float = 0.0  # 1: a freely placed draw elbow points sideways (in the image plane), not back
    on_string: float = 0.0  # 1 while the draw fingers hold the string
    hand_open: float = 0.0
    walk_x: float = 0.0  # metres the archer has walked along the shooting line from the mark (idle stretches)


POSE_FIELDS: tuple[str, ...] = tuple(f.name for f in fields(Pose))


def pose_vector(p: Pose) -> np.ndarray:
    return np.array([getattr(p, n) for n in POSE_FIELDS], dtype=np.float64)


def pose_from_vector(v: np.ndarray) -> Pose:
    return Pose(**{n: float(x) for n, x in zip(POSE_FIELDS, v)})


def with_(p: Pose, **changes: float) -> Pose:
    return replace(p, **changes)


@dataclass(frozen=True)
class Key:
    t: float
    pose: Pose


def _ease(u: np.ndarray) -> np.ndarray:
    # Smoothstep: zero velocity at every key, like a real movement starting and stopping.
    return u * u * (3.0 - 2.0 * u)


def sample_keys(keys: list[Key], times: np.ndarray) -> np.ndarray:
    """Pose vectors (len(times) x n_fields), eased between consecutive keys, held outside them."""
    kt = np.array([k.t for k in keys])
    if np.any(np.diff(kt) < 0):
        raise ValueError("keys must be in time order")
    kv = np.stack([pose_vector(k.pose) for k in keys])
    out = np.empty((len(times), kv.shape[1]))
    idx = np.searchsorted(kt, times, side="right")
    for i, (t, j) in enumerate(zip(times, idx)):
        if j == 0:
            out[i] = kv[0]
        elif j >= len(kt):
            out[i] = kv[-1]
        else:
            span = kt[j] - kt[j - 1]
            u = 1.0 if span <= 0 else (t - kt[j - 1]) / span
            out[i] = kv[j - 1] + (kv[j] - kv[j - 1]) * _ease(np.asarray(u))
    return out
