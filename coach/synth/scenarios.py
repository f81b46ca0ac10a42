"""The named clips: which shots, faults, view, handedness and scene each one has."""

from __future__ import annotations

from dataclasses import dataclass

from coach.synth.timeline import ShotSpec

CLEAN = ShotSpec()


@dataclass(frozen=True)
class Scenario:
    name: str
    description: str
    shots: tuple[ShotSpec, ...]
    handedness: str = "right"
    view: str = "face-on"
    fps: int = 30
    width: int = 960
    height: int = 540
    crf: int = 28
    cluttered: bool = False
    bystander: bool = False
    noise_sigma: float = 2.0
    seed: int = 1


def _s(*faults: str) -> ShotSpec:
    return ShotSpec(tuple(faults))


SCENARIOS: dict[str, Scenario] = {
    s.name: s
    for s in (
        Scenario(
            "clean_rh_3shots",
            "Right-handed archer, three clean shots, face-on, plain wall.",
            (CLEAN,) * 3,
            seed=11,
        ),
        Scenario(
            "clean_lh",
            "Left-handed archer, two clean shots, face-on, cluttered background, 60 fps.",
            (CLEAN,) * 2,
            handedness="left",
            fps=60,
            cluttered=True,
            seed=12,
        ),
        Scenario(
            "fault_elbow",
            "cup_of_water: draw elbow dropped ~20 deg below the arrow line (shot 0), raised ~38 deg above it "
            "(shot 1); shot 2 clean.",
            (_s("cup_of_water_low"), _s("cup_of_water_high"), CLEAN),
            seed=13,
        ),
        Scenario(
            "fault_bow_hand",
            "kan_shou (shot 0: bow wrist 30 deg high), ti_shou (shot 1: bow wrist 30 deg low); shot 2 clean.",
            (_s("kan_shou"), _s("ti_shou"), CLEAN),
            cluttered=True,
            seed=14,
        ),
        Scenario(
            "fault_bow_arm",
            "straight_bow_arm: bow elbow bent to ~128 deg at full draw (shot 0); shot 1 clean.",
            (_s("straight_bow_arm"), CLEAN),
            seed=15,
        ),
        Scenario(
            "fault_head_trunk",
            "head_back: head tilted back ~32 deg at full draw (shot 0); upright_trunk: trunk leaning ~22 deg "
            "away from the target from draw to follow-through (shot 1); shot 2 clean.",
            (_s("head_back"), _s("upright_trunk"), CLEAN),
            seed=16,
        ),
        Scenario(
            "fault_tempo",
            "draw_tempo: rushed 0.6 s draw (shot 0), dragging 5.8 s draw (shot 1).",
            (_s("draw_rushed"), _s("draw_dragging")),
            cluttered=True,
            seed=17,
        ),
        Scenario(
            "fault_hold",
            "stillness: restless hold, trunk sways ~4 deg at 1.8 Hz (shot 0); 0.3 s hold (shot 1); shot 2 clean.",
            (_s("hold_restless"), _s("hold_short"), CLEAN),
            seed=18,
        ),
        Scenario(
            "fault_release",
            "liang_zhai: draw hand creeps 0.3 SW forward in the last 0.3 s (shot 0); hou_shou_xiao: dead "
            "release, hand stays at the jaw (shot 1); follow_through: draw hand drops after release (shot 2).",
            (_s("liang_zhai"), _s("hou_shou_xiao"), _s("follow_through_drop")),
            seed=19,
        ),
        Scenario(
            "bystander",
            "Clean right-handed archer, two shots, with a second person standing still in the background.",
            (CLEAN,) * 2,
            bystander=True,
            cluttered=True,
            seed=20,
        ),
        Scenario(
            "downline",
            "Clean right-handed archer, two shots, down-line camera.",
            (CLEAN,) * 2,
            view="down-line",
            seed=21,
        ),
        Scenario(
            "stance_high",
            "High camera looking down; ding_ba_stance: front foot turned 88 deg off the target line (shot 1), "
            "feet splayed ~2 SW apart (shot 2); shot 0 clean.",
            (CLEAN, _s("ding_ba_t"), _s("ding_ba_splay")),
            view="high",
            seed=22,
        ),
        Scenario(
            "short_1shot",
            "One clean right-handed shot, ~6 s, small frame, for end-to-end tests.",
            (CLEAN,),
            width=640,
            height=360,
            seed=2,  # seed 23's archer was read by MediaPipe as facing away for 2 s around the anchor
        ),
    )
}
