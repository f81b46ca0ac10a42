"""Is the archer after a release the archer of the hold? An edit's dissolve shows them fading for a frame before
the picture loses them: not a shot, whether an arrow left cannot be told. MediaPipe may instead misread the
archer's shoulders through a whole hold (half their width at 480p) while the torso keeps its length: the same
archer, so a shot, whose hold the pose misread, so its anchor and release are uncertain and the rules timed from
them are not judged (`frames.view_after`)."""

from __future__ import annotations

from coach.landmarks import LEFT_SHOULDER, RIGHT_SHOULDER
from coach.pipeline import analyze_track
from coach.results import MIN_MARK_CONFIDENCE, NOT_ASSESSABLE
from coach.session_notes import MISREAD_NOTE
from coach.wording.machine import note_text
from tests.unit.phases.test_phases import ShotPlan, make_track, run

PLAN = ShotPlan(raise_start=30, draw_start=55, anchor=85, release=160)


def _shoulders_misread(first: int, last: int, share: float = 0.6):
    """The one-shot track with the shoulders read at `share` of their width in frames [first, last]."""
    track = make_track([PLAN], 260)
    for f in track.frames:
        if first <= f.index <= last:
            sh = f.landmarks[[LEFT_SHOULDER, RIGHT_SHOULDER], :2]
            mid = sh.mean(axis=0)
            f.landmarks[[LEFT_SHOULDER, RIGHT_SHOULDER], :2] = mid + (sh - mid) * share
    return track


def test_a_hold_whose_shoulders_the_pose_misread_is_a_shot_said_uncertain() -> None:
    track = _shoulders_misread(PLAN.anchor + 5, PLAN.release - 1)
    (shot,) = run(track)
    assert abs(shot.release_frame - PLAN.release) <= 1, shot
    assert shot.shoulders_misread, shot
    assert shot.release_confidence < MIN_MARK_CONFIDENCE, shot
    assert shot.marks_confidence["anchor"] < MIN_MARK_CONFIDENCE, shot


def test_a_misread_hold_is_judged_only_where_it_does_not_rest_on_the_hold() -> None:
    report = analyze_track(_shoulders_misread(PLAN.anchor + 5, PLAN.release - 1))
    (shot,) = report.shots
    timed = {f.rule: f for f in shot.findings if "phase uncertain" in f.reason}
    assert {"stillness_hold_time", "hou_shou_xiao"} <= set(timed), [(f.rule, f.verdict) for f in shot.findings]
    assert all(f.verdict == NOT_ASSESSABLE for f in timed.values())
    note = MISREAD_NOTE.format(n=1)
    assert note in report.notes, report.notes
    assert note_text(note, "zh").startswith("第 1 箭：姿勢模型在持弓時讀到的肩寬")


def test_shoulders_read_as_they_were_keep_the_shot_sure() -> None:
    # Misread for a moment in the hold only: the hold's width is its median, which the follow-through shows.
    (shot,) = run(_shoulders_misread(PLAN.anchor + 5, PLAN.anchor + 15))
    assert not shot.shoulders_misread and shot.release_confidence >= MIN_MARK_CONFIDENCE, shot


def _cut_after(track, at: int, scale: float = 0.6):
    """From frame `at` on, another shot of the scene: the archer at `scale` times the size."""
    for f in track.frames:
        if f.index >= at and f.landmarks is not None:
            f.landmarks[:, :2] = 0.5 + (f.landmarks[:, :2] - 0.5) * scale
    return track


def test_an_archer_fading_for_a_frame_then_lost_is_no_shot() -> None:
    # A dissolve (real10): the archer at their own size for one frame 0.2 s after the release, then nobody for
    # a second, then the next scene.
    glimpse, scene = PLAN.release + 6, PLAN.release + 36
    track = _cut_after(make_track([PLAN], 260), scene)
    for f in track.frames:
        if glimpse < f.index < scene:
            f.landmarks = None
    assert run(track) == []


def test_a_glimpse_the_phone_repeated_is_still_a_glimpse() -> None:
    # The same dissolve from a phone that repeats a frame to keep its rate: the glimpse, then the very same
    # picture again. Two frames in a row, but one look at the archer (real10 with every 5th frame repeated
    # gave a shot here).
    glimpse, scene = PLAN.release + 6, PLAN.release + 36
    track = _cut_after(make_track([PLAN], 260), scene)
    seen = next(f for f in track.frames if f.index == glimpse).landmarks
    for f in track.frames:
        if glimpse < f.index < scene:
            f.landmarks = seen.copy() if f.index == glimpse + 1 else None
    assert run(track) == []


def test_a_video_ending_on_the_archer_keeps_the_shot() -> None:
    # One frame 0.2 s after the release, the video's last: nothing was cut away, the follow-through is only
    # unmeasured (one frame alone must not drop it).
    (shot,) = run(make_track([PLAN], PLAN.release + 7))
    assert abs(shot.release_frame - PLAN.release) <= 1, shot


def test_a_cut_to_another_size_is_no_shot() -> None:
    # Right after the release the picture shows the archer at 1.6 times the size (the editor cut to a close-up).
    assert run(_cut_after(make_track([PLAN], 260), PLAN.release + 2, 1.6)) == []


def test_frames_the_live_view_dropped_are_no_gap_in_the_follow_through() -> None:
    # Live, under load, every other frame is dropped before the pose sees it: the frames the tracker is given
    # still show the archer one after another.
    (shot,) = run(make_track([PLAN], 260, drop=set(range(1, 260, 2))), mode="live")
    assert abs(shot.release_frame - PLAN.release) <= 2, shot
    assert not shot.shoulders_misread, shot
