"""Body proportions and appearance of the mannequin."""

from __future__ import annotations

from dataclasses import dataclass

Colour = tuple[int, int, int]  # BGR, as OpenCV and the video writer expect


@dataclass(frozen=True)
class BodyShape:
    """Segment lengths as Drillis–Contini fractions of stature, so any height stays human-proportioned."""

    stature: float = 1.75
    build: float = 1.0  # girth multiplier: 0.85 slim … 1.2 heavy

    @property
    def scale(self) -> float:
        # Pose offsets are authored for a 1.75 m archer and scaled by this.
        return self.stature / 1.75

    @property
    def shoulder_height(self) -> float:
        # Joint centre sits a little below the acromion (0.818 H), where MediaPipe puts "shoulder".
        return 0.800 * self.stature

    @property
    def hip_height(self) -> float:
        return 0.510 * self.stature

    @property
    def ankle_height(self) -> float:
        return 0.039 * self.stature

    @property
    def shoulder_half(self) -> float:
        return 0.088 * self.stature

    @property
    def hip_half(self) -> float:
        return 0.056 * self.stature

    @property
    def upper_arm(self) -> float:
        return 0.186 * self.stature

    @property
    def forearm(self) -> float:
        return 0.146 * self.stature

    @property
    def hand(self) -> float:
        return 0.108 * self.stature

    @property
    def thigh(self) -> float:
        return 0.245 * self.stature

    @property
    def shank(self) -> float:
        return 0.246 * self.stature

    @property
    def foot(self) -> float:
        return 0.152 * self.stature

    @property
    def head_radius(self) -> float:
        return 0.054 * self.stature

    @property
    def eye_height(self) -> float:
        return 0.936 * self.stature


@dataclass(frozen=True)
class Appearance:
    skin: Colour = (140, 170, 215)
    hair: Colour = (30, 30, 35)
    shirt: Colour = (150, 80, 40)
    trousers: Colour = (60, 55, 50)
    shoes: Colour = (30, 30, 30)
    long_sleeves: bool = True
