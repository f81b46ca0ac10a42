"""The draw elbow standing in for a draw hand the pose cannot see (behind views).

Filmed from behind, the draw hand sits behind the head for the whole shot: MediaPipe doubts the wrist (real06:
visibility 0.06-0.25, so `body_stream` drops it) and no anchor is ever found from it. The draw elbow, outside
the head's shadow, is often seen (real06: 0.5-0.66). When the bow arm was raised and held with no anchor found
(the tracker's unseen draw), the elbow's path tells what the hand's would have:

- full draw: the elbow drawn back level with the arrow — not in front of the draw shoulder towards the bow hand,
  not hanging below it — and still (`_drawn`, `_elbow_anchor`);
- the release: the elbow's sudden move forward (towards the bow hand) or down relative to the draw shoulder, as
  the string leaves and the hand flies round behind the neck, not undone in the frames after it
  (`_elbow_release`). Expansion through the clicker moves the elbow back, aiming moves it slowly: neither counts;
- or the release told by the hand itself: hidden at full draw, it is seen again flown back past the face and stays
  away (`_hand_seen_back`; filmed from above, the head hides the hand at the anchor: stance_high shot 2). The string
  left while it was hidden, at the latest there.

Everything is relative to the draw shoulder and in shoulder widths, so the phone's pan and zoom cancel out. The
marks it finds are never sure (P.elbow_*_conf < results.MIN_MARK_CONFIDENCE): the rules resting on them are not
judged, and the rules that need the draw hand have no hand to measure (not assessable), never the elbow instead.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from .frames import ArcherSize, TrackFrame, ViewAfter, _ahead, _face_dist, _rate, find, view_after
from .params import P
from .shot import LetDown, ShotPhases, UnseenDraw


@dataclass(frozen=True, slots=True)
class ElbowShot:
    """A shot the draw elbow told of: buffer positions of its draw start (None: not seen), full draw and release,
    and how sure each is."""

    draw_i: int | None
    anchor_i: int
    anchor_conf: float  # P.elbow_anchor_conf when the elbow was seen arriving, else 0 (at full draw by then)
    release_i: int
    release_conf: float
    evidence: tuple[str, ...]  # "draw_elbow" or "draw_hand" (seen flown back), and "bow_arm" when the bow hand fell


def _back(g: TrackFrame, side: str) -> np.ndarray | None:
    """Unit vector from the bow hand to the draw shoulder (the way back along the arrow; the shoulder line when
    the bow hand is not seen), or None."""
    ds = g.draw_shoulder(side)
    bow = g.wrists(side)[0]
    v = ds - bow if not np.isnan(bow[0]) else ds * 2.0
    n = math.hypot(v[0], v[1])
    return v / n if n > 0 else None


def _hand_hidden_elbow_seen(g: TrackFrame, side: str) -> bool:
    return np.isnan(g.wrists(side)[1][0]) and not np.isnan(g.draw_elbow(side)[0])


def _drawn(g: TrackFrame, side: str) -> bool:
    """The draw hand hidden and the draw elbow at full draw: back level with the arrow, not in front of the draw
    shoulder (towards the bow hand) by more than P.elbow_ahead_max_sw nor below it by more than
    P.elbow_below_max_sw."""
    if not _hand_hidden_elbow_seen(g, side):
        return False
    back = _back(g, side)
    e = g.draw_elbow(side)
    return back is not None and float(e @ back) >= -P.elbow_ahead_max_sw and e[1] <= P.elbow_below_max_sw


def _still(buf: Sequence[TrackFrame], i: int, side: str) -> bool:
    h = P.anchor_deriv_half_s
    vx = _rate(buf, i, lambda f: f.draw_elbow(side)[0], h)
    vy = _rate(buf, i, lambda f: f.draw_elbow(side)[1], h)
    return math.hypot(vx, vy) < P.anchor_hand_speed_sw_s


def _elbow_anchor(buf: Sequence[TrackFrame], lo: int, hi: int, side: str) -> tuple[int, float] | None:
    """The first position in [lo, hi] from which the elbow stays drawn and still for P.anchor_confirm_s, and how
    sure that is: the elbow seen before it, away from full draw, arrived there; first seen there, it was at full
    draw by then (the anchor unknown)."""
    run = None
    for k in range(lo, hi + 1):
        if not (_drawn(buf[k], side) and _still(buf, k, side)):
            run = None
            continue
        run = k if run is None else run
        if buf[k].t - buf[run].t >= P.anchor_confirm_s - 1e-6:
            arrived = any(not np.isnan(buf[j].draw_elbow(side)[0]) and not _drawn(buf[j], side) for j in range(lo, run))
            return run, P.elbow_anchor_conf if arrived else 0.0
    return None


def _elbow_draw_start(buf: Sequence[TrackFrame], lo: int, anchor_i: int, side: str) -> int | None:
    """Where the draw began, from the elbow: walked back from the last position before the anchor where it was
    still in front of the draw shoulder or below it (the hand on the string at the set) over the frames it was
    still moving (P.raise_onset_speed_sw_s); None if it was not seen there."""
    k = anchor_i - 1
    while k >= lo and (np.isnan(buf[k].draw_elbow(side)[0]) or _drawn(buf[k], side)):
        k -= 1
    if k < lo:
        return None
    while k > lo and _speed(buf, k - 1, side) > P.raise_onset_speed_sw_s:
        k -= 1
    return k


def _speed(buf: Sequence[TrackFrame], i: int, side: str) -> float:
    """How fast the draw elbow moves relative to the draw shoulder at buf[i] (U/s, smoothed)."""
    return math.hypot(_rate(buf, i, lambda f: f.draw_elbow(side)[0]), _rate(buf, i, lambda f: f.draw_elbow(side)[1]))


def _forward_down_speed(buf: Sequence[TrackFrame], k: int, side: str, back: np.ndarray) -> float:
    """How fast the raw draw elbow moved from buf[k-1] to buf[k] forward (against `back`) or down, relative to
    the draw shoulder (U/s; NaN where either frame lost it)."""
    a, b = buf[k - 1].raw_draw_elbow(side), buf[k].raw_draw_elbow(side)
    dt = buf[k].t - buf[k - 1].t
    if np.isnan(a[0]) or np.isnan(b[0]) or dt <= 0:
        return math.nan
    step = (b - a) / dt
    return max(-float(step @ back), float(step[1]))


def _raw_jitter(buf: Sequence[TrackFrame], lo: int, hi: int, side: str) -> float:
    """Median frame-to-frame speed of the raw draw elbow over buf[lo..hi]: the hold's own jitter (U/s)."""
    v = []
    for k in range(max(lo, 1), hi + 1):
        a, b = buf[k - 1].raw_draw_elbow(side), buf[k].raw_draw_elbow(side)
        dt = buf[k].t - buf[k - 1].t
        if not (np.isnan(a[0]) or np.isnan(b[0])) and dt > 0:
            v.append(math.hypot(*(b - a)) / dt)
    return float(np.median(v)) if v else 0.0


def _hold_back(buf: Sequence[TrackFrame], lo: int, hi: int, side: str) -> np.ndarray | None:
    """The way back along the arrow over the hold (median of each frame's), or None."""
    vs = [b for k in range(lo, hi + 1) if (b := _back(buf[k], side)) is not None]
    if not vs:
        return None
    v = np.median(np.asarray(vs), axis=0)
    n = math.hypot(v[0], v[1])
    return v / n if n > 0 else None


def _stays_away(buf: Sequence[TrackFrame], k: int, away: Callable[[TrackFrame], bool]) -> bool | None:
    """In the second half of the P.release_confirm_s after the jump into buf[k], is what jumped still `away` on most
    frames the archer is seen in (True), back (False: a twitch, or a hidden point misplaced for a frame), or was
    nothing seen (None: the picture lost the archer)?"""
    t0 = buf[k].t
    votes = []
    for g in buf[k + 1 :]:
        if g.t - t0 > P.release_confirm_s + 1e-6:
            break
        if g.t - t0 >= P.release_confirm_s / 2 - 1e-6 and g.sw_px > 0:
            votes.append(away(g))
    return sum(votes) > len(votes) / 2 if votes else None


def _stayed_away(buf: Sequence[TrackFrame], k: int, side: str) -> bool | None:
    """Is the elbow still off where it left before the jump into buf[k] (`_stays_away`)? An elbow the pose lost
    with the archer in view has gone behind the body: away."""
    left_from = buf[k - 1].raw_draw_elbow(side)

    def away(g: TrackFrame) -> bool:
        e = g.raw_draw_elbow(side)
        return bool(np.isnan(e[0]) or math.hypot(*(e - left_from)) >= P.elbow_confirm_sw)

    return _stays_away(buf, k, away)


def _bow_fell(buf: Sequence[TrackFrame], hold_lo: int, k: int, side: str) -> bool:
    """The bow hand fell by P.release_bow_drop_sw from its hold height within P.release_confirm_s of the jump."""
    ys = [buf[j].wrists(side)[0][1] for j in range(hold_lo, k)]
    ys = [y for y in ys if not math.isnan(y)]
    if not ys:
        return False
    ref = float(np.median(ys))
    after = [g.wrists(side)[0][1] for g in buf[k:] if g.t - buf[k].t <= P.release_confirm_s + 1e-6]
    return any(y - ref >= P.release_bow_drop_sw for y in after if not math.isnan(y))


def _elbow_release(buf: Sequence[TrackFrame], anchor_i: int, hi: int, side: str) -> tuple[int, bool | None] | None:
    """The release: the first sudden forward-or-down move of the elbow from full draw, in the last
    P.follow_max_s before the bow arm was last seen up (buf[hi]; a release ends the hold, the arm comes down
    within a follow-through), that the frames after it do not undo. (position, stayed away: True, or None for
    the picture lost) or None."""
    t_end = buf[hi].t
    for k in range(anchor_i + 1, len(buf)):
        g = buf[k]
        if g.t > t_end + P.raised_gap_s + 1e-6:
            break
        if t_end - g.t > P.follow_max_s + 1e-6 or not _drawn(buf[k - 1], side):
            continue
        lo = anchor_i
        while lo < k and g.t - buf[lo].t > P.hold_jitter_s + 1e-6:
            lo += 1
        back = _hold_back(buf, lo, k - 1, side)
        if back is None:
            continue
        speed = _forward_down_speed(buf, k, side, back)
        if not speed >= max(P.elbow_release_speed_sw_s, P.elbow_jitter_factor * _raw_jitter(buf, lo, k - 1, side)):
            continue
        stayed = _stayed_away(buf, k, side)
        if stayed is False:
            continue  # a twitch: back where it left
        return k, stayed
    return None


def _flown_back(g: TrackFrame, side: str) -> bool:
    """The draw hand seen past the face, behind it (away from the bow hand) and about level with the shoulders:
    where a release flies it, and where no draw or let-down puts it."""
    draw = g.wrists(side)[1]
    if np.isnan(draw[0]):
        return False
    return _face_dist(g, draw) >= P.anchor_face_max_sw and _ahead(g, side) < 0 and abs(draw[1]) < P.raise_level_below_sw


def _hand_seen_back(buf: Sequence[TrackFrame], anchor_i: int, hi: int, side: str) -> tuple[int, bool | None] | None:
    """The release told by the draw hand itself: hidden at full draw, seen again flown back past the face
    (`_flown_back`) and staying there, in the last P.follow_max_s before the bow arm was last seen up (buf[hi]).
    The string left while the hand was hidden: at the latest where it is seen again. (position, stayed back: True,
    or None for the picture lost) or None."""
    t_end = buf[hi].t
    for k in range(anchor_i + 1, len(buf)):
        g = buf[k]
        if g.t > t_end + P.raised_gap_s + 1e-6:
            break
        if t_end - g.t > P.follow_max_s + 1e-6 or not np.isnan(buf[k - 1].wrists(side)[1][0]):
            continue
        if not _flown_back(g, side):
            continue
        stayed = _stays_away(buf, k, lambda f: _flown_back(f, side))
        if stayed is False:
            continue
        return k, stayed
    return None


def _release(buf: Sequence[TrackFrame], anchor_i: int, hi: int, side: str) -> tuple[int, float, str] | None:
    """The first release told, by the elbow's jump or by the hand seen flown back: (position, how sure, evidence)."""
    told = []
    if (e := _elbow_release(buf, anchor_i, hi, side)) is not None:
        told.append((e[0], P.elbow_release_conf if e[1] else P.elbow_release_lost_conf, "draw_elbow"))
    if (h := _hand_seen_back(buf, anchor_i, hi, side)) is not None:
        told.append((h[0], P.hand_back_release_conf if h[1] else P.elbow_release_lost_conf, "draw_hand"))
    return min(told) if told else None


def elbow_shot(buf: Sequence[TrackFrame], lo: int, hi: int, side: str) -> ElbowShot | None:
    """The shot the draw elbow tells of while the bow arm was up from buf[lo] to buf[hi] with no anchor found
    from the hand, or None: its full draw, and the release that ended it."""
    anchor = _elbow_anchor(buf, lo, hi, side)
    if anchor is None:
        return None
    anchor_i, anchor_conf = anchor
    found = _release(buf, anchor_i, hi, side)
    if found is None:
        return None
    k, conf, told = found
    evidence: tuple[str, ...] = (told,)
    if _bow_fell(buf, anchor_i, k, side):
        evidence += ("bow_arm",)
    draw_i = _elbow_draw_start(buf, lo, anchor_i, side) if anchor_conf > 0 else None
    return ElbowShot(draw_i, anchor_i, anchor_conf, k, conf, evidence)


def _same_archer_after(buf: Sequence[TrackFrame], shot: ElbowShot, until_t: float) -> bool:
    """As for a shot the hand showed (`PhaseTracker._view_after`): the frames from P.view_check_after_s after the
    release show the archer of the hold (`view_after`), or there was none to look at (the video ended). Up to
    `until_t`, P.raised_gap_s after the bow arm was last seen up: the follow-through's view, not whatever the
    picture shows once the stretch, held open while the arms were not seen, has ended."""
    t_rel = buf[shot.release_i].t
    after = [g for g in buf[shot.release_i :] if t_rel + P.view_check_after_s <= g.t <= until_t + 1e-6]
    # None of an elbow shot's marks is sure already: a misread hold changes nothing of it.
    return view_after(after, ArcherSize.of(buf[shot.anchor_i : shot.release_i])) is not ViewAfter.CHANGED


def stand_in(
    buf: Sequence[TrackFrame], raised: UnseenDraw, sides: tuple[str, ...], index: int
) -> ShotPhases | LetDown | None:
    """What the draw elbow tells of a bow arm raised and held with no anchor seen from the hand (`raised`, the
    tracker's unseen draw, with the frames after it in `buf`), for the first of `sides` it tells of (the archer's
    handedness, or both when unknown: a side whose draw wrist is in view, the bow hand, is no stand-in): a shot;
    a full draw the picture lost right after the elbow's release (`LetDown` "view_lost" carrying the shot: an
    edit's cut looks the same, real10, so only the string's sound can tell, heard.py); or None (the elbow tells
    nothing: an unseen draw).

    The raise is where the bow arm was first seen up (its start was before: P.elbow_raise_conf), the draw start
    where the elbow left the set when it was seen there (else unknown: 0), the anchor and release from the elbow,
    none of them sure."""
    lo, hi = find(buf, raised.first_frame), find(buf, raised.last_frame)
    if hi is None:
        return None
    lo = 0 if lo is None else lo
    side, found = next(((d, e) for d in sides if (e := elbow_shot(buf, lo, hi, d)) is not None), ("", None))
    if found is None:
        return None
    end = max(hi, found.release_i)
    draw_i = lo if found.draw_i is None else found.draw_i
    raise_i = min(lo, draw_i)
    times = {g.index: g.t for g in buf}
    marks = (buf[raise_i].index, buf[draw_i].index, buf[found.anchor_i].index, buf[found.release_i].index)
    draw_conf = 0.0 if found.draw_i is None else P.elbow_anchor_conf
    sp = ShotPhases.on_marks(
        index,
        (*marks, buf[end].index),
        times.get,
        side,
        release_confidence=found.release_conf,
        release_evidence=found.evidence,
        marks_confidence={"raise_start": P.elbow_raise_conf, "draw_start": draw_conf, "anchor": found.anchor_conf},
    )
    if _same_archer_after(buf, found, raised.last_s + P.raised_gap_s):
        return sp
    a, e = buf[found.anchor_i], buf[end]
    return LetDown(a.index, e.index, a.t, e.t, "view_lost", sp)
