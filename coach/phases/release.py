"""The release: a jump of the draw hand in the hold opens a candidate (`ReleaseWatch.open`); the frames after
it confirm or dismiss it from several signals, each with its own weight (`ReleaseEvidence`); the release frame is
then placed on the raw points (coach/phases/release_onset.py).

No single signal holds across views and styles: a Mediterranean release sends the hand far back, a thumb
release or a close face-on view moves it 0.2 U while the bow arm drops; a hold twitch moves the hand and
comes back, and leaves the bow arm still. One release per hold: after it the shot only waits for the end of
its follow-through."""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from .frames import TrackFrame, _ahead, _dist, _span, find
from .params import P
from .release_onset import place_release
from .state import Candidate, OpenShot, ReleaseEvidence


def _hold_ref(recent: Sequence[TrackFrame], side: str) -> np.ndarray | None:
    """Median draw-wrist position over the recent hold (`_recent`)."""
    pts = [f.wrists(side)[1] for f in recent]
    return np.median(np.asarray(pts), axis=0) if pts else None


def _back_dir(recent: Sequence[TrackFrame], side: str, ref: np.ndarray) -> np.ndarray | None:
    """Unit vector from the bow wrist (median over the recent hold) to the anchor position `ref`."""
    pts = [p for p in (f.wrists(side)[0] for f in recent) if not np.isnan(p[0])]
    if not pts:
        return None
    v = ref - np.median(np.asarray(pts), axis=0)
    n = math.hypot(v[0], v[1])
    return v / n if n > 0 else None


def _off_the_face(recent: Sequence[TrackFrame], side: str) -> bool:
    """A release leaves from the face: a hand held in front of it through the recent hold (the string let
    forward in a let-down) has nothing left to release. Too few frames seen there (MediaPipe lost the body) tell
    nothing."""
    ahead = [a for a in (_ahead(g, side) for g in recent) if not math.isnan(a)]
    return len(ahead) >= 3 and float(np.median(ahead)) >= P.release_from_ahead_max_sw


def _bow_hold(recent: Sequence[TrackFrame], side: str) -> tuple[np.ndarray | None, float]:
    """The bow wrist's median position over the recent hold and its vertical stray (90th percentile)."""
    pts = np.asarray([f.wrists(side)[0] for f in recent]).reshape(-1, 2)
    pts = pts[~np.isnan(pts[:, 0])]
    if len(pts) < 3:
        return None, 0.0
    med = np.median(pts, axis=0)
    return med, float(np.percentile(np.abs(pts[:, 1] - med[1]), 90))


def _bow_arm(f: TrackFrame, side: str) -> float:
    """The bow wrist's distance from the bow shoulder (U); NaN where the wrist is not seen."""
    return _dist(f.wrists(side)[0], -f.draw_shoulder(side))


def _coming_back(ev: ReleaseEvidence, late: list[float], thr: float) -> bool:
    """The hand alone (the bow arm did not fall, `ev`) and on its way back to the anchor: its distances from it
    over the later half of the confirmation window (`late`) fall frame after frame to under the confirming
    distance `thr`, never having reached twice it. A twitch (MediaPipe moving the hand at full draw 0.6 U down and
    back up in 0.3 s: real05 with every third frame dropped, whose window ended before the hand was back). A
    release leaves for good; the pose folding the arms after one puts the hand back at once, from far; a thumb
    release, whose short spring-back may relax forward, drops the bow arm."""
    if ev.bow_arm >= 1.0 or len(late) < 3:
        return False
    return late[-1] < thr and max(late) < 2 * thr and all(b < a for a, b in zip(late, late[1:]))


def _deepest_drop(window: Sequence[TrackFrame], side: str, bow_y: float) -> float:
    """How far the bow wrist fell below `bow_y` over `window` (U): on its second-deepest frame, so that one
    misread frame does not count, or its deepest where the frames are more than P.bow_glitch_frame_max_s apart
    (a fall held up again within a frame); 0 where too few frames show it."""
    drops = sorted(y - bow_y for g in window if not math.isnan(y := g.wrists(side)[0][1]))
    frames = window[-1].index - window[0].index if window else 0
    sparse = frames > 0 and (window[-1].t - window[0].t) / frames > P.bow_glitch_frame_max_s
    kept = 1 if sparse else 2
    return drops[-kept] if len(drops) >= kept else 0.0


def _span_kept(hold: list[TrackFrame], side: str) -> list[TrackFrame]:
    """The frames of `hold` that read the arms as the hold's. A frame whose span between the wrists closed by
    P.release_misread_close_sw or more from the hold's median, the bow arm taking its share of the closing
    (P.misread_bow_share), is the pose folding the arms (clean_rh_3shots at 15 fps: 1.4 U for 0.6 s just before
    the release), which no archer at full draw does; measured from there, the anchor position is wherever the
    misread put the hand. The string let forward in a let-down closes the span too, but with the bow arm still:
    those frames stay (`_off_the_face` reads them)."""
    spans = np.array([_span(f) for f in hold])
    arms = np.array([_bow_arm(f, side) for f in hold])
    if np.isnan(spans).all() or np.isnan(arms).all():
        return hold
    closing, arm_in = np.nanmedian(spans) - spans, np.nanmedian(arms) - arms
    folded = (closing >= P.release_misread_close_sw) & (arm_in >= P.misread_bow_share * closing)  # NaN: False
    return [f for f, bad in zip(hold, folded) if not bad]


def _hold_jitter(hold: Sequence[TrackFrame], side: str) -> float:
    """How far the draw wrist strays in the hold (90th percentile of its distance from the median)."""
    pts = np.asarray([f.wrists(side)[1] for f in hold]).reshape(-1, 2)
    pts = pts[~np.isnan(pts[:, 0])]
    if len(pts) < 3:
        return 0.0
    return float(np.percentile(np.hypot(*(pts - np.median(pts, axis=0)).T), 90))


def _recent(hold: Sequence[TrackFrame], side: str) -> list[TrackFrame]:
    """The frames of the hold's last P.hold_ref_s with the draw hand seen (at least P.hold_ref_min_frames of
    them): the last stretch of it the pose saw. After a gap (someone walked in front, MediaPipe lost the archer)
    that is the hold before the gap, not the first frames after it, which may already be the release's flight."""
    seen = [f for f in hold if not np.isnan(f.wrists(side)[1][0])]
    if not seen:
        return []
    recent = [f for f in seen if f.t >= seen[-1].t - P.hold_ref_s]
    # A frame or two seen in a gap may be MediaPipe reading someone else: never fewer than a few frames.
    return recent if len(recent) >= P.hold_ref_min_frames else seen[-P.hold_ref_min_frames :]


def _hold_span(recent: Sequence[TrackFrame]) -> float:
    spans = [sp for sp in map(_span, recent) if not math.isnan(sp)]
    return float(np.median(spans)) if spans else math.nan


class ReleaseWatch:
    """Opens, judges and places the release of the shot in the hold, on the tracker's own frame buffer."""

    def __init__(self, buf: deque[TrackFrame]):
        self._buf = buf

    def open(self, shot: OpenShot) -> bool:
        """A candidate at the newest frame when the draw hand jumps away from where it held (fast, and already
        off the anchor position), or the bow arm falls fast from where it held (a thumb release whose hand
        springs back too little to trigger). Runs on every frame of the hold, so the frame-to-frame speeds
        are tested first and the recent hold is only read when one of them is fast."""
        buf, side = self._buf, shot.handedness
        if len(buf) < 2 or buf[-1].t <= buf[-2].t:
            return False
        hand_fast, bow_fast = self._fast_steps(shot)
        if not (hand_fast or bow_fast):
            return False
        f = buf[-1]
        before = f.t - P.hold_ref_gap_s
        hold = self._hold(shot, before)  # read once: every measure of the hold below is on it
        recent = _recent(hold, side)
        ref = _hold_ref(recent, side)
        if ref is None or _off_the_face(recent, side):
            return False
        bow_ref, bow_stray_y = _bow_hold(recent, side)
        jumped = hand_fast and _dist(f.wrists(side)[1], ref) >= P.release_start_sw
        fell = bow_fast and bow_ref is not None and f.wrists(side)[0][1] - bow_ref[1] >= P.release_bow_drop_sw
        if not (jumped or fell):
            return False
        thr = max(P.release_confirm_sw, P.release_jitter_factor * _hold_jitter(hold, side))
        shot.cand = Candidate(
            f.index,
            f.t,
            ref,
            thr,
            _back_dir(recent, side, ref),
            bow_ref,
            max(P.release_bow_drop_sw, P.release_bow_jitter_factor * bow_stray_y),
            _hold_span(recent),
            by_bow=not jumped,
        )
        return True

    def _fast_steps(self, shot: OpenShot) -> tuple[bool, bool]:
        """(the draw hand moved fast or came back into view, the bow hand fell fast) from the previous frame to the
        newest; the bow arm's fall counts only after P.bow_fall_after_s at full draw (before, the arms settle into
        aim)."""
        a, b, side = self._buf[-2], self._buf[-1], shot.handedness
        dt = b.t - a.t
        pa, pb = a.wrists(side)[1], b.wrists(side)[1]
        # The hand seen again after frames that did not show it (someone walked in front, MediaPipe lost the
        # archer): it may have left meanwhile, and where it is now tells (`open` measures it from the hold).
        reappeared = np.isnan(pa[0]) and not np.isnan(pb[0])
        hand = reappeared or _dist(pb, pa) / dt >= P.release_speed_sw_s
        settled = b.t - shot.anchor_at.t >= P.bow_fall_after_s
        bow = settled and (b.wrists(side)[0][1] - a.wrists(side)[0][1]) / dt >= P.release_speed_sw_s
        return hand, bow

    def judge(self, shot: OpenShot) -> bool | None:
        """None while the confirmation window is open; then True (released: the release is placed on the shot)
        or False (a twitch: the candidate is dropped)."""
        t_c, thr = shot.cand.t, shot.cand.confirm_sw
        waited = self._buf[-1].t - t_c
        if waited < P.release_confirm_s - 1e-6:
            return None
        ds = self._cand_dists(shot)
        if waited < P.release_confirm_max_s - 1e-6 and not self._seen_late(ds, t_c):
            # MediaPipe lost the archer right after the jump (a fast spring-back at a low frame rate blurs the
            # arms and the guard blanks them): nothing seen tells nothing, so wait until they are seen again.
            return None
        if not self._seen_late(ds, t_c):
            # Still not seen again: the picture lost the archer right after the jump (a phone swung away to follow
            # the arrow, the archer left the frame). Judged on the frames it has, as a window cut short by the
            # video's end: a likely release, not a certain one.
            if self.accept_at_end(shot):
                return True
            shot.cand = None
            return False
        ev = self._release_evidence(shot, ds)
        away = [i for i, d in ds if d >= thr / 2]  # the frames of the window the hand was away from the anchor
        late = self._late(ds, t_c + P.release_confirm_s / 2)
        if (
            ev.released
            and self._went_back(shot, away)
            and not self._lowering(shot, ev)
            and not _coming_back(ev, late, thr)
        ):
            place_release(self._buf, shot, ds, thr, ev)
            return True
        if not shot.cand.moved_on and self._leaving_fast(shot):
            # A twitch comes back; this window ended with the hand leaving. The candidate opened early (on the
            # hand coming back from MediaPipe's fold, fm_14fps) and the release came late in its window: judge
            # it again from where the hand left, rather than take its spring-back for a draw going on.
            self._move_on(shot, ds, thr)
            return None
        shot.cand = None
        return False

    @staticmethod
    def _lowering(shot: OpenShot, ev: ReleaseEvidence) -> bool:
        """From a full draw found again after a release whose bow arm did not fall (`anchor.back_at_full_draw`),
        the bow arm falling is the archer lowering the bow after that release (real01: the hand at rest at the
        face from 0.3 s after the shot, then both arms down from 0.8 s), not a second release: the first stands."""
        return shot.held is not None and ev.bow_arm >= 1.0

    def _leaving_fast(self, shot: OpenShot) -> bool:
        """The window ends with the hand jumping away: at its farthest from the anchor, moving as fast as a
        jump that opens a candidate (a draw going on, or a hand drifting, moves slower)."""
        a, b = self._buf[-2], self._buf[-1]
        pa, pb = a.wrists(shot.handedness)[1], b.wrists(shot.handedness)[1]
        if np.isnan(pa[0]) or np.isnan(pb[0]) or b.t <= a.t:
            return False
        return _dist(pa, pb) / (b.t - a.t) >= P.release_speed_sw_s and self._candidate_moving_away(shot)

    def _move_on(self, shot: OpenShot, ds: list[tuple[int, float]], thr: float) -> None:
        """The candidate moved to the start of the window's last run of frames away from the anchor."""
        at = ds[-1][0]
        for i, d in reversed(ds):
            if d < thr / 2:
                break
            at = i
        g = self._buf[at]
        shot.cand = replace(shot.cand, index=g.index, t=g.t, moved_on=True)

    def _seen_late(self, ds: list[tuple[int, float]], t_c: float) -> bool:
        """Some frame of the later half of the confirmation window shows a wrist."""
        return any(self._buf[i].t >= t_c + P.release_confirm_s / 2 - 1e-6 for i, _ in ds)

    def accept_at_end(self, shot: OpenShot) -> bool:
        """The video ended inside the confirmation window (real02: 4 frames after the release): a hand still
        leaving the anchor at the last frame, or what the frames there were already say (a thumb release's
        short travel with the bow arm dropping), is taken as a release, likely but not certain."""
        if shot.cand is None:
            return False
        ds = self._cand_dists(shot)
        ev = self._release_evidence(shot, ds, cut=True)
        away = [i for i, d in ds if d >= shot.cand.confirm_sw / 2]
        if self._lowering(shot, ev) or not (
            self._candidate_moving_away(shot) or (ev.released and self._went_back(shot, away))
        ):
            return False
        place_release(self._buf, shot, ds, shot.cand.confirm_sw, ev, P.release_at_end_conf)
        return True

    def _hold(self, shot: OpenShot, before_t: float) -> list[TrackFrame]:
        """The hold's frames from the anchor up to `before_t`, less those where the pose folded the arms
        (`_span_kept`)."""
        hold = [f for f in self._buf if f.index >= shot.anchor_at.frame and f.t <= before_t]
        return _span_kept(hold, shot.handedness)

    def _release_evidence(self, shot: OpenShot, ds: list[tuple[int, float]], cut: bool = False) -> ReleaseEvidence:
        """Each signal as a share of what makes it sure: the hand and the span over the later half of the
        confirmation window (by then a release is well away, a twitch is back); the bow arm's drop at its
        deepest in the window (it falls at the release, then may be held up again), the second-deepest
        frame so that one glitch does not count (`_deepest_drop`). A window `cut` short by the end of the video
        is judged on the frames after the jump that it has."""
        c = shot.cand
        t_late = c.t + (P.release_confirm_s / 2 if not cut else 1e-3)
        late = self._late(ds, t_late)
        window = [g for g in self._buf if g.index >= c.index]
        hand = float(np.median(late)) / c.confirm_sw if late else 0.0
        bow = span = 0.0
        if c.bow_ref is not None:
            bow = _deepest_drop(window, shot.handedness, c.bow_ref[1]) / c.bow_drop_sw
        spans = [_span(g) - c.span_ref for g in window if g.t >= t_late - 1e-6]
        spans = [sp for sp in spans if not math.isnan(sp)]
        if spans:
            span = float(np.median(spans)) / c.confirm_sw
        return ReleaseEvidence(hand, bow, span)

    def _late(self, ds: list[tuple[int, float]], t_late: float) -> list[float]:
        """The distances of `ds` (`_cand_dists`) from time `t_late` on: the later half of the window."""
        return [d for i, d in ds if self._buf[i].t >= t_late - 1e-6]

    def _cand_dists(self, shot: OpenShot) -> list[tuple[int, float]]:
        """(buffer position, distance from the anchor position) of the frames since the candidate jump;
        a lost draw wrist counts as far away (it leaves view or hides behind the head after the release)
        while the bow wrist is seen; a frame that lost both (MediaPipe folded the upper body) tells nothing."""
        c = shot.cand
        idx, ref = c.index, c.ref
        out = []
        for i in range(len(self._buf) - 1, -1, -1):
            g = self._buf[i]
            if g.index < idx:
                break
            bow, p = g.wrists(shot.handedness)
            if np.isnan(p[0]) and np.isnan(bow[0]) and g.index > idx:
                continue
            out.append((i, math.inf if np.isnan(p[0]) else _dist(p, ref)))
        return out[::-1]

    def _went_back(self, shot: OpenShot, positions: list[int]) -> bool:
        """The hand did not leave the anchor towards the bow hand (a lost hand counts as gone). A release sends
        it back, or back and down along the neck as seen face-on (real05: mostly down); when MediaPipe folds
        the upper body (shoulders and arms drawn together) or misplaces the hand at the face during the set and
        then finds it again, the hand jumps forwards, towards the bow: not a release."""
        c = shot.cand
        if c.back is None or not positions:
            return True
        away = []
        for i in positions:
            p = self._buf[i].wrists(shot.handedness)[1]
            d = _dist(p, c.ref)
            away.append(1.0 if np.isnan(p[0]) or d == 0 else float((p - c.ref) @ c.back) / d)
        # From a full draw found again after a release (`anchor.back_at_full_draw`), only a hand going straight
        # back is one: dropping the draw hand after that release takes it down. A window the bow arm opened is
        # strict only while the hand never jumped in it: the bow may fall a frame before the hand leaves (a
        # release that drops both arms, fault_release in MPEG-4), and settling into aim moves the hand slowly.
        strict = (c.by_bow and not self._hand_jumped(shot)) or shot.held is not None
        return float(np.median(away)) > (P.release_back_by_bow_min_cos if strict else P.release_back_min_cos)

    def _hand_jumped(self, shot: OpenShot) -> bool:
        """Somewhere in the window the draw hand moved as a jump that opens a candidate does (`open`): at release
        speed into a frame already off the anchor position."""
        c, side, buf = shot.cand, shot.handedness, self._buf
        at = find(buf, c.index)
        for k in range(max(at or 0, 1), len(buf) if at is not None else 0):
            a, b = buf[k - 1], buf[k]
            pa, pb = a.wrists(side)[1], b.wrists(side)[1]
            fast = b.t > a.t and _dist(pb, pa) / (b.t - a.t) >= P.release_speed_sw_s  # NaN compares False
            if fast and _dist(pb, c.ref) >= P.release_start_sw:
                return True
        return False

    def _candidate_moving_away(self, shot: OpenShot) -> bool:
        """At the end of the video the confirmation window is cut short: accept a jump whose hand was
        still leaving the anchor at the last frame, and already away from it: by P.release_end_min_sw, and by as
        far as a frame counts as away in a whole window (half the confirmation distance: in a hold the pose reads
        wildly, someone walking in front, the hand strays further than that without leaving; real09 timed
        unevenly, 0.31 U against a hold that strayed 2.3)."""
        cd = self._cand_dists(shot)
        ds = [d for _, d in cd]
        at = find(self._buf, shot.cand.index)
        if len(ds) == 1 and at is not None and at > 0:
            # The candidate is the last frame (real02 at 15 fps: the video ends one frame after the release): the
            # fast step into it, from the frame before, is the hand seen leaving, as the steps after it would be.
            p = self._buf[at - 1].wrists(shot.handedness)[1]
            if not np.isnan(p[0]):
                ds.insert(0, _dist(p, shot.cand.ref))
        return (
            len(ds) >= 2
            and ds[-1] >= max(ds)
            and ds[-1] >= max(P.release_end_min_sw, shot.cand.confirm_sw / 2)
            and self._went_back(shot, [cd[-1][0]])
        )
