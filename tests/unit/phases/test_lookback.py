"""The look-back from an anchor to the set (`coach/phases/lookback.py`): the set is found after a raise whose
span passes the draw's halfway span before the bow arm is up.

The middle of the draw is where the span is halfway from the narrowest span of the look-back (the hands together
at the nock, when the nock is in it) to the anchor's; the set is searched for before it. An archer whose set span
is wide (the synthetic archer's is 60 % of its hold's) passes that halfway span in the last frames of the raise,
so the look-back up to the middle holds only the raise. Whether it does depends on where the buffer begins (an
adaptive run's dense segment may start after the nock): the draw start's confidence, and draw_tempo with it,
then differed between a full-rate and an adaptive run of the same session."""

from __future__ import annotations

import math

import numpy as np
import pytest

from coach.phases.frames import TrackFrame
from coach.phases.lookback import _back_raise_draw

FPS = 30.0
NOCK, RAISE, SET, DRAW, HOLD = 30, 30, 15, 30, 30  # frames of each stretch
SET_AT = NOCK + RAISE  # the set begins
DRAW_AT = SET_AT + SET  # the draw begins
ANCHOR_AT = DRAW_AT + DRAW


def _ease(x: float) -> float:
    x = min(max(x, 0.0), 1.0)
    return 0.5 - 0.5 * math.cos(math.pi * x)


def _frame(i: int, bow: tuple[float, float], draw: tuple[float, float]) -> TrackFrame:
    nan2 = np.full(2, np.nan)
    lw, rw = np.array(bow), np.array(draw)
    return TrackFrame(i, i / FPS, lw, rw, nan2, np.full((5, 2), np.nan), lw.copy(), rw.copy())


def _shot(draw_length: float, set_frames: int = SET) -> list[TrackFrame]:
    """A right-handed archer seen face-on (U, y down, from the shoulder midpoint): both hands at the belt for the
    nock (span 0.3); a raise that lifts the bow arm out to the side; a still set (span 1.78) of `set_frames`; an
    eased draw that takes the draw hand `draw_length` further; the hold."""
    frames = []
    draw_at = SET_AT + set_frames
    for i in range(NOCK + RAISE + set_frames + DRAW + HOLD):
        r = _ease((i - NOCK) / RAISE)
        d = _ease((i - draw_at) / DRAW)
        bow = (-0.15 - 1.45 * r, 1.6 - 1.9 * r)
        draw = (0.15 + draw_length * d, 1.6 - 1.6 * r)
        frames.append(_frame(i, bow, draw))
    return frames


def test_a_set_after_the_halfway_span_is_found() -> None:
    """A long draw from a wide set: the halfway span from the nock is passed in the last frames of the raise,
    with the bow arm all but up. The set is the pause after it, not a guess in the raise."""
    buf = _shot(draw_length=1.45)
    raise_i, draw_i, _, set_motion = _back_raise_draw(buf, ANCHOR_AT, 0, "right")
    assert SET_AT <= buf[draw_i].index <= DRAW_AT + 5, (raise_i, draw_i, set_motion)
    assert set_motion < 1.0, set_motion
    # ... and the raise is the one before it.
    assert abs(buf[raise_i].index - NOCK) <= 3, raise_i


@pytest.mark.parametrize("set_frames", [0, 2, 5])
def test_a_short_draw_from_a_wide_set_finds_its_set(set_frames: int) -> None:
    """A short draw (1 U) from a wide set, with a brief set or none: the set is looked for in the first share of
    what is left of the draw, and that share ends a frame or two before the arms are slowest. The search goes on
    while they slow: the set is found, not guessed 10 frames into the raise (the long session's shots 9 and 10,
    where the share ended at 1.6 U/s in one run and at the 0.5 U/s pause in another of the same frames)."""
    draw_at = SET_AT + set_frames
    buf = _shot(draw_length=1.0, set_frames=set_frames)
    _, draw_i, _, set_motion = _back_raise_draw(buf, draw_at + DRAW, 0, "right")
    assert set_motion < 1.0, (draw_i, set_motion)
    assert draw_at - 3 <= buf[draw_i].index <= draw_at + 2, (draw_i, set_motion)


HITCH = 6  # frames the hand all but stops for in `_hitched_draw`


def _hitched_draw(length: float) -> list[TrackFrame]:
    """From the set on: still for SET frames; a draw of `length` U whose hand, a quarter of the way (a third of
    DRAW's frames in), all but stops (0.03 U/s) for HITCH frames; then on to the anchor and the hold."""
    frames = []
    first, rest = DRAW // 3, DRAW - DRAW // 3
    for i in range(SET + HITCH + DRAW + HOLD):
        j = i - SET  # frames into the draw
        if j <= 0:
            x = 0.15
        elif j <= first:
            x = 0.15 + 0.25 * length * _ease(j / first)
        elif j <= first + HITCH:
            x = 0.15 + 0.25 * length + 0.03 * (j - first) / FPS
        else:
            x = 0.15 + 0.25 * length + 0.03 * HITCH / FPS + 0.75 * length * _ease((j - first - HITCH) / rest)
        frames.append(_frame(i, (-1.6, -0.3), (x, -0.05)))
    return frames


def test_the_draw_starts_where_the_set_ends_not_at_a_later_hitch_as_slow() -> None:
    """The set is the pause around the slowest moment, and the draw starts where that pause ends: a hitch later in
    the draw, nearly as slow (within the set's tolerance), is the hand slowing on its way, not the set (the
    synthetic fault_hold archer's hand at 79, ten frames into a draw that left the set at 67-69)."""
    buf = _hitched_draw(1.45)
    _, draw_i, _, set_motion = _back_raise_draw(buf, SET + HITCH + DRAW, 0, "right")
    assert SET - 3 <= buf[draw_i].index <= SET + 2, (draw_i, set_motion)
