"""The shot cycle as keyframes: phase timing, per-shot variation and injected faults, plus the truth.

One module over ~400 lines: the keyframes of one shot and the faults injected into them are one timeline, and
the truth written beside each clip must be read off the very same numbers."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from coach.synth.body import BodyShape
from coach.synth.idle import idle_stretch
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
    """One shot of a scenario: its faults, plus the ways real footage departs from the clean shot cycle."""

    faults: tuple[str, ...] = ()
    # Scale of the draw hand's spring-back after the release: 1 is the clean ~1.8 SW straight back; a
    # traditional thumb-ring draw springs back only ~0.3 SW (0.14).
    release_travel: float = 1.0
    bow_drop_deg: float = 0.0  # the bow arm drops this far (elevation, degrees) just after the release
    hold_s: float | None = None  # hold length; default 1.5-1.8 s
    # Aiming micro-motion over the hold: bow arm and trunk wander (~0.5 deg), the draw hand drifting, and two
    # clicker-like twitches of the draw hand (~0.07 SW back and forth in 0.4 s) that are not releases.
    aim_wander: bool = False
    let_down: bool = False  # after the hold the archer comes down without shooting: no release, no arrow flies
    # First shot only: the clip starts this long after the anchor (no raise, draw or anchor in the clip).
    start_in_hold_s: float | None = None
    # Last shot only: the clip's last frame is this many frames after the release frame (follow-through cut).
    end_after_release: int | None = None
    # A long session: before this shot the archer stands idle this long, nocking an arrow at the belt and
    # shifting weight, and walks out of the picture (to the target and back) for walk_out_s of it.
    idle_before_s: float = 0.0
    walk_out_s: float = 0.0


@dataclass
class Timeline:
    poses: np.ndarray  # frames x pose fields
    arrow: list[tuple[str, float]]  # per frame: ("nocked"|"flying"|"none", seconds since release)
    release_frames: list[int]
    # Per shot: the phase frames (None where that event did not happen, or happened outside the clip), plus
    # what departs from a clean cycle (let_down_frame, before_clip/after_clip, release_travel, ...).
    shots: list[dict[str, object]] = field(default_factory=list)
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
    frames_of: list[dict[str, object]] = []
    faults: list[dict[str, object]] = []
    releases: list[float] = []
    sways: list[tuple[float, float]] = []

    def snap(t: float) -> float:
        # Event times sit on frame instants so truth frame numbers are exact.
        return round(t * fps) / fps

    wanders: list[tuple[float, float, list[float]]] = []
    _check_specs(shots)

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
        if spec.hold_s is not None:
            hold_d = spec.hold_s

        if spec.idle_before_s > 0:
            t = idle_stretch(keys, t, spec.idle_before_s, spec.walk_out_s, base, rng, snap)
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
        if spec.let_down:
            # The string is eased forward with the bow arm still up, then both come down, arrow still nocked.
            eased = with_(
                hold_end,
                draw_x=RAISED.draw_x,
                draw_y=RAISED.draw_y,
                draw_z=RAISED.draw_z,
                draw_elbow_rel=RAISED.draw_elbow_rel,
                draw_elbow_rel_weight=RAISED.draw_elbow_rel_weight,
            )
            keys.append(Key(t + 1.0, eased))
            keys.append(Key(t + 1.9, setup))
            ft_d = 1.9
        elif "hou_shou_xiao" in f:
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
            # A short spring-back (thumb draw) goes part of the way along the same path.
            k = spec.release_travel
            h = hold_end
            mid = with_(
                h,
                **let_go,
                draw_x=_toward(h.draw_x, mx, k),
                draw_y=_toward(h.draw_y, my, k),
                draw_z=_toward(h.draw_z, -0.02, k),
            )
            back = with_(
                h,
                **let_go,
                draw_x=_toward(h.draw_x, bx, k),
                draw_y=_toward(h.draw_y, by, k),
                draw_z=_toward(h.draw_z, -0.06, k),
                draw_elbow_rel=_toward(h.draw_elbow_rel, 0.0, k),
            )
            if spec.bow_drop_deg:
                mid = with_(mid, bow_el=h.bow_el - 0.4 * spec.bow_drop_deg)
                back = with_(back, bow_el=h.bow_el - spec.bow_drop_deg)
            keys.append(Key(t + 1.0 / fps, with_(hold_end, **let_go)))
            keys.append(Key(t + 0.12, mid))
            keys.append(Key(t + 0.32, back))
            keys.append(Key(t + ft_d, with_(back, draw_y=back.draw_y - 0.01)))
        t = snap(t + ft_d)
        t_end = t
        if not spec.let_down:
            releases.append(t_release)
        base = with_(REST, **_feet(feet), head_yaw=float(rng.uniform(15, 35)))
        t = snap(t + float(rng.uniform(0.5, 0.6)))
        keys.append(Key(t, base))
        t = snap(t + float(rng.uniform(0.05, 0.2)))

        fr: dict[str, object] = {
            "raise_start_frame": _frame(t_raise, fps),
            "draw_start_frame": _frame(t_draw, fps),
            "anchor_frame": _frame(t_anchor, fps),
            # First frame after the string is let go: the hand has moved and the arrow is off the string.
            "release_frame": _frame(t_release, fps) + 1,
            "end_frame": _frame(t_end, fps),
        }
        if spec.let_down:
            # No release: the hold ends where the string starts forward, the let-down where the arms are down.
            fr["release_frame"] = None
            fr["let_down_frame"] = _frame(t_release, fps)
        elif spec.release_travel != 1.0 or spec.bow_drop_deg:
            fr["release_travel"] = spec.release_travel
            fr["bow_drop_deg"] = spec.bow_drop_deg
        if spec.aim_wander:
            twitches = [t_anchor + 0.4 * hold_d, t_anchor + 0.7 * hold_d]
            wanders.append((t_anchor, t_release, twitches))
            fr["aim_wander"] = True
            fr["twitch_frames"] = [_frame(tw, fps) for tw in twitches]
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
    for t0, t1, twitches in wanders:
        _add_aim_wander(poses, times, t0, t1, twitches, rng)

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
    tl = Timeline(poses, arrow, [r for fr in frames_of if (r := fr["release_frame"]) is not None], frames_of, faults)
    first, last = shots[0], shots[-1]
    start = 0
    if first.start_in_hold_s is not None:
        start = _frame(frames_of[0]["anchor_frame"] / fps + first.start_in_hold_s, fps)
    stop = n_frames
    if last.end_after_release is not None:
        stop = int(frames_of[-1]["release_frame"]) + last.end_after_release + 1
    return _trim(tl, start, stop) if (start, stop) != (0, n_frames) else tl


_EVENTS = ("raise_start_frame", "draw_start_frame", "anchor_frame", "release_frame", "let_down_frame", "end_frame")


def _check_specs(shots: list[ShotSpec]) -> None:
    for n, spec in enumerate(shots):
        if spec.start_in_hold_s is not None and n != 0:
            raise ValueError("start_in_hold_s: only the first shot can start the clip at full draw")
        if spec.end_after_release is not None and (n != len(shots) - 1 or spec.let_down):
            raise ValueError("end_after_release: only the last shot, with a release, can end the clip")
        if spec.let_down and spec.faults:
            raise ValueError("let_down: a shot that is not shot carries no faults")
        if spec.start_in_hold_s is not None and spec.hold_s is not None and spec.start_in_hold_s >= spec.hold_s:
            raise ValueError("start_in_hold_s must fall inside the hold")


def _trim(tl: Timeline, start: int, stop: int) -> Timeline:
    """The frames [start, stop) as the clip; truth frames shifted to it, and events outside it None (listed
    per shot in before_clip / after_clip)."""
    n = stop - start
    shots = []
    for fr in tl.shots:
        out: dict[str, object] = dict(fr)
        before, after = [], []
        for key in _EVENTS:
            v = fr.get(key)
            if v is None:
                continue
            v = int(v) - start
            if v < 0:
                before.append(key)
            elif v >= n:
                after.append(key)
            out[key] = v if 0 <= v < n else None
        if "twitch_frames" in fr:
            out["twitch_frames"] = [int(v) - start for v in fr["twitch_frames"]]
        if before:
            out["before_clip"] = before
        if after:
            out["after_clip"] = after
        shots.append(out)
    faults = []
    for ft in tl.faults:
        a = max(int(ft["start_frame"]) - start, 0)
        b = min(int(ft["end_frame"]) - start, n - 1)
        if a <= b:
            faults.append({**ft, "start_frame": a, "end_frame": b})
    releases = [r - start for r in tl.release_frames if 0 <= r - start < n]
    return Timeline(tl.poses[start:stop], tl.arrow[start:stop], releases, shots, faults)


def _toward(a: float, b: float, k: float) -> float:
    """a moved a share k of the way to b (exactly b for the full way)."""
    return b if k == 1.0 else a + k * (b - a)


def _add_aim_wander(
    poses: np.ndarray, times: np.ndarray, t0: float, t1: float, twitches: list[float], rng: np.random.Generator
) -> None:
    """Aiming micro-motion over a hold [t0, t1): slow bow-arm and trunk wander, a drifting draw hand and
    clicker-like twitches (the draw hand jerks ~2 cm back and settles), all dying out 0.25 s before t1."""
    names = list(Pose.__dataclass_fields__)
    m = (times >= t0) & (times < t1)
    tt = times[m] - t0
    ramp = np.clip(np.minimum(tt / 0.4, (t1 - times[m]) / 0.25), 0, 1)
    for name, amp in (("bow_az", 0.5), ("bow_el", 0.4), ("trunk_roll", 0.5), ("trunk_pitch", 0.3), ("draw_x", 0.003)):
        sig = np.zeros_like(tt)
        for freq, a in ((0.35, 1.0), (0.9, 0.5), (1.7, 0.25)):
            sig += a * np.sin(2 * np.pi * freq * tt + rng.uniform(0, 2 * np.pi))
        poses[m, names.index(name)] += amp * sig / 1.75 * ramp
    x_i = names.index("draw_x")
    for tw in twitches:
        u = times[m] - tw
        jerk = np.where(u < 0, 0.0, np.where(u < 0.06, u / 0.06, np.clip(1 - (u - 0.06) / 0.34, 0, 1)))
        poses[m, x_i] -= 0.02 * jerk * ramp


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
