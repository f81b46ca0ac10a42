"""How sure a release is counts the frames around it that did not show the hand leaving
(`release_onset._unseen_about`): those it was already gone in count, as the string may have left in any of them.
Gone is out from the anchor along the way the hand left, not merely off it: MediaPipe wanders a hand at full
draw by a third of a shoulder width across that way (real05, an elite recurve archer: the hold's anchor median
read 0.35 U below the last frames of the hold when the track was cut a frame later), and a hold read beside its
anchor is still the hold."""

from __future__ import annotations

import numpy as np

from coach.phases.frames import TrackFrame
from coach.phases.params import P
from coach.phases.release_onset import _unseen_about

FPS = 30.0
NAN2 = np.full(2, np.nan)
ANCHOR = np.zeros(2)
BACK = np.array([-1.0, 0.0])  # the way the hand left: straight back from the anchor
ON = 20  # the release's first frame


def _buffer(hold: tuple[float, float], gone_from: int | None = None) -> list[TrackFrame]:
    """A hold read at `hold` (U from the anchor), the hand out along BACK from `gone_from` on (if given), then
    the flight from ON."""
    buf = []
    for i in range(ON + 6):
        if i >= ON:
            draw = np.array([-0.3 * (i - ON + 1), 0.0])
        elif gone_from is not None and i >= gone_from:
            draw = np.array([-2 * P.release_start_sw, 0.0])
        else:
            draw = np.array(hold)
        buf.append(TrackFrame(i, i / FPS, NAN2, draw, NAN2, np.full((5, 2), np.nan), NAN2, draw))
    return buf


def _unseen(buf: list[TrackFrame]) -> int:
    return _unseen_about(buf, ON, "right", ANCHOR, BACK, np.nan)


def test_a_hold_read_beside_its_anchor_is_not_the_hand_gone() -> None:
    # 0.3 U below the anchor and a hair back: off it by twice P.release_start_sw, but not out along the way.
    assert _unseen(_buffer((-0.02, 0.3))) == 0


def test_a_hand_already_out_along_its_way_is_gone() -> None:
    # The last two frames before the release already show the hand back by twice P.release_start_sw.
    assert _unseen(_buffer((0.0, 0.0), gone_from=ON - 2)) == 2
    assert _unseen(_buffer((0.0, 0.0), gone_from=ON - 4)) == 4
