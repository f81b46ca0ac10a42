"""A twitch comes back; a release leaves for good (`release._coming_back`): over the later half of the release
window the hand's distance from the anchor falling frame after frame to under the confirming distance, never
having gone twice as far, the bow arm still, is the hand on its way back: no release."""

from __future__ import annotations

from coach.phases.release import _coming_back
from coach.phases.state import ReleaseEvidence

THR = 0.35  # the confirming distance (U)
HAND_ALONE = ReleaseEvidence(draw_hand=1.04, bow_arm=0.05, span=0.85)  # real05, every third frame dropped
BOW_FELL = ReleaseEvidence(draw_hand=0.8, bow_arm=1.5, span=0.3)


def test_a_hand_on_its_way_back_to_the_anchor_is_a_twitch() -> None:
    assert _coming_back(HAND_ALONE, [0.55, 0.45, 0.33, 0.30], THR)


def test_a_hand_still_away_or_leaving_is_no_twitch() -> None:
    assert not _coming_back(HAND_ALONE, [0.55, 0.45, 0.40, 0.38], THR)  # still past the confirming distance
    assert not _coming_back(HAND_ALONE, [0.40, 0.45, 0.50, 0.60], THR)  # leaving
    assert not _coming_back(HAND_ALONE, [0.50, 0.30, 0.40, 0.32], THR)  # wavering, not coming back


def test_a_flight_the_pose_folded_back_is_no_twitch() -> None:
    # Far away, then MediaPipe put the hand back at the face for a frame as it flew out of view.
    assert not _coming_back(HAND_ALONE, [1.2, 0.9, 0.3], THR)


def test_a_thumb_release_relaxing_forward_with_its_bow_arm_fallen_is_no_twitch() -> None:
    # A short spring-back (0.2-0.3 U), then the hand eases forward: the bow arm's fall tells the string left.
    assert not _coming_back(BOW_FELL, [0.30, 0.27, 0.24, 0.22], THR)


def test_too_few_frames_tell_nothing() -> None:
    assert not _coming_back(HAND_ALONE, [0.5, 0.3], THR)
