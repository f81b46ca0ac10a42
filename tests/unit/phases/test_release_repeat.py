"""A picture repeated as the string leaves (a phone or a converter keeping its rate doubles a frame, and the
pose reads the same landmarks again: `Body.repeat`) is no look at the hand: the hand standing still in it is not
the hand stopping, so the release's first frame is found as without the repeat (`release_onset._release_onset`).
Frames with nobody found are no look either, but what the hand did just before them must look like a release's
flight for the walk back to go on across them. A frame the pose read back towards the anchor inside the flight
(MediaPipe lagging the hand as it starts to fly) is stepped over when a step away reached the frame before it."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from coach.phases.frames import TrackFrame
from coach.phases.params import P
from coach.phases.release_onset import _release_onset
from coach.pose_frame import PoseFrame, PoseTrack
from coach.results import MIN_MARK_CONFIDENCE
from coach.track_transforms import repeated
from tests.unit.phases.test_phases import ONE, make_track, run

FPS = 30.0
NAN2 = np.full(2, np.nan)
# The draw hand's way back from the anchor (U): still, a first small fast step at frame 20, then the flight.
BACK = [0.0] * 20 + [-0.04, -0.12, -0.4, -0.7, -1.0, -1.3]
ONSET, JUMP = 20, 22


def _buffer(repeat_at: int | None) -> list[TrackFrame]:
    """The release as the tracker keeps it, with frame `repeat_at` showing the frame before it again."""
    xs = list(BACK)
    if repeat_at is not None:
        xs[repeat_at] = xs[repeat_at - 1]
    buf = []
    for i, x in enumerate(xs):
        draw = np.array([x, 0.0])
        g = TrackFrame(i, i / FPS, NAN2, draw, NAN2, np.full((5, 2), np.nan), NAN2, draw, repeat=i == repeat_at)
        buf.append(g)
    return buf


def _onset(buf: list[TrackFrame]) -> int:
    return buf[_release_onset(buf, JUMP, "right", np.zeros(2), P.release_onset_speed_sw_s)].index


def test_the_release_starts_with_its_first_fast_step() -> None:
    assert _onset(_buffer(None)) == ONSET


def test_a_picture_repeated_inside_the_release_does_not_move_it() -> None:
    # Frame 21 shows frame 20 again: the hand seems to stop there, though the string had left.
    assert _onset(_buffer(ONSET + 1)) == ONSET


@pytest.mark.parametrize("every", [3, 4, 5, 6])
def test_every_nth_picture_repeated_keeps_the_shot_s_release(every: int) -> None:
    (plain,) = run(make_track([ONE], 260))
    (shot,) = run(repeated(make_track([ONE], 260), every))
    assert abs(shot.release_frame - plain.release_frame) <= 1, (shot.release_frame, plain.release_frame)


def _held(track: PoseTrack, first: int, last: int) -> PoseTrack:
    """Frames first..last show frame first - 1's picture again (a codec that skipped a still picture, a camera
    that stalled): the pose of that picture, to the bit."""
    held = track.frames[first - 1]
    frames = [
        PoseFrame(f.index, f.t_ms, held.landmarks, held.world) if first <= f.index <= last else f for f in track.frames
    ]
    return replace(track, frames=frames)


@pytest.mark.parametrize("held", [1, 2])
def test_a_release_after_a_picture_or_two_held_is_sure(held: int) -> None:
    """One or two pictures held just before the string left (a phone keeping its rate): the release lies within
    P.release_unseen_max_frames of the last look at the hand, as with frames not seen, and is sure."""
    (shot,) = run(_held(make_track([ONE], 260), ONE.release - held, ONE.release - 1))
    assert abs(shot.release_frame - ONE.release) <= held
    assert shot.release_confidence >= MIN_MARK_CONFIDENCE


def test_a_release_after_a_picture_held_longer_is_uncertain() -> None:
    """Four pictures held just before the string left (H.264 at a low rate skipped fault_bow_hand's still hold,
    its frames 595-598 the same picture; the release, 599 in the original, was placed on 595 and said sure): the
    hand was not looked at in them, so the release lies somewhere in five frames, and is said uncertain as with
    frames not seen (`release_onset._unseen_about`)."""
    (shot,) = run(_held(make_track([ONE], 260), ONE.release - 4, ONE.release - 1))
    assert ONE.release - 4 <= shot.release_frame <= ONE.release + 1
    assert shot.release_confidence < MIN_MARK_CONFIDENCE


def _hidden_after(sway: float, flight: float) -> list[TrackFrame]:
    """A hold whose last frame seen (20) moved `sway` U back from the one before, 4 frames with nobody found
    (someone walked in front as the string left), then the hand seen `flight` U out and leaving (25 on)."""
    return _frames([0.0] * 20 + [-sway] + [math.nan] * 4 + [-flight, -flight - 0.3, -flight - 0.6])


def _frames(xs: list[float]) -> list[TrackFrame]:
    """The draw hand `xs[i]` U back from the anchor at frame i (NaN: not found), the rest unseen."""
    buf = []
    for i, x in enumerate(xs):
        draw = NAN2 if math.isnan(x) else np.array([x, 0.0])
        buf.append(TrackFrame(i, i / FPS, NAN2, draw, NAN2, np.full((5, 2), np.nan), NAN2, draw))
    return buf


def test_a_hold_s_sway_before_frames_not_seen_is_not_the_flight() -> None:
    """The hand 0.04 U back into the last frame before the gap (a hold's sway, 1.2 U/s) did not leave there: the
    release is placed in the frames not seen (their first), not on that frame (fault_hold with 0.2 s hidden over its
    release: placed there, 4 frames early)."""
    buf = _hidden_after(0.04, 1.0)
    assert buf[_release_onset(buf, 25, "right", np.zeros(2), P.release_onset_speed_sw_s)].index == 21


def test_a_flight_seen_before_frames_not_seen_is_walked_back_over() -> None:
    """A hand seen leaving at a release's speed before the gap was already in flight (MediaPipe loses the draw
    hand two frames into it, fault_elbow): the release is where it first moved."""
    buf = _hidden_after(0.2, 1.0)
    assert buf[_release_onset(buf, 25, "right", np.zeros(2), P.release_onset_speed_sw_s)].index == 20


def test_a_frame_read_back_at_the_face_inside_the_flight_does_not_move_the_release() -> None:
    """The long session read at the full rate: the hand seen 0.28 U out on the flight's first frame, read 0.06 U
    off the anchor on the next (MediaPipe lagging it), then leaving. The release is the first frame it moved (was
    placed after the late frame, 3 frames late: the long session's third shot)."""
    xs = [0.0] * 21 + [-0.28, -0.06, -0.12, -0.4, -0.7, -1.0, -1.3]  # frame 22 read back near the face
    buf = _frames(xs)
    assert buf[_release_onset(buf, 23, "right", np.zeros(2), P.release_onset_speed_sw_s)].index == 21


def test_a_hold_s_jitter_before_the_flight_is_not_read_as_a_late_frame() -> None:
    """A hold frame jittered 0.06 U out (not gone: less than P.release_start_sw) and the next back at the anchor,
    then the flight: the step back is the hold's jitter, not a late read of a hand already flying; the release
    is where the flight began (with every fast step back taken as a late read, placed 2 frames early: landmarks
    jittered by 0.01, fault_bow_arm's release came 2 frames early in benchmarks/pose_noise.py)."""
    xs = [0.0] * 19 + [-0.06, 0.0, -0.4, -0.8, -1.2, -1.6]
    assert _onset(_frames(xs)) == 21


def test_the_walk_stops_at_the_frame_seen_gone() -> None:
    """Past the frame seen gone (21) the walk does not go on into a slower step before it (20, 1.5 U/s): before a
    frame read out of order the steps are no surer than it (walking on, landmarks jittered by 0.01 put
    fault_bow_arm's release 2 frames early, on a jittered hold frame)."""
    xs = [0.0] * 20 + [-0.05, -0.3, -0.08, -0.14, -0.42, -0.72, -1.02, -1.32]  # frame 22 read back near the face
    buf = _frames(xs)
    assert buf[_release_onset(buf, 23, "right", np.zeros(2), P.release_onset_speed_sw_s)].index == 21
