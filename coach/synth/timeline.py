"""The shot cycle as keyframes: phase timing, per-shot variation and injected faults, plus the truth."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from coach.synth.body import BodyShape
from coach.synth.pose import Key, Pose, sample_keys, with_
from coach.synth.rig import solve_rig

# Fault variants a scenario can switch on per shot, and the rule id each one must trigger.
FAULT_RULES: dict[str, str] = {
    "cup_of_water_low": "cup_of_water",
    "cup_of_water_high": "cup_of_water",
    "kan_shou": "kan_shou",
    "ti_shou": "ti_shou",
    "straight_bow_arm": "straight_bow_arm",
    "head_back": "head_back",
    "upright_trunk": "upright_trunk",
    "ding_ba_t": "ding_ba_stance",
    "ding_ba_splay": "ding_ba_stance",
    "draw_rushed": "draw_tempo",
    "draw_dragging": "draw_tempo",
    "hold_restless": "stillness",
    "hold_short": "stillness",
    "liang_zhai": "liang_zhai",
    "hou_shou_xiao": "hou_shou_xiao",
    "follow_through_drop": "follow_through",
}

REST = Pose(head_yaw=25.0)
SETUP = Pose(bow_az=55.0, bow_el=-50.0, bow_elbow=150.0, draw_x=0.06, draw_y=-0.40, draw_z=0.24, on_string=1.0)
RAISED = Pose(
    bow_az=40.0,
    bow_el=8.0,
    bow_elbow=140.0,
    draw_x=0.20,
    draw_y=0.03,
    draw_z=0.22,
    draw_elbow_rel=25.0,
    draw_elbow_rel_weight=0.5,
    on_string=1.0,
)
ANCHOR = Pose(
    bow_az=6.0,
    bow_el=5.0,
    bow_elbow=175.0,
    # The wrist sits a hand's length behind the jaw, in front of the neck: with human arm lengths this is what
    # puts the draw elbow on the arrow line in a face-on image (matches MediaPipe tracks of real archers).
    draw_x=-0.12,
    draw_y=0.07,
    draw_z=0.15,
    draw_elbow_rel=4.0,
    draw_elbow_rel_weight=1.0,
    on_string=1.0,
    head_yaw=78.0,
)


@dataclass(frozen=True)
class ShotSpec:
    faults: tuple[str, ...] = ()


@dataclass
class Timeline:
    poses: np.ndarray  # frames x pose fields
    arrow: list[tuple[str, float]]  # per frame: ("nocked"|"flying"|"none", seconds since release)
    release_frames: list[int]
    shots: list[dict[str, int]] = field(default_factory=list)
    faults: list[dict[str, object]] = field(default_factory=list)


def _frame(t: float, fps: float) -> int:
    return int(round(t * fps))


def solve_bow_elevation(pose: Pose, body: BodyShape, tilt_deg: float) -> float:
    """Bow-arm elevation giving the wanted tilt of the line bow wrist -> draw wrist (+: bow wrist higher)."""

    def tilt(el: float) -> float:
        j = solve_rig(with_(pose, bow_el=el), body).joints
        wb, wd = j["wrist_l"], j["wrist_r"]
        return float(np.degrees(np.arctan2(wb[1] - wd[1], abs(wb[0] - wd[0]))))

    lo, hi = -60.0, 70.0
    for _ in range(28):
        mid = (lo + hi) / 2
        if tilt(mid) < tilt_deg:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def build_timeline(
    shots: list[ShotSpec], fps: float, rng: np.random.Generator, body: BodyShape, duration_pad: float = 0.4
) -> Timeline:
    keys: list[Key] = []
    frames_of: list[dict[str, int]] = []
    faults: list[dict[str, object]] = []
    releases: list[float] = []
    sways: list[tuple[float, float]] = []

    def snap(t: float) -> float:
        # Event times sit on frame instants so truth frame numbers are exact.
        return round(t * fps) / fps

    t = 0.0
    base = with_(REST, head_yaw=float(rng.uniform(15, 35)))
    keys.append(Key(t, base))
    t += duration_pad
    for n, spec in enumerate(shots):
        f = set(spec.faults)
        unknown = f - FAULT_RULES.keys()
        if unknown:
            raise ValueError(f"unknown fault variants {sorted(unknown)}")
        stance = {}
        if "ding_ba_t" in f:
            stance = {"front_foot_yaw": 88.0}
        if "ding_ba_splay" in f:
            stance = {"stance_half": 0.36, "front_foot_yaw": 25.0, "rear_foot_yaw": 120.0}
        feet = with_(Pose(), **stance)
        head_yaw = float(rng.uniform(72, 80))
        lean = {"trunk_roll": 22.0} if "upright_trunk" in f else {}
        setup = with_(SETUP, **_feet(feet), head_yaw=head_yaw)
        raised = with_(RAISED, **_feet(feet), head_yaw=head_yaw, **lean)

        anchor = with_(
            ANCHOR,
            **_feet(feet),
            **lean,
            head_yaw=head_yaw,
            draw_x=ANCHOR.draw_x + float(rng.uniform(-0.008, 0.008)),
            draw_y=ANCHOR.draw_y + float(rng.uniform(-0.008, 0.008)),
            draw_elbow_rel=float(rng.uniform(3.0, 5.5)),
            bow_elbow=float(rng.uniform(172.0, 177.0)),
        )
        if "cup_of_water_low" in f:
            anchor = with_(anchor, draw_elbow_rel=-20.0)
        if "cup_of_water_high" in f:
            anchor = with_(anchor, draw_elbow_rel=38.0)
        if "straight_bow_arm" in f:
            anchor = with_(anchor, bow_elbow=128.0)
        if "head_back" in f:
            anchor = with_(anchor, head_pitch=32.0)
        tilt = float(rng.uniform(-2.0, 2.0))
        if "kan_shou" in f:
            tilt = 30.0
        if "ti_shou" in f:
            tilt = -30.0
        anchor = with_(anchor, bow_el=solve_bow_elevation(anchor, body, tilt))
        hold_end = with_(anchor, draw_x=anchor.draw_x - float(rng.uniform(0.006, 0.012)))
        if "liang_zhai" in f:
            hold_end = with_(anchor, draw_x=anchor.draw_x + 0.11)

        setup_in = float(rng.uniform(0.4, 0.5))
        setup_still = float(rng.uniform(0.5, 0.7))
        raise_d = float(rng.uniform(0.7, 0.9))
        draw_d = float(rng.uniform(2.0, 2.3))
        if "draw_rushed" in f:
            draw_d = 0.6
        if "draw_dragging" in f:
            draw_d = 5.8
        hold_d = float(rng.uniform(1.5, 1.8))
        if "hold_short" in f:
            hold_d = 0.3
        ft_d = float(rng.uniform(0.7, 0.8))

        keys.append(Key(t, base))
        t = snap(t + setup_in)
        keys.append(Key(t, setup))
        t = snap(t + setup_still)
        t_raise = t
        keys.append(Key(t, setup))
        t = snap(t + raise_d)
        t_draw = t
        keys.append(Key(t, raised))
        t = snap(t + draw_d)
        t_anchor = t
        keys.append(Key(t, anchor))
        if "liang_zhai" in f:
            t_creep = snap(t + hold_d - 0.3)
            keys.append(Key(t_creep, anchor))
        t = snap(t + hold_d)
        t_release = t
        keys.append(Key(t, hold_end))
        let_go = {"on_string": 0.0, "hand_open": 1.0}
        if "hou_shou_xiao" in f:
            dead = with_(hold_end, **let_go, draw_x=hold_end.draw_x - 0.008)
            keys.append(Key(t + 1.0 / fps, dead))
            keys.append(Key(t + ft_d, dead))
        elif "follow_through_drop" in f:
            drop = with_(
                hold_end,
                **let_go,
                draw_x=-0.30,
                draw_y=-0.30,
                draw_z=0.05,
                draw_elbow_rel_weight=0.0,
                draw_elbow_out=1.0,  # bend in the image plane, so the bent arm shows face-on
            )
            keys.append(Key(t + 1.0 / fps, with_(hold_end, **let_go)))
            keys.append(Key(t + 0.3, drop))
            keys.append(Key(t + ft_d, drop))
        else:
            # The hand goes straight back level in the world, even when the trunk leans (pre-rotate the
            # trunk-relative offsets), so only the fault that was asked for shows in the follow-through.
            lean_deg = lean.get("trunk_roll", 0.0)
            sink = 0.154 * float(np.sin(np.radians(lean_deg)))  # how far the draw shoulder sinks with the lean
            mx, my = _unroll(-0.40, 0.07 - sink, lean_deg)
            bx, by = _unroll(-0.74, 0.03 - sink, lean_deg)
            mid = with_(hold_end, **let_go, draw_x=mx, draw_y=my, draw_z=-0.02)
            back = with_(hold_end, **let_go, draw_x=bx, draw_y=by, draw_z=-0.06, draw_elbow_rel=0.0)
            keys.append(Key(t + 1.0 / fps, with_(hold_end, **let_go)))
            keys.append(Key(t + 0.12, mid))
            keys.append(Key(t + 0.32, back))
            keys.append(Key(t + ft_d, with_(back, draw_y=back.draw_y - 0.01)))
        t = snap(t + ft_d)
        t_end = t
        releases.append(t_release)
        base = with_(REST, **_feet(feet), head_yaw=float(rng.uniform(15, 35)))
        t = snap(t + float(rng.uniform(0.5, 0.6)))
        keys.append(Key(t, base))
        t = snap(t + float(rng.uniform(0.05, 0.2)))

        fr = {
            "raise_start_frame": _frame(t_raise, fps),
            "draw_start_frame": _frame(t_draw, fps),
            "anchor_frame": _frame(t_anchor, fps),
            # First frame after the string is let go: the hand has moved and the arrow is off the string.
            "release_frame": _frame(t_release, fps) + 1,
            "end_frame": _frame(t_end, fps),
        }
        frames_of.append(fr)
        if "hold_restless" in f:
            sways.append((t_anchor, t_release))
        for v in sorted(f):
            rule = FAULT_RULES[v]
            span = {
                "draw_tempo": (fr["draw_start_frame"], fr["anchor_frame"]),
                "upright_trunk": (fr["draw_start_frame"], fr["end_frame"]),
                "ding_ba_stance": (fr["raise_start_frame"], fr["end_frame"]),
                "liang_zhai": (fr["release_frame"] - 1 - round(0.3 * fps), fr["release_frame"] - 1),
                "hou_shou_xiao": (fr["release_frame"], fr["end_frame"]),
                "follow_through": (fr["release_frame"], fr["end_frame"]),
            }.get(rule, (fr["anchor_frame"], fr["release_frame"] - 1))
            faults.append({"rule": rule, "variant": v, "shot": n, "start_frame": span[0], "end_frame": span[1]})
    n_frames = _frame(t + 0.2, fps)
    times = np.arange(n_frames) / fps
    poses = sample_keys(keys, times)

    # A restless hold: the trunk sways side to side, carrying head and shoulders (~0.15 SW at the nose). It
    # dies out 0.35 s before the release so the draw hand is not also seen creeping (liang_zhai).
    roll_i = list(Pose.__dataclass_fields__).index("trunk_roll")
    for t0, t1 in sways:
        t1 = t1 - 0.35
        m = (times >= t0) & (times <= t1)
        ramp = np.clip(np.minimum((times - t0) / 0.15, (t1 - times) / 0.3), 0, 1)
        poses[m, roll_i] += 4.0 * np.sin(2 * np.pi * 1.8 * (times[m] - t0)) * ramp[m]

    arrow: list[tuple[str, float]] = []
    for tt in times:
        state, since = "nocked", 0.0
        for t_rel in releases:
            if t_rel + 1e-9 < tt <= t_rel + 0.5:
                state, since = "flying", float(tt - t_rel)
        arrow.append((state, since))
    # Between shots the archer holds no arrow until the next setup begins.
    on_i = list(Pose.__dataclass_fields__).index("on_string")
    for i in range(n_frames):
        if arrow[i][0] == "nocked" and poses[i, on_i] < 0.05:
            arrow[i] = ("none", 0.0)
    return Timeline(poses, arrow, [fr["release_frame"] for fr in frames_of], frames_of, faults)


def _feet(p: Pose) -> dict[str, float]:
    return {
        "stance_half": p.stance_half,
        "front_foot_yaw": p.front_foot_yaw,
        "rear_foot_yaw": p.rear_foot_yaw,
    }


def _unroll(x: float, y: float, roll_deg: float) -> tuple[float, float]:
    """Trunk-frame offset that lands on world offset (x, y) once the trunk has rolled by roll_deg."""
    c, s = np.cos(np.radians(-roll_deg)), np.sin(np.radians(-roll_deg))
    return float(c * x - s * y), float(s * x + c * y)
