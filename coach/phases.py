"""The phases of one shot (rules brief, "Phases of one shot"), found in a stream of Body frames.

The anchor is the event the tracker trusts most: one wrist at the face while the other arm is out at
shoulder height and the span between them has stopped growing. Everything before it (raise, draw start)
is found by walking back from the anchor through a bounded ring buffer, which is far more robust than
chasing the noisy onsets forward; the release is found forward from the anchor and refined to the exact
frame on the unsmoothed points. The live phase in each PhaseUpdate is a cheap per-frame belief; the frame
numbers in ShotPhases come from the look-back and are exact, only delayed by a few frames.

Draw time (anchor - draw start) is a rule of its own (draw_tempo), so both ends are placed where the
movement starts and stops, not where it crosses a speed threshold: human (and the synthetic archer's) draws
are eased, starting and ending at rest, so a threshold lands well inside the draw at both ends. The draw
start is the set, the slowest moment of the arms between the raise and the middle of the draw
(`_back_raise_draw`); the anchor, first detected once the draw has slowed, is moved at the release to where
the span reached the hold's and the arms became as still as in the hold (`_refine_anchor`).

All lengths are in body units U (shoulder widths, see `_unit`) and all positions are taken relative to the
shoulder midpoint, so a handheld camera's pan and zoom cancel out. All speeds and durations use t_ms, never
frame counts, because live capture drops frames.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from enum import Enum

import numpy as np

from .kinematics import Body
from .landmarks import INDEX, LEFT_SHOULDER, NOSE, RIGHT_SHOULDER

L_WRIST, R_WRIST = INDEX["left_wrist"], INDEX["right_wrist"]
L_HIP, R_HIP = INDEX["left_hip"], INDEX["right_hip"]
# Where the draw hand may anchor: the nose for an under-chin anchor; the mouth corners and ears for a side
# anchor with the head turned to the target (the nose then points away from the draw hand).
FACE_POINTS = [NOSE, INDEX["mouth_left"], INDEX["mouth_right"], INDEX["left_ear"], INDEX["right_ear"]]

# --- body unit -------------------------------------------------------------------------------------------
# Body.sw (a running percentile of the projected shoulder width) collapses in oblique views, where the far
# shoulder hides behind the near one for seconds at a time. The torso length does not shrink when the archer
# turns about the vertical, and a face-on shoulder width is at least this share of it, so it bounds the unit
# from below.
TORSO_TO_SW_MIN = 0.45

# --- anchor (full draw) ----------------------------------------------------------------------------------
ANCHOR_FACE_MAX_SW = 1.15  # draw wrist to the nearest face point: 0.4-0.8 in real and synthetic anchors;
# MediaPipe puts it ~1.0 from a high camera (stance_high). The "ahead" test below keeps the set out.
# The draw hand has come back to the face: its offset from the nose along the nose-to-bow-hand direction.
# At the set (end of the raise) the hand is in front of the face, +0.3..+1.4 SW towards the bow; at the
# anchor -0.2..-0.7 face-on (real and synthetic archers), -0.03..+0.07 down-line; a set right at the
# chin reaches +0.12.
ANCHOR_AHEAD_MAX_SW = 0.1
ANCHOR_SPAN_MIN_SW = 1.4  # wrist-to-wrist at full draw: an extended bow arm plus a hand at the face
ARM_OUT_MIN_SW = 1.2  # the bow wrist is this far from the nose when the arm is extended
BOW_BELOW_SHOULDER_MAX_SW = 1.5  # how far below the shoulder line the bow wrist may be at full draw (a bow
# arm held 30 deg low, ti_shou, puts it ~1.15 below)
ANCHOR_SPAN_SPEED_SW_S = 0.8  # "the span stops growing": noisy 2D points never reach the brief's 0.05 SW/s
ANCHOR_HAND_SPEED_SW_S = 0.8  # ... and the draw hand has stopped at the face
ANCHOR_CONFIRM_S = 0.2  # the anchor condition must hold this long, so a hand passing the face is not one
DERIV_HALF_S = 0.07  # half-window of the centred differences (±2 frames at 30 fps)
ANCHOR_DERIV_HALF_S = 0.1  # ... for "stopped at the anchor": wider, so MediaPipe's hold jitter averages out
DERIV_MAX_GAP_S = 0.25  # live: widen to the nearest frame up to this far when frames were dropped

# --- look-back for the raise and the draw start ----------------------------------------------------------
LOOKBACK_S = 6.0  # the longest raise + draw looked back over from the anchor
SET_BOW_DROP_SW = 0.5  # the set is searched back to where the bow wrist was this far below its mid-draw height
NEW_DRAW_MIN_SW = 0.6  # the draw hand came to an anchor from at least this far (since the last shot)
DRAW_SPAN_GROWTH_MIN_SW = 0.5  # a draw widens the span more than this after the raise face-on (down-line
# it barely does)
SET_MOTION_TOL_SW_S = 0.1  # the draw starts at the last frame this close to the slowest arm motion at the set
SET_MOTION_TOL_FRAC = 0.1  # ... or this share of the draw's (90th percentile) arm speed, if less (a slow draw)
SET_MOTION_TOL_MIN_SW_S = 0.03
RAISE_ONSET_SPEED_SW_S = 0.4  # the bow wrist moves faster than this during the raise
RAISE_LEVEL_BELOW_SW = 0.35  # "the bow wrist reaches shoulder height", with room for a low bow hand
RAISE_REST_S = 0.2  # the bow arm rested this long before the raise
UNSEEN_DRAW_MIN_S = 1.5  # the bow arm up this long with no anchor found: a full draw the pose did not show
RAISED_GAP_S = 0.3  # ... counting frames where it was lost or dipped for no longer than this
RAISE_MIN_RISE_SW = 0.5  # a raise brings the bow wrist up by at least this (from the side: 1-2 U)
SET_PAUSE_MAX_S = 0.5  # the pause at the set, with the bow arm up, is walked back over up to this long

# --- release ---------------------------------------------------------------------------------------------
RELEASE_SPEED_SW_S = 1.5  # rules brief: the draw wrist's speed jumps above this at the release
RELEASE_START_SW = 0.15  # ... and it has started to leave the anchor position
RELEASE_CONFIRM_S = 0.3  # a hold twitch comes back to the face within this time; a release does not
RELEASE_CONFIRM_SW = 0.35  # late in that window the hand is at least this far from the anchor (or lost),
RELEASE_JITTER_FACTOR = 1.5  # ... and farther than this many times the hold's own 90th-percentile stray
RELEASE_BACK_MIN_COS = -0.5  # ... and its way from the anchor is within 120 deg of straight back from the bow
RELEASE_END_GLITCH_FRAMES = 2  # near frames at the very end of the confirmation window ignored as glitches
RELEASE_NEAR_RUN_FRAMES = 2  # inside it, this many near frames in a row mean the hand was back at the anchor
RELEASE_END_MIN_SW = 0.2  # a release cut off by the end of the video has left the anchor by this much
RELEASE_AT_END_CONF = 0.6  # ... likely a release (real02: 4 frames before the end), its follow-through unseen
RELEASE_ONSET_SPEED_SW_S = 0.45  # raw frame-to-frame speed above which the hand is moving,
RELEASE_ONSET_JITTER_FACTOR = 2.0  # ... or above this many times the hold's median raw speed
HOLD_JITTER_S = 1.0  # the hold jitter is measured over this much of the hold before the jump
RELEASE_ONSET_BACK_S = 0.2  # the onset lies at most this far before the detected jump
HOLD_REF_S = 0.5  # the anchor position is the median of the draw wrist over this much of the hold
HOLD_REF_GAP_S = 0.1  # ... ending this long before the jump, so the jump itself is not in it
ANCHOR_SPAN_TOL_FRAC = 0.05  # full draw: the span is within this share of the draw's extent of the hold's,
ANCHOR_SPAN_WANDER_FACTOR = 2.0  # ... or this many times the hold's interquartile span range, if more
ANCHOR_STILL_S = 0.2  # ... and the arms stay as still as in the hold's quieter half for this long,
ANCHOR_SETTLE_MAX_S = 1.2  # ... starting within this time of the span reaching the hold's (else the span
ANCHOR_SETTLE_DRAW_FRAC = 0.7  # alone tells), or this share of the draw so far if longer: a slow draw settles
# slowly, a handheld phone's jittery hold never looks still
ANCHOR_REFINE_AFTER_S = 3.0  # a long hold: the anchor is refined once this much of it is seen, while the
# draw is still in the buffer (BUFFER_S; real07 holds 7 s)
REDRAW_S = 0.3  # in the hold, the span growing faster than ANCHOR_SPAN_SPEED_SW_S for this long ...
REDRAW_GROWTH_SW = 0.5  # ... by more than this: the draw was still going on, the anchor came too early
LET_DOWN_BELOW_SW = 0.9  # bow wrist this far below the shoulders during the hold: the shot was let down,
LET_DOWN_DROP_SW = 0.6  # ... and this far below where it was at the anchor (a low bow arm is not a let-down)
LOWERED_DROP_SW = 0.5  # follow-through: the bow arm is down when this far below its anchor height
HAND_STAYED_SW = 0.2  # a span that grew less than this through the release window: the hand stayed
# Release evidence (`_release_evidence`): a hand that left the anchor by half the confirmation distance is a
# release when the bow arm dropped with it (the bow hand falls as the string leaves: real07 0.22 U, real08
# 0.4 U), which a hold twitch or an aiming correction does not do (bow wrist still to ~0.05 U), nor a draw
# after an early anchor (the bow arm rises or extends then; it moves outwards at a release too, so only the
# drop counts).
RELEASE_HAND_PART = 0.5  # share of the confirmation distance the hand must reach when the bow arm agrees
RELEASE_BOW_DROP_SW = 0.15  # the bow wrist fell this far below its hold height in the window ...
RELEASE_BOW_JITTER_FACTOR = 3.0  # ... and this many times its own vertical stray in the hold
# How much each signal, fully present, adds to a release's confidence (combined as independent evidence).
EVIDENCE_WEIGHT = {"draw_hand": 0.8, "bow_arm": 0.5, "span": 0.3}
# The string leaving is a jump: the release's first step is at least this share of its fastest one within
# RELEASE_ONSET_BACK_S after the jump. A hand drifting back under expansion before it (real07, real08: 0.5 U/s
# against 8-10 U/s in the jump) is the hold, not the release.
ONSET_PEAK_SHARE = 0.1

# --- how sure each mark is (ShotPhases.marks_confidence; a rule resting on a mark under results.MIN_MARK_CONFIDENCE is
# "not assessable: phase uncertain", coach/engine.py) -------------------------------------------------------
ANCHOR_STILL_CONF = 0.9  # the arms settled as still as in the hold where the span reached the hold's
ANCHOR_SPAN_CONF = 0.6  # only the span tells (a jittery hold never looks still): close, not exact
UNREFINED_CONF = 0.3  # the anchor could not be placed against its hold (too short, or out of the buffer)
# The draw start is the set, the pause between raise and draw. It is a guess when there was no pause: the arms
# never slowed below SET_PAUSE_MAX_SW_S (a hand at 1 U/s, ~40 cm/s, is moving; real03, real05, real08 never
# went under 2.4 U/s, the synthetic archer's sets 0.07-0.8), or the bow arm still rose by more than
# DRAW_OVERLAP_RISE_SW between the draw start and the anchor, so raise and draw overlapped (real02, real05,
# real07: 0.34-1.37 U; the synthetic archer's sets 0.00-0.13 U).
SET_PAUSE_MAX_SW_S = 1.0
DRAW_OVERLAP_RISE_SW = 0.3
DRAW_SET_CONF = 0.9
DRAW_GUESS_CONF = 0.3

# --- follow-through --------------------------------------------------------------------------------------
FULL_DRAW_S = 0.2  # the "full draw" phase is the anchor moment; after it, the hold
RELEASE_PHASE_S = 0.1  # the release phase covers the string leaving; then follow-through
FOLLOW_MIN_S = 0.5  # rules brief: the follow-through lasts 0.5-1.5 s
FOLLOW_MAX_S = 1.5

BUFFER_S = LOOKBACK_S + 2.0
BUFFER_MAX_FRAMES = 1024  # cap for absurd frame rates; 8 s at 120 fps


class Phase(str, Enum):
    SETUP = "setup"
    RAISE = "raise"
    DRAW = "draw"
    FULL_DRAW = "full_draw"
    HOLD = "hold"
    RELEASE = "release"
    FOLLOW_THROUGH = "follow_through"


# The marks each phase's window rests on: a rule judged on phases whose marks are uncertain is not judged.
PHASE_MARKS: dict[str, tuple[str, ...]] = {
    "setup": ("raise_start",),
    "raise": ("raise_start", "draw_start"),
    "draw": ("draw_start", "anchor"),
    "full_draw": ("anchor",),
    "hold": ("anchor", "release"),
    "release": ("release",),
    "follow_through": ("release",),
}


@dataclass(slots=True)
class ShotPhases:
    index: int
    raise_start_frame: int
    draw_start_frame: int
    anchor_frame: int
    release_frame: int | None
    end_frame: int
    raise_start_ms: float
    draw_start_ms: float
    anchor_ms: float
    release_ms: float | None
    end_ms: float
    complete: bool
    handedness: str
    hold_start_frame: int  # first frame of the hold (the full-draw moment is anchor..hold_start-1)
    follow_start_frame: int | None  # first frame of the follow-through
    release_source: str = "pose"  # "sound+pose" when the string's sound refined it (coach/audio.py)
    # The draw hand was seen not to fly back at what was taken for the release (the span hardly grew): a dead
    # release (後手小), whose "release" is then the arms coming down, later. Real releases widen the span by
    # 0.3-2.8 U in the confirmation window. Sound may then look back for the crack (coach/audio.py).
    hand_stayed: bool = False
    flight_time_s: float | None = None  # release to the arrow heard hitting (sound only)
    # How sure the release is (0-1) and which signals agreed on it (`release_evidence`).
    release_confidence: float = 1.0
    release_evidence: tuple[str, ...] = ()
    # How sure the draw start and the anchor are (0-1); see results.MIN_MARK_CONFIDENCE.
    marks_confidence: dict[str, float] = field(default_factory=dict)

    @property
    def hold_ms(self) -> float | None:
        return None if self.release_ms is None else self.release_ms - self.anchor_ms

    def phase_at(self, frame: int) -> Phase | None:
        """The phase of `frame` within this shot; None outside it (before the raise, after the end)."""
        if frame < self.raise_start_frame or frame > self.end_frame:
            return None
        if frame < self.draw_start_frame:
            return Phase.RAISE
        if frame < self.anchor_frame:
            return Phase.DRAW
        if frame < self.hold_start_frame:
            return Phase.FULL_DRAW
        if self.release_frame is None or frame < self.release_frame:
            return Phase.HOLD
        if self.follow_start_frame is None or frame < self.follow_start_frame:
            return Phase.RELEASE
        return Phase.FOLLOW_THROUGH


@dataclass(slots=True)
class PhaseUpdate:
    phase: Phase
    shot: int | None
    completed: list[ShotPhases] = field(default_factory=list)


@dataclass(slots=True, frozen=True)
class LetDown:
    """A full draw that was not shot: the archer came down, or the video ended (or an edit cut away for
    good) before a release. Not a shot; the report notes it."""

    anchor_frame: int
    end_frame: int
    anchor_s: float
    end_s: float
    reason: str  # "let_down" (the bow arm came down) or "video_ended" (still at full draw)


@dataclass(slots=True)
class _Frame:
    """What the tracker keeps of one Body: body-relative points in U, smoothed and raw."""

    index: int
    t: float  # seconds
    lw: np.ndarray  # left wrist (2,), relative to the shoulder midpoint, in U; NaN if missing
    rw: np.ndarray
    nose: np.ndarray
    face: np.ndarray  # (len(FACE_POINTS), 2) nose, mouth corners, ears; NaN rows where missing
    raw_lw: np.ndarray  # the same from raw_xy (relative to the raw shoulder midpoint)
    raw_rw: np.ndarray

    def wrists(self, handedness: str) -> tuple[np.ndarray, np.ndarray]:
        """(bow, draw) wrists: a right-handed archer holds the bow in the left hand."""
        return (self.lw, self.rw) if handedness == "right" else (self.rw, self.lw)

    def raw_draw(self, handedness: str) -> np.ndarray:
        return self.raw_rw if handedness == "right" else self.raw_lw


def _unit(body: Body) -> float:
    sw = body.sw if body.sw > 0 else math.nan
    hips = body.xy[[L_HIP, R_HIP]]
    if body.vis[L_HIP] >= 0.5 and body.vis[R_HIP] >= 0.5 and not np.isnan(hips).any():
        sh = (body.xy[LEFT_SHOULDER] + body.xy[RIGHT_SHOULDER]) * 0.5
        torso = float(np.hypot(*(sh - hips.mean(axis=0))))
        if not math.isnan(torso):
            return torso * TORSO_TO_SW_MIN if math.isnan(sw) else max(sw, torso * TORSO_TO_SW_MIN)
    return sw


_NAN2 = np.full(2, np.nan)
_NAN_FACE = np.full((len(FACE_POINTS), 2), np.nan)


def _frame(body: Body) -> _Frame | None:
    u = _unit(body)
    xy = body.xy
    origin = (xy[LEFT_SHOULDER] + xy[RIGHT_SHOULDER]) * 0.5
    if math.isnan(u) or u <= 0 or np.isnan(origin).any():
        return None
    rel = (xy[[L_WRIST, R_WRIST, *FACE_POINTS]] - origin) / u
    if body.raw_xy is not None:
        raw = body.raw_xy
        raw_origin = (raw[LEFT_SHOULDER] + raw[RIGHT_SHOULDER]) * 0.5
        if np.isnan(raw_origin).any():
            raw_origin = origin
        raw_rel = (raw[[L_WRIST, R_WRIST]] - raw_origin) / u
    else:
        raw_rel = rel[:2]
    return _Frame(body.index, body.t_ms / 1000.0, rel[0], rel[1], rel[2], rel[2:], raw_rel[0], raw_rel[1])


def _dist(a: np.ndarray, b: np.ndarray) -> float:
    return math.hypot(a[0] - b[0], a[1] - b[1])


def _span(f: _Frame) -> float:
    return _dist(f.lw, f.rw)


def _rate(buf: Sequence[_Frame], i: int, value: Callable[[_Frame], float], half: float = DERIV_HALF_S) -> float:
    """Centred time derivative of value(frame) at buf[i] over ±half seconds (one-sided at the ends)."""
    t0 = buf[i].t
    lo = i
    while lo > 0 and t0 - buf[lo - 1].t <= half + 1e-6:
        lo -= 1
    hi = i
    while hi < len(buf) - 1 and buf[hi + 1].t - t0 <= half + 1e-6:
        hi += 1
    # Live capture drops frames: with no neighbour inside the window, use the nearest one (if recent enough),
    # so a 10-15 fps analysis still has speeds. At the full rate the window always has its neighbours.
    if lo == i and i > 0 and t0 - buf[i - 1].t <= DERIV_MAX_GAP_S:
        lo = i - 1
    if hi == i and i < len(buf) - 1 and buf[i + 1].t - t0 <= DERIV_MAX_GAP_S:
        hi = i + 1
    if hi == lo:
        return math.nan
    return (value(buf[hi]) - value(buf[lo])) / (buf[hi].t - buf[lo].t)


def _newest_judged(buf: Sequence[_Frame], half: float) -> int:
    """Position of the newest frame whose centred derivative over ±half seconds has both sides."""
    i = len(buf) - 1
    while i > 0 and buf[-1].t - buf[i].t < half - 1e-6:
        i -= 1
    return i


def _face_dist(f: _Frame, p: np.ndarray) -> float:
    """Distance from p to the nearest visible face point (NaN if none)."""
    d = np.hypot(*(f.face - p).T)
    return math.nan if np.isnan(d).all() else float(np.nanmin(d))


def _ahead(f: _Frame, handedness: str) -> float:
    """How far the draw wrist is in front of the nose, towards the bow hand (negative: behind the face)."""
    bow, draw = f.wrists(handedness)
    v = bow - f.nose
    n = math.hypot(v[0], v[1])
    return math.nan if not n > 0 else float((draw - f.nose) @ v) / n


def anchor_pose(f: _Frame, handedness: str) -> bool:
    """One wrist at the face (back from the set, not in front of it) and the other arm out, about level with
    the shoulders (stillness aside)."""
    bow, draw = f.wrists(handedness)
    if np.isnan(bow[0]) or np.isnan(draw[0]) or np.isnan(f.nose[0]):
        return False
    return (
        _face_dist(f, draw) < ANCHOR_FACE_MAX_SW
        and _dist(bow, f.nose) > ARM_OUT_MIN_SW
        and _dist(bow, draw) > ANCHOR_SPAN_MIN_SW
        and bow[1] < BOW_BELOW_SHOULDER_MAX_SW
        and _ahead(f, handedness) < ANCHOR_AHEAD_MAX_SW
    )


def _still_at_anchor(buf: Sequence[_Frame], i: int, side: str) -> bool:
    """The draw hand has stopped and the span no longer grows. A glitching bow wrist may make the span
    shrink for a few frames; only growth means the draw goes on."""
    h = ANCHOR_DERIV_HALF_S
    vx = _rate(buf, i, lambda f: f.wrists(side)[1][0], h)
    vy = _rate(buf, i, lambda f: f.wrists(side)[1][1], h)
    return math.hypot(vx, vy) < ANCHOR_HAND_SPEED_SW_S and not _rate(buf, i, _span, h) > ANCHOR_SPAN_SPEED_SW_S


def _motion(buf: Sequence[_Frame], i: int, side: str) -> float:
    """How fast the arms move at buf[i]: bow-wrist speed plus draw-wrist speed (U/s, body-relative)."""
    bow = math.hypot(_rate(buf, i, lambda f: f.wrists(side)[0][0]), _rate(buf, i, lambda f: f.wrists(side)[0][1]))
    draw = math.hypot(_rate(buf, i, lambda f: f.wrists(side)[1][0]), _rate(buf, i, lambda f: f.wrists(side)[1][1]))
    return bow + draw


def _draw_mid(buf: Sequence[_Frame], anchor_i: int, floor_i: int) -> int:
    """Position of the middle of the draw: the last frame before the anchor whose span is at most halfway
    from the narrowest span of the look-back to the anchor's span."""
    spans = [_span(buf[k]) for k in range(floor_i, anchor_i + 1)]
    spans = [sp for sp in spans if not math.isnan(sp)]
    s_a = _span(buf[anchor_i])
    if not spans or math.isnan(s_a):
        return anchor_i
    mid = 0.5 * (s_a + min(spans))
    k = anchor_i
    while k > floor_i and not _span(buf[k]) <= mid:
        k -= 1
    return k


def _raised_since(buf: Sequence[_Frame], i: int, floor_i: int, handedness: str) -> int:
    """The last position before buf[i] where the bow wrist was still SET_BOW_DROP_SW below its height there
    (in the raise), or floor_i."""
    bow_y = buf[i].wrists(handedness)[0][1]
    k = i
    if not math.isnan(bow_y):
        while k > floor_i and not buf[k].wrists(handedness)[0][1] > bow_y + SET_BOW_DROP_SW:
            k -= 1
    return k


def _back_raise_draw(buf: list[_Frame], anchor_i: int, floor_i: int, handedness: str) -> tuple[int, int, int, float]:
    """Walk back from the anchor: (raise start, draw start, middle of the draw) as positions in buf, all
    >= floor_i, and how fast the arms moved at the set (U/s; NaN if not measurable).

    The draw start is the set: the moment the arms are slowest between the raise (the bow wrist still
    rising towards shoulder height) and the middle of the draw. Raise and draw are each a movement that
    starts and ends at rest, so their speeds pass through a minimum there; an onset threshold on the span's
    growth instead finds a point well into the draw, and MediaPipe's wrist jitter at the start of the draw
    (the hand in front of the face) makes onsets unreliable anyway."""
    mid_i = _draw_mid(buf, anchor_i, floor_i)
    k = _raised_since(buf, anchor_i, floor_i, handedness)
    if _span(buf[anchor_i]) - _span(buf[k]) < DRAW_SPAN_GROWTH_MIN_SW:
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
    motion = [(j, _motion(buf, j, handedness)) for j in range(k, mid_i + 1)]
    motion = [(j, m) for j, m in motion if not math.isnan(m)]
    draw_i = mid_i
    m_min = math.nan
    if motion:
        m_min = min(m for _, m in motion)
        peak = float(np.percentile([m for _, m in motion], 90))
        tol = min(SET_MOTION_TOL_SW_S, max(SET_MOTION_TOL_MIN_SW_S, SET_MOTION_TOL_FRAC * peak))
        draw_i = max(j for j, m in motion if m <= m_min + tol)

    def bow_speed(i: int) -> float:
        vx = _rate(buf, i, lambda f: f.wrists(handedness)[0][0])
        vy = _rate(buf, i, lambda f: f.wrists(handedness)[0][1])
        return math.hypot(vx, vy)

    # Raise start: the bow arm's movement that leads into the draw began after it last rested for
    # RAISE_REST_S (pauses shorter than that, e.g. settling the grip, belong to the raise).
    def walk_back(k: int) -> int:
        rest_from: int | None = None
        while k > floor_i:
            if bow_speed(k - 1) > RAISE_ONSET_SPEED_SW_S:
                rest_from = None
            else:
                rest_from = k if rest_from is None else rest_from
                if buf[rest_from].t - buf[k - 1].t >= RAISE_REST_S:
                    break
            k -= 1
        return k if rest_from is None else rest_from

    # The set is itself a pause with the bow arm up, and the raise ended before it: walk back over it first,
    # else a set longer than RAISE_REST_S leaves the raise 0 s long.
    k = draw_i
    while (
        k > floor_i
        and buf[draw_i].t - buf[k - 1].t <= SET_PAUSE_MAX_S
        and not bow_speed(k - 1) > RAISE_ONSET_SPEED_SW_S
        and buf[k - 1].wrists(handedness)[0][1] < RAISE_LEVEL_BELOW_SW
    ):
        k -= 1
    k = walk_back(k)
    # A raise brings the bow arm up from well below; when it did not (real02 starts with the arm half raised,
    # real01's set is a pause in a slow raise), the pause found is not the set's: walk back from the set.
    set_y = buf[draw_i].wrists(handedness)[0][1]
    low = max((buf[j].wrists(handedness)[0][1] for j in range(k, draw_i + 1)), key=_nan_low, default=math.nan)
    if not low - set_y >= RAISE_MIN_RISE_SW:
        k = walk_back(draw_i)
    return min(k, draw_i), draw_i, mid_i, m_min


def _nan_low(y: float) -> float:
    return -math.inf if math.isnan(y) else y


def _draw_travel(buf: Sequence[_Frame], anchor_i: int, floor_index: int, side: str) -> float:
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


def _hand_stayed(buf: Sequence[_Frame], on: int, side: str, hold_span: float) -> bool:
    """From buf[on] to now the span grew less than HAND_STAYED_SW over the hold's (`hold_span`; else the
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
    return max((_span(g) - before for g in window), key=_nan_low) < HAND_STAYED_SW


def _raw_hold_speed(buf: Sequence[_Frame], lo_t: float, hi_t: float, handedness: str) -> float:
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


def _release_onset(buf: Sequence[_Frame], jump_i: int, handedness: str, ref: np.ndarray, min_speed: float) -> int:
    """The first frame the draw hand moved, walking back from the detected jump on the raw points: the
    earliest frame reached from the jump by steps that are all fast and all away from the anchor."""
    onset = i = jump_i
    t_jump = buf[jump_i].t
    # The way the hand left: hold jitter may move it towards or away from the anchor median, but the
    # release moves it along one direction.
    way = buf[jump_i].raw_draw(handedness) - ref
    min_speed = max(min_speed, ONSET_PEAK_SHARE * _peak_step_speed(buf, jump_i, handedness))
    while i > 0 and t_jump - buf[i - 1].t <= RELEASE_ONSET_BACK_S + 1e-6:
        a, b = buf[i - 1].raw_draw(handedness), buf[i].raw_draw(handedness)
        dt = buf[i].t - buf[i - 1].t
        if np.isnan(a[0]) or np.isnan(b[0]) or dt <= 0:
            break
        step = b - a
        if math.hypot(*step) / dt <= min_speed or float(step @ way) <= 0.0:
            break
        onset = i
        i -= 1
    return onset


def _peak_step_speed(buf: Sequence[_Frame], jump_i: int, handedness: str) -> float:
    """The fastest frame-to-frame speed of the raw draw wrist from buf[jump_i] to RELEASE_ONSET_BACK_S later."""
    peak = 0.0
    k = jump_i + 1
    while k < len(buf) and buf[k].t - buf[jump_i].t <= RELEASE_ONSET_BACK_S + 1e-6:
        a, b = buf[k - 1].raw_draw(handedness), buf[k].raw_draw(handedness)
        dt = buf[k].t - buf[k - 1].t
        if not (np.isnan(a[0]) or np.isnan(b[0])) and dt > 0:
            peak = max(peak, _dist(a, b) / dt)
        k += 1
    return peak


@dataclass(slots=True)
class _Candidate:
    """A release-like jump waiting for confirmation."""

    index: int
    t: float
    ref: np.ndarray  # the anchor position the hand left (median of the recent hold)
    confirm_sw: float  # how far the hand must be late in the window for a release
    back: np.ndarray | None = None  # unit vector from the bow hand to the anchor: the way a release goes
    bow_ref: np.ndarray | None = None  # the bow wrist's position in the recent hold (median)
    bow_drop_sw: float = RELEASE_BOW_DROP_SW  # how far it must drop for the bow arm to agree
    span_ref: float = math.nan  # the span in the recent hold (median)


@dataclass(slots=True, frozen=True)
class ReleaseEvidence:
    """What the frames after a release-like jump say, each signal as a share of what makes it sure on its own
    (1 = sure): the draw hand away from the anchor, the bow arm moved from its hold, the span opened."""

    draw_hand: float
    bow_arm: float
    span: float

    @property
    def released(self) -> bool:
        return self.draw_hand >= 1.0 or (self.draw_hand >= RELEASE_HAND_PART and self.bow_arm >= 1.0)

    @property
    def confidence(self) -> float:
        unsure = 1.0
        for name, weight in EVIDENCE_WEIGHT.items():
            unsure *= 1.0 - weight * min(max(getattr(self, name), 0.0), 1.0)
        return round(1.0 - unsure, 3)

    @property
    def agreed(self) -> tuple[str, ...]:
        return tuple(name for name in EVIDENCE_WEIGHT if getattr(self, name) >= 1.0)


@dataclass(slots=True)
class _OpenShot:
    """A shot between its anchor and the end of its follow-through; events are (frame index, t in s)."""

    index: int
    raise_at: tuple[int, float]
    draw_at: tuple[int, float]
    anchor_at: tuple[int, float]
    handedness: str
    bow_y: float = 0.0  # the bow wrist's height at the anchor (U below the shoulder line)
    mid_at: tuple[int, float] = (-1, 0.0)  # the middle of the draw (the anchor is refined forward from it)
    set_span: float = math.nan  # the span at the draw start
    set_motion: float = math.nan  # how fast the arms moved there (U/s): a set is a pause
    refined: bool = False
    draw_conf: float = UNREFINED_CONF
    anchor_conf: float = UNREFINED_CONF
    release_at: tuple[int, float] | None = None
    cand: _Candidate | None = None
    evidence: ReleaseEvidence | None = None  # what confirmed the release
    release_conf: float = 1.0
    hand_stayed: bool = False
    # Frame index where the span last began to grow fast in the hold. Kept across release candidates: in a
    # draw after an early anchor the hand is fast enough to open (and fail) candidates all the way to the face.
    growing_since: int | None = None


class _State(str, Enum):
    SEEK = "seek"  # setup / raise / draw: waiting for an anchor
    HOLD = "hold"
    CANDIDATE = "candidate"  # a release-like jump, waiting for confirmation
    FOLLOW = "follow"


class PhaseTracker:
    """Streaming shot-phase state machine; `push` one Body per frame, `finish` at the end of the video."""

    def __init__(self, handedness: str | None = None):
        if handedness not in (None, "right", "left"):
            raise ValueError(f"handedness must be 'right', 'left' or None, not {handedness!r}")
        self.handedness: str | None = handedness
        self._buf: deque[_Frame] = deque(maxlen=BUFFER_MAX_FRAMES)
        self._state = _State.SEEK
        self._shots = 0
        self._floor_index = -1  # frames up to this one belong to an earlier shot
        self._run: dict[str, int] = {"right": -1, "left": -1}  # index where the anchor pose began
        self._no_draw: dict[str, int] = {"right": -1, "left": -1}  # an anchor run that no draw led to
        self._shot: _OpenShot | None = None
        self._last: _Frame | None = None
        self._raised: list | None = None  # [first frame, its t, last frame, its t] of the bow arm up, no anchor
        self._watching = True  # for a raised bow arm: from the start, and after a shot once it came down
        # (first frame, t, last frame, t) of each time the bow arm was up and held without a full draw seen
        self.unseen_draws: list[tuple[int, float, int, float]] = []
        self.let_downs: list[LetDown] = []  # full draws that were not shot

    # ---- public -----------------------------------------------------------------------------------------
    def push(self, body: Body) -> PhaseUpdate:
        f = _frame(body)
        done: list[ShotPhases] = []
        if f is None:
            # Nobody (or no shoulders): the frame still counts for time, and ends a pending release.
            f = _Frame(body.index, body.t_ms / 1000.0, _NAN2, _NAN2, _NAN2, _NAN_FACE, _NAN2, _NAN2)
        self._buf.append(f)
        while self._buf and f.t - self._buf[0].t > BUFFER_S:
            self._buf.popleft()
        self._last = f
        if self._state is _State.SEEK:
            self._watch_raised(f)
            self._seek()
        elif self._state in (_State.HOLD, _State.CANDIDATE):
            done += self._hold()
        if self._state is _State.FOLLOW:
            done += self._follow()
        return PhaseUpdate(self._live_phase(), self._shot.index if self._shot else None, done)

    def finish(self) -> list[ShotPhases]:
        """Flush at the end of the video: a cut-off follow-through ends at the last frame; a shot whose
        release never came is returned incomplete."""
        self._end_raised()
        if self._shot is None or self._last is None:
            return []
        s = self._shot
        last = self._last
        if self._state is _State.CANDIDATE and self._candidate_moving_away():
            # The video ended mid-release (real02: 4 frames after it): the hand was leaving the anchor.
            ev = self._release_evidence(self._cand_dists())
            self._accept_release(self._cand_dists(), self._shot.cand.confirm_sw, ev, RELEASE_AT_END_CONF)
        if s.release_at is None:
            self._let_down(last, "video_ended")
            return []
        return [self._close(last, complete=True)]

    # ---- states ------------------------------------------------------------------------------------------
    def _sides(self) -> tuple[str, ...]:
        return (self.handedness,) if self.handedness else ("right", "left")

    def _seek(self) -> None:
        buf = self._buf
        # Stillness needs the centred derivative, so the newest frame judged is ANCHOR_DERIV_HALF_S back.
        i = _newest_judged(buf, ANCHOR_DERIV_HALF_S)
        f = buf[i]
        if f.index <= self._floor_index:
            return
        for side in self._sides():
            ok = anchor_pose(f, side) and _still_at_anchor(buf, i, side)
            if not ok:
                self._run[side] = -1
                continue
            if self._run[side] < 0:
                self._run[side] = f.index
            start = self._find(self._run[side])
            if start is not None and f.t - buf[start].t >= ANCHOR_CONFIRM_S - 1e-6:
                if self._no_draw[side] == self._run[side]:
                    continue
                if _draw_travel(buf, start, self._floor_index, side) < NEW_DRAW_MIN_SW:
                    # No draw led here: the hand is still at the face from the last shot's follow-through
                    # (real03), or it never left it. Real draws bring it from 1.0-2.8 U away.
                    self._no_draw[side] = self._run[side]
                    continue
                self._start_shot(start, side)
                return

    def _watch_raised(self, f: _Frame) -> None:
        """Note the times the bow arm is raised and held with no anchor found: a full draw the pose did not
        show (the draw hand hidden or misplaced for the whole hold, stance_high shot 1), which the report
        owns up to instead of leaving out silently."""
        up = down = False
        for side in self._sides():
            bow = f.wrists(side)[0]
            if np.isnan(bow[0]):
                continue
            reach = _dist(bow, f.nose) if not np.isnan(f.nose[0]) else math.hypot(bow[0], bow[1])
            if reach > ARM_OUT_MIN_SW and abs(bow[1]) < RAISE_LEVEL_BELOW_SW:
                up = True
            down = down or bow[1] > RAISE_LEVEL_BELOW_SW + LOWERED_DROP_SW
        # After a shot, only once the bow arm has come down: a follow-through held past FOLLOW_MAX_S is not
        # a draw the pose missed.
        self._watching = self._watching or down
        if up and self._watching:
            if self._raised is None:
                self._raised = [f.index, f.t, f.index, f.t]
            else:
                self._raised[2:] = [f.index, f.t]
        elif self._raised is not None and f.t - self._raised[3] > RAISED_GAP_S:
            self._end_raised()

    def _end_raised(self) -> None:
        r, self._raised = self._raised, None
        if r is not None and r[3] - r[1] >= UNSEEN_DRAW_MIN_S - 1e-6:
            self.unseen_draws.append((r[0], r[1], r[2], r[3]))

    def _start_shot(self, anchor_i: int, side: str) -> None:
        self.handedness = self.handedness or side
        buf = list(self._buf)
        floor_i = 0
        while floor_i < anchor_i and buf[floor_i].index <= self._floor_index:
            floor_i += 1
        raise_i, draw_i, mid_i, set_motion = _back_raise_draw(buf, anchor_i, floor_i, self.handedness)
        a = buf[anchor_i]
        bow_ys = [g.wrists(self.handedness)[0][1] for g in buf[anchor_i:]]
        bow_ys = [y for y in bow_ys if not math.isnan(y)]
        self._shot = _OpenShot(
            index=self._shots,
            raise_at=(buf[raise_i].index, buf[raise_i].t),
            draw_at=(buf[draw_i].index, buf[draw_i].t),
            anchor_at=(a.index, a.t),
            handedness=self.handedness,
            bow_y=float(np.median(bow_ys)) if bow_ys else 0.0,
            mid_at=(buf[mid_i].index, buf[mid_i].t),
            set_span=_span(buf[draw_i]),
            set_motion=set_motion,
        )
        self._shots += 1
        self._raised = None
        self._state = _State.HOLD
        self._run = {"right": -1, "left": -1}

    def _draw_goes_on(self) -> int | None:
        """Position in the buffer where the span is growing again the way it does in a draw, not in a hold:
        the anchor was taken too early (bystander: MediaPipe puts the draw hand at the face during the set,
        then the real draw follows). A release is not mistaken for this: its jump opens a candidate first."""
        buf, s = self._buf, self._shot
        i = _newest_judged(buf, DERIV_HALF_S)
        if not _rate(buf, i, _span) > ANCHOR_SPAN_SPEED_SW_S:
            s.growing_since = None
            return None
        if s.growing_since is None:
            s.growing_since = buf[i].index
        start = self._find(s.growing_since)
        if start is None or buf[i].t - buf[start].t < REDRAW_S - 1e-6:
            return None
        return i if _span(buf[i]) - _span(buf[start]) > REDRAW_GROWTH_SW else None

    def _hold_ref(self, before_t: float) -> np.ndarray | None:
        """Median draw-wrist position over the recent hold, ending at `before_t`."""
        pts = [
            f.wrists(self.handedness)[1]
            for f in self._buf
            if f.index >= self._shot.anchor_at[0] and before_t - HOLD_REF_S <= f.t <= before_t
        ]
        pts = [p for p in pts if not np.isnan(p[0])]
        return np.median(np.asarray(pts), axis=0) if pts else None

    def _back_dir(self, before_t: float, ref: np.ndarray) -> np.ndarray | None:
        """Unit vector from the bow wrist (median over the recent hold) to the anchor position `ref`."""
        pts = [
            f.wrists(self.handedness)[0]
            for f in self._buf
            if f.index >= self._shot.anchor_at[0] and before_t - HOLD_REF_S <= f.t <= before_t
        ]
        pts = [p for p in pts if not np.isnan(p[0])]
        if not pts:
            return None
        v = ref - np.median(np.asarray(pts), axis=0)
        n = math.hypot(v[0], v[1])
        return v / n if n > 0 else None

    def _hold_jitter(self, before_t: float) -> float:
        """How far the draw wrist strays in this hold (90th percentile of its distance from the median)."""
        pts = np.asarray(
            [f.wrists(self.handedness)[1] for f in self._buf if f.index >= self._shot.anchor_at[0] and f.t <= before_t]
        )
        pts = pts[~np.isnan(pts[:, 0])] if len(pts) else pts
        if len(pts) < 3:
            return 0.0
        return float(np.percentile(np.hypot(*(pts - np.median(pts, axis=0)).T), 90))

    def _hold(self) -> list[ShotPhases]:
        if self._state is _State.CANDIDATE:
            return self._candidate()
        buf = self._buf
        f = buf[-1]
        bow, draw = f.wrists(self.handedness)
        if not np.isnan(bow[1]) and bow[1] > max(LET_DOWN_BELOW_SW, self._shot.bow_y + LET_DOWN_DROP_SW):
            self._let_down(f, "let_down")
            return []
        if not self._shot.refined and f.t - self._shot.anchor_at[1] >= ANCHOR_REFINE_AFTER_S:
            self._refine_anchor(f.t)
        redraw = self._draw_goes_on()
        if redraw is not None:
            # Start the shot again from here: its anchor is refined forward from this frame at the release,
            # and its set is looked for again before it. Waiting for a fresh still anchor instead would lose
            # shots whose hold MediaPipe folds.
            self._shots -= 1
            self._start_shot(redraw, self._shot.handedness)
            return []
        if len(buf) < 2 or np.isnan(draw[0]):
            return []
        prev = buf[-2]
        pd = prev.wrists(self.handedness)[1]
        dt = f.t - prev.t
        if np.isnan(pd[0]) or dt <= 0 or _dist(draw, pd) / dt < RELEASE_SPEED_SW_S:
            return []
        ref = self._hold_ref(f.t - HOLD_REF_GAP_S)
        if ref is None or _dist(draw, ref) < RELEASE_START_SW:
            return []
        before = f.t - HOLD_REF_GAP_S
        thr = max(RELEASE_CONFIRM_SW, RELEASE_JITTER_FACTOR * self._hold_jitter(before))
        bow_ref, bow_stray_y = self._bow_hold(before)
        self._shot.cand = _Candidate(
            f.index,
            f.t,
            ref,
            thr,
            self._back_dir(before, ref),
            bow_ref,
            max(RELEASE_BOW_DROP_SW, RELEASE_BOW_JITTER_FACTOR * bow_stray_y),
            self._hold_span(before),
        )
        self._state = _State.CANDIDATE
        return self._candidate()

    def _recent_hold(self, before_t: float) -> list[_Frame]:
        a = self._shot.anchor_at[0]
        return [f for f in self._buf if f.index >= a and before_t - HOLD_REF_S <= f.t <= before_t]

    def _bow_hold(self, before_t: float) -> tuple[np.ndarray | None, float]:
        """The bow wrist's median position over the recent hold and its vertical stray (90th percentile)."""
        pts = np.asarray([f.wrists(self.handedness)[0] for f in self._recent_hold(before_t)]).reshape(-1, 2)
        pts = pts[~np.isnan(pts[:, 0])]
        if len(pts) < 3:
            return None, 0.0
        med = np.median(pts, axis=0)
        return med, float(np.percentile(np.abs(pts[:, 1] - med[1]), 90))

    def _hold_span(self, before_t: float) -> float:
        spans = [sp for sp in map(_span, self._recent_hold(before_t)) if not math.isnan(sp)]
        return float(np.median(spans)) if spans else math.nan

    def _release_evidence(self, ds: list[tuple[int, float]]) -> ReleaseEvidence:
        """Each signal as a share of what makes it sure: the hand and the span over the later half of the
        confirmation window (by then a release is well away, a twitch is back); the bow arm's drop at its
        deepest in the window (it falls at the release, then may be held up again), the second-deepest
        frame so that one glitch does not count."""
        c = self._shot.cand
        t_late = c.t + RELEASE_CONFIRM_S / 2
        late = [d for i, d in ds if self._buf[i].t >= t_late - 1e-6]
        window = [g for g in self._buf if g.index >= c.index]
        hand = float(np.median(late)) / c.confirm_sw if late else 0.0
        bow = span = 0.0
        if c.bow_ref is not None:
            drops = sorted(y - c.bow_ref[1] for g in window if not math.isnan(y := g.wrists(self.handedness)[0][1]))
            bow = drops[-2] / c.bow_drop_sw if len(drops) >= 2 else 0.0
        spans = [_span(g) - c.span_ref for g in window if g.t >= t_late - 1e-6]
        spans = [sp for sp in spans if not math.isnan(sp)]
        if spans:
            span = float(np.median(spans)) / c.confirm_sw
        return ReleaseEvidence(hand, bow, span)

    def _cand_dists(self) -> list[tuple[int, float]]:
        """(buffer position, distance from the anchor position) of the frames since the candidate jump;
        a lost draw wrist counts as far away (it leaves view or hides behind the head after the release)
        while the bow wrist is seen; a frame that lost both (MediaPipe folded the upper body) tells nothing."""
        c = self._shot.cand
        idx, ref = c.index, c.ref
        out = []
        for i in range(len(self._buf) - 1, -1, -1):
            g = self._buf[i]
            if g.index < idx:
                break
            bow, p = g.wrists(self.handedness)
            if np.isnan(p[0]) and np.isnan(bow[0]) and g.index > idx:
                continue
            out.append((i, math.inf if np.isnan(p[0]) else _dist(p, ref)))
        return out[::-1]

    def _candidate(self) -> list[ShotPhases]:
        t_c, thr = self._shot.cand.t, self._shot.cand.confirm_sw
        if self._buf[-1].t - t_c < RELEASE_CONFIRM_S - 1e-6:
            return []
        ds = self._cand_dists()
        ev = self._release_evidence(ds)
        away = [i for i, d in ds if d >= thr / 2]  # the frames of the window the hand was away from the anchor
        if ev.released and self._went_back(away):
            self._accept_release(ds, thr, ev)
            self._state = _State.FOLLOW
        else:
            self._state = _State.HOLD
            self._shot.cand = None
        return []

    def _went_back(self, positions: list[int]) -> bool:
        """The hand did not leave the anchor towards the bow hand (a lost hand counts as gone). A release sends
        it back, or back and down along the neck as seen face-on (real05: mostly down); when MediaPipe folds
        the upper body (shoulders and arms drawn together) or misplaces the hand at the face during the set and
        then finds it again, the hand jumps forwards, towards the bow: not a release."""
        c = self._shot.cand
        if c.back is None or not positions:
            return True
        away = []
        for i in positions:
            p = self._buf[i].wrists(self.handedness)[1]
            d = _dist(p, c.ref)
            away.append(1.0 if np.isnan(p[0]) or d == 0 else float((p - c.ref) @ c.back) / d)
        return float(np.median(away)) > RELEASE_BACK_MIN_COS

    def _candidate_moving_away(self) -> bool:
        """At the end of the video the confirmation window is cut short: accept a jump whose hand was
        still leaving the anchor at the last frame."""
        cd = self._cand_dists()
        ds = [d for _, d in cd]
        return len(ds) >= 2 and ds[-1] >= max(ds) and ds[-1] >= RELEASE_END_MIN_SW and self._went_back([cd[-1][0]])

    def _accept_release(
        self, ds: list[tuple[int, float]], thr: float, ev: ReleaseEvidence, min_conf: float = 0.0
    ) -> None:
        s = self._shot
        s.evidence = ev
        s.release_conf = max(ev.confidence, min_conf)
        ref = s.cand.ref
        # The jump: from here on the hand stays away from the anchor. Candidates fire on hold twitches too,
        # so the release may come a little after the frame that opened the window.
        # A frame or two of garbage at the end (MediaPipe mirrors the body as the hand flies out of view,
        # placing it back near the face) is not the hand coming back.
        n_back = 0
        while n_back < len(ds) and ds[-1 - n_back][1] < thr / 2:
            n_back += 1
        if 0 < n_back <= RELEASE_END_GLITCH_FRAMES and n_back < len(ds):
            ds = ds[:-n_back]
        # A lone near frame inside the away run is the hand passing the anchor as MediaPipe throws it forwards
        # (fault_bow_arm: wrists swapped 8 frames into the release), not the hand back at the anchor.
        jump = ds[-1][0]
        near_run = 0
        for i, d in reversed(ds):
            if d < thr / 2:
                near_run += 1
                if near_run >= RELEASE_NEAR_RUN_FRAMES:
                    break
                continue
            near_run = 0
            jump = i
        buf = self._buf
        # A jittery hold (noisy points, a release aid's creep) needs a faster step to count as moving.
        t_c = s.cand.t
        lo = max(s.anchor_at[1], t_c - HOLD_JITTER_S)
        jitter = _raw_hold_speed(buf, lo, t_c - HOLD_REF_GAP_S, self.handedness)
        min_speed = max(RELEASE_ONSET_SPEED_SW_S, RELEASE_ONSET_JITTER_FACTOR * jitter)
        on = _release_onset(buf, jump, self.handedness, ref, min_speed)
        anchor_pos = self._find(s.anchor_at[0])
        if anchor_pos is not None:
            on = max(on, anchor_pos + 1)
        s.release_at = (buf[on].index, buf[on].t)
        s.hand_stayed = _hand_stayed(buf, on, s.handedness, s.cand.span_ref)
        s.cand = None
        self._refine_anchor(s.release_at[1])

    def _follow(self) -> list[ShotPhases]:
        s = self._shot
        f = self._buf[-1]
        after = f.t - s.release_at[1]
        bow = f.wrists(self.handedness)[0]
        lowered = np.isnan(bow[1]) or bow[1] > max(RAISE_LEVEL_BELOW_SW + 0.3, s.bow_y + LOWERED_DROP_SW)
        if after >= FOLLOW_MAX_S - 1e-6 or (after >= FOLLOW_MIN_S - 1e-6 and lowered):
            return [self._close(f, complete=True)]
        return []

    def _refine_anchor(self, until_t: float) -> None:
        """Place the anchor against the hold (`_settle_anchor`) and say how sure it and the draw start are."""
        s = self._shot
        if s.refined:
            return
        s.refined = True
        s.anchor_conf = self._settle_anchor(until_t)
        s.draw_conf = self._draw_start_conf()

    def _draw_start_conf(self) -> float:
        """DRAW_GUESS_CONF when no pause was found at the set, or the bow arm still rose by DRAW_OVERLAP_RISE_SW
        after the draw start found."""
        s = self._shot
        if not s.set_motion <= SET_PAUSE_MAX_SW_S:
            return DRAW_GUESS_CONF
        ys = [g.wrists(s.handedness)[0][1] for g in self._buf if s.draw_at[0] <= g.index <= s.anchor_at[0]]
        ys = [y for y in ys if not math.isnan(y)]
        if len(ys) < 2 or self._buf[0].index > s.draw_at[0]:
            return UNREFINED_CONF
        return DRAW_GUESS_CONF if max(ys) - ys[-1] > DRAW_OVERLAP_RISE_SW else DRAW_SET_CONF

    def _settle_anchor(self, until_t: float) -> float:
        """Move the anchor to where full draw was reached: the first frame after the middle of the draw from
        which the arms stay about as still as in the hold for ANCHOR_STILL_S, with the span within
        ANCHOR_SPAN_TOL_FRAC of the draw's extent from the hold's. The anchor is first detected when the draw
        has slowed below ANCHOR_SPAN_SPEED_SW_S, which on an eased draw is well before it ends (and after a
        MediaPipe fold, when the arms are seen again); the hold that follows tells how still "still" is.
        Returns how sure the anchor is."""
        s = self._shot
        side = s.handedness
        buf = list(self._buf)
        det = self._find(s.anchor_at[0])
        if det is None:
            return UNREFINED_CONF
        hi = len(buf) - 1
        while hi > det and buf[hi].t > until_t - HOLD_REF_GAP_S:
            hi -= 1
        if hi - det < 3:
            return UNREFINED_CONF
        lo = det
        while lo > 0 and buf[lo - 1].index >= s.mid_at[0]:
            lo -= 1
        motion = [_motion(buf, j, side) for j in range(lo, hi + 1)]
        spans = [_span(buf[j]) for j in range(lo, hi + 1)]
        hold_m = [m for m in motion[det - lo :] if not math.isnan(m)]
        late = [sp for sp in spans[det - lo :] if not math.isnan(sp)]
        draw_m = [m for m in motion[: det - lo + 1] if not math.isnan(m)]
        if len(hold_m) < 3 or not late:
            return UNREFINED_CONF
        still = float(np.percentile(hold_m, 25))
        peak = float(np.percentile(draw_m, 90)) if draw_m else 0.0
        still += min(SET_MOTION_TOL_SW_S, max(SET_MOTION_TOL_MIN_SW_S, SET_MOTION_TOL_FRAC * peak))
        s_hold = float(np.median(late))
        extent = s_hold - s.set_span if not math.isnan(s.set_span) else 0.0
        # MediaPipe's span wanders in a steady hold (a bow wrist creeping 0.1 U): no tighter than that.
        wander = float(np.percentile(late, 75) - np.percentile(late, 25))
        span_tol = max(ANCHOR_SPAN_TOL_FRAC * abs(extent), ANCHOR_SPAN_WANDER_FACTOR * wander)
        at_span: int | None = None
        for k in range(det, hi + 1):
            # The span comes to the hold's from either side: it grows in a draw seen face-on, and shrinks while
            # a bow arm held low at the start of a draw seen close-up rises into line (real07).
            if not abs(spans[k - lo] - s_hold) <= span_tol:
                continue
            if at_span is None:
                at_span = k
                settle = max(ANCHOR_SETTLE_MAX_S, ANCHOR_SETTLE_DRAW_FRAC * (buf[k].t - s.draw_at[1]))
            if buf[k].t - buf[at_span].t > settle + 1e-6:
                break
            j = k
            ok = True
            while j <= hi and buf[j].t - buf[k].t <= ANCHOR_STILL_S + 1e-6:
                if not motion[j - lo] <= still:
                    ok = False
                    break
                j += 1
            if ok:
                s.anchor_at = (buf[k].index, buf[k].t)
                return ANCHOR_STILL_CONF
        # The arms never settled as still as the hold's quieter half soon after the span was reached: a
        # jittery hold (handheld phone, MediaPipe noise) where the draw ended at once. The span tells.
        if at_span is None:
            return UNREFINED_CONF
        s.anchor_at = (buf[at_span].index, buf[at_span].t)
        return ANCHOR_SPAN_CONF

    def _close(self, end: _Frame, complete: bool) -> ShotPhases:
        s = self._shot
        rel = s.release_at
        self._refine_anchor(end.t if rel is None else rel[1])
        hold_start = self._first_index_after(s.anchor_at[1] + FULL_DRAW_S, s.anchor_at[0] + 1)
        follow = None if rel is None else self._first_index_after(rel[1] + RELEASE_PHASE_S, rel[0] + 1)
        out = ShotPhases(
            index=s.index,
            raise_start_frame=s.raise_at[0],
            draw_start_frame=s.draw_at[0],
            anchor_frame=s.anchor_at[0],
            release_frame=None if rel is None else rel[0],
            end_frame=end.index,
            raise_start_ms=s.raise_at[1] * 1000.0,
            draw_start_ms=s.draw_at[1] * 1000.0,
            anchor_ms=s.anchor_at[1] * 1000.0,
            release_ms=None if rel is None else rel[1] * 1000.0,
            end_ms=end.t * 1000.0,
            complete=complete and rel is not None,
            handedness=s.handedness,
            hold_start_frame=min(hold_start, end.index),
            follow_start_frame=None if follow is None else min(follow, end.index),
            hand_stayed=s.hand_stayed,
            release_confidence=s.release_conf,
            release_evidence=() if s.evidence is None else s.evidence.agreed,
            marks_confidence={"draw_start": s.draw_conf, "anchor": s.anchor_conf},
        )
        self._end_shot(end)
        return out

    def _let_down(self, end: _Frame, reason: str) -> None:
        s = self._shot
        self.let_downs.append(LetDown(s.anchor_at[0], end.index, s.anchor_at[1], end.t, reason))
        self._end_shot(end)

    def _end_shot(self, end: _Frame) -> None:
        self._shot = None
        self._state = _State.SEEK
        self._floor_index = end.index
        self._watching = False

    # ---- helpers -----------------------------------------------------------------------------------------
    def _find(self, index: int) -> int | None:
        # The buffer is ordered by frame index; walk from the end, where the frames sought usually are.
        for i in range(len(self._buf) - 1, -1, -1):
            if self._buf[i].index == index:
                return i
            if self._buf[i].index < index:
                return None
        return None

    def _first_index_after(self, t: float, default: int) -> int:
        for g in self._buf:
            if g.t >= t - 1e-6 and g.index >= default:
                return g.index
        return max(default, self._buf[-1].index)

    def _live_phase(self) -> Phase:
        f = self._last
        if self._state is _State.SEEK:
            for side in self._sides():
                bow, draw = f.wrists(side)
                if np.isnan(bow[1]):
                    continue
                if bow[1] < RAISE_LEVEL_BELOW_SW:
                    return Phase.DRAW if not np.isnan(draw[0]) and _dist(bow, draw) > 1.0 else Phase.RAISE
            return Phase.SETUP
        s = self._shot
        if self._state is _State.HOLD:
            return Phase.FULL_DRAW if f.t - s.anchor_at[1] < FULL_DRAW_S else Phase.HOLD
        if self._state is _State.CANDIDATE:
            return Phase.RELEASE
        return Phase.RELEASE if f.t - s.release_at[1] < RELEASE_PHASE_S else Phase.FOLLOW_THROUGH


def detect_handedness(bodies: Iterable[Body]) -> str | None:
    """'right' or 'left' from which hand goes to the face at anchor (the other arm extended); None if no
    anchor is ever seen. Feet are never used: stance says nothing reliable about the bow hand."""
    tracker = PhaseTracker()
    for b in bodies:
        tracker.push(b)
        if tracker.handedness is not None:
            return tracker.handedness
    return None


def track_shots(bodies: Iterable[Body], handedness: str | None = None) -> list[ShotPhases]:
    """Every shot of a whole recording (re-analysis and tests)."""
    tracker = PhaseTracker(handedness)
    out: list[ShotPhases] = []
    for b in bodies:
        out += tracker.push(b).completed
    return out + tracker.finish()
