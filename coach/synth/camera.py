"""Pinhole camera: world points to pixels and depth."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Camera:
    position: tuple[float, float, float]
    look_at: tuple[float, float, float]
    vfov_deg: float
    width: int
    height: int

    @property
    def focal(self) -> float:
        return (self.height / 2) / np.tan(np.radians(self.vfov_deg) / 2)

    def axes(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Right, down, forward unit vectors: the image's x, y and the viewing direction."""
        f = np.asarray(self.look_at, float) - np.asarray(self.position, float)
        f /= np.linalg.norm(f)
        r = np.cross(f, np.array([0.0, 1.0, 0.0]))
        r /= np.linalg.norm(r)
        d = np.cross(f, r)
        return r, d, f

    def to_camera(self, pts: np.ndarray) -> np.ndarray:
        r, d, f = self.axes()
        rel = np.atleast_2d(pts) - np.asarray(self.position, float)
        return np.stack([rel @ r, rel @ d, rel @ f], axis=-1)

    def project(self, pts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Pixel coordinates (N x 2, origin top-left, pixel centres at +0.5) and depth along the view axis."""
        c = self.to_camera(pts)
        z = c[:, 2]
        zs = np.where(z > 1e-6, z, 1e-6)
        u = self.width / 2 + self.focal * c[:, 0] / zs
        v = self.height / 2 + self.focal * c[:, 1] / zs
        return np.stack([u, v], axis=-1), z
