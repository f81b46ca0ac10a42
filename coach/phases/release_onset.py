"""Where a confirmed release is (`place_release`): the frame the draw hand left the anchor, found on the raw
points, how sure that frame is (`_unseen_about`: the frames about it the pose did not read, or misread), and
whether the hand stayed at the face after it.

The candidate that opened the confirmation window fires on hold twitches too, so the release may come a little
after it; and the smoothed points lag the raw ones. So the window is walked to the jump (the start of its last
run away from the anchor: a lone near frame inside it is MediaPipe throwing the hand, a creep forward just before
it is passed), then back on the raw points to the first fast step away (`_release_onset`). A thumb release that
gave no clear jump is placed where the bow arm began to fall (`_bow_drop_onset`). Whether a window confirms a
release is release.py's; this module only places one."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from .frames import ArcherSize, TrackFrame, _dist, _nan_low, _span, fastest_draw_step, find
from .params import P
from .state import Mark, OpenShot, ReleaseEvidence


def _hand_stayed(buf: Sequence[TrackFrame], on: int, side: str, hold_span: float) -> bool:
    """From buf[on] to now the span grew less than P.hand_stayed_sw over the hold's (`hold_span`; else the
    frame before buf[on]), with the draw hand seen through the later half of that time: seen staying, not
    lost as it flew back (that tells nothing)."""
    before = hold_span if not math.isnan(hold_span) else _span(buf[on - 1]) if on > 0 else math.nan
    if math.isnan(before):
        return False
    window = [buf[k] for k in range(on, len(buf))]
    t_mid = (window[0].t + window[-1].t) / 2
    late = [g for g in window if g.t >= t_mid]
    seen = sum(not np.isnan(g.wrists(side)[1][0]) for g in late)
    if 2 * seen < len(late):
        return False
    return max((_span(g) - before for g in window), key=_nan_low) < P.hand_stayed_sw


def _raw_hold_speed(buf: Sequence[TrackFrame], lo_t: float, hi_t: float, handedness: str) -> float:
    """Median frame-to-frame speed of the raw draw wrist between lo_t and hi_t: the hold's own jitter."""
    v = []
    for i in range(len(buf) - 1, 0, -1):
        b, a = buf[i], buf[i - 1]
        if b.t > hi_t:
            continue
        if a.t < lo_t:
            break
        pa, pb = a.raw_draw(handedness), b.raw_draw(handedness)
        if not (np.isnan(pa[0]) or np.isnan(pb[0])) and b.t > a.t:
            v.append(_dist(pa, pb) / (b.t - a.t))
    return float(np.median(v)) if v else 0.0


def _release_onset(buf: Sequence[TrackFrame], jump_i: int, handedness: str, ref: np.ndarray, min_speed: float) -> int:
    """The first frame the draw hand moved, walking back from the detected jump on the raw points: the
    earliest frame reached from the jump by steps that are all fast and all away from the anchor. A frame the
    pose did not show (MediaPipe folded or mirrored the arms as the string left: the long session, two frames
    into each flight) is stepped over, not taken for the hand stopping; a fast step across it began after the
    frame before it. So is a frame that repeats the picture before it (`TrackFrame.repeat`: a phone or a converter
    keeping its rate): it is no look at the hand, so its standing still is not the hand's. A fast step back
    towards the anchor is a frame read late (MediaPipe lagging a hand that starts to fly) when the frame before it
    showed the hand gone (`_gone`) and a fast step away reached that frame: the release is there."""
    t_jump = buf[jump_i].t
    i = jump_i
    while i + 1 < len(buf) and _no_look(buf[i], handedness) and buf[i + 1].t - t_jump <= P.release_onset_back_s + 1e-6:
        i += 1  # the jump's own frame unseen on the raw points, or a repeat: from the first look after it
    if _unseen(buf[i], handedness):
        return jump_i
    onset = min(i, jump_i)
    # The way the hand left: hold jitter may move it towards or away from the anchor median, but the
    # release moves it along one direction.
    way = buf[i].raw_draw(handedness) - ref
    min_speed = max(min_speed, P.onset_peak_share * _peak_step_speed(buf, jump_i, handedness))
    crossed = False  # the last step was taken across frames in which the pose did not find the hand
    # The last step went back towards the anchor, fast, from a frame that showed the hand gone: buf[i] was read
    # where the hand was a moment before (the long session read at the full rate, its third shot: 0.28 U out, then
    # a frame 0.06 U off the anchor, then on; placed after it, 3 frames late). The walk takes buf[j] only if a fast
    # step away reached it, and stops there: before a frame read out of order, the steps are no surer than it (one
    # step further, landmarks jittered by 0.01 put fault_bow_arm's release 2 frames early). A hold's jitter (not
    # gone) stops the walk where it was.
    lagged = False
    while True:
        j = i - 1
        while j > 0 and _no_look(buf[j], handedness) and t_jump - buf[j].t <= P.release_onset_back_s + 1e-6:
            j -= 1
        if j < 0 or _no_look(buf[j], handedness) or t_jump - buf[j].t > P.release_onset_back_s + 1e-6:
            break
        a, b = buf[j].raw_draw(handedness), buf[i].raw_draw(handedness)
        dt = buf[i].t - buf[j].t
        step = b - a
        # Into the last frame before frames that did not show it, the hand was already leaving only if it moved
        # as a release does: a hold's sway there is not the flight (fault_hold with 0.2 s hidden over its release
        # was placed at that frame, sure, 4 early; the string left in the frames not seen).
        need = max(min_speed, P.release_speed_sw_s) if crossed else min_speed
        if dt <= 0 or math.hypot(*step) / dt <= need:
            break
        if float(step @ way) <= 0.0:  # back towards the anchor: buf[i] read late, if buf[j] showed the hand gone
            if lagged or not _gone(a, ref, way):
                break
            lagged = True
        else:
            onset = min(onset, j + 1)
            if lagged:
                break  # at the frame seen gone: the steps before it are no surer than the one it was read from
        crossed = any(_unseen(buf[k], handedness) for k in range(j + 1, i))  # a repeat is the hand seen
        i = j
    return onset


def _gone(p: np.ndarray, ref: np.ndarray, way: np.ndarray) -> bool:
    """The raw draw wrist `p` is P.release_start_sw or more out from the anchor `ref` along `way`: the hand gone."""
    n = float(np.hypot(*way))
    return n > 0 and float((p - ref) @ way) / n >= P.release_start_sw


def _unseen(g: TrackFrame, handedness: str) -> bool:
    return bool(np.isnan(g.raw_draw(handedness)[0]))


def _no_look(g: TrackFrame, handedness: str) -> bool:
    """The draw hand not shown at g: unseen, or the picture before repeated."""
    return g.repeat or _unseen(g, handedness)


def _bow_drop_onset(buf: Sequence[TrackFrame], cand_i: int, handedness: str, min_speed: float) -> int:
    """The first frame the bow wrist fell at the release: from its fastest fall (raw points) between the
    candidate and now, walked back over steps that all fall faster than `min_speed`, no further back than
    P.release_onset_back_s before the candidate."""

    def fall(i: int) -> float:
        a, b = buf[i - 1].raw_bow(handedness), buf[i].raw_bow(handedness)
        dt = buf[i].t - buf[i - 1].t
        return (b[1] - a[1]) / dt if dt > 0 and not (np.isnan(a[1]) or np.isnan(b[1])) else -math.inf

    i = max(range(max(cand_i, 1), len(buf)), key=fall, default=cand_i)
    while i > 1 and buf[cand_i].t - buf[i - 1].t <= P.release_onset_back_s + 1e-6 and fall(i - 1) > min_speed:
        i -= 1
    return i - 1 if fall(i) > min_speed else i


def _peak_step_speed(buf: Sequence[TrackFrame], jump_i: int, handedness: str) -> float:
    """The fastest frame-to-frame speed of the raw draw wrist from buf[jump_i] to P.release_onset_back_s later."""
    hi = jump_i
    while hi + 1 < len(buf) and buf[hi + 1].t - buf[jump_i].t <= P.release_onset_back_s + 1e-6:
        hi += 1
    return fastest_draw_step(buf, jump_i + 1, hi, handedness)


def place_release(
    buf: Sequence[TrackFrame],
    shot: OpenShot,
    ds: list[tuple[int, float]],
    thr: float,
    ev: ReleaseEvidence,
    min_conf: float = 0.0,
) -> None:
    """Put the confirmed release on `shot`: its frame, confidence and evidence, the hold's scale, and whether
    the hand stayed. `ds`: (buffer position, distance from the anchor) over the confirmation window; `thr`: the
    distance that confirms."""
    s = shot
    s.evidence = ev
    s.release_conf = max(ev.confidence, min_conf)
    # Over the whole hold: MediaPipe may misread the last moments of it (clean_rh_3shots, 0.7 s before shot 3).
    s.hold_size = ArcherSize.of([g for g in buf if s.anchor_at.frame <= g.index and g.t < s.cand.t])
    ref = s.left_from = s.cand.ref
    jump = _jump(buf, shot, ds, thr)
    # A jittery hold (noisy points, a release aid's creep) needs a faster step to count as moving.
    t_c = s.cand.t
    lo = max(s.anchor_at.t, t_c - P.hold_jitter_s)
    jitter = _raw_hold_speed(buf, lo, t_c - P.hold_ref_gap_s, shot.handedness)
    min_speed = max(P.release_onset_speed_sw_s, P.release_onset_jitter_factor * jitter)
    on = _release_onset(buf, jump, shot.handedness, ref, min_speed)
    if s.cand.by_bow and ev.bow_arm >= 1.0:
        # The hand gave no clear jump (a thumb release springs back slowly): the string leaving moved both
        # arms, and the bow arm's fall began at the release. Where the hand did jump, that is the release
        # (a bow arm sagging in the last moments of the hold, real08, is not).
        on = min(on, _bow_drop_onset(buf, find(buf, s.cand.index), shot.handedness, min_speed))
    anchor_pos = find(buf, s.anchor_at.frame)
    if anchor_pos is not None:
        on = max(on, anchor_pos + 1)
    s.release_at = Mark(buf[on].index, buf[on].t)
    way = s.cand.back if s.cand.back is not None else buf[on].raw_draw(s.handedness) - ref
    if _unseen_about(buf, on, s.handedness, ref, way, math.nan) > P.release_unseen_max_frames:
        s.release_conf = min(s.release_conf, P.release_unseen_conf)
    elif _unseen_about(buf, on, s.handedness, ref, way, s.cand.span_ref) > P.release_unseen_max_frames:
        s.release_misread = True
    s.hand_stayed = _hand_stayed(buf, on, s.handedness, s.cand.span_ref)
    s.cand = None


def _in_front(buf: Sequence[TrackFrame], shot: OpenShot, i: int) -> bool:
    """The hand at buf[i] is off the anchor towards the bow hand (within 60 deg of straight forward): a
    creep before the release or a let-down, which a release, going back, has to pass the anchor to leave."""
    c = shot.cand
    p = buf[i].wrists(shot.handedness)[1]
    d = _dist(p, c.ref)
    if c.back is None or np.isnan(p[0]) or d == 0:
        return False
    return float((p - c.ref) @ c.back) / d < P.release_back_min_cos


def _jump(buf: Sequence[TrackFrame], shot: OpenShot, ds: list[tuple[int, float]], thr: float) -> int:
    """The buffer position where the hand left the anchor for good: from here on it stays away."""
    # Candidates fire on hold twitches too,
    # so the release may come a little after the frame that opened the window.
    # A frame or two of garbage at the end (MediaPipe mirrors the body as the hand flies out of view,
    # placing it back near the face) is not the hand coming back.
    n_back = 0
    while n_back < len(ds) and ds[-1 - n_back][1] < thr / 2:
        n_back += 1
    if 0 < n_back <= P.release_end_glitch_frames and n_back < len(ds):
        ds = ds[:-n_back]
    # Near frames inside the away run are the hand back at the anchor only once they last P.release_near_run_s, a
    # time and not a count of frames (two frames are 67 ms at 30 fps, 33 ms at 60). Shorter, they are MediaPipe
    # throwing the hand past the anchor (fault_bow_arm: wrists swapped 8 frames into the release) or a hand
    # lingering by the chin that a noisier pose reads just inside the near distance (real07, three frames). A near
    # frame counts only where its raw point is seen near too (`_seen_near`): not where the smoothing lags the hand.
    jump = ds[-1][0]
    period = _frame_period(buf, ds[0][0], ds[-1][0])
    near_from: int | None = None  # the latest frame of the near run being walked back over
    later = ds[-1][0]
    for i, d in reversed(ds):
        if _short_before_gap(buf, i, later, d, thr, shot.handedness):
            break
        later = i
        if d < thr / 2 and _seen_near(buf[i], shot, thr):
            near_from = i if near_from is None else near_from
            if buf[near_from].t - buf[i].t + period >= P.release_near_run_s - 1e-6:
                break
            continue
        near_from = None
        jump = i
    # The run may begin with the hand in front of the anchor: a creep forward just before the release
    # (fault_release at 15 fps, where no frame catches the hand passing back through the anchor). The
    # release begins where it first went back.
    run = [i for i, _ in ds if i >= jump]
    for i, nxt in zip(run, run[1:]):
        if not _in_front(buf, shot, i):
            break
        jump = nxt
    return jump


def _seen_near(g: TrackFrame, shot: OpenShot, thr: float) -> bool:
    """The raw draw wrist at g is seen near the anchor (within half the confirmation distance `thr`), as the
    smoothed one is: only then is g a look at the hand back at the anchor. The smoothing lags a hand flying back
    at 10 U/s by a frame or two, so the first frames of a release read near on the smoothed points while the raw
    ones are already away; and where the pose lost the hand the smoothed point is the filter's memory of it (the
    long session read adaptively, shot 9: its first frame 0.25 U back raw, 0.16 smoothed; then two frames the
    pose misread near the face and one it lost, which made the 0.1 s of "back at the anchor" that put the release
    4 frames late)."""
    p = g.raw_draw(shot.handedness)
    return not np.isnan(p[0]) and _dist(p, shot.cand.ref) < thr / 2


def _short_before_gap(buf: Sequence[TrackFrame], i: int, after: int, d: float, thr: float, side: str) -> bool:
    """buf[i] is the last frame seen before a stretch longer than a release's flight (P.release_onset_back_s) in
    which the pose did not show the draw hand, up to buf[after], and it showed the hand short of the distance that
    confirms (`thr`): that the hand was on its way is not known, and the string may have left anywhere in the
    stretch (clean_rh_3shots at 480p: the archer lost for 0.8 s and glimpsed folded in the middle of it, the hand
    0.23 U off the anchor; the release came after it). The run away from the anchor is not walked back across it."""
    gap = buf[after].t - buf[i].t > P.release_onset_back_s + 1e-6
    return gap and d < thr and all(_unseen(buf[k], side) for k in range(i + 1, after))


def _frame_period(buf: Sequence[TrackFrame], lo: int, hi: int) -> float:
    """The time from one frame to the next over buf[lo..hi] (s; the nominal 30 fps where it cannot be told)."""
    return (buf[hi].t - buf[lo].t) / (hi - lo) if hi > lo and buf[hi].t > buf[lo].t else 1 / 30


def _unseen_about(
    buf: Sequence[TrackFrame], on: int, handedness: str, ref: np.ndarray, way: np.ndarray, hold_span: float
) -> int:
    """How many frames around buf[on] did not show where the draw hand was: between the last frame before it that
    showed the hand not yet gone and the first from it on that showed the arms as they are. The frames between
    did not show the hand, repeated the picture before (no look at the hand, as `_release_onset` steps over
    them), showed it already P.release_start_sw or more from the anchor `ref` along `way` (a creep forward before
    the release is not gone), or showed the arms misread (`_misread`: the span closed, which no release does).
    The release may be any of them."""
    after = on
    while after < len(buf) - 1 and (buf[after].repeat or _garbled(buf[after], handedness, hold_span)):
        after += 1
    for j in range(on - 1, -1, -1):
        p = buf[j].raw_draw(handedness)
        if buf[j].repeat or np.isnan(p[0]) or _misread(buf[j], hold_span):
            continue
        if not _gone(p, ref, way):
            return buf[after].index - buf[j].index - 1
    return buf[after].index - buf[0].index


def _misread(g: TrackFrame, hold_span: float) -> bool:
    """The raw span between the wrists closed by P.release_misread_close_sw or more from the hold's (`hold_span`):
    a release never closes it (the hand flies back, the bow arm drops or rolls forward), so the pose misread the
    arms on this frame (folded them, or put the draw hand at the bow hand) as the string left."""
    return _dist(g.raw_lw, g.raw_rw) < hold_span - P.release_misread_close_sw  # NaN compares False


def _garbled(g: TrackFrame, handedness: str, hold_span: float) -> bool:
    return _unseen(g, handedness) or _misread(g, hold_span)
