"""A video with no shot found says why when one hand was hidden for most of it (coach/analyzer.py
HIDDEN_HAND_NOTE): from behind, the draw hand is behind the head for the whole shot and no draw can be followed,
so "no shots found" alone would read as "the archer did not shoot". Real pose tracks: the committed synthetic
archer's with its draw wrist's visibility lowered as MediaPipe reports a hand it cannot see, and real04's."""

from __future__ import annotations

import dataclasses

import pytest

from coach.pipeline import analyze_track
from coach.pose_frame import PoseTrack, load_posetrack
from coach.session_notes import HIDDEN_HAND_SHARE
from coach.wording.machine import note_text
from tests.support.paths import GOLDEN, REALPOSE

TRACK = GOLDEN / "short_1shot.pose.json.gz"  # one shot, a right-handed archer
RIGHT_ELBOW, RIGHT_WRIST = 14, 16
HIDDEN_VIS = 0.1  # what MediaPipe gives a draw hand and elbow behind the head (real04: 0.06-0.25)


def _hide_right_arm(track: PoseTrack, every: int = 1, upto: int | None = None) -> PoseTrack:
    """`track` with the right wrist and elbow doubted in every `every`-th frame (of its first `upto` frames): with
    the elbow seen, it would stand in for the hand (coach/phases/elbow.py)."""
    frames = []
    for k, f in enumerate(track.frames[:upto]):
        if f.landmarks is not None and k % every == 0:
            lm = f.landmarks.copy()
            lm[[RIGHT_ELBOW, RIGHT_WRIST], 3] = HIDDEN_VIS
            f = dataclasses.replace(f, landmarks=lm)
        frames.append(f)
    return dataclasses.replace(track, frames=frames)


def _hidden_notes(notes: list[str]) -> list[str]:
    return [n for n in notes if "hand was hidden" in n]


@pytest.fixture(scope="module")
def track() -> PoseTrack:
    return load_posetrack(TRACK)


def test_no_shot_with_the_draw_arm_hidden_says_which_hand_and_how_often(track) -> None:
    report = analyze_track(_hide_right_arm(track))
    assert not report.shots
    hidden = _hidden_notes(report.notes)
    assert len(hidden) == 1 and hidden[0].startswith("the archer's right hand was hidden in 100 %")
    assert "右手" in note_text(hidden[0], "zh") and "100%" in note_text(hidden[0], "zh")
    assert note_text(hidden[0], "en").startswith("The archer's right hand was hidden in 100 %")


def test_a_shot_found_or_a_hand_seen_most_of_the_time_gives_no_such_note(track) -> None:
    assert analyze_track(track).shots and not _hidden_notes(analyze_track(track).notes)
    # Standing before the raise (no shot), the right arm doubted in one frame in three: seen most of the time.
    before_raise = track.meta["truth"]["shots"][0]["raise_start_frame"]
    report = analyze_track(_hide_right_arm(track, every=3, upto=before_raise))
    assert not report.shots and "no shots found" in report.notes
    assert 1 / 3 < HIDDEN_HAND_SHARE and not _hidden_notes(report.notes)


@pytest.mark.skipif(not REALPOSE.is_dir(), reason="../shared/realpose is not here")
def test_real04_filmed_from_behind_says_its_draw_hand_was_hidden() -> None:
    report = analyze_track(REALPOSE / "real04_recurve_behind_oblique.pose.json")
    assert not report.shots
    assert _hidden_notes(report.notes) and _hidden_notes(report.notes)[0].startswith("the archer's right hand")
