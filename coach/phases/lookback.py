"""The raise and the draw start, found by walking back from the anchor through the buffer.

Draw time (anchor - draw start) is a rule of its own (draw_tempo), so the draw start is placed where the
movement starts, not where it crosses a speed threshold: human (and the synthetic archer's) draws are eased,
starting at rest, so a threshold lands well inside the draw. The draw start is the set, the slowest moment of
the arms between the raise and the middle of the draw (`_back_raise_draw`)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from .frames import TrackFrame, _dist, _motion, _nan_low, _rate, _span
from .params import P


def _draw_mid(buf: Sequence[TrackFrame], anchor_i: int, floor_i: int) -> int:
    """Position of the middle of the draw: the last frame before the anchor whose span is at most halfway
    from the narrowest span of the look-back to the anchor's span."""
    return _span_share(buf, anchor_i, floor_i, 0.5)


def _span_share(buf: Sequence[TrackFrame], anchor_i: int, floor_i: int, share: float) -> int:
    """The last position before the anchor whose span is at most `share` of the way from the narrowest span
    over buf[floor_i..anchor_i] to the anchor's span (the anchor itself when either is unknown)."""
    spans = [_span(buf[k]) for k in range(floor_i, anchor_i + 1)]
    spans = [sp for sp in spans if not math.isnan(sp)]
    s_a = _span(buf[anchor_i])
    if not spans or math.isnan(s_a):
        return anchor_i
    mid = min(spans) + share * (s_a - min(spans))
    k = anchor_i
    while k > floor_i and not _span(buf[k]) <= mid:
        k -= 1
    return k


def _raised_since(buf: Sequence[TrackFrame], i: int, floor_i: int, handedness: str) -> int:
    """The last position before buf[i] where the bow wrist was still P.set_bow_drop_sw below its height there
    (in the raise), or floor_i."""
    bow_y = buf[i].wrists(handedness)[0][1]
    k = i
    if not math.isnan(bow_y):
        while k > floor_i and not buf[k].wrists(handedness)[0][1] > bow_y + P.set_bow_drop_sw:
            k -= 1
    return k


def _set(buf: Sequence[TrackFrame], lo: int, hi: int, handedness: str) -> tuple[int, float]:
    """The set over buf[lo..hi]: the end of the pause around the slowest moment (the frames after it as slow,
    within a tolerance, without a break), and that slowest arm motion (U/s); (hi, NaN) where no motion can be told.
    A hitch later in the draw as slow is the hand slowing on its way, not the set (fault_hold: with the points
    despiked on the body, the hand at 79, ten frames after it left the set, read as slow as the set)."""
    motion = [(j, _motion(buf, j, handedness)) for j in range(lo, hi + 1)]
    motion = [(j, m) for j, m in motion if not math.isnan(m)]
    if not motion:
        return hi, math.nan
    k = min(range(len(motion)), key=lambda n: motion[n][1])
    m_min = motion[k][1]
    peak = float(np.percentile([m for _, m in motion], 90))
    tol = min(P.set_motion_tol_sw_s, max(P.set_motion_tol_min_sw_s, P.set_motion_tol_frac * peak))
    while k + 1 < len(motion) and motion[k + 1][1] <= m_min + tol:
        k += 1
    return motion[k][0], m_min


def _downhill(buf: Sequence[TrackFrame], hi: int, anchor_i: int, mid_i: int, handedness: str) -> int:
    """`hi` moved on while the arms keep slowing, but not past the middle of what is left of the draw: the share
    of the draw the set is looked for in ends where the span has grown so much, and the pause's slowest frame
    may lie a frame or two on (the long session's shot 10: the share ended at 1.6 U/s, two frames before the
    0.5 U/s pause, which a run of the same frames read a little differently found), for at most P.raise_rest_s:
    further on, the hesitations of a slow draw look like a pause (fault_tempo's 5.8 s draw, read live: the draw
    start 1.6 s late). Past the middle the arms slow into the anchor, which is no set."""
    stop = _span_share(buf, anchor_i, mid_i, 0.5)
    t_end = buf[hi].t + P.raise_rest_s  # a frame or two on, not into the hesitations of a slow draw (fault_tempo)
    while (
        hi + 1 < stop
        and buf[hi + 1].t <= t_end + 1e-6
        and _motion(buf, hi + 1, handedness) <= _motion(buf, hi, handedness)
    ):
        hi += 1
    return hi


def _paused_for(buf: Sequence[TrackFrame], i: int, handedness: str) -> float:
    """How long (s) the arms moved slower than P.set_pause_max_sw_s without a break around buf[i] (0 if not
    at buf[i] itself)."""
    if not _motion(buf, i, handedness) <= P.set_pause_max_sw_s:
        return 0.0
    lo = hi = i
    while lo > 0 and _motion(buf, lo - 1, handedness) <= P.set_pause_max_sw_s:
        lo -= 1
    while hi + 1 < len(buf) and _motion(buf, hi + 1, handedness) <= P.set_pause_max_sw_s:
        hi += 1
    return buf[hi].t - buf[lo].t


def _back_raise_draw(
    buf: list[TrackFrame], anchor_i: int, floor_i: int, handedness: str
) -> tuple[int, int, int, float]:
    """Walk back from the anchor: (raise start, draw start, middle of the draw) as positions in buf, all
    >= floor_i, and how fast the arms moved at the set (U/s; NaN if not measurable).

    The draw start is the set: the moment the arms are slowest between the raise (the bow wrist still
    rising towards shoulder height) and the middle of the draw. Raise and draw are each a movement that
    starts and ends at rest, so their speeds pass through a minimum there; an onset threshold on the span's
    growth instead finds a point well into the draw, and MediaPipe's wrist jitter at the start of the draw
    (the hand in front of the face) makes onsets unreliable anyway."""
    mid_i = _draw_mid(buf, anchor_i, floor_i)
    k = _raised_since(buf, anchor_i, floor_i, handedness)
    if _span(buf[anchor_i]) - _span(buf[k]) < P.draw_span_growth_min_sw:
        # The span hardly grew after the raise (down-line: the hand comes back in depth), so its midpoint
        # may fall in the raise: the middle of the draw is where the draw hand was halfway to the anchor.
        end = buf[anchor_i].wrists(handedness)[1]
        dist = [_dist(buf[j].wrists(handedness)[1], end) for j in range(k, anchor_i + 1)]
        far = max((d for d in dist if not math.isnan(d)), default=math.nan)
        mid_i = anchor_i
        while mid_i > k and not dist[mid_i - k] >= 0.5 * far:
            mid_i -= 1
    else:
        k = _raised_since(buf, mid_i, floor_i, handedness)
    mid_i = max(mid_i, k)
    draw_i, m_min = _set(buf, k, mid_i, handedness)
    if not m_min <= P.set_pause_max_sw_s:
        # No pause up to the middle found: that middle may be the raise's end, the halfway span passed as the
        # bow arm came up (the span at the set can be half the hold's). The set, if there was one, lies at
        # the start of what is left of the draw (P.late_set_share).
        later_hi = _downhill(buf, _span_share(buf, anchor_i, mid_i, P.late_set_share), anchor_i, mid_i, handedness)
        later_i, later_min = _set(buf, mid_i, later_hi, handedness)
        # A pause lasts: one slow frame between the raise's end and the draw is the arms passing through it.
        if _paused_for(buf, later_i, handedness) >= P.raise_rest_s - 1e-6:
            draw_i, m_min = later_i, later_min

    def bow_speed(i: int) -> float:
        vx = _rate(buf, i, lambda f: f.wrists(handedness)[0][0])
        vy = _rate(buf, i, lambda f: f.wrists(handedness)[0][1])
        return math.hypot(vx, vy)

    # Raise start: the bow arm's movement that leads into the draw began after it last rested for
    # P.raise_rest_s (pauses shorter than that, e.g. settling the grip, belong to the raise).
    def walk_back(k: int) -> int:
        rest_from: int | None = None
        while k > floor_i:
            if bow_speed(k - 1) > P.raise_onset_speed_sw_s:
                rest_from = None
            else:
                rest_from = k if rest_from is None else rest_from
                if buf[rest_from].t - buf[k - 1].t >= P.raise_rest_s:
                    break
            k -= 1
        return k if rest_from is None else rest_from

    # The set is itself a pause with the bow arm up, and the raise ended before it: walk back over it first,
    # else a set longer than P.raise_rest_s leaves the raise 0 s long.
    k = draw_i
    while (
        k > floor_i
        and buf[draw_i].t - buf[k - 1].t <= P.set_pause_max_s
        and not bow_speed(k - 1) > P.raise_onset_speed_sw_s
        and buf[k - 1].wrists(handedness)[0][1] < P.raise_level_below_sw
    ):
        k -= 1
    k = walk_back(k)
    # A raise brings the bow arm up from well below; when it did not (real02 starts with the arm half raised,
    # real01's set is a pause in a slow raise), the pause found is not the set's: walk back from the set.
    set_y = buf[draw_i].wrists(handedness)[0][1]
    low = max((buf[j].wrists(handedness)[0][1] for j in range(k, draw_i + 1)), key=_nan_low, default=math.nan)
    if not low - set_y >= P.raise_min_rise_sw:
        k = walk_back(draw_i)
    return min(k, draw_i), draw_i, mid_i, m_min


def _draw_travel(buf: Sequence[TrackFrame], anchor_i: int, floor_index: int, side: str) -> float:
    """How far the draw wrist came to buf[anchor_i] from: its greatest distance from there over the frames
    after floor_index (U; 0 if never seen)."""
    end = buf[anchor_i].wrists(side)[1]
    far = 0.0
    for k in range(anchor_i - 1, -1, -1):
        g = buf[k]
        if g.index <= floor_index:
            break
        d = _dist(g.wrists(side)[1], end)
        if d > far:
            far = d
    return far
