"""MediaPipe Pose's 33 landmarks, and the archer's sides named the way a coach names them.

A right-handed archer holds the bow in the left hand; every rule is written for "bow" and "draw" sides,
so a left-handed archer gets the same rules with the sides swapped, never different rules.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType

import numpy as np

NAMES: tuple[str, ...] = (
    "nose",
    "left_eye_inner",
    "left_eye",
    "left_eye_outer",
    "right_eye_inner",
    "right_eye",
    "right_eye_outer",
    "left_ear",
    "right_ear",
    "mouth_left",
    "mouth_right",
    "left_shoulder",
    "right_shoulder",
    "left_elbow",
    "right_elbow",
    "left_wrist",
    "right_wrist",
    "left_pinky",
    "right_pinky",
    "left_index",
    "right_index",
    "left_thumb",
    "right_thumb",
    "left_hip",
    "right_hip",
    "left_knee",
    "right_knee",
    "left_ankle",
    "right_ankle",
    "left_heel",
    "right_heel",
    "left_foot_index",
    "right_foot_index",
)
N_LANDMARKS = len(NAMES)
INDEX = MappingProxyType({n: i for i, n in enumerate(NAMES)})

NOSE = 0
LEFT_SHOULDER, RIGHT_SHOULDER = 11, 12
LEFT_HIP, RIGHT_HIP = 23, 24

# Body parts that come in pairs; "bow_X" and "draw_X" resolve to one of them per archer.
_PAIRED = (
    "eye",
    "ear",
    "shoulder",
    "elbow",
    "wrist",
    "pinky",
    "index",
    "thumb",
    "hip",
    "knee",
    "ankle",
    "heel",
    "foot_index",
)
_MOUTH = {"left": INDEX["mouth_left"], "right": INDEX["mouth_right"]}

# Skeleton edges for drawing (pairs of indices).
SKELETON: tuple[tuple[int, int], ...] = (
    (11, 12),
    (11, 13),
    (13, 15),
    (12, 14),
    (14, 16),
    (11, 23),
    (12, 24),
    (23, 24),
    (23, 25),
    (25, 27),
    (24, 26),
    (26, 28),
    (27, 29),
    (29, 31),
    (28, 30),
    (30, 32),
    (15, 19),
    (16, 20),
    (7, 0),
    (0, 8),
)


@dataclass(frozen=True)
class SideMap:
    """Maps coach names (bow_wrist, draw_elbow, …) to landmark indices for one handedness."""

    handedness: str
    index: MappingProxyType

    def __getitem__(self, name: str) -> int:
        return self.index[name]

    def indices(self, *names: str) -> np.ndarray:
        return np.array([self.index[n] for n in names], dtype=np.intp)


def side_map(handedness: str) -> SideMap:
    if handedness not in ("right", "left"):
        raise ValueError(f"handedness must be 'right' or 'left', not {handedness!r}")
    bow, draw = ("left", "right") if handedness == "right" else ("right", "left")
    m: dict[str, int] = {n: i for i, n in enumerate(NAMES)}
    for part in _PAIRED:
        m[f"bow_{part}"] = INDEX[f"{bow}_{part}"]
        m[f"draw_{part}"] = INDEX[f"{draw}_{part}"]
    m["bow_mouth"] = _MOUTH[bow]
    m["draw_mouth"] = _MOUTH[draw]
    return SideMap(handedness, MappingProxyType(m))


RIGHT = side_map("right")
LEFT = side_map("left")
SIDES = MappingProxyType({"right": RIGHT, "left": LEFT})
