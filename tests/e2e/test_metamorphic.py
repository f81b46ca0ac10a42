"""The same shots filmed another way give the same answer: each committed sample clip's pose track and each real
archer's track, mirrored (a front camera), at half the frame rate, cropped to the upper body, and filmed by a
handheld camera that pans (the picture swaying 15 % of its width to and fro every 4 s) or one held 8 deg off level,
are analysed and compared with the original. The shots and their releases must stay (±1 frame at the new rate), the
handedness flips with the mirror, and no shot gets a fault the original did not have; a fault may only turn
into "not assessable" (the transform hid what it rests on), and the transform may judge a rule the original left
unjudged on an uncertain phase. A shot may be left out only where the report says it saw a draw there and did not
analyse it. The judgement is benchmarks/metamorphic.py's (`compare`), which prints it for every clip and transform.
No labels are needed: the original is the truth (where a track has labels or a synthetic truth, a release within a
frame of it is as good as the original's, and a fault the original could not judge may be judged as the truth
has it).

Cases the analysis does not meet yet are listed in KNOWN_MISSES with what was measured (strict: a listed case
that starts passing fails, so the list stays exact)."""

from __future__ import annotations

import functools
import json
from pathlib import Path

import pytest

from coach.pipeline import analyze_track
from coach.pose_frame import load_posetrack
from coach.results import FAULT, MIN_MARK_CONFIDENCE, SessionReport
from coach.track_transforms import (
    crop,
    half_rate,
    hidden,
    mirror,
    pan,
    someone_else,
    tilt,
    upper_body_box,
    zoom,
)
from tests.support.benchmarks import load_benchmark
from tests.support.paths import ROOT

metamorphic = load_benchmark("metamorphic")
GOLDEN = ROOT / "tests" / "golden"
REALPOSE = ROOT.parent / "shared" / "realpose"

TRANSFORMS = {
    "mirror": mirror,
    "half_rate": half_rate,
    "upper_body": lambda t: crop(t, *upper_body_box(t)),
    # The points are cleaned and smoothed on the body (coach/body_stream.py): smoothed in the picture, stance_high's
    # hand hidden at the anchor drifted with the pan and its shot went unseen, and real07's release came 2 late.
    "pan": lambda t: pan(t, 0.15, 4.0),
    # A phone held 8 deg off level (coach/metrics/frame.py camera_roll): read in the picture, real05's and real08's
    # arrows were 提手 (ti_shou) and downline's follow-through hand dropped.
    "roll": lambda t: tilt(t, -8.0),
    # A camera zooming in through the clip: real08's steady hold (0.0442 SW) read 0.046, a stillness fault, against
    # a limit set at the edge of what still archers read; the limit now lies midway to the swaying holds.
    "zoom": lambda t: zoom(t, 1.3),
}

# None now: stance_high at half the rate (shot 2's draw hand hidden for the whole hold, the draw elbow jittering
# 0.1-0.3 U a frame) is noted as a full draw seen and not analysed, which is the shot said uncertain.
KNOWN_MISSES: dict[tuple[str, str], str] = {}


def _tracks() -> list[Path]:
    """Every committed golden track, and every real archer's track where ../shared is present."""
    return sorted(GOLDEN.glob("*.pose.json.gz")) + (sorted(REALPOSE.glob("*.pose.json")) if REALPOSE.is_dir() else [])


def _cases(kinds, misses: dict[tuple[str, str], str]) -> list:
    """(track, kind) for every track and every kind (a transform, where a passer-by passes); a listed miss is a
    strict xfail with what was measured."""
    out = []
    for path in _tracks():
        name = path.name.split(".pose.json")[0]
        for kind in kinds:
            why = misses.get((name, kind))
            marks = [pytest.mark.xfail(strict=True, reason=why)] if why else []
            out.append(pytest.param(path, kind, id=f"{name}-{kind}", marks=marks))
    return out


_BASE: dict[Path, SessionReport] = {}


def _base(path: Path) -> SessionReport:
    if path not in _BASE:
        _BASE[path] = analyze_track(load_posetrack(path))
    return _BASE[path]


def _faults(shot) -> set[str]:
    return {f.rule for f in shot.findings if f.verdict == FAULT}


@pytest.mark.parametrize(("path", "transform"), _cases(TRANSFORMS, KNOWN_MISSES))
def test_same_shots_same_verdicts(path: Path, transform: str) -> None:
    _assert_same(_base(path), analyze_track(TRANSFORMS[transform](load_posetrack(path))), transform, _labelled(path))


# Where in a shot the passer-by hides the archer: the middle of the hold, the anchor itself, or the release itself.
PASSING = {
    "hold": lambda shot, n: (shot.anchor_frame + shot.release_frame - n) // 2,
    "anchor": lambda shot, n: shot.anchor_frame - n // 2,
    "release": lambda shot, n: shot.release_frame - n // 2,
}
BEFORE_RELEASE = ("hold", "anchor")  # the passer-by must be gone 2 frames before the release (else before the end)
# None now: stance_high with 6 of its hold's frames lost at the anchor is noted as a full draw seen and not
# analysed (as at half the rate), which is the shot said uncertain.
PASSING_MISSES: dict[tuple[str, str], str] = {}


@pytest.mark.parametrize(("path", "where"), _cases(PASSING, PASSING_MISSES))
def test_someone_walking_in_front_changes_nothing(path: Path, where: str) -> None:
    """The archer hidden for 0.2 s (nobody found: someone walked between the camera and the archer) in the middle
    of a hold, or at its anchor, one shot at a time. In the hold, real08's steady hold read 0.045 SW, a stillness
    fault at the old limit (0.045, 0.0442 in full). At the anchor, fault_hold's 0.5 s hold was lost: a speed whose
    window ended on a lost frame was no speed, so the hand never read still for 0.2 s (coach/phases/frames.py
    `_rate`). Over the release, fault_hold's, real01's and real08's releases were placed at the last frame before
    the gap, sure, 3-4 frames early: a hold's sway into that frame was walked back over as the flight
    (`release_onset._release_onset`); the string left in the frames not seen, and the release is now uncertain."""
    _each_shot_passed(path, where, hidden)


@pytest.mark.parametrize(("path", "where"), _cases(PASSING, PASSING_MISSES))
def test_someone_else_read_for_the_archer_changes_nothing(path: Path, where: str) -> None:
    """For 0.2 s the pose model reads the archer beside on the line (standing, 3 shoulder widths away) instead of
    the archer, in the middle of a hold or at its anchor. The standing archer's draw hand, far from the face, was
    taken for a release: 34 of the 38 holds came out with a release there (most with a hou_shou_xiao), and 23 of
    the 38 anchors; the body found elsewhere from one frame to the next is now someone else's and dropped
    (coach/body_guard.py `SomeoneElse`)."""
    _each_shot_passed(path, where, someone_else)


@pytest.mark.skipif(not REALPOSE.is_dir(), reason="../shared/realpose is not here")
def test_someone_walking_in_front_just_after_the_release_keeps_the_shot() -> None:
    """real07 hidden for 0.5 s from 3 frames after its release: the archer is found again with the hand away, the
    release placed there (uncertain: the string left in the frames not seen). The follow-through's view was
    checked from 0.2 s after that placed release, when the archer had already turned away (shoulders 0.7 of the
    hold's width): a changed picture, and the shot was lost. It is checked from where the archer was last seen."""
    path = REALPOSE / "real07_recurve_faceon_close_longhold.pose.json"
    track = load_posetrack(path)
    (shot,) = _base(path).shots
    first = shot.release_frame + 3
    (moved,) = analyze_track(hidden(track, first, first + round(0.5 * track.fps) - 1)).shots
    assert first <= moved.release_frame <= first + round(0.5 * track.fps), moved.release_frame
    assert moved.release_confidence < MIN_MARK_CONFIDENCE
    assert not _faults(moved)


def _each_shot_passed(path: Path, where: str, passing) -> None:
    """`passing(track, first, last)` over 0.2 s of each shot's hold, anchor or release (`PASSING`), one shot at a
    time. A passer-by still there 2 frames before the video ends is not (a video that ends with nobody in the
    picture after a release is real06 without its sound: whether an arrow left cannot be told)."""
    track, base = load_posetrack(path), _base(path)
    n = max(1, round(0.2 * track.fps))
    for shot in base.shots:
        if shot.anchor_frame is None or shot.release_frame is None:
            continue
        first = PASSING[where](shot, n)
        if first + n + 2 > (shot.release_frame if where in BEFORE_RELEASE else track.frames[-1].index):
            continue
        _assert_same(base, analyze_track(passing(track, first, first + n - 1)), "passing", _labelled(path))


@functools.cache
def _labelled(path: Path) -> dict | None:
    """A track's truth: a real track's hand labels (its `.labels.json`), a synthetic one's truth (its shots and the
    faults it was made with). A release may be as near the label as the original's, which is itself a frame or two
    off it (real07: 263 for 264). Read once a track (every transform of it asks)."""
    labels = path.with_name(path.name.replace(".pose.json", ".labels.json"))
    if labels.is_file():
        return json.loads(labels.read_text(encoding="utf-8"))
    return (load_posetrack(path).meta or {}).get("truth")


# MediaPipe's pose of sample clips whose video was transformed (benchmarks/metamorphic.py transform_clip), named
# "<clip>-<transform>": what the pose model reads in the degraded picture, compared with the clip's own track.
VIDEO_TRANSFORMED = sorted((GOLDEN / "metamorphic").glob("*.pose.json.gz"))


@pytest.mark.parametrize("path", VIDEO_TRANSFORMED, ids=[p.name.split(".pose")[0] for p in VIDEO_TRANSFORMED])
def test_the_pose_of_a_transformed_video_gives_the_same_shots(path: Path) -> None:
    """clean_rh_3shots at 480p and 270p: MediaPipe reads the shoulders at 0.6 of their width through a hold
    (the torso unchanged), which once lost the shot as "the picture changed". fault_bow_arm cropped to the upper
    body: MediaPipe loses the archer as the hand comes to the face and finds them after the release, which once
    lost the shot as "no full draw seen". fault_tempo darker: the pose moves the draw hand 0.35 U back at the
    face 1 s before the release and leaves it there, which once was a sure release at 440 (the truth 461).
    bystander cropped to the upper body: MediaPipe folds shot 2's hold (the draw hand read at the bow hand) and
    snaps back as the arrow leaves, which once was taken for the draw going on and gave a sure release at 398 (the
    truth 394); it is now said uncertain. fault_bow_hand at 480p and fault_release at 270p: the span reaches the
    hold's 0.5-0.6 s before the arms come to rest, and a hold timed from the later reading fell under 0.8 s, a
    stillness_hold_time fault the original lacks; a duration whose limit lies inside the anchor's range is now not
    judged. A release may also be within a frame of the truth: the original's pose is off by one itself (394 for
    395). stance_high at 480p: shot 2's draw hand, hidden through the original's hold (its marks uncertain, its
    rules not judged), is seen at the face, after MediaPipe lost the archer for half a second: the shot's
    ding_ba_stance (a true fault) is judged, and its hold, timed from where the archer was found again at full
    draw, once was a stillness_hold_time fault (0.37 s against the truth's 1.53 s); a hold whose start was not
    seen is not timed. fault_tempo at 270p and fault_bow_arm in MPEG-4: the frames where the string leaves are
    garbled, and a sure release moved 3 frames; it is now said uncertain
    (`test_a_release_in_frames_the_pose_misread_is_said_uncertain`). fault_bow_hand darker and fault_bow_arm in
    H.264 at CRF 38: a clean shot's draw elbow read 3-8 degrees off the original's, past cup_of_water's old limits
    (-8 and 18 degrees, inside the spread of MediaPipe's reading); the limits now lie beyond it (the pack says
    why). fault_bow_arm 30 % brighter: shot 2's draw arm goes straight back into the depth, and MediaPipe put the
    wrist beside the elbow, a follow_through_arm of 65 degrees (the original 172); a foreshortened forearm's
    angle is now not read. fault_bow_hand in H.264 at CRF 38: in shot 1's last 0.3 s of hold MediaPipe brings
    both wrists in (the span closes by 0.3 SW, the bow arm by 0.14), once a liang_zhai creep; a bow wrist that
    comes in with the draw hand now makes the creep untold. fault_release in MPEG-4: at shot 2's dead release the
    bow hand falls a frame before the draw hand, which drops straight down; the window the bow arm opened asked
    the hand to go back along the arrow, and the shot was once a let-down
    (`test_a_dead_release_that_drops_both_arms_is_a_release`). fault_head_trunk at 270p: shot 1's draw wrist
    is lost at the anchor and first seen 1 SW out in the flight; measured from there, the release travel read
    0.2 SW, a hou_shou_xiao the original lacks (`test_a_release_travel_is_measured_from_where_the_hand_left`).
    bystander in H.264 at CRF 38, fault_bow_hand at 270p and fault_head_trunk 30 % darker: MediaPipe loses the
    archer at full draw, its last frames reading the shoulders narrower and narrower and the arms closing with
    them, which looked like a let-down: the shot was lost ("the bow arm was up, no full draw seen"); those frames
    are now the pose failing (`anchor.lost_at_anchor`). fault_bow_arm turned 8 deg: MediaPipe pulls shot 2's bow
    wrist in 0.6 U for half a second of the hold and lets it out again, which was taken for the draw going on:
    the anchor 41 frames late and a stillness_hold_time fault; a bow arm read back where it was draws nothing
    (`anchor.draw_goes_on`)."""
    clip, transform = path.name.split(".pose")[0].rsplit("-", 1)
    track = load_posetrack(path)
    _assert_same(_base(GOLDEN / f"{clip}.pose.json.gz"), analyze_track(track), transform, track.meta["truth"])


def _assert_same(base: SessionReport, moved: SessionReport, transform: str, truth: dict | None = None) -> None:
    """The transformed report gives the original's shots and verdicts, or says where it is unsure: the same
    judgement as benchmarks/metamorphic.py prints (`compare`), with the handedness flipped by a mirror."""
    said = metamorphic.compare(base, moved, transform == "half_rate", truth)
    assert said.startswith("same"), said
    if transform == "mirror" and base.handedness != "unknown":
        assert moved.handedness == {"right": "left", "left": "right"}[base.handedness]


def test_a_hold_whose_draw_hand_the_pose_misread_says_so() -> None:
    """bystander cropped to the upper body: shot 2's draw hand read at the bow hand through the last half second of
    the hold, snapped back as the arrow left. Its release is uncertain, and the session notes say why, in both
    languages."""
    from coach.wording.machine import note_text

    report = analyze_track(load_posetrack(GOLDEN / "metamorphic" / "bystander-upper_body.pose.json.gz"))
    shot = report.shots[1]
    assert shot.release_confidence < MIN_MARK_CONFIDENCE, shot
    assert all(f.verdict != FAULT for f in shot.findings)
    (note,) = [n for n in report.notes if n.startswith("shot 2: the pose misread the draw hand")]
    assert note_text(note, "zh").startswith("第 2 箭：姿勢模型在持弓時把後手讀錯"), note_text(note, "zh")


@pytest.mark.parametrize(
    ("clip", "shot_i", "garbled"),
    [("fault_tempo-270p", 1, range(462, 465)), ("fault_bow_arm-mpeg4", 1, range(387, 391))],
)
def test_a_release_in_frames_the_pose_misread_is_said_uncertain(clip: str, shot_i: int, garbled: range) -> None:
    """The degraded picture garbles the frames where the string leaves: MediaPipe drops the draw hand on some and
    folds the arms on others (the span between the wrists closed 0.3-0.7 U under the hold's, which no release
    does). fault_tempo at 270p: the hand moves at 461 (the truth), 462 is not read and 463-464 are folded: once a
    sure release at 464. fault_bow_arm in MPEG-4: 387 (the truth) to 389 folded, 390 not read: once a sure release
    at 390. Where the string left among such frames cannot be told: the release is said uncertain, still placed
    among them, and its rules are not judged. fault_tempo's fold earlier in the draw, 440-441, which ends in a
    jump the tracker first takes for a release, still gives way to the full draw found again after it: the
    release is not 20 frames early."""
    track = load_posetrack(GOLDEN / "metamorphic" / f"{clip}.pose.json.gz")
    truth = track.meta["truth"]["shots"][shot_i]["release_frame"]
    shot = analyze_track(track).shots[shot_i]
    assert shot.release_confidence < MIN_MARK_CONFIDENCE, shot.release_confidence
    assert garbled.start - 1 <= shot.release_frame <= garbled.stop, (shot.release_frame, truth)
    assert abs(shot.release_frame - truth) <= 3, (shot.release_frame, truth)
    assert not _faults(shot), sorted(_faults(shot))


def test_a_hand_the_pose_moved_back_and_rested_is_still_at_full_draw() -> None:
    """stance_high re-encoded as H.264 at CRF 38 (tests/golden/misread): at shot 3's full draw MediaPipe moves the
    draw hand 0.45 U back at 594-597 and leaves it there, still, the bow arm up, until the string leaves at 609.
    That once confirmed a sure release at 594, 15 frames early. No follow-through rests within 0.7 U of where the
    hand left with the bow arm still up, and the hand came to rest while the 'release' was being confirmed: the
    archer is at full draw (`anchor.back_at_full_draw`), the anchor uncertain, the release the one that comes."""
    track = load_posetrack(GOLDEN / "misread" / "stance_high-h264_low.pose.json.gz")
    truth = track.meta["truth"]["shots"][2]
    shot = analyze_track(track).shots[2]
    assert abs(shot.release_frame - truth["release_frame"]) <= 2, shot.release_frame
    assert shot.marks_confidence["anchor"] < MIN_MARK_CONFIDENCE, shot.marks_confidence


@pytest.mark.e2e
@pytest.mark.parametrize("transform", ["mpeg4", "half_rate", "270p"])
def test_video_transforms_keep_the_shot(transform: str, tmp_path: Path) -> None:
    """On the video itself, with MediaPipe: short_1shot re-encoded as low-rate MPEG-4 (it once moved the release
    from 184 to 101 and added 3 faults), at half the frame rate, and downscaled to 270p (benchmarks/metamorphic.py
    runs every clip and every transform)."""
    from coach.pipeline import analyze_video

    clip = ROOT / "sample_videos" / "short_1shot.mp4"
    base = analyze_video(clip)
    moved = analyze_video(metamorphic.transform_clip(clip, tmp_path / f"{transform}.mp4", transform))
    assert metamorphic.compare(base, moved, transform == "half_rate").startswith("same")


def test_the_adaptive_reading_of_a_shot_gives_the_full_rates_shot() -> None:
    """Shot 5 of the 10-minute synthetic session (benchmarks/long_session.py --ten), read by MediaPipe in the
    adaptive run and in the full-rate one. The adaptive reading's draw hand stopped 0.5 s early, then went on
    0.35 U to the face and rested there: once a sure release at 7279 (the truth 7336) with a hold-time and a
    release fault, where the full rate has a clean shot. Now both give the same release, and the adaptive one
    says that its anchor is uncertain (`anchor.back_at_full_draw`)."""
    shots = {}
    for reading in ("adaptive", "full"):
        track = load_posetrack(GOLDEN / "long_session" / f"shot5-{reading}.pose.json.gz")
        truth = track.meta["truth"]["shots"][0]
        (shots[reading],) = analyze_track(track).shots
    for reading, shot in shots.items():
        assert abs(shot.release_frame - truth["release_frame"]) <= 1, (reading, shot.release_frame)
        assert shot.release_confidence >= MIN_MARK_CONFIDENCE, (reading, shot.release_confidence)
        assert not _faults(shot), (reading, sorted(_faults(shot)))
    anchor = shots["adaptive"]
    assert (
        abs(anchor.anchor_frame - truth["anchor_frame"]) <= 4 or anchor.marks_confidence["anchor"] < MIN_MARK_CONFIDENCE
    )


def test_a_glimpse_of_the_hand_in_a_stretch_the_pose_lost_is_not_where_it_left() -> None:
    """clean_rh_3shots at 480p: MediaPipe loses the archer late in shot 1's draw (its last frames reading the
    shoulders narrower and narrower, the arms pulled in with them) and finds them again at the follow-through,
    but for a glimpse at 159-161, folded (the shoulders at 0.6 of their width), the draw hand 0.23 U off the
    anchor. The full draw is the one the picture lost (`anchor.lost_at_anchor`, uncertain). The glimpse is short
    of the distance that confirms a release and 0.8 s of frames not shown follow it: the string may have left
    anywhere in them, so the release is not walked back to the glimpse (159, 25 frames early); it is placed
    where the hand is seen gone (the truth 184), uncertain."""
    track = load_posetrack(GOLDEN / "metamorphic" / "clean_rh_3shots-480p.pose.json.gz")
    truth = track.meta["truth"]["shots"][0]
    shot = analyze_track(track).shots[0]
    assert abs(shot.release_frame - truth["release_frame"]) <= 1, (shot.release_frame, truth)
    assert shot.release_confidence < MIN_MARK_CONFIDENCE, shot.release_confidence
    assert shot.marks_confidence["anchor"] < MIN_MARK_CONFIDENCE, shot.marks_confidence
    assert abs(shot.anchor_frame - truth["anchor_frame"]) <= 15, (shot.anchor_frame, truth)
