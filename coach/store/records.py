"""The typed records the store hands out and takes in."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


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
        from types import MappingProxyType

        from posture_rules.pack import Profile

        return Profile(
            handedness=self.handedness,
            draw_style=self.draw_style,
            tolerance=self.tolerance,
            overrides=MappingProxyType({k: dict(v) for k, v in self.overrides.items()}),
        )

    def to_json(self) -> dict:
        return {
            "name": self.name,
            "handedness": self.handedness or "auto",
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


@dataclass(slots=True)
class Series:
    start_frame: int
    names: list[str]
    offsets: dict[str, float]
    data: np.ndarray  # (len(names), n_frames) float32

    def frames(self) -> np.ndarray:
        return np.arange(self.start_frame, self.start_frame + self.data.shape[1])
