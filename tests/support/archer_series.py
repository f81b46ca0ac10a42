"""A parametric 2D archer for rule tests: one shot of Body frames with its phase frames, faults as parameters.

Right-handed, face-on (bow hand toward image right), 15 fps, SW = 100 px. Phases: setup 0–1 s, raise
1–1.8 s, draw `draw_s`, hold `hold_s`, follow-through 1 s. `mirror(series)` turns it into the same shot of a
left-handed archer (image flipped, left/right landmarks swapped, the LEFT SideMap), which every rule must
judge the same.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from coach.kinematics import Body
from coach.landmarks import INDEX, LEFT, NAMES, RIGHT

FPS = 15.0  # enough for every window the rules use, and twice as fast to judge as 30
SW = 100.0
WIDTH = 800.0


@dataclass(frozen=True)
class Archer:
    draw_s: float = 2.5
    hold_s: float = 2.0
    elbow_dy: float = 5.0  # draw elbow above the arrow line at full draw, px (+ = up)
    arrow_tilt: float = 0.0  # deg, + = bow hand higher
    bow_elbow: float = 176.0  # bow-arm angle at full draw
    head_pitch: float = 0.0  # deg change at full draw from the head as the draw starts, + = tipped back
    # deg the head is bowed in the setup (looking down to nock), lifted level to the target as the raise begins
    nock_bow: float = 0.0
    trunk_lean: float = 0.0  # deg sideways, draw → follow-through
    shoulder_tilt: float = 0.0  # deg, shrug of the bow shoulder against the trunk
    shoulder_turn: float = 1.0  # projected shoulder width factor at full draw (1 = square)
    foot_turn: float = 5.0  # deg, front foot off the target line
    ankle_spread: float = 1.2  # SW
    anchor_dy: float = 0.35  # draw wrist below the mouth line at full draw, SW
    sway: float = 0.0  # sway amplitude in the hold, SW (1.4 Hz)
    creep: float = 0.0  # forward creep of the draw hand over the last 0.3 s, SW
    release_back: float = 2.0  # how far back the draw hand goes after release, SW (1.35 SW behind the shoulder)
    ft_drop: float = 0.0  # draw wrist below the shoulder line in the follow-through, SW
    hidden: tuple[str, ...] = ()  # landmark names with visibility 0.1 throughout


@dataclass
class Series:
    bodies: list[Body]
    raise_start_frame: int
    draw_start_frame: int
    anchor_frame: int
    release_frame: int
    end_frame: int
    complete: bool = True
    release_source: str = "pose"


def _rot(p, c, deg):
    a = math.radians(deg)
    d = p - c
    return c + np.array([d[0] * math.cos(a) - d[1] * math.sin(a), d[0] * math.sin(a) + d[1] * math.cos(a)])


def _smooth(x: float) -> float:
    x = min(max(x, 0.0), 1.0)
    return x * x * (3 - 2 * x)


def shot(a: Archer = Archer(), t0: float = 0.0, first: int = 0) -> Series:
    t_raise, t_draw = 1.0, 1.8
    t_anchor = t_draw + a.draw_s
    t_release = t_anchor + a.hold_s
    t_end = t_release + 1.0
    n = int(round((t_end + 0.2) * FPS))
    frames = {
        "raise_start_frame": first + int(round(t_raise * FPS)),
        "draw_start_frame": first + int(round(t_draw * FPS)),
        "anchor_frame": first + int(round(t_anchor * FPS)),
        "release_frame": first + int(round(t_release * FPS)) + 1,
        "end_frame": first + int(round(t_end * FPS)),
    }
    bodies = []
    for i in range(n):
        t = i / FPS
        xy = _pose(a, t, t_raise, t_draw, t_anchor, t_release)
        vis = np.full(33, 0.99)
        for name in a.hidden:
            vis[INDEX[name]] = 0.1
        bodies.append(Body(first + i, (t0 + t) * 1000.0, xy, vis, SW, RIGHT))
    return Series(bodies, **frames)


def _pose(a: Archer, t, t_raise, t_draw, t_anchor, t_release) -> np.ndarray:
    xy = np.zeros((33, 2))
    raised = _smooth((t - t_raise) / (t_draw - t_raise))
    drawn = _smooth((t - t_draw) / (t_anchor - t_draw))
    at_full = t >= t_anchor
    released = t >= t_release + 1e-9
    ft = _smooth((t - t_release) / 0.15) if released else 0.0
    full = drawn if not released else 1.0

    hip_mid = np.array([400.0, 360.0])
    sh_y = 200.0
    half = 50.0 * (1 + (a.shoulder_turn - 1) * full)
    bow_sh = np.array([400.0 + half, sh_y])
    draw_sh = np.array([400.0 - half, sh_y])
    tilt_px = math.tan(math.radians(a.shoulder_tilt * full)) * half
    bow_sh[1] -= tilt_px
    draw_sh[1] += tilt_px
    xy[INDEX["left_hip"]] = (430, 360)
    xy[INDEX["right_hip"]] = (370, 360)
    xy[INDEX["left_knee"]] = (400 + a.ankle_spread * 50 * 0.9, 460)
    xy[INDEX["right_knee"]] = (400 - a.ankle_spread * 50 * 0.9, 460)
    la = np.array([400 + a.ankle_spread * 50, 560.0])
    ra = np.array([400 - a.ankle_spread * 50, 560.0])
    xy[INDEX["left_ankle"]], xy[INDEX["right_ankle"]] = la, ra
    xy[INDEX["left_heel"]], xy[INDEX["right_heel"]] = la + (0, 8), ra + (0, 8)
    ft_a = math.radians(a.foot_turn)
    xy[INDEX["left_foot_index"]] = la + (0, 8) + 30 * np.array([math.cos(ft_a), math.sin(ft_a)])
    xy[INDEX["right_foot_index"]] = ra + (0, 8) + 30 * np.array([0.2, 1.0])

    # head: turned to the target; pitch moves the nose up against the ears
    pitch = a.head_pitch * (drawn if not released else 1.0) - a.nock_bow * (1.0 - _smooth((t - t_raise) / 0.4))
    ear_y = 125.0
    nose_y = ear_y + 3.0 - 0.5 * SW * math.tan(math.radians(pitch))
    xy[INDEX["left_ear"]] = (405, ear_y)
    xy[INDEX["right_ear"]] = (385, ear_y)
    xy[INDEX["nose"]] = (425, nose_y)
    for k, name in enumerate(("left_eye_inner", "left_eye", "left_eye_outer")):
        xy[INDEX[name]] = (420 - 3 * k, nose_y - 8)
    for k, name in enumerate(("right_eye_inner", "right_eye", "right_eye_outer")):
        xy[INDEX[name]] = (414 - 3 * k, nose_y - 8)
    mouth_y = 150.0
    xy[INDEX["mouth_left"]] = (420, mouth_y)
    xy[INDEX["mouth_right"]] = (410, mouth_y)
    xy[INDEX["left_shoulder"]], xy[INDEX["right_shoulder"]] = bow_sh, draw_sh

    # bow arm: down at setup, raised to the arrow line by full draw
    arm = 240.0
    tilt = math.radians(a.arrow_tilt * full)
    down = bow_sh + (20, 230)
    anchor_w = np.array([415.0, mouth_y + a.anchor_dy * SW])
    bow_w_full = anchor_w + np.array([arm + 25, -(arm + 25) * math.tan(tilt)])
    bow_w = down + (bow_w_full - down) * raised if t < t_draw else bow_w_full
    bend = 180.0 - (a.bow_elbow if at_full or released else 165.0 + 11.0 * drawn)
    mid = (bow_sh + bow_w) / 2
    sag = 0.5 * float(np.hypot(*(bow_w - bow_sh))) * math.tan(math.radians(bend / 2))
    bow_el = mid + (0, sag)
    # draw arm: from the string (near the bow hand at setup) to the face, then back after release
    start_w = np.array([430.0, 330.0]) if t < t_draw else bow_w - (120, 0)
    draw_w = start_w + (anchor_w - start_w) * drawn if t >= t_draw else start_w
    if at_full and not released and a.creep and t >= t_release - 0.3:
        draw_w = draw_w + (a.creep * SW * (t - (t_release - 0.3)) / 0.3, 0)
    elif released:
        back = anchor_w + (a.creep * SW, 0)
        dest = np.array([anchor_w[0] - a.release_back * SW, draw_sh[1] + a.ft_drop * SW])
        if a.release_back < 0.3:
            dest[1] = back[1]
        draw_w = back + (dest - back) * ft
    u = draw_w - bow_w
    u = u / (np.hypot(*u) or 1)
    el_dy = a.elbow_dy * (drawn if not released else 1.0)
    draw_el = draw_w + u * 80 + np.array([0, -el_dy])
    if released:
        # The forearm goes back with the hand and the arm straightens as far as the hand travels: a hand that
        # stays near the face leaves the arm folded there, one 2 SW back leaves it straight.
        straight = draw_sh + (draw_w - draw_sh) * 0.5 + (0, -5)
        draw_el = draw_el + (straight - draw_el) * ft * min(1.0, a.release_back / 2.0)
    xy[INDEX["left_wrist"]], xy[INDEX["right_wrist"]] = bow_w, draw_w
    xy[INDEX["left_elbow"]], xy[INDEX["right_elbow"]] = bow_el, draw_el
    for side, w in (("left", bow_w), ("right", draw_w)):
        for k, part in enumerate(("pinky", "index", "thumb")):
            xy[INDEX[f"{side}_{part}"]] = w + (0, 6 + 3 * k)

    # hold sway and trunk lean move everything above the hips
    upper = [i for i, nm in enumerate(NAMES) if not any(p in nm for p in ("hip", "knee", "ankle", "heel", "foot"))]
    if at_full and not released and a.sway:
        dx = a.sway * SW * math.sin(2 * math.pi * 1.4 * (t - t_anchor)) * min(1.0, (t - t_anchor) / 0.3)
        xy[upper, 0] += dx
    lean = a.trunk_lean * (_smooth((t - t_draw) / 0.5) if t >= t_draw else 0.0)
    if lean:
        for i in upper:
            xy[i] = _rot(xy[i], hip_mid, lean)
    return xy


def session(archers: list[Archer], gap_s: float = 2.0) -> list[Series]:
    out, t0, first = [], 0.0, 0
    for a in archers:
        s = shot(a, t0, first)
        out.append(s)
        first = s.bodies[-1].index + 1 + int(gap_s * FPS)
        t0 = first / FPS
    return out


_SWAP = {i: INDEX[NAMES[i].replace("left", "§").replace("right", "left").replace("§", "right")] for i in range(33)}


def mirror(s: Series) -> Series:
    """The same shot by a left-handed archer: image flipped left-right, left/right landmarks swapped."""
    bodies = []
    for b in s.bodies:
        xy = np.empty_like(b.xy)
        vis = np.empty_like(b.vis)
        for i, j in _SWAP.items():
            xy[j] = (WIDTH - b.xy[i][0], b.xy[i][1])
            vis[j] = b.vis[i]
        bodies.append(Body(b.index, b.t_ms, xy, vis, b.sw, LEFT))
    return replace(s, bodies=bodies)
