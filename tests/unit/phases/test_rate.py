"""The tracker's centred derivative (`frames._rate`) where the pose lost a frame at an end of its window."""

from __future__ import annotations

import math

import numpy as np

from coach.phases.frames import TrackFrame, _rate

FPS = 30.0
NAN2 = np.array([np.nan, np.nan])


def _frames(xs: list[float]) -> list[TrackFrame]:
    """The draw (right) wrist at x = xs[i] U, still in y; NaN where the pose lost the archer."""
    out = []
    for i, x in enumerate(xs):
        rw = np.array([x, 0.0]) if not math.isnan(x) else NAN2
        out.append(TrackFrame(i, i / FPS, NAN2, rw, NAN2, np.full((5, 2), np.nan), NAN2, rw))
    return out


def draw_x(f: TrackFrame) -> float:
    return float(f.rw[0])


def test_a_lost_frame_at_an_end_of_the_window_gives_the_speed_of_the_frames_seen_inside_it() -> None:
    # 1 U/s, the frames 3 and 4 (the window's ends around frame 6 at ±0.1 s are 3 and 9) lost to a passer-by.
    xs = [i / FPS for i in range(12)]
    xs[3] = xs[4] = math.nan
    assert math.isclose(_rate(_frames(xs), 6, draw_x, 0.1), 1.0, rel_tol=1e-9)
    # Seen throughout, the same.
    assert math.isclose(_rate(_frames([i / FPS for i in range(12)]), 6, draw_x, 0.1), 1.0, rel_tol=1e-9)


def test_no_speed_where_the_window_holds_no_frame_seen_but_its_own() -> None:
    xs = [math.nan] * 12
    xs[6] = 0.5
    assert math.isnan(_rate(_frames(xs), 6, draw_x, 0.1))
