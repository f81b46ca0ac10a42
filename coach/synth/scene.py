"""Backgrounds (plain or cluttered), the standard camera views, and sensor noise."""

from __future__ import annotations

import cv2
import numpy as np

from coach.synth.camera import Camera

VIEWS = ("face-on", "down-line", "high")


def view_camera(view: str, width: int, height: int, scale: float = 1.0, lefty: bool = False) -> Camera:
    """Standard camera for a view; the world is authored right-handed (target at +x), so a left-hander's
    cameras are mirrored in x."""
    sx = -1.0 if lefty else 1.0
    aspect_fix = 16 / 9 / (width / height)  # keep the whole archer and bow in frame on 4:3 too
    if view == "face-on":
        pos, look, fov = (0.30, 1.30, 3.6), (0.30, 1.0, 0.0), 40.0
    elif view == "high":
        pos, look, fov = (0.30, 3.40, 3.2), (0.25, 0.85, 0.0), 46.0
    elif view == "down-line":
        # Behind the archer on the shooting line, swung 45 deg toward the chest: straight down the line the
        # shoulders overlap (SW -> 0) and MediaPipe loses the draw arm behind the body.
        pos, look, fov = (-2.7, 1.40, 2.7), (0.15, 1.0, 0.0), 42.0
    else:
        raise ValueError(f"unknown view {view!r}; expected one of {VIEWS}")
    if height > width:
        # A phone held upright: the view's angle spans the frame's width, so archer and bow fill it across.
        aspect_fix = height / width
    fov = float(np.degrees(2 * np.arctan(np.tan(np.radians(fov) / 2) * max(aspect_fix, 1.0))))
    p = (sx * pos[0] * scale, pos[1] * scale, pos[2] * scale)
    lk = (sx * look[0] * scale, look[1] * scale, look[2] * scale)
    return Camera(p, lk, fov, width, height)


def make_background(
    cam: Camera, rng: np.random.Generator, cluttered: bool, avoid: tuple[tuple[int, int, int], ...] = ()
) -> np.ndarray:
    """A wall and a floor meeting where the floor plane at 4 m behind the archer projects.

    Wall colours too close to ``avoid`` (shirt, skin) are redrawn: a red shirt on a pink wall hides the arms
    from any detector, and the clips are meant to test the analysis, not camouflage.
    """
    h, w = cam.height, cam.width
    for _ in range(50):
        wall = np.array(rng.uniform(120, 215, size=3))
        if all(np.linalg.norm(wall - np.array(c)) > 80 for c in avoid):
            break
    floor = np.array(rng.uniform(70, 150, size=3))
    img = np.zeros((h, w, 3), np.float32)
    ys = np.arange(h, dtype=np.float32)[:, None, None] / h
    r, _, f = cam.axes()
    back = np.asarray(cam.position) + f * 0.0
    back = np.array([back[0], 0.0, -4.0])
    uv, z = cam.project(np.array([back, back + r * 3.0, back - r * 3.0]))
    horizon = int(np.clip(uv[:, 1].mean() if (z > 0).all() else h * 0.7, h * 0.15, h * 0.95))
    img[:] = wall * (1.05 - 0.25 * ys)
    img[horizon:] = floor * (0.8 + 0.35 * ys[horizon:])
    img[horizon : horizon + 3] *= 0.7
    if cluttered:
        for _ in range(int(rng.integers(7, 13))):
            col = tuple(float(c) for c in rng.uniform(40, 230, size=3))
            x0, y0 = int(rng.uniform(0, w)), int(rng.uniform(0, max(horizon - 20, 1)))
            kind = rng.integers(0, 3)
            if kind == 0:
                cv2.rectangle(img, (x0, y0), (x0 + int(rng.uniform(30, 140)), y0 + int(rng.uniform(20, 90))), col, -1)
            elif kind == 1:
                cv2.circle(img, (x0, y0), int(rng.uniform(10, 45)), col, -1)
            else:
                cv2.line(img, (x0, y0), (x0 + int(rng.uniform(-200, 200)), y0 + int(rng.uniform(-30, 30))), col, 4)
        for x in range(0, w, int(rng.uniform(60, 110))):
            cv2.line(img, (x, horizon), (int(w / 2 + (x - w / 2) * 3), h), tuple(float(c) * 0.85 for c in floor), 1)
        img = cv2.GaussianBlur(img, (0, 0), 1.2)
    return np.clip(img, 0, 255)


class SensorNoise:
    """Gaussian sensor noise drawn from a small seeded bank: drawing fresh noise every frame costs more than
    rendering the archer, and a shuffled bank looks the same after compression."""

    def __init__(self, rng: np.random.Generator, shape: tuple[int, int], sigma: float, bank: int = 6) -> None:
        self.sigma = sigma
        self.rng = rng
        self.bank = [rng.normal(0.0, sigma, size=(*shape, 3)).astype(np.float32) for _ in range(bank)]

    def apply(self, img: np.ndarray) -> np.ndarray:
        """Lens softness plus sensor noise, then quantise."""
        out = cv2.GaussianBlur(img, (0, 0), 0.6)
        if self.sigma > 0:
            out += self.bank[int(self.rng.integers(len(self.bank)))]
        return np.clip(out, 0, 255).astype(np.uint8)
