"""Synthetic archer: determinism, truth schema, and that MediaPipe sees the mannequin where the truth says."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from coach.synth.generate import TRUTH_SCHEMA, generate_clip
from coach.synth.scenarios import SCENARIOS, Scenario
from coach.synth.timeline import FAULT_RULES, ShotSpec
from coach.video_io import read_frames

RULE_IDS = {
    "cup_of_water",
    "kan_shou",
    "ti_shou",
    "straight_bow_arm",
    "head_back",
    "upright_trunk",
    "ding_ba_stance",
    "draw_tempo",
    "stillness",
    "liang_zhai",
    "hou_shou_xiao",
    "follow_through",
}

TINY = Scenario(
    "tiny",
    "one short shot, small frame",
    (ShotSpec(("cup_of_water_low",)),),
    width=320,
    height=180,
    seed=5,
)


@pytest.fixture(scope="module")
def tiny_clip(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return generate_clip(TINY, tmp_path_factory.mktemp("tiny"))


def test_same_seed_same_sidecar(tiny_clip: Path, tmp_path: Path) -> None:
    again = generate_clip(TINY, tmp_path)
    assert tiny_clip.with_suffix(".truth.json").read_bytes() == again.with_suffix(".truth.json").read_bytes()
    other = generate_clip(TINY, tmp_path / "other", seed=6)
    assert other.with_suffix(".truth.json").read_bytes() != again.with_suffix(".truth.json").read_bytes()


def test_truth_schema(tiny_clip: Path) -> None:
    truth = json.loads(tiny_clip.with_suffix(".truth.json").read_text(encoding="utf-8"))
    assert truth["schema"] == TRUTH_SCHEMA
    assert (truth["fps"], truth["width"], truth["height"]) == (30, 320, 180)
    assert truth["handedness"] == "right" and truth["view"] == "face-on"
    frames = truth["landmarks_2d"]
    assert len(frames) == truth["n_frames"] == sum(1 for _ in read_frames(tiny_clip))
    for f in frames:
        assert len(f) == 33
        for p in f:
            assert p is None or (len(p) == 2 and 0 <= p[0] < 320 and 0 <= p[1] < 180)
    (shot,) = truth["shots"]
    order = ["raise_start_frame", "draw_start_frame", "anchor_frame", "release_frame", "end_frame"]
    values = [shot[k] for k in order]
    assert values == sorted(values) and values[-1] < len(frames)
    (fault,) = truth["faults"]
    assert fault["rule"] == "cup_of_water" and fault["shot"] == 0
    assert (fault["start_frame"], fault["end_frame"]) == (shot["anchor_frame"], shot["release_frame"] - 1)


def test_every_fault_variant_maps_to_a_rule_id() -> None:
    assert set(FAULT_RULES.values()) == RULE_IDS
    used = {v for s in SCENARIOS.values() for shot in s.shots for v in shot.faults}
    assert {FAULT_RULES[v] for v in used} == RULE_IDS  # the committed set exercises every rule


def _angle_above_line(f: list, bow: int, draw: int, elbow: int) -> float:
    wb, wd, e = (np.array(f[k]) for k in (bow, draw, elbow))
    line, ev = wd - wb, e - wd
    a1 = np.arctan2(-line[1], abs(line[0]))
    a2 = np.arctan2(-ev[1], abs(ev[0]))
    return float(np.degrees(a2 - a1))


def test_cup_of_water_geometry_in_truth(tiny_clip: Path) -> None:
    truth = json.loads(tiny_clip.with_suffix(".truth.json").read_text(encoding="utf-8"))
    shot = truth["shots"][0]
    f = truth["landmarks_2d"][(shot["anchor_frame"] + shot["release_frame"]) // 2]
    assert _angle_above_line(f, 15, 16, 14) < -12.0  # the injected fault: elbow well below the arrow line


def test_left_handed_mirrors(tmp_path: Path) -> None:
    scn = replace(TINY, name="tiny_lh", handedness="left", shots=(ShotSpec(),))
    truth = json.loads(generate_clip(scn, tmp_path).with_suffix(".truth.json").read_text(encoding="utf-8"))
    shot = truth["shots"][0]
    f = truth["landmarks_2d"][(shot["anchor_frame"] + shot["release_frame"]) // 2]
    # A left-hander's bow wrist is the right wrist (16); face-on, the person's right is on the image left.
    assert f[16][0] < f[12][0] < f[11][0]
    assert abs(_angle_above_line(f, 16, 15, 13) - 4.0) < 3.0


@pytest.mark.e2e
def test_mediapipe_finds_the_archer(tmp_path: Path) -> None:
    from coach.synth.fidelity import measure

    mp4 = generate_clip(SCENARIOS["short_1shot"], tmp_path)
    fid = measure(mp4)
    assert fid.frames == len(json.loads(mp4.with_suffix(".truth.json").read_text())["landmarks_2d"])
    assert fid.detection_rate >= 0.95
    assert fid.median_error_sw <= 0.10


def _timeline(*shots: ShotSpec, fps: float = 30):
    from coach.synth.body import BodyShape
    from coach.synth.timeline import build_timeline

    return build_timeline(list(shots), fps, np.random.default_rng(3), BodyShape())


def test_truth_of_the_failure_modes() -> None:
    """What a failure-mode clip's truth says: no release for a let-down, no raise/draw/anchor for a clip that
    starts at full draw, no end for a clip cut 3 frames after its release."""
    let_down = _timeline(ShotSpec(let_down=True))
    (s,) = let_down.shots
    assert s["release_frame"] is None and let_down.release_frames == []
    assert s["anchor_frame"] < s["let_down_frame"] < s["end_frame"]
    assert all(state != "flying" for state, _ in let_down.arrow)

    full = _timeline(ShotSpec(hold_s=2.8, start_in_hold_s=0.3))
    (s,) = full.shots
    assert s["before_clip"] == ["raise_start_frame", "draw_start_frame", "anchor_frame"]
    assert s["raise_start_frame"] is s["draw_start_frame"] is s["anchor_frame"] is None
    assert s["release_frame"] == round(2.5 * 30) + 1 and full.release_frames == [s["release_frame"]]

    cut = _timeline(ShotSpec(), ShotSpec(end_after_release=3), fps=25)
    assert len(cut.poses) == cut.shots[1]["release_frame"] + 4 == len(cut.arrow)
    assert cut.shots[1]["end_frame"] is None and cut.shots[1]["after_clip"] == ["end_frame"]
    assert cut.shots[0]["end_frame"] is not None

    with pytest.raises(ValueError):
        _timeline(ShotSpec(end_after_release=3), ShotSpec())
    with pytest.raises(ValueError):
        _timeline(ShotSpec(), ShotSpec(start_in_hold_s=0.3))


def test_thumb_draw_springs_back_short() -> None:
    from coach.synth.body import BodyShape
    from coach.synth.pose import POSE_FIELDS, pose_from_vector
    from coach.synth.rig import solve_rig

    body = BodyShape()
    sw = 2 * body.shoulder_half

    def travel(tl) -> float:
        r = tl.shots[0]["release_frame"]
        wrist = [solve_rig(pose_from_vector(tl.poses[i]), body).joints["wrist_r"] for i in (r - 1, r + 12)]
        return float(np.linalg.norm(wrist[1] - wrist[0])) / sw

    thumb = _timeline(ShotSpec(release_travel=0.14, bow_drop_deg=25.0))
    assert 0.15 < travel(thumb) < 0.35 < 1.5 < travel(_timeline(ShotSpec()))
    el = POSE_FIELDS.index("bow_el")
    r = thumb.shots[0]["release_frame"]
    assert thumb.poses[r - 1, el] - thumb.poses[r + 12, el] == pytest.approx(25.0, abs=0.5)


def test_camera_turn_is_a_homography() -> None:
    from coach.synth.camera import homography
    from coach.synth.scene import view_camera

    cam = view_camera("face-on", 640, 360)
    moved = cam.turned(6.0, 2.0, 1.3)
    pts = np.array([[0.3, 1.5, 0.0], [-0.5, 0.1, -0.4], [1.0, 2.0, 0.5]])
    uv0, _ = cam.project(pts)
    uv1, _ = moved.project(pts)
    h = homography(cam, moved)
    p = np.c_[uv0 - 0.5, np.ones(3)] @ h.T
    assert np.allclose(p[:, :2] / p[:, 2:] + 0.5, uv1, atol=1e-6)
    assert uv1[0, 0] < uv0[0, 0]  # panned toward the target: the archer moves left in the picture
