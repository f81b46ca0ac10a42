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

    def turned(self, pan_deg: float = 0.0, tilt_deg: float = 0.0, zoom: float = 1.0) -> Camera:
        """The same camera turned about its own centre (pan: + toward +x, tilt: + up) and zoomed (focal x zoom),
        as a handheld camera does; the scene maps between the two images by a homography."""
        f = np.asarray(self.look_at, float) - np.asarray(self.position, float)
        dist = float(np.linalg.norm(f))
        yaw = np.arctan2(f[0], -f[2]) + np.radians(pan_deg)
        pitch = np.arctan2(f[1], np.hypot(f[0], f[2])) + np.radians(tilt_deg)
        d = np.array([np.sin(yaw) * np.cos(pitch), np.sin(pitch), -np.cos(yaw) * np.cos(pitch)]) * dist
        x, y, z = (float(v) for v in np.asarray(self.position, float) + d)
        vfov = float(np.degrees(2 * np.arctan(np.tan(np.radians(self.vfov_deg) / 2) / zoom)))
        return Camera(self.position, (x, y, z), vfov, self.width, self.height)

    def intrinsics(self) -> np.ndarray:
        """Pixel-index intrinsics (pixel centres at integers, as OpenCV's warps expect)."""
        return np.array([[self.focal, 0, self.width / 2 - 0.5], [0, self.focal, self.height / 2 - 0.5], [0, 0, 1]])


def homography(src: Camera, dst: Camera) -> np.ndarray:
    """Image of ``src`` -> image of ``dst`` for two cameras at the same centre (exact for any scene)."""
    r_src, r_dst = np.stack(src.axes()), np.stack(dst.axes())
    return dst.intrinsics() @ r_dst @ r_src.T @ np.linalg.inv(src.intrinsics())


@dataclass(frozen=True)
class CameraMove:
    """A handheld camera: hand shake all through the clip, and a pan/tilt and zoom eased in over one shot's hold
    (from ``start_s`` after its anchor to ``end_s`` before its release) and kept to the end."""

    shot: int = 0
    pan_deg: float = 0.0
    tilt_deg: float = 0.0
    zoom: float = 1.0  # focal-length multiplier reached at the end of the move
    shake_deg: float = 0.0  # amplitude of the hand shake in pan and tilt (1-4 Hz)
    start_s: float = 0.3
    end_s: float = 0.3

    def path(self, base: Camera, n: int, fps: float, start: int, end: int, rng: np.random.Generator) -> list[Camera]:
        """One camera per frame; the move runs from frame ``start`` to ``end``."""
        t = np.arange(n) / fps
        u = np.clip((np.arange(n) - start) / max(end - start, 1), 0.0, 1.0)
        ease = u * u * (3 - 2 * u)
        shake = np.zeros((2, n))
        for axis in range(2):
            for freq, a in ((1.1, 1.0), (2.3, 0.6), (3.7, 0.35)):
                shake[axis] += a * np.sin(2 * np.pi * freq * t + rng.uniform(0, 2 * np.pi))
        shake *= self.shake_deg / 1.95
        return [
            base.turned(self.pan_deg * e + shake[0, i], self.tilt_deg * e + shake[1, i], 1 + (self.zoom - 1) * e)
            for i, e in enumerate(ease)
        ]
