"""The look-back from an anchor to the set: where the draw started does not depend on where the buffer begins.

An adaptive run's dense segment starts a few seconds before the raise, a full-rate run's buffer holds the
nock before it: the hands together there make the narrowest span of the look-back, and the draw's "halfway"
span, measured from it, can be passed in the raise. The draw's middle is then searched for with the bow arm
up (`lookback._draw_mid`)."""

from __future__ import annotations

import math

import numpy as np

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


def _shot(swing_first: bool = True, draw_length: float = 1.0) -> list[TrackFrame]:
    """A right-handed archer seen face-on (U, y down, from the shoulder midpoint): both hands at the belt for the
    nock (span 0.3); a raise (that swings the bow arm out to the side before lifting it: the span passes 1.5
    while the bow wrist is still well below the shoulders); a still set (span 1.78); an eased draw that takes
    the draw hand `draw_length` further; the hold."""
    frames = []
    for i in range(NOCK + RAISE + SET + DRAW + HOLD):
        r = _ease((i - NOCK) / RAISE)
        out = _ease(2 * (i - NOCK) / RAISE) if swing_first else r
        d = _ease((i - DRAW_AT) / DRAW)
        bow = (-0.15 - 1.45 * out, 1.6 - 1.9 * r)
        draw = (0.15 + draw_length * d, 1.6 - 1.6 * r)
        frames.append(_frame(i, bow, draw))
    return frames


def test_the_draw_start_is_the_same_with_the_nock_in_the_look_back_or_not() -> None:
    buf = _shot()
    with_nock = _back_raise_draw(buf, ANCHOR_AT, 0, "right")
    without = _back_raise_draw(buf, ANCHOR_AT, NOCK + RAISE // 3, "right")
    assert abs(buf[with_nock[1]].index - buf[without[1]].index) <= 1, (with_nock, without)
    # ... and it is the set's end, the draw's eased start, not a frame in the raise.
    assert SET_AT <= buf[with_nock[1]].index <= DRAW_AT + 5, with_nock
    assert with_nock[3] < 1.0, with_nock  # a pause was seen at the set


def test_a_set_after_the_halfway_span_is_found() -> None:
    """A long draw from a narrow set (the synthetic archer's: set span 60 % of the hold's): the halfway span
    from the nock is passed in the last frames of the raise, with the bow arm all but up, so the look-back up to
    there holds only the raise. The set is the pause after it, not a guess in the raise."""
    buf = _shot(swing_first=False, draw_length=1.45)
    raise_i, draw_i, _, set_motion = _back_raise_draw(buf, ANCHOR_AT, 0, "right")
    assert SET_AT <= buf[draw_i].index <= DRAW_AT + 5, (raise_i, draw_i, set_motion)
    assert set_motion < 1.0, set_motion
