"""Where full draw was reached, and how sure the anchor and the draw start are.

The anchor is first detected once the draw has slowed (coach/phases/tracker.py); it is then moved to where the
span reached the hold's and the arms became as still as in the hold (`_settle_anchor`), at the release or once
a long hold has lasted long enough, while the draw is still in the buffer. Where the draw goes on after an early
anchor (`draw_goes_on`), and a full draw the picture lost as the hand came to the face (`lost_at_anchor`)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from .frames import (
    TrackFrame,
    _dist,
    _motion,
    _newest_judged,
    _rate,
    _span,
    _still_at_anchor,
    anchor_pose,
    bow_arm_out,
    fastest_draw_step,
    find,
)
from .lookback import _draw_travel
from .params import P
from .state import Mark, OpenShot


def refine_anchor(buf: Sequence[TrackFrame], shot: OpenShot, until_t: float) -> None:
    """Place the anchor against the hold (`_settle_anchor`) and say how sure it and the draw start are."""
    s = shot
    if s.refined:
        return
    s.refined = True
    if s.lost_at_anchor:
        s.anchor_conf, s.draw_conf = P.lost_anchor_conf, _draw_start_conf(buf, shot)
        return
    if not s.draw_seen:
        # Already at full draw when first seen: the anchor is the first frame the pose showed it, not a settling
        # of a draw that was never seen (which would only take MediaPipe's first frames settling for a draw).
        s.anchor_conf, s.draw_conf = P.anchor_span_conf, 0.0
        return
    s.anchor_conf = _settle_anchor(buf, shot, until_t)
    s.draw_conf = _draw_start_conf(buf, shot)
    if s.held is not None:
        # Full draw found again after a 'release' (`back_at_full_draw`): the draw went on to this anchor, or the
        # pose moved the hand at the face and the first anchor was the real one. The pose cannot tell which.
        s.anchor_conf, s.draw_conf = min(s.anchor_conf, P.held_anchor_conf), min(s.draw_conf, P.held_anchor_conf)


def draw_goes_on(buf: Sequence[TrackFrame], shot: OpenShot) -> int | None:
    """Position in the buffer where the span is growing again the way it does in a draw, not in a hold:
    the anchor was taken too early (bystander: MediaPipe puts the draw hand at the face during the set,
    then the real draw follows). A release is not mistaken for this: its jump opens a candidate first."""
    s = shot
    i = _newest_judged(buf, P.deriv_half_s)
    if not _rate(buf, i, _span) > P.anchor_span_speed_sw_s:
        s.growing_since = None
        return None
    if s.growing_since is None:
        s.growing_since = buf[i].index
    start = find(buf, s.growing_since)
    if start is None or buf[i].t - buf[start].t < P.redraw_s - 1e-6:
        return None
    return i if _span(buf[i]) - _span(buf[start]) - _bow_returned(buf, s, start, i) > P.redraw_growth_sw else None


def _bow_returned(buf: Sequence[TrackFrame], shot: OpenShot, start: int, i: int) -> float:
    """How much of the span's growth from buf[start] to buf[i] is the bow wrist going back out to where it
    reached at the anchor (U): a full draw's bow arm stays out, so a bow wrist that came in and went back out is
    the pose misreading the arm (fault_bow_arm turned 8 deg: 0.6 U in and out in half a second), not a draw."""
    at = find(buf, shot.anchor_at.frame)
    if at is None:
        return 0.0
    anchor, before, now = (float(np.hypot(*buf[k].wrists(shot.handedness)[0])) for k in (at, start, i))
    returned = min(now, anchor) - before  # NaN where any is unseen: nothing known to have returned
    return returned if returned > 0 and not math.isnan(anchor) else 0.0


def draw_leapt(buf: Sequence[TrackFrame], shot: OpenShot) -> bool:
    """Did the span's growth that `draw_goes_on` found take a step no draw makes (`P.redraw_max_step_sw_s`)? Then
    the pose misread the hold (MediaPipe folds it, the draw hand read at the bow hand) and snapped back as the
    string left, or the string was already leaving: the release that comes lies in frames it misread."""
    start = find(buf, shot.growing_since) if shot.growing_since is not None else None
    if start is None:
        return False
    return fastest_draw_step(buf, start, len(buf) - 1, shot.handedness) > P.redraw_max_step_sw_s


def back_at_full_draw(buf: Sequence[TrackFrame], shot: OpenShot) -> int | None:
    """After a release the draw hand does not come back to the face to rest: where, with the bow arm not having
    fallen at that release, it is at the face or near where it left and still (`_at_rest`) for
    P.anchor_confirm_s, the archer is at full draw. The 'release' was the draw going on to a deeper anchor after
    an early one, or the pose moving the hand at the face (0.35 U back in a darker picture); the shot's real
    release may still come. The buffer position where the hand came to rest; None otherwise. A release that
    dropped the bow arm (a thumb release, real03) is a release wherever the hand stays."""
    s = shot
    # A release already said uncertain (it lies in frames the pose did not show, or misread: the long session's
    # shot 3, the shoulders read at half their width for a second) is not second-guessed on those frames.
    if s.evidence is None or s.evidence.bow_arm >= 1.0 or s.release_conf <= P.release_unseen_conf:
        return None
    i = _newest_judged(buf, P.anchor_deriv_half_s)
    f = buf[i]
    if f.index <= s.release_at.frame or not _at_rest(buf, i, s):
        s.rest_since = None
        return None
    if s.rest_since is None:
        # The hand may have come to rest while the release was being confirmed: from there.
        j = i
        while j > 0 and buf[j - 1].index > s.release_at.frame and _at_rest(buf, j - 1, s):
            j -= 1
        s.rest_since = buf[j].index
    start = find(buf, s.rest_since)
    if start is None or f.t - buf[start].t < P.anchor_confirm_s - 1e-6:
        return None
    return start


def _at_rest(buf: Sequence[TrackFrame], i: int, shot: OpenShot) -> bool:
    """At buf[i] the draw hand rests at full draw: at the face, or near where it left (`_near_where_it_left`),
    and still (`_still_at_anchor`)."""
    f = buf[i]
    at = anchor_pose(f, shot.handedness) or _near_where_it_left(f, shot)
    return at and _still_at_anchor(buf, i, shot.handedness)


def _near_where_it_left(f: TrackFrame, shot: OpenShot) -> bool:
    """The draw hand within P.rest_near_left_sw of where it was in the hold it left, the bow arm still out and
    level: no follow-through rests there (the hand flies a shoulder width and more back), so the pose moved the
    hand, not the string (stance_high re-encoded: 0.45 U back and still for 0.3 s, then the release)."""
    bow, draw = f.wrists(shot.handedness)
    if shot.left_from is None or np.isnan(bow[0]) or np.isnan(draw[0]) or np.isnan(f.nose[0]):
        return False
    return _dist(draw, shot.left_from) < P.rest_near_left_sw and bow_arm_out(f, bow)


def arms_read(f: TrackFrame) -> bool:
    """The archer in the picture with a wrist placed: a frame that shows where the arms are."""
    return f.sw_px > 0 and not (np.isnan(f.lw[0]) and np.isnan(f.rw[0]))


def lost_at_anchor(
    buf: Sequence[TrackFrame], back_i: int, sides: Sequence[str], floor_index: int
) -> tuple[int, str] | None:
    """The archer back in the picture at buf[back_i] after a stretch with nobody in it, or with their arms not read
    (`arms_read`: MediaPipe found the shoulders and placed no wrist), and on the last frame seen
    before it the draw hand at the face (`anchor_pose`), brought there by a draw and not leaving it forward (the
    span not closing: a let-down, or the pose losing its hold on the hand): full draw was reached as the picture
    lost them (someone walked in front, MediaPipe lost them in a cropped or dark picture), too soon for the
    anchor to settle. One frame seen alone is a glimpse, not where they were lost. That frame's buffer position
    and the side; None otherwise."""
    k = _before_narrowing(buf, _read_before(buf, back_i))
    if k < 1 or buf[k].index <= floor_index or not arms_read(buf[k - 1]):
        return None
    if _closing(buf, k) < -P.anchor_span_speed_sw_s:
        return None
    for side in sides:
        if anchor_pose(buf[k], side) and _draw_travel(buf, k, floor_index, side) >= P.new_draw_min_sw:
            return k, side
    return None


def _before_narrowing(buf: Sequence[TrackFrame], k: int) -> int:
    """The last frame up to buf[k] that shows the archer at the width they had: MediaPipe often loses an archer in
    a dark or blurred picture by reading the shoulders narrower frame by frame over its last frames, the arms
    pulled in with them (fault_head_trunk 30 % darker: 57 px, 53, then nobody, then 43; 47, 40, 33, 28, then
    nobody). Those frames show the pose failing, not the archer letting down. A run of narrowing frames counts
    when it narrowed by P.lost_narrowing_frac in all; frames with no arms read inside it are passed over."""
    if k < 0:
        return k
    j = k
    while (
        (i := _read_before(buf, j)) >= 0 and buf[j].sw_px < buf[i].sw_px and buf[k].t - buf[i].t <= P.lost_width_ref_s
    ):
        j = i
    return j if buf[k].sw_px < (1 - P.lost_narrowing_frac) * buf[j].sw_px else k


def _read_before(buf: Sequence[TrackFrame], i: int) -> int:
    """Position of the last frame before buf[i] with the arms read (`arms_read`); -1 if none."""
    k = i - 1
    while k >= 0 and not arms_read(buf[k]):
        k -= 1
    return k


def _closing(buf: Sequence[TrackFrame], k: int) -> float:
    """How fast the span changed into buf[k] over the P.deriv_half_s before it (U/s; the frames after it are
    not seen, so one-sided); NaN where it cannot be told."""
    j = k
    while j > 0 and buf[k].t - buf[j - 1].t <= P.deriv_half_s + 1e-6:
        j -= 1
    dt = buf[k].t - buf[j].t
    return (_span(buf[k]) - _span(buf[j])) / dt if dt > 0 else math.nan


def _draw_start_conf(buf: Sequence[TrackFrame], shot: OpenShot) -> float:
    """P.draw_guess_conf when no pause was found at the set, or the bow arm still rose by P.draw_overlap_rise_sw
    after the draw start found."""
    s = shot
    if not s.set_motion <= P.set_pause_max_sw_s:
        return P.draw_guess_conf
    ys = [g.wrists(s.handedness)[0][1] for g in buf if s.draw_at.frame <= g.index <= s.anchor_at.frame]
    ys = [y for y in ys if not math.isnan(y)]
    if len(ys) < 2 or buf[0].index > s.draw_at.frame:
        return P.unrefined_conf
    return P.draw_guess_conf if max(ys) - ys[-1] > P.draw_overlap_rise_sw else P.draw_set_conf


def _settle_anchor(frames: Sequence[TrackFrame], shot: OpenShot, until_t: float) -> float:
    """Move the anchor to where full draw was reached: the first frame after the middle of the draw from
    which the arms stay about as still as in the hold for P.anchor_still_s, with the span within
    P.anchor_span_tol_frac of the draw's extent from the hold's. The anchor is first detected when the draw
    has slowed below P.anchor_span_speed_sw_s, which on an eased draw is well before it ends (and after a
    MediaPipe fold, when the arms are seen again); the hold that follows tells how still "still" is.
    Returns how sure the anchor is."""
    s = shot
    side = s.handedness
    buf = list(frames)
    det = find(buf, s.anchor_at.frame)
    if det is None:
        return P.unrefined_conf
    hi = len(buf) - 1
    while hi > det and buf[hi].t > until_t - P.hold_ref_gap_s:
        hi -= 1
    if hi - det < 3:
        return P.unrefined_conf
    lo = det
    while lo > 0 and buf[lo - 1].index >= s.mid_at.frame:
        lo -= 1
    motion = [_motion(buf, j, side) for j in range(lo, hi + 1)]
    spans = [_span(buf[j]) for j in range(lo, hi + 1)]
    hold_m = [m for m in motion[det - lo :] if not math.isnan(m)]
    late = [sp for sp in spans[det - lo :] if not math.isnan(sp)]
    draw_m = [m for m in motion[: det - lo + 1] if not math.isnan(m)]
    if len(hold_m) < 3 or not late:
        return P.unrefined_conf
    still = float(np.percentile(hold_m, 25))
    peak = float(np.percentile(draw_m, 90)) if draw_m else 0.0
    still += min(P.set_motion_tol_sw_s, max(P.set_motion_tol_min_sw_s, P.set_motion_tol_frac * peak))
    s_hold = float(np.median(late))
    extent = s_hold - s.set_span if not math.isnan(s.set_span) else 0.0
    span_tol = _span_tol(late, extent)
    at_span: int | None = None
    for k in range(det, hi + 1):
        # The span comes to the hold's from either side: it grows in a draw seen face-on, and shrinks while
        # a bow arm held low at the start of a draw seen close-up rises into line (real07).
        if not abs(spans[k - lo] - s_hold) <= span_tol:
            continue
        if at_span is None:
            at_span = k
            settle = max(P.anchor_settle_max_s, P.anchor_settle_draw_frac * (buf[k].t - s.draw_at.t))
        if buf[k].t - buf[at_span].t > settle + 1e-6:
            break
        j = k
        ok = True
        while j <= hi and buf[j].t - buf[k].t <= P.anchor_still_s + 1e-6:
            if not motion[j - lo] <= still:
                ok = False
                break
            j += 1
        if ok:
            s.anchor_at = Mark(buf[k].index, buf[k].t)
            # The span may have reached the hold's before the arms came to rest: the draw ended in between.
            arrived = det + _span_arrival(spans[det - lo : k - lo + 1], spans[k - lo :], extent)
            s.anchor_from = Mark(buf[arrived].index, buf[arrived].t) if arrived < k else None
            return P.anchor_still_conf
    # The arms never settled as still as the hold's quieter half soon after the span was reached: a
    # jittery hold (handheld phone, MediaPipe noise) where the draw ended at once. The span tells.
    if at_span is None:
        return P.unrefined_conf
    at_span = lo + _braked(motion, at_span - lo, hi - lo)
    s.anchor_at = Mark(buf[at_span].index, buf[at_span].t)
    return P.anchor_span_conf


def _braked(motion: list[float], k: int, last: int) -> int:
    """From position k of `motion`, on to where the draw hand stopped braking into the anchor: while the arms'
    speed still falls by P.anchor_braking_ratio into the next frame, the draw has not ended. A hold the camera
    shakes never looks as still as its quieter quarter, so the span alone placed the anchor, and the span
    reaches the hold's while the hand still brakes (real05, handheld: 6 frames early)."""
    while k < last and motion[k + 1] < P.anchor_braking_ratio * motion[k]:  # NaN compares False
        k += 1
    return k


def _span_tol(hold: list[float], extent: float) -> float:
    """How near the hold's span (`hold`: its spans, none NaN) full draw is: P.anchor_span_tol_frac of the
    draw's extent, or P.anchor_span_wander_factor times the hold's interquartile range if more (MediaPipe's
    span wanders in a steady hold, a bow wrist creeping 0.1 U: no tighter than that)."""
    wander = float(np.percentile(hold, 75) - np.percentile(hold, 25))
    return max(P.anchor_span_tol_frac * abs(extent), P.anchor_span_wander_factor * wander)


def _span_arrival(before: list[float], hold: list[float], extent: float) -> int:
    """The first position in `before` (the draw's end, up to the anchor) whose span is within `_span_tol` of
    the median of `hold`, the spans from the anchor on: the earliest the draw may have ended. The hold is
    measured from the anchor, not from where the draw first slowed, so a draw that creeps on to the anchor
    does not widen it."""
    seen = [sp for sp in hold if not math.isnan(sp)]
    if not seen:
        return len(before) - 1
    tol, mid = _span_tol(seen, extent), float(np.median(seen))
    return next((j for j, sp in enumerate(before) if abs(sp - mid) <= tol), len(before) - 1)
