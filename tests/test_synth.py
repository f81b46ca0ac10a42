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
