"""Real shots through a converter that drops frames (30 fps to 20: two frames of every three kept,
`track_transforms.every_nth_dropped`): the labelled shot is still found once, its release where the frames kept
first show it."""

from __future__ import annotations

import json

import pytest

from coach.pipeline import analyze_track
from coach.pose_frame import load_posetrack
from coach.track_transforms import at_nth_dropped, every_nth_dropped
from tests.support.paths import REALPOSE

REAL05 = "real05_recurve_front_crowd"


@pytest.mark.parametrize("phase", [0, 1, 2])
def test_a_hand_moved_down_and_back_in_the_hold_is_no_release(phase: int) -> None:
    """real05 (an elite recurve archer): 1.5 s before the release MediaPipe moves the draw hand 0.6 U down and back
    up in 0.27 s. With every third frame dropped (phase 2) the release window closed while the hand was still on
    its way back, 0.3 U off the anchor: it was taken for the release, 30 frames early, and the real one, in the
    same hold, was lost. A twitch comes back; a release leaves for good."""
    if not REALPOSE.is_dir():
        pytest.skip(f"{REALPOSE} not found")
    from posture_rules.pack import Profile

    labels = json.loads((REALPOSE / f"{REAL05}.labels.json").read_text())
    release = labels["shots"][0]["release_frame"]
    track = load_posetrack(REALPOSE / f"{REAL05}.pose.json")
    want = at_nth_dropped(release, 3, phase)
    report = analyze_track(every_nth_dropped(track, 3, phase), profile=Profile(handedness=labels["handedness"]))
    (shot,) = report.shots
    assert abs(shot.release_frame - want) <= 1, (shot.release_frame, want)
