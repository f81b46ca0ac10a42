"""A shot read mirrored does not lock the session's draw hand. MediaPipe can read a whole hold with its left and
right labels swapped (the blurred first second of a webcam stream): that shot looks like a left-handed archer's.
Where no profile gives the hand, the analysis learns it from each shot, so the right-handed shots that follow are
still found and judged as right-handed; a profile's hand is the only one sought."""

from __future__ import annotations

import numpy as np
import pytest

from coach.analyzer import Analyzer
from coach.landmarks import INDEX, NAMES
from coach.pose_frame import PoseFrame, load_posetrack
from coach.wording.machine import note_text
from posture_rules.pack import Profile
from tests.support.paths import GOLDEN

LOOP = 260  # fault_bow_arm's first shot, through its follow-through (the browser camera test's clip)
LOOPS = 3


def _swapped() -> np.ndarray:
    """The landmark order with every left and right label swapped: MediaPipe's mirrored reading."""
    other = {"mouth_left": "mouth_right", "mouth_right": "mouth_left"}
    for n in NAMES:
        if n.startswith(("left_", "right_")):
            side, part = n.split("_", 1)
            other[n] = f"{'right' if side == 'left' else 'left'}_{part}"
    return np.array([INDEX[other.get(n, n)] for n in NAMES])


def _looped_camera(analyzer: Analyzer, mirrored_frames: int) -> None:
    """The clip looped LOOPS times as one live stream, its first `mirrored_frames` read mirrored."""
    track = load_posetrack(GOLDEN / "fault_bow_arm.pose.json.gz")
    frames = [f for f in track.frames if f.index < LOOP]
    order = _swapped()
    for i in range(LOOPS * LOOP):
        lm = frames[i % LOOP].landmarks
        if lm is not None and i < mirrored_frames:
            lm = lm[order]
        analyzer.push_pose(PoseFrame(i, i * 1000.0 / track.fps, lm, None))


@pytest.mark.parametrize("mode", ["live", "recorded"])
def test_shots_after_a_mirrored_first_shot_are_found(mode: str) -> None:
    track = load_posetrack(GOLDEN / "fault_bow_arm.pose.json.gz")
    analyzer = Analyzer(track.fps, track.width, track.height, mode=mode)
    _looped_camera(analyzer, mirrored_frames=LOOP)
    report = analyzer.finish()
    assert len(report.shots) == LOOPS, [s.release_frame for s in report.shots]
    # The clip's own fault on every shot after the mirrored one, judged on the right arm.
    for shot in report.shots[1:]:
        assert "straight_bow_arm" in {f.rule for f in shot.findings if f.verdict == "fault"}, shot.index
    assert report.handedness == "right" and report.handedness_source == "auto"
    # The mirrored shot is said to be read with the other hand, in both languages; no other shot is.
    (other,) = [n for n in report.notes if "unlike the session's other shots" in n]
    assert other.startswith("shot 1: read as drawn with the left hand"), other
    assert "第 1 箭：讀成以左手開弓" in note_text(other, "zh")


def test_a_profiles_hand_is_the_only_one_sought() -> None:
    """The archer's profile says right-handed: the mirrored shot (a left-handed draw to the picture) is not one."""
    track = load_posetrack(GOLDEN / "fault_bow_arm.pose.json.gz")
    analyzer = Analyzer(track.fps, track.width, track.height, mode="live", profile=Profile(handedness="right"))
    _looped_camera(analyzer, mirrored_frames=LOOP)
    report = analyzer.finish()
    assert len(report.shots) == LOOPS - 1, [s.release_frame for s in report.shots]
    assert all(s.release_frame >= LOOP for s in report.shots)
    assert not [n for n in report.notes if "unlike the session's other shots" in n]
