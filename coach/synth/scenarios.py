"""The named clips: which shots, faults, view, handedness and scene each one has."""

from __future__ import annotations

from dataclasses import dataclass

from coach.synth.camera import CameraMove
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
    camera_move: CameraMove | None = None  # a handheld camera (pan, zoom, shake); None: a tripod
    # Display rotation written in the container (degrees counter-clockwise, FFmpeg's display matrix; a phone
    # held upright writes -90). width x height is the upright picture; the frames are stored turned.
    rotation: int = 0


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


# Failure modes real footage shows, each with exact truth (tests/e2e/test_failure_modes.py,
# benchmarks/failure_modes.py). Rendered on demand, never committed as video: small, one or two shots.
_SMALL = {"width": 640, "height": 360}
FAILURE_SCENARIOS: dict[str, Scenario] = {
    s.name: s
    for s in (
        Scenario(
            "fm_thumb_draw",
            "Traditional thumb-ring archer, two shots: the draw hand springs back only ~0.3 SW at the release "
            "and the bow arm drops 25 deg.",
            (ShotSpec(release_travel=0.14, bow_drop_deg=25.0),) * 2,
            # MediaPipe reads seed 42 accurately through both releases (the tracker's miss is its own); seed 31
            # had the archer read as facing away (sides swapped) over shot 0's draw, seed 41 passes.
            seed=42,
            **_SMALL,
        ),
        Scenario(
            "fm_ends_after_release",
            "One clean shot; the clip ends 3 frames after the release (follow-through cut).",
            (ShotSpec(end_after_release=3),),
            seed=32,
            **_SMALL,
        ),
        Scenario(
            "fm_starts_at_full_draw",
            "The clip starts 0.3 s into a 2.8 s hold (no raise, draw or anchor in it), then the release and "
            "follow-through.",
            (ShotSpec(hold_s=2.8, start_in_hold_s=0.3),),
            seed=33,
            **_SMALL,
        ),
        Scenario(
            "fm_long_hold",
            "One shot with an 8 s hold and aiming micro-motion: bow arm and trunk wander ~0.5 deg, the draw hand "
            "drifts, two clicker-like twitches of the draw hand (~2 cm back in 0.06 s) that are not releases.",
            (ShotSpec(hold_s=8.0, aim_wander=True),),
            seed=34,
            **_SMALL,
        ),
        Scenario(
            "fm_let_down",
            "A let-down: full draw held 1.5-1.8 s, then the string is eased forward and the arms come down; no "
            "release, no shot.",
            (ShotSpec(let_down=True),),
            seed=35,
            **_SMALL,
        ),
        Scenario(
            "fm_handheld_pan",
            "Handheld camera: shake all along (~0.3 deg), and a 6 deg pan, 2 deg tilt down and 1.3x zoom over "
            "the shot's 4 s hold, the archer kept whole in the frame; the archer is still.",
            (ShotSpec(hold_s=4.0),),
            camera_move=CameraMove(shot=0, pan_deg=6.0, tilt_deg=-2.0, zoom=1.3, shake_deg=0.3),
            seed=36,
            **_SMALL,
        ),
        Scenario("fm_14fps", "One clean shot at 14 fps.", (CLEAN,), fps=14, seed=37, **_SMALL),
        Scenario("fm_25fps", "One clean shot at 25 fps.", (CLEAN,), fps=25, seed=38, **_SMALL),
        Scenario(
            "fm_portrait_rotated",
            "Phone held upright: 360x640 portrait picture stored as 640x360 frames with a -90 deg display "
            "matrix (players turn it upright); one clean shot.",
            (CLEAN,),
            width=360,
            height=640,
            rotation=-90,
            seed=39,
        ),
    )
}


def long_session(minutes: float = 10.0, shots: int = 12, width: int = 1280, height: int = 720) -> Scenario:
    """A whole training session (issue #17; benchmarks/long_session.py): `shots` clean shots spread over
    `minutes`, the archer standing, nocking and walking out of the picture and back between them. Rendered
    on demand, never committed."""
    cycle = minutes * 60.0 / shots
    idle = max(cycle - 8.0, 2.0)  # a shot (setup to follow-through) takes ~7-8 s
    walk = idle * 0.4 if idle >= 20.0 else 0.0
    specs = tuple(ShotSpec(idle_before_s=idle, walk_out_s=walk if n % 2 else 0.0) for n in range(shots))
    return Scenario(
        "long_session",
        f"A {minutes:g}-minute session: {shots} clean shots, standing, nocking and walking out of the picture "
        "and back between them (adaptive analysis, issue #17).",
        specs,
        width=width,
        height=height,
        seed=51,
    )


ALL_SCENARIOS: dict[str, Scenario] = {**SCENARIOS, **FAILURE_SCENARIOS, "long_session": long_session()}
