"""The release by ear (coach/audio/): sound-tracked synthetic clips, stream offsets, the real05 envelope."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from coach.audio import (
    WINDOW_S,
    AudioTrack,
    Onset,
    OnsetDetector,
    audio_cues,
    cues_from_envelope,
    detect_onsets,
    envelope,
    load_audio,
    load_envelope,
    refine_release,
)
from coach.phases import ShotPhases
from coach.synth.audio import add_soundtrack, impact_sound, mux_audio, release_sound, room_noise
from coach.video_io import VideoWriter
from tests.support.paths import REALPOSE

FPS = 30
N_FRAMES = 150
RELEASE = 75  # truth release frame of the fake clip
TRUTH = {"schema": "coach.truth/1", "fps": FPS, "n_frames": N_FRAMES, "shots": [{"release_frame": RELEASE}]}


def shot(release: int, anchor: int = 40, end: int = 120) -> ShotPhases:
    """A pose-only shot whose release the pose put at `release`."""
    return ShotPhases(
        index=0,
        raise_start_frame=10,
        draw_start_frame=25,
        anchor_frame=anchor,
        release_frame=release,
        end_frame=end,
        raise_start_ms=10 / FPS * 1000,
        draw_start_ms=25 / FPS * 1000,
        anchor_ms=anchor / FPS * 1000,
        release_ms=release / FPS * 1000,
        end_ms=end / FPS * 1000,
        complete=True,
        handedness="right",
        hold_start_frame=anchor + 6,
        follow_start_frame=release + 3,
    )


@pytest.fixture(scope="module")
def clips(tmp_path_factory) -> Path:
    """A silent-video clip (no audio stream) that the sound-tracked copies are made from."""
    d = tmp_path_factory.mktemp("audio")
    with VideoWriter(d / "video.mp4", 64, 48, FPS, preset="ultrafast") as w:
        for i in range(N_FRAMES):
            w.write(np.full((48, 64, 3), i % 256, np.uint8))
    return d


def _tracked(clips: Path, name: str, **kw) -> tuple[Path, dict]:
    out = clips / f"{name}.mp4"
    placed = add_soundtrack(clips / "video.mp4", TRUTH, out, **kw)
    return out, placed


# ---- the release refined by sound ------------------------------------------------------------------------
@pytest.mark.parametrize(
    "seed,noise",
    [(0, "none"), (1, "none"), (2, "noise"), (3, "noise"), (4, "speech"), (5, "speech"), (9, "speech")],
)
def test_release_refined_to_truth(clips: Path, seed: int, noise: str) -> None:
    path = clips / f"r{seed}{noise}.mp4"
    add_soundtrack(clips / "video.mp4", TRUTH, path, seed=seed, impact=True, noise=noise)
    cues = audio_cues(path)
    assert cues is not None
    for pose_error in (-6, -2, 0, 3, 6):
        _check_refined(refine_release(shot(RELEASE + pose_error), cues.onsets, FPS), pose_error)


def _check_refined(out: ShotPhases, pose_error: int) -> None:
    assert out.release_source == "sound+pose"
    assert abs(out.release_frame - RELEASE) <= 1, (out.release_frame, pose_error)
    assert out.release_ms == pytest.approx(out.release_frame / FPS * 1000)
    assert out.follow_start_frame == out.release_frame + 3  # RELEASE_PHASE_S later


def test_flight_time_from_impact(clips: Path) -> None:
    path, placed = _tracked(clips, "impact", seed=11, impact=True)
    out = refine_release(shot(RELEASE + 2), audio_cues(path).onsets, FPS)
    assert out.release_source == "sound+pose" and out.release_frame == RELEASE
    want = placed["impacts_s"][0] - placed["releases_s"][0]
    assert out.flight_time_s == pytest.approx(want, abs=0.015)


def test_louder_impact_in_the_window_is_not_the_release() -> None:
    """The pose release is late and the window holds both the crack and a louder impact 0.3 s later."""
    rate = 48000
    rng = np.random.default_rng(3)
    x = room_noise(4 * rate, rng, 0.005)
    t_rel, t_imp = RELEASE / FPS + 0.01, RELEASE / FPS + 0.31
    crack = release_sound(rng, rate) * 0.5
    for t, s in ((t_rel, crack), (t_imp, impact_sound(rng, rate, loudness=0.9))):
        i = int(t * rate)
        x[i : i + len(s)] += s[: len(x) - i]
    onsets = detect_onsets(envelope(AudioTrack(x.astype(np.float32), rate, 0.0)))
    late = shot(RELEASE + 5)  # the window [70, 80] frames = [2.33, 2.67] s... holds the crack
    late_wide = refine_release(late, onsets, FPS, window_s=0.4)  # ... and with 0.4 s also the impact
    for out in (refine_release(late, onsets, FPS), late_wide):
        assert out.release_frame == RELEASE, out
        assert out.flight_time_s == pytest.approx(0.3, abs=0.01)


def test_a_dead_release_is_timed_by_its_crack_not_by_the_impact() -> None:
    """After a dead release the hand stays at the jaw; the pose's "release" is the arms coming down 0.73 s
    later, when the arrow is heard hitting. Where the pose saw the hand stay, the crack earlier in the hold
    is the release; where it did not, sound keeps to the pose's window."""
    from dataclasses import replace

    rate = 48000
    rng = np.random.default_rng(5)
    x = room_noise(6 * rate, rng, 0.005)
    t_rel = RELEASE / FPS + 0.01
    for t, s in ((t_rel, release_sound(rng, rate) * 0.6), (t_rel + 0.75, impact_sound(rng, rate, loudness=0.8))):
        i = int(t * rate)
        x[i : i + len(s)] += s[: len(x) - i]
    onsets = detect_onsets(envelope(AudioTrack(x.astype(np.float32), rate, 0.0)))
    late = shot(RELEASE + 22, end=140)
    out = refine_release(replace(late, hand_stayed=True), onsets, FPS)
    assert out.release_frame == RELEASE and out.release_source == "sound+pose", out
    assert out.flight_time_s == pytest.approx(0.75, abs=0.01)
    seen = refine_release(late, onsets, FPS)  # the pose saw the hand leave: no looking back
    assert abs(seen.release_frame - (RELEASE + 22)) <= WINDOW_S * FPS + 1, seen


def test_the_report_says_how_each_release_was_timed() -> None:
    from coach.results import release_remarks

    assert release_remarks("pose", None, False) == ""
    assert release_remarks("sound+pose", 0.8, True) == ", timed by sound; arrow heard hitting 0.80 s later"
    assert "may have come earlier, unseen" in release_remarks("pose", None, True)


@pytest.mark.parametrize("noise,seed", [("noise", 0), ("noise", 1), ("speech", 0), ("speech", 4), ("speech", 5)])
def test_no_release_sound_pose_stands(clips: Path, noise: str, seed: int) -> None:
    path, _ = _tracked(clips, f"bg_{noise}{seed}", seed=seed, impact=False, noise=noise, release=False)
    sp = shot(RELEASE)
    out = refine_release(sp, audio_cues(path).onsets, FPS)
    assert out is sp and out.release_source == "pose" and out.flight_time_s is None


def test_no_audio_stream_and_silent_audio(clips: Path) -> None:
    assert load_audio(clips / "video.mp4") is None
    assert audio_cues(clips / "video.mp4") is None
    silent = clips / "silent.mp4"
    mux_audio(clips / "video.mp4", np.zeros(48000 * 5, np.float32), 48000, silent)
    cues = audio_cues(silent)
    assert cues is None or not cues.onsets
    sp = shot(RELEASE)
    assert refine_release(sp, cues.onsets if cues else [], FPS) is sp


def test_sound_never_moves_the_release_outside_the_pose_window() -> None:
    rng = np.random.default_rng(0)
    times = {i: i / FPS + float(rng.uniform(-0.004, 0.004)) for i in range(200)}  # a variable-rate container
    for pose_rel in range(50, 100, 3):
        for t in np.arange(1.0, 4.5, 0.011):
            o = Onset(float(t), rise=3.0, peak=-1.0, decay=0.9, z=10.0)
            out = refine_release(shot(pose_rel, anchor=pose_rel - 4), [o], FPS, frame_times=times)
            assert abs(times[out.release_frame] - times[pose_rel]) <= WINDOW_S + 1e-9
            assert out.release_frame > pose_rel - 4  # never at or before the anchor
            if abs(t - times[pose_rel]) > WINDOW_S:
                assert out.release_source == "pose"
    # A blunt (not sharp) onset never times a release.
    blunt = Onset(RELEASE / FPS, rise=3.0, peak=-1.0, decay=0.05, z=10.0)
    assert refine_release(shot(RELEASE + 3), [blunt], FPS).release_frame == RELEASE + 3


# ---- the clock ---------------------------------------------------------------------------------------------
def test_audio_stream_starting_after_the_video(clips: Path) -> None:
    path, placed = _tracked(clips, "late_audio", seed=2, audio_start_s=0.5)
    track = load_audio(path)
    assert track.start_s == pytest.approx(0.5, abs=0.03)  # less AAC priming, which the decoder drops
    cues = audio_cues(path)
    rel = min((o for o in cues.onsets if o.sharp), key=lambda o: abs(o.t_s - placed["releases_s"][0]))
    assert rel.t_s == pytest.approx(placed["releases_s"][0], abs=0.01)
    out = refine_release(shot(RELEASE - 4), cues.onsets, FPS)
    assert abs(out.release_frame - RELEASE) <= 1


def test_streaming_detector_matches(clips: Path) -> None:
    path, placed = _tracked(clips, "stream", seed=7, impact=True, noise="noise")
    track = load_audio(path)
    det = OnsetDetector(track.rate)
    got: list[float] = []
    n = 1600  # ~33 ms chunks, as a microphone callback delivers them
    for i in range(0, len(track.samples), n):
        got += det.push(track.samples[i : i + n], track.start_s + i / track.rate)
    for t in placed["releases_s"] + placed["impacts_s"]:
        assert min(abs(g - t) for g in got) < 0.01, (got, placed)
    assert len(got) == len(set(np.round(got, 3)))


# ---- integration -------------------------------------------------------------------------------------------
def test_analyzer_applies_the_refiner_before_judging() -> None:
    from coach.analyzer import Analyzer

    seen = []

    def refiner(sp, times):
        seen.append(sp.release_frame)
        sp.release_frame, sp.release_source, sp.flight_time_s = sp.release_frame - 2, "sound+pose", 0.42
        return sp

    a = Analyzer(FPS, 640, 480, release_refiner=refiner)
    res = a._complete(shot(RELEASE + 2))
    assert seen == [RELEASE + 2]
    assert res.release_frame == RELEASE and res.release_source == "sound+pose"
    j = res.to_json()
    assert j["release_source"] == "sound+pose" and j["flight_time_s"] == 0.42


def test_cli_audio_switch() -> None:
    from coach.cli import build_parser

    p = build_parser()
    assert p.parse_args(["analyze", "x.mp4"]).audio is True
    assert p.parse_args(["analyze", "x.mp4", "--no-audio"]).audio is False


# ---- real footage ------------------------------------------------------------------------------------------
def _real05() -> tuple[Path, dict]:
    env = REALPOSE / "real05_recurve_front_crowd.audio.json"
    if not env.exists():
        pytest.skip(f"{env} not found: the real-footage envelopes are only in the project workspace")
    labels = json.loads((REALPOSE / "real05_recurve_front_crowd.labels.json").read_text(encoding="utf-8"))
    return env, labels


@pytest.mark.parametrize("pose_error", [-5, -3, -1, 0, 2, 4])
def test_real05_envelope_in_a_pose_window(pose_error: int) -> None:
    env_path, labels = _real05()
    want = labels["shots"][0]["release_frame"]
    cues = cues_from_envelope(load_envelope(env_path))
    out = refine_release(shot(want + pose_error, anchor=125, end=270), cues.onsets, labels["fps"])
    assert out.release_source == "sound+pose"
    assert abs(out.release_frame - want) <= labels["shots"][0]["tolerance_frames"]["release_frame"]


def test_real05_pose_track_refined_by_its_sound() -> None:
    from coach.pipeline import analyze_track

    env_path, labels = _real05()
    cues = cues_from_envelope(load_envelope(env_path))
    report = analyze_track(REALPOSE / labels["pose_track"], release_refiner=cues.refiner(labels["fps"]))
    (s,) = report.shots
    assert s.release_source == "sound+pose"
    assert abs(s.release_frame - labels["shots"][0]["release_frame"]) <= 1
    assert report.to_json()["shots"][0]["release_source"] == "sound+pose"


def _clear(release: int) -> ShotPhases:
    """A shot whose release the pose saw clearly: the hand seen jumping."""
    s = shot(release, anchor=release - 40, end=release + 40)
    s.release_confidence, s.release_evidence = 0.9, ("draw_hand", "span")
    return s


def test_sound_offset_against_the_picture_is_learnt_from_the_session() -> None:
    """A phone's sound running 3 frames late: the first two clear releases teach the offset, so the third
    shot's release is timed by its crack less the offset, not 3 frames late; with one shot none is assumed."""
    from coach.audio import AudioCues, Envelope, Onset

    lag = 3 / FPS
    releases = [100, 300, 500]
    onsets = [Onset(r / FPS + lag, rise=1.5, peak=-1.0, decay=0.9, z=12.0, broadband=True) for r in releases]
    cues = AudioCues(Envelope(np.zeros(1), 0.005, 0.0), onsets)
    refine = cues.refiner(FPS)
    first = refine(_clear(releases[0]), {})
    assert first.release_frame == releases[0] + 3  # nothing learnt yet: the sound is taken as it is
    refine(_clear(releases[1]), {})
    assert cues.offset.seconds == pytest.approx(lag, abs=1e-6)
    third = refine(_clear(releases[2] + 2), {})  # the pose 2 frames late; the crack, less its lag, is exact
    assert third.release_frame == releases[2] and "sound" in third.release_evidence
    assert cues.summary()["av_offset_s"] == pytest.approx(lag, abs=1e-3)


def test_no_offset_from_shots_that_disagree() -> None:
    from coach.audio import AvOffset

    off = AvOffset([0.1, -0.08, 0.02])
    assert off.seconds == 0.0
    assert AvOffset([0.1]).seconds == 0.0


def test_an_offset_within_the_poses_own_error_is_not_assumed() -> None:
    """Pose releases a frame off the crack on every shot (the pose knows a release to a frame either way): no
    offset is taken off the sound, which stays exact, where a 3-frame lag is learnt."""
    from coach.audio import AudioCues, Envelope, Onset

    releases = [100, 300, 500]
    onsets = [Onset(r / FPS + 0.5 / FPS, rise=1.5, peak=-1.0, decay=0.9, z=12.0, broadband=True) for r in releases]
    cues = AudioCues(Envelope(np.zeros(1), 0.005, 0.0), onsets)
    refine = cues.refiner(FPS)
    for r in releases[:2]:
        refine(_clear(r - 1), {})  # the pose a frame early: the crack 1.5 frames after its release frame
    assert cues.offset.seconds == 0.0
    assert refine(_clear(releases[2] - 1), {}).release_frame == releases[2]
