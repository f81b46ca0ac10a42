"""The shot-phase tracker on hand-labelled pose tracks of real archers (handheld phone videos)."""

from __future__ import annotations

import json

import pytest

from coach.body_stream import bodies_from_track
from coach.phases import track_shots
from coach.pose_frame import load_posetrack
from tests.support.paths import REALPOSE

# Clips whose release cannot be found within the labelled tolerance yet, with the measured error.
KNOWN_MISSES = {
    "real04_recurve_behind_oblique": "no shot found: seen from behind, the draw wrist and elbow are hidden "
    "behind the head for the whole shot (draw elbow visibility 0.05-0.20 on every frame 40-255, wrist 0.07-0.32), "
    "so neither the hand nor the elbow (coach/phases/elbow.py) shows a full draw",
    "real06_recurve_behind_handheld": "no shot by the pose alone: seen from behind, the draw wrist is hidden for the "
    "whole shot (visibility 0.06-0.25); the draw elbow stands in for it (coach/phases/elbow.py) and shows the full "
    "draw and the release (frame 145, label 144), but the camera swings away 2 frames after it and the archer is "
    "never seen again at the hold's size: an edit's cut looks the same (real10), so it is a full draw with the view "
    "lost. With its sound the analysis counts it (tests/e2e/test_heard_shot.py)",
}


def _clips() -> list:
    if not REALPOSE.is_dir():
        return [pytest.param(None, id="missing")]
    out = []
    for p in sorted(REALPOSE.glob("*.labels.json")):
        name = p.name.removesuffix(".labels.json")
        marks = []
        if name in KNOWN_MISSES:
            marks.append(pytest.mark.xfail(strict=True, reason=KNOWN_MISSES[name]))
        out.append(pytest.param(name, id=name, marks=marks))
    return out


@pytest.mark.parametrize("name", _clips())
def test_real_clip(name: str | None) -> None:
    if name is None:
        pytest.skip(f"{REALPOSE} not found: real archer tracks are only available in the project workspace")
    labels = json.loads((REALPOSE / f"{name}.labels.json").read_text(encoding="utf-8"))
    track = load_posetrack(REALPOSE / labels["pose_track"])
    shots = track_shots(bodies_from_track(track, labels["handedness"], "recorded"), labels["handedness"])
    assert len(shots) == labels["n_shots"], shots
    for found, want in zip(shots, labels["shots"]):
        tol = want["tolerance_frames"]["release_frame"]
        assert found.release_frame is not None, found
        assert abs(found.release_frame - want["release_frame"]) <= tol, (found.release_frame, want)


def test_real_footage_figures() -> None:
    """The whole analysis (`coach analyze --pose-track`, with sound where the clip has it) scored on every real
    track: the floor this work has reached. The issue's aim is 7/8 releases and no extra shot; raise these as
    the misses above are fixed. No fault that a clip's observations contradict (tests/support/realpose_observed.py)."""
    if not REALPOSE.is_dir():
        pytest.skip(f"{REALPOSE} not found")
    from coach.evaluate import analyse_clip, labelled_clips, score_clip, summarise
    from tests.support.realpose_observed import OBSERVED_PASSING

    scores = {c.name: score_clip(c, analyse_clip(c)) for c in labelled_clips(REALPOSE)}
    s = summarise(scores.values(), OBSERVED_PASSING)
    assert s.contradicted == 0, [(n, c.faults) for n, c in scores.items()]
    assert s.releases == 8 and s.releases_ok >= 7, s
    assert s.extra == 0, s
    # Every anchor left sure is right (real05's, taken while the hand still braked, was 6 frames early).
    assert s.sure_anchors == s.sure_anchors_ok, s
    assert s.anchors_ok >= 4, s
    assert scores["real09_recurve_obliquebehind_60fps_norelease"].found_releases == []
    # A full draw never shot is a let-down in the notes, not a shot.
    assert any("let-down" in n for n in scores["real09_recurve_obliquebehind_60fps_norelease"].notes)
    # Every labelled archer was seen raising and drawing: none is said to be first seen at full draw.
    first_seen = {n: [x for x in c.notes if "already at full draw when first seen" in x] for n, c in scores.items()}
    assert not any(first_seen.values()), first_seen


def test_uncertain_phases_are_said_in_the_terminal_and_the_json() -> None:
    """real05 raises and draws at once (no set): its draw start is a guess, so draw_tempo is not judged, and
    the terminal and the coach.session/1 JSON say so, with how sure the release is and what agreed on it."""
    if not REALPOSE.is_dir():
        pytest.skip(f"{REALPOSE} not found")
    from coach.evaluate import analyse_clip, labelled_clips
    from coach.summary import format_report
    from posture_rules.pack import load_pack

    (clip,) = [c for c in labelled_clips(REALPOSE) if c.name == "real05_recurve_front_crowd"]
    report = analyse_clip(clip)
    (shot,) = report.to_json()["shots"]
    assert shot["marks_confidence"]["draw_start"] < 0.5 and shot["release_confidence"] >= 0.5
    assert "draw_hand" in shot["release_evidence"] and "sound" in shot["release_evidence"]
    tempo = next(f for f in shot["findings"] if f["rule"] == "draw_tempo")
    assert tempo["verdict"] == "not_assessable" and tempo["reason"] == "phase uncertain: draw start"
    text = format_report(report, load_pack())
    assert "Uncertain: draw start" in text and "Release confidence" in text and "不確定：開弓起點" in text


# Filmed with the arrow pointing into the depth (labels: "front-oblique, camera somewhat down-range"; "bow
# hand/riser very close to lens"), against square views of the same kind of shot.
ARROW_INTO_THE_DEPTH = ("real01_compound_front_oblique", "real07_recurve_faceon_close_longhold")
SQUARE = ("real02_barebow_front", "real05_recurve_front_crowd", "real08_recurve_faceon_lowres")


def test_a_shot_filmed_along_the_arrow_is_not_judged_face_on() -> None:
    """The picture's angles are not the body's when the arrow points into the depth: those shots get no
    face-on verdict (not judged: the arrow pointed into the depth), while the square views keep theirs."""
    if not REALPOSE.is_dir():
        pytest.skip(f"{REALPOSE} not found")
    from coach.evaluate import analyse_clip, labelled_clips
    from coach.shot_view import ALONG_DEPTH_REASON
    from coach.wording.machine import note_text
    from posture_rules.pack import load_pack

    face_on = {r.id for r in load_pack().rules if r.views == ("face-on",)}
    clips = {c.name: c for c in labelled_clips(REALPOSE)}
    for name in ARROW_INTO_THE_DEPTH + SQUARE:
        report = analyse_clip(clips[name])
        (shot,) = report.shots
        depth_notes = [n for n in report.notes if "the arrow pointed into the depth" in n]
        judged = [f for f in shot.findings if f.rule in face_on and f.verdict in ("pass", "fault")]
        if name in SQUARE:
            assert len(judged) >= 5, (name, judged)
            assert depth_notes == [], depth_notes
        else:
            assert judged == [], (name, judged)
            # said as such, not "the oblique view", which the session's face-on view would contradict
            assert all(f.reason == ALONG_DEPTH_REASON for f in shot.findings if f.rule in face_on)
            # The draw travels along the arrow, into the depth: where it starts and stops is a guess.
            assert shot.marks_confidence["draw_start"] < 0.5 and shot.marks_confidence["anchor"] < 0.5
            tempo = next(f for f in shot.findings if f.rule == "draw_tempo")
            assert tempo.verdict == "not_assessable" and tempo.reason.startswith("phase uncertain"), tempo
            # The session says why, in the coach's language too.
            (note,) = depth_notes
            assert note.startswith("shot 1: ") and "film square to the arrow" in note
            zh = note_text(note, "zh")
            assert zh.startswith("第 1 箭") and "箭指向鏡頭深處" in zh, zh


def test_live_faults_follow_the_shots_own_view() -> None:
    """Frame by frame (the live overlay, the annotated video), a shot filmed along its arrow flags no face-on
    fault at full draw, as its verdict judges none; a square view still flags what it sees."""
    if not REALPOSE.is_dir():
        pytest.skip(f"{REALPOSE} not found")
    from coach.analyzer import Analyzer
    from coach.evaluate import labelled_clips
    from posture_rules.pack import Profile, load_pack

    face_on = {r.id for r in load_pack().rules if r.views == ("face-on",)}
    clips = {c.name: c for c in labelled_clips(REALPOSE)}

    def live_faults_at_full_draw(name: str) -> set[str]:
        clip = clips[name]
        track = load_posetrack(clip.track)
        (want,) = clip.shots
        analyzer = Analyzer(track.fps, track.width, track.height, profile=Profile(handedness=clip.labels["handedness"]))
        seen: set[str] = set()
        hold = range(want["anchor_frame"] + int(track.fps), want["release_frame"] - 2)
        analyzer.frame_listeners.append(lambda r: seen.update(r.active_faults) if r.index in hold else None)
        for pf in track.frames:
            analyzer.push_pose(pf)
        analyzer.finish()
        return seen & face_on

    assert live_faults_at_full_draw("real01_compound_front_oblique") == set()
    assert live_faults_at_full_draw("real07_recurve_faceon_close_longhold") == set()


def test_a_frame_the_pose_missed_does_not_move_real07_s_release() -> None:
    """real07's draw hand stays by the chin for about three frames after the string left, the pose putting it
    0.14-0.19 U from the anchor. With one frame missing at random (`dropouts`, as a noisier pose loses the archer
    for a frame), two of those frames were read "back at the anchor" and the release was put at the later
    departure, 5 frames late: two frames were a count, not a time. Now the hand is back only after 0.1 s there."""
    if not REALPOSE.is_dir():
        pytest.skip(f"{REALPOSE} not found")
    from coach.track_transforms import dropouts

    track = load_posetrack(REALPOSE / "real07_recurve_faceon_close_longhold.pose.json")
    for t in (track, dropouts(track, 0.05, 2)):
        (shot,) = track_shots(bodies_from_track(t, "right", "recorded"), "right")
        assert abs(shot.release_frame - 264) <= 1, shot


def test_a_repeated_picture_does_not_move_the_release() -> None:
    """Every 5th picture repeated (`repeated`: a phone keeping its rate): on real05 and real02 the repeat fell on
    the release's second frame, the hand seemed to stop there, and the release was put 2 frames late."""
    if not REALPOSE.is_dir():
        pytest.skip(f"{REALPOSE} not found")
    from coach.track_transforms import repeated

    for clip, label in (("real05_recurve_front_crowd", 234), ("real02_barebow_front", 308)):
        track = repeated(load_posetrack(REALPOSE / f"{clip}.pose.json"), 5)
        (shot,) = track_shots(bodies_from_track(track, "right", "recorded"), "right")
        assert abs(shot.release_frame - label) <= 1, (clip, shot.release_frame)


def test_a_hold_the_pose_read_wildly_is_not_released_at_the_video_s_end() -> None:
    """real09, a full draw never shot with a coach walking in front, its frames taken unevenly (`uneven_times`:
    a phone's variable frame rate): the let-down came a frame later, the hold went on through the frames the pose
    read wildly (the draw hand straying 2.3 U) to the end of the video, and a hand 0.31 U off the anchor there,
    still moving away, was taken for a release cut off by the end. Away from the anchor is now as far as a frame
    of the window must be to count as away (half the confirmation distance, which the hold's stray sets)."""
    if not REALPOSE.is_dir():
        pytest.skip(f"{REALPOSE} not found")
    from coach.track_transforms import uneven_times

    track = load_posetrack(REALPOSE / "real09_recurve_obliquebehind_60fps_norelease.pose.json")
    for t in (track, uneven_times(track, 0.25, 1)):
        assert track_shots(bodies_from_track(t, "right", "recorded"), "right") == []
