"""The typed records the store hands out and takes in (`Series` is the analysis's own, `coach.results.Series`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from posture_rules.pack import AUTO

from ..results import Series

__all__ = ["Archer", "KeyFrame", "Series"]


# ---- records handed out ---------------------------------------------------------------------------------
@dataclass(slots=True)
class Archer:
    id: int
    name: str
    handedness: str | None
    draw_style: str
    tolerance: str
    overrides: dict

    def profile(self):
        from posture_rules.pack import Profile

        return Profile.from_json(self.to_json())

    def to_json(self) -> dict:
        return {
            "name": self.name,
            "handedness": self.handedness or AUTO,
            "draw_style": self.draw_style,
            "tolerance": self.tolerance,
            "overrides": self.overrides,
        }


@dataclass(slots=True)
class KeyFrame:
    kind: str
    frame: int
    scale: float
    jpeg: bytes
    landmarks: np.ndarray | None  # (33, 3) x, y (source pixels), visibility
