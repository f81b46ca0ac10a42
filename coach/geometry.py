"""Pure 2D geometry on image points (pixels, y down). Angles in degrees.

One atan2(cross, dot) serves every angle (as in Sports2D); signs are chosen so that "up" is positive and
the result does not depend on which way the archer faces, so left-handed archers need no special case.
"""

from __future__ import annotations

import math

import numpy as np


def joint_angle(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> float:
    """Interior angle ABC in [0, 180]; 180 = straight limb."""
    v1x, v1y = a[0] - b[0], a[1] - b[1]
    v2x, v2y = c[0] - b[0], c[1] - b[1]
    return abs(math.degrees(math.atan2(v1x * v2y - v1y * v2x, v1x * v2x + v1y * v2y)))


def tilt(a: np.ndarray, b: np.ndarray) -> float:
    """Angle of segment a→b against the horizontal; positive when a is higher than b in the image.

    Uses |dx| so the sign is the same whichever side of the image b lies on.
    """
    return math.degrees(math.atan2(b[1] - a[1], abs(b[0] - a[0])))


def lean(bottom: np.ndarray, top: np.ndarray) -> float:
    """Unsigned angle of segment bottom→top from the image vertical, in [0, 180]."""
    return abs(math.degrees(math.atan2(top[0] - bottom[0], bottom[1] - top[1])))


def signed_lean(bottom: np.ndarray, top: np.ndarray, toward: float) -> float:
    """Angle from vertical, positive when the top leans toward image x-direction `toward` (+1 or -1)."""
    return math.degrees(math.atan2((top[0] - bottom[0]) * toward, bottom[1] - top[1]))


def drop_when_level(a: np.ndarray, b: np.ndarray, roll: float, toward: float) -> float:
    """How far b lies below a (+ = lower) in the picture turned back level, where the camera was rolled `roll` deg
    with the picture's side `toward` (+1 right, -1 left) higher."""
    r = math.radians(roll)
    return toward * (b[0] - a[0]) * math.sin(r) + (b[1] - a[1]) * math.cos(r)


def elevation_above_line(p: np.ndarray, a: np.ndarray, b: np.ndarray) -> float:
    """Angle at b between the extension of line a→b and the segment b→p, positive when p is above the line.

    For the draw elbow: a = bow wrist, b = draw wrist, p = draw elbow; 0 = elbow on the arrow line.
    """
    ux, uy = b[0] - a[0], b[1] - a[1]
    norm = math.hypot(ux, uy)
    if norm == 0.0:
        return math.nan
    ux, uy = ux / norm, uy / norm
    # Of the two normals take the one pointing up (negative image y).
    nx, ny = (uy, -ux) if ux >= 0 else (-uy, ux)
    dx, dy = p[0] - b[0], p[1] - b[1]
    return math.degrees(math.atan2(dx * nx + dy * ny, dx * ux + dy * uy))


def distance(a: np.ndarray, b: np.ndarray) -> float:
    return math.hypot(a[0] - b[0], a[1] - b[1])


def midpoint(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return (a + b) * 0.5
