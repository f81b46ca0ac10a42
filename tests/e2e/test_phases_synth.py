"""The shot-phase tracker on MediaPipe pose tracks of the synthetic sample clips, against their exact truth.

tests/golden/NAME.pose.json.gz is the MediaPipe pose of the final render of sample_videos/NAME.mp4 (x, y to 4
decimals, z and world landmarks dropped), with the clip's truth shots and faults in its meta. MediaPipe
misreads these clips in ways real footage also shows: the upper body folding for 10-45 frames (shoulders
together, wrists in the middle, sometimes over the whole hold), the archer read as facing away (left and
right swapped), the draw hand put at the face during the set, single frame jumps. These are the cases
coach.body_stream cleans up and the tracker has to survive; where the pose simply does not show an event,
the miss is listed below with what MediaPipe did, so that an improvement shows up as an XPASS-like failure
of the listed expectation (the lists are exact: a listed miss that starts passing must be removed).

Asserted on every clip, recorded and live:
- the shot count (shots MediaPipe hides are listed in HIDDEN_SHOTS);
- the release within 2 frames recorded, 3 live (truth: the first frame after the string is let go);
- the draw time (anchor - draw start) within 0.4 s of the truth on every shot without a draw_tempo fault, so
  the draw_tempo rule (< 1.2 s, > 4.5 s) passes the clean 2.0-2.3 s draws;
- fault_tempo: the rushed 0.6 s draw measures < 1.2 s and the dragging 5.8 s draw > 4.5 s.
"""

from __future__ import annotations

import pytest

from coach.body_stream import bodies_from_track
from coach.phases import track_shots
from coach.pose_frame import load_posetrack
from tests.support.paths import GOLDEN

CLIPS = sorted(p.name.removesuffix(".pose.json.gz") for p in GOLDEN.glob("*.pose.json.gz"))
MODES = ("recorded", "live")
RELEASE_TOL = {"recorded": 2, "live": 3}
DRAW_TOL_S = 0.4
DRAW_TEMPO_FAST_S, DRAW_TEMPO_SLOW_S = 1.2, 4.5  # posture_rules draw_tempo thresholds

# (clip, truth shot) -> why no shot can be found there.
HIDDEN_SHOTS = {
    ("stance_high", 1): "MediaPipe folds the upper body (shoulders 0.16 wide) over the whole hold, 343-387, and "
    "loses the draw hand there. Recorded, the draw elbow shows the full draw and the hand, seen again flown back "
    "from the face at 388, the release (coach/phases/elbow.py). Live, the one-euro filter never lets the elbow "
    "read still for 0.2 s (MediaPipe jitters it 0.1-0.3 U a frame in that hold): no full draw to shoot from",
}
HIDDEN_MODES: dict[tuple[str, int], tuple[str, ...]] = {("stance_high", 1): ("live",)}

# (clip, truth shot, mode) -> why the release is off by more than the tolerance.
RELEASE_MISSES = {
    ("fault_release", 1, "recorded"): "dead release (hou_shou_xiao): the hand stays at the jaw; the shot ends "
    "when both arms go down 0.7 s later, reported as a late release",
    ("fault_release", 1, "live"): "dead release, as recorded",
}

# (clip, truth shot, mode) -> why the draw time is off by more than DRAW_TOL_S.
DRAW_MISSES = {
    ("clean_rh_3shots", 1, "recorded"): "the hold is folded or jittering from 342 to the release: the "
    "anchor is left where the draw slowed (0.6 s early)",
    ("clean_rh_3shots", 1, "live"): "as recorded",
    ("clean_rh_3shots", 2, "recorded"): "the anchor region (544-552) glitches; still from 537",
    ("clean_rh_3shots", 2, "live"): "as recorded",
    ("fault_bow_hand", 2, "recorded"): "MediaPipe folds the shoulders as the hand reaches the face (532-552, "
    "30-53 px against 57): the folded frames are dropped, so full draw was reached as the picture lost the "
    "archer and the anchor is the last frame seen before it (531, 22 early), said uncertain (0.3): draw_tempo is "
    "not judged",
    ("fault_bow_arm", 1, "live"): "draw start 15 frames early (bent bow arm keeps moving at the set)",
    ("stance_high", 1, "recorded"): "the draw hand hidden from the anchor on: the anchor is where the draw elbow "
    "came to rest (358, 16 late) and the draw start where it left the set (341), both uncertain (0.3)",
    ("bystander", 0, "live"): "MediaPipe puts the draw hand at the face during the set (68-80); the draw "
    "that follows is seen as a redraw, but the one-euro lag leaves the draw start 0.5 s early",
    ("bystander", 1, "live"): "draw start 12 frames early, anchor 7 late",
}


RAISE_TOL = 6  # frames (0.2 s at 30 fps)
# (clip, truth shot, mode) -> why the raise start is off by more than RAISE_TOL.
RAISE_MISSES = {
    ("bystander", 1, "recorded"): "MediaPipe misreads the set (draw wrist 0.4-1 U off, 281-293): the raise is "
    "cut at the late draw start",
    ("fault_bow_hand", 1, "recorded"): "as bystander: the set misread at 274-286",
    ("stance_high", 1, "recorded"): "the draw hand hidden from the anchor on: the raise is where the bow arm was "
    "first seen up with no anchor (302, truth 252), uncertain (0.3)",
}


def _expected_shots(name: str, truth: dict, mode: str) -> list[tuple[int, dict]]:
    return [
        (i, t)
        for i, t in enumerate(truth["shots"])
        if (name, i) not in HIDDEN_SHOTS or mode not in HIDDEN_MODES.get((name, i), MODES)
    ]


_CACHE: dict[tuple[str, str], tuple[list, dict, float]] = {}


def _run(name: str, mode: str):
    if (name, mode) not in _CACHE:
        track = load_posetrack(GOLDEN / f"{name}.pose.json.gz")
        truth = track.meta["truth"]
        hand = truth["handedness"]
        _CACHE[(name, mode)] = (track_shots(bodies_from_track(track, hand, mode), hand), truth, track.fps)
    return _CACHE[(name, mode)]


def test_golden_tracks_present() -> None:
    assert {"clean_rh_3shots", "clean_lh", "fault_tempo", "short_1shot", "downline"} <= set(CLIPS)
    assert sum(p.stat().st_size for p in GOLDEN.glob("*.pose.json.gz")) < 1_000_000


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", CLIPS)
def test_shots_and_releases(name: str, mode: str) -> None:
    shots, truth, _ = _run(name, mode)
    want = _expected_shots(name, truth, mode)
    got = [(s.draw_start_frame, s.anchor_frame, s.release_frame) for s in shots]
    assert len(shots) == len(want), (name, mode, got, [t["release_frame"] for _, t in want])
    for s, (i, t) in zip(shots, want):
        assert s.handedness == truth["handedness"], (name, mode, s)
        miss = (name, i, mode) in RELEASE_MISSES
        if s.release_frame is None:
            assert miss and not s.complete, (name, i, mode, s)
            continue
        err = s.release_frame - t["release_frame"]
        if miss:
            assert abs(err) > RELEASE_TOL[mode] and err > 0, ("listed release miss now passes", name, i, mode)
        else:
            assert s.complete and abs(err) <= RELEASE_TOL[mode], (name, i, mode, got, t)
        assert s.draw_start_frame < s.anchor_frame < s.release_frame, (name, i, mode, s)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", CLIPS)
def test_draw_time(name: str, mode: str) -> None:
    shots, truth, fps = _run(name, mode)
    want = _expected_shots(name, truth, mode)
    tempo = {f["shot"] for f in truth.get("faults", []) if f["rule"] == "draw_tempo"}
    for s, (i, t) in zip(shots, want):
        got = (s.anchor_ms - s.draw_start_ms) / 1000.0
        true = (t["anchor_frame"] - t["draw_start_frame"]) / fps
        if i in tempo:
            assert got < DRAW_TEMPO_FAST_S if true < DRAW_TEMPO_FAST_S else got > DRAW_TEMPO_SLOW_S, (name, i, got)
            continue
        off = abs(got - true) > DRAW_TOL_S
        if (name, i, mode) in DRAW_MISSES:
            assert off, ("listed draw-time miss now passes", name, i, mode, round(got, 2), round(true, 2))
        else:
            assert not off, (name, i, mode, round(got, 2), round(true, 2), s.draw_start_frame, s.anchor_frame)


@pytest.mark.parametrize("mode", MODES)
def test_hand_stayed_only_on_the_dead_release(mode: str) -> None:
    """The dead release (fault_release shot 1: the hand never leaves the jaw, the shot ends when the arms come
    down) is the one shot whose draw hand stayed; every other release widened the span."""
    stayed = []
    for name in CLIPS:
        shots, truth, _ = _run(name, mode)
        for s, (i, _t) in zip(shots, _expected_shots(name, truth, mode)):
            if s.hand_stayed:
                stayed.append((name, i))
    assert stayed == [("fault_release", 1)]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", CLIPS)
def test_raise_start(name: str, mode: str) -> None:
    """The raise is found where the bow arm starts to come up, not at the set: the pause at the set is not the
    rest before the raise (a 0 s raise in every report, and a setup pose taken from the raise itself)."""
    shots, truth, _ = _run(name, mode)
    for s, (i, t) in zip(shots, _expected_shots(name, truth, mode)):
        off = abs(s.raise_start_frame - t["raise_start_frame"]) > RAISE_TOL
        if (name, i, mode) in RAISE_MISSES:
            assert off, ("listed raise miss now passes", name, i, mode, s.raise_start_frame)
        else:
            assert not off, (name, i, mode, s.raise_start_frame, t["raise_start_frame"], s.draw_start_frame)
            assert s.raise_start_frame < s.draw_start_frame, (name, i, mode, s)


@pytest.mark.parametrize("mode", MODES)
def test_a_hidden_full_draw_is_owned_up_to(mode: str) -> None:
    """Where MediaPipe hides a whole shot's draw hand (the listed hidden shots, in the modes listed), the tracker
    notes the bow arm held up with no full draw seen, over that shot's hold; nowhere else, on any clip."""
    from coach.phases import PhaseTracker

    noted = []
    for name in CLIPS:
        track = load_posetrack(GOLDEN / f"{name}.pose.json.gz")
        tracker = PhaseTracker()
        for b in bodies_from_track(track, "right", mode):
            tracker.push(b)
        tracker.finish()
        truth = track.meta["truth"]
        for u in tracker.unseen_draws:
            shots = enumerate(truth["shots"])
            hidden = [i for i, t in shots if u.first_frame <= t["anchor_frame"] and t["release_frame"] <= u.last_frame]
            noted.append((name, hidden))
    assert noted == [(name, [i]) for name, i in sorted(HIDDEN_SHOTS) if mode in HIDDEN_MODES.get((name, i), MODES)]


def test_a_draw_hand_hidden_at_full_draw_and_seen_flown_back_is_a_shot_said_uncertain() -> None:
    """stance_high shot 2, filmed from above: MediaPipe loses the draw hand at the face for the whole hold and
    finds it again flown back past the face as the string leaves. The shot is counted, its release where the hand
    is seen again (the truth's frame), none of its marks sure: none of its rules is judged and no note says a full
    draw went unseen."""
    from coach.pipeline import analyze_track
    from coach.results import FAULT, PASS

    track = load_posetrack(GOLDEN / "stance_high.pose.json.gz")
    truth = track.meta["truth"]["shots"]
    report = analyze_track(track)
    assert [abs(s.release_frame - t["release_frame"]) <= 1 for s, t in zip(report.shots, truth)] == [True] * 3
    hidden = report.shots[1]
    assert hidden.release_evidence == ["draw_hand"] and hidden.release_confidence < 0.5, hidden
    assert all(c < 0.5 for c in hidden.marks_confidence.values()), hidden.marks_confidence
    assert [f.rule for f in hidden.findings if f.verdict in (PASS, FAULT)] == []
    assert not any("no full draw was seen" in n for n in report.notes), report.notes
