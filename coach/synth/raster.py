"""Z-buffered, Lambert-shaded capsules and spheres drawn as screen-space impostors.

A capsule seen through a pinhole is (nearly) a 2D capsule; the per-pixel bulge gives both a depth, so
limbs occlude each other correctly where they cross, and a normal, so they look round.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from coach.synth.camera import Camera

# Light from upper left, in front of the subject (camera axes: right, down, forward).
_LIGHT = np.array([-0.45, -0.6, -0.66])
_LIGHT = _LIGHT / np.linalg.norm(_LIGHT)


@dataclass
class Canvas:
    colour: np.ndarray  # H x W x 3 float32, BGR 0..255
    depth: np.ndarray  # H x W float32, metres along the view axis

    @classmethod
    def over(cls, background: np.ndarray) -> Canvas:
        h, w = background.shape[:2]
        return cls(background.astype(np.float32), np.full((h, w), np.inf, np.float32))


@dataclass(frozen=True)
class Capsule:
    a: np.ndarray  # world end points
    b: np.ndarray
    ra: float  # world radii at the ends
    rb: float
    colour: tuple[int, int, int]
    ambient: float = 0.38
    diffuse: float = 0.72


def draw_capsules(canvas: Canvas, cam: Camera, caps: list[Capsule]) -> None:
    if not caps:
        return
    ends = np.array([c.a for c in caps] + [c.b for c in caps])
    uv, z = cam.project(ends)
    n = len(caps)
    for i, c in enumerate(caps):
        za, zb = z[i], z[n + i]
        if za < 0.05 or zb < 0.05:
            continue
        _draw_one(canvas, uv[i], uv[n + i], za, zb, c, cam.focal)


def _draw_one(cv: Canvas, pa: np.ndarray, pb: np.ndarray, za: float, zb: float, c: Capsule, f: float) -> None:
    h, w = cv.depth.shape
    ra, rb = f * c.ra / za, f * c.rb / zb
    x0 = int(np.floor(min(pa[0] - ra, pb[0] - rb))) - 1
    x1 = int(np.ceil(max(pa[0] + ra, pb[0] + rb))) + 1
    y0 = int(np.floor(min(pa[1] - ra, pb[1] - rb))) - 1
    y1 = int(np.ceil(max(pa[1] + ra, pb[1] + rb))) + 1
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    if x0 >= x1 or y0 >= y1:
        return
    ys, xs = np.mgrid[y0:y1, x0:x1].astype(np.float32)
    xs += 0.5
    ys += 0.5
    d = pb - pa
    l2 = float(d @ d)
    if l2 < 1e-9:
        t = np.zeros_like(xs)
    else:
        t = np.clip(((xs - pa[0]) * d[0] + (ys - pa[1]) * d[1]) / l2, 0.0, 1.0)
    cx = pa[0] + t * d[0]
    cy = pa[1] + t * d[1]
    dx, dy = xs - cx, ys - cy
    rad = ra + t * (rb - ra)
    dist2 = dx * dx + dy * dy
    inside = dist2 < rad * rad
    if not inside.any():
        return
    rad = np.maximum(rad, 1e-3)
    s2 = np.clip(dist2 / (rad * rad), 0.0, 1.0)
    bulge = np.sqrt(1.0 - s2)
    depth = za + t * (zb - za) - bulge * (c.ra + t * (c.rb - c.ra))
    zb_view = cv.depth[y0:y1, x0:x1]
    mask = inside & (depth < zb_view)
    if not mask.any():
        return
    nx, ny, nz = dx / rad, dy / rad, -bulge
    lam = np.clip(nx * _LIGHT[0] + ny * _LIGHT[1] + nz * _LIGHT[2], 0.0, 1.0)
    # A little rim darkening keeps silhouettes readable against similar backgrounds.
    shade = c.ambient + c.diffuse * lam - 0.12 * s2 * s2
    col = np.clip(shade[..., None] * np.asarray(c.colour, np.float32), 0, 255)
    view = cv.colour[y0:y1, x0:x1]
    view[mask] = col[mask]
    zb_view[mask] = depth[mask]
