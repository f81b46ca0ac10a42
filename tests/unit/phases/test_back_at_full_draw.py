"""After a release the draw hand does not come back to the face to rest. Where it does, the bow arm up and not
having fallen at that 'release', the archer is at full draw: the draw went on to a deeper anchor after an early
one (the adaptive reading of the long session's shot 5), or the pose moved the hand at the face (a darker
picture). The shot goes on, and its real release is the one that comes; if none comes (the arms come down, the
video ends), the release found stands, as for a release aid's hand resting at the face (real01)
(`anchor.back_at_full_draw`)."""

from __future__ import annotations

from coach.landmarks import INDEX
from coach.pipeline import analyze_track
from coach.results import MIN_MARK_CONFIDENCE, NOT_ASSESSABLE
from tests.unit.phases.test_phases import ShotPlan, W, make_track, run

PLAN = ShotPlan(raise_start=30, draw_start=55, anchor=85, release=200)
GOES_ON, MOVE = 110, 8  # the draw hand at rest at the face from the anchor, then 0.4 U further back in 8 frames
R_WRIST = INDEX["right_wrist"]


def _draw_goes_on(px: float = 40.0):
    """PLAN, its draw hand going on `px` further back at GOES_ON (fast at first, like a spring-back) and staying."""
    track = make_track([PLAN], 320)
    for f in track.frames:
        if f.index >= GOES_ON:
            u = min((f.index - GOES_ON) / MOVE, 1.0)
            f.landmarks[R_WRIST, 0] -= (1 - (1 - u) ** 2) * px / W
    return track


def test_a_draw_going_on_after_an_early_anchor_is_one_shot_released_where_it_was() -> None:
    # The old tracker: a sure release at 111, and the real release's follow-through taken for a second shot.
    (shot,) = run(_draw_goes_on())
    assert abs(shot.release_frame - PLAN.release) <= 1, shot
    assert shot.release_confidence >= MIN_MARK_CONFIDENCE, shot
    assert abs(shot.anchor_frame - (GOES_ON + MOVE)) <= 4, shot
    assert shot.marks_confidence["anchor"] < MIN_MARK_CONFIDENCE, shot  # the first anchor, or this one?


def test_its_rules_timed_from_the_anchor_are_not_judged() -> None:
    (shot,) = analyze_track(_draw_goes_on()).shots
    timed = {f.rule: f for f in shot.findings if "phase uncertain" in f.reason}
    assert "stillness_hold_time" in timed, [(f.rule, f.verdict, f.reason) for f in shot.findings]
    assert all(f.verdict == NOT_ASSESSABLE for f in timed.values())


# The hand 0.4 U back from the anchor at the release, by the jaw, still; the bow arm held up, then both arms down.
SHORT = ShotPlan(raise_start=30, draw_start=55, anchor=85, release=160, travel=0.6)


def test_a_release_whose_hand_rests_at_the_face_stands_when_the_arms_come_down() -> None:
    (shot,) = run(make_track([SHORT], 300))
    assert abs(shot.release_frame - SHORT.release) <= 1, shot
    assert shot.release_confidence >= MIN_MARK_CONFIDENCE, shot
    # Its follow-through ends as the bow arm comes down (1 s after the release, then 0.8 s to come down).
    assert SHORT.release + 30 < shot.end_frame <= SHORT.release + 45, shot


def test_a_release_whose_hand_rests_at_the_face_stands_when_the_video_ends() -> None:
    (shot,) = run(make_track([SHORT], SHORT.release + 25))
    assert abs(shot.release_frame - SHORT.release) <= 1, shot
    assert shot.end_frame == SHORT.release + 24, shot
