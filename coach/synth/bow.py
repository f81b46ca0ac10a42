"""The bow (limbs, grip, string through the draw fingers) and the arrow."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from coach.synth.raster import Capsule

_LIMB = (35, 55, 95)
_GRIP = (40, 40, 165)
_EAR = (60, 110, 170)
_STRING = (215, 225, 225)
_SHAFT = (120, 175, 205)
_FLETCH = (235, 235, 235)
_HEAD = (50, 50, 50)
UP = np.array([0.0, 1.0, 0.0])


@dataclass(frozen=True)
class BowState:
    grip: np.ndarray  # bow-hand fist centre
    nock: np.ndarray  # where the draw fingers hold the string
    on_string: bool
    arrow: str  # "nocked", "flying" or "none"
    flight_s: float = 0.0  # seconds since release, for a flying arrow
    release_nock: np.ndarray | None = None
    release_dir: np.ndarray | None = None


def bow_axes(grip: np.ndarray, nock: np.ndarray, on_string: bool) -> tuple[np.ndarray, np.ndarray]:
    """Arrow direction and the bow's own up axis (the bow stays in a vertical plane through the arrow)."""
    d = grip - nock
    if not on_string or np.linalg.norm(d) < 0.08:
        d = np.array([1.0, 0.0, 0.15])
    d = d / np.linalg.norm(d)
    u = UP - (UP @ d) * d
    return d, u / np.linalg.norm(u)


def bow_capsules(st: BowState, scale: float = 1.0) -> list[Capsule]:
    d, u = bow_axes(st.grip, st.nock, st.on_string)
    half, brace = 0.70 * scale, 0.17 * scale
    pull = float(np.linalg.norm(st.grip - st.nock)) if st.on_string else brace
    frac = float(np.clip((pull - brace) / (0.72 * scale - brace), 0.0, 1.0))
    caps: list[Capsule] = []
    tips = []
    for sign in (1.0, -1.0):
        s = np.linspace(0.0, 0.82, 9)
        pts = [st.grip + u * sign * si * (half - 0.05 * frac) - d * (0.06 + 0.16 * frac) * si**2 for si in s]
        for a, b in zip(pts[:-1], pts[1:]):
            caps.append(Capsule(a, b, 0.014 * scale, 0.011 * scale, _LIMB))
        # Recurved ears (弰) bend toward the target.
        ear_dir = u * sign * 0.75 + d * 0.66
        tip = pts[-1] + ear_dir / np.linalg.norm(ear_dir) * 0.15 * scale
        caps.append(Capsule(pts[-1], tip, 0.011 * scale, 0.008 * scale, _EAR))
        tips.append(tip)
    caps.append(Capsule(st.grip - u * 0.06 * scale, st.grip + u * 0.06 * scale, 0.02 * scale, 0.02 * scale, _GRIP))
    top, bottom = tips
    mid = (top + bottom) / 2
    string_r = 0.0035 * scale
    if st.on_string and (st.nock - mid) @ d < -0.01:
        caps.append(Capsule(top, st.nock, string_r, string_r, _STRING, ambient=0.8, diffuse=0.2))
        caps.append(Capsule(st.nock, bottom, string_r, string_r, _STRING, ambient=0.8, diffuse=0.2))
        nock_pt = st.nock
    else:
        caps.append(Capsule(top, bottom, string_r, string_r, _STRING, ambient=0.8, diffuse=0.2))
        nock_pt = mid
    length = 0.80 * scale
    if st.arrow == "nocked":
        caps += _arrow(nock_pt, d, length, scale)
    elif st.arrow == "flying" and st.release_nock is not None and st.release_dir is not None:
        caps += _arrow(st.release_nock + st.release_dir * 55.0 * st.flight_s, st.release_dir, length, scale)
    return caps


def _arrow(nock: np.ndarray, d: np.ndarray, length: float, scale: float) -> list[Capsule]:
    tip = nock + d * length
    return [
        Capsule(nock, tip, 0.005 * scale, 0.005 * scale, _SHAFT),
        Capsule(nock + d * 0.02 * scale, nock + d * 0.14 * scale, 0.011 * scale, 0.009 * scale, _FLETCH),
        Capsule(tip - d * 0.03 * scale, tip, 0.008 * scale, 0.003 * scale, _HEAD),
    ]
