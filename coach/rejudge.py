"""Re-judge one shot of a recorded session from its kept pose track, on phase marks a coach set: no model run,
and only the frames of that shot (plus a few seconds for the smoother and the setup pose) are gone through,
so a correction is saved in a fraction of a second whatever the session's length (benchmarks/rejudge.py).

    track frames ─► BodyStream (the analysis's own smoothing) ─► RuleEngine.measure ─► judge_shot(marks)
    every shot's measures ─► RuleEngine.judge_session (the consistency rules)

A missed shot added by its release gets its other marks from the tracker's own code, run on the frames
before the release: the anchor is the start of the last anchor pose before it (`frames.anchor_pose`), placed
against the hold (`anchor.refine_anchor`), the raise and the draw start are walked back from it
(`lookback._back_raise_draw`). Where the pose never shows an anchor (the draw hand hidden), the anchor is put
DEFAULT_HOLD_S before the release and marked uncertain, so rules resting on it stay unjudged until the coach
places it. Everything here is pure: a track and marks in, results out; the store is coach/corrections.py's.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from posture_rules.pack import RulePack

from .analyzer import phase_times
from .body_stream import BodyStream
from .engine import RuleEngine, Sample
from .kinematics import Body, ShoulderWidth
from .phases import SETUP_S, P, ShotPhases, phase_windows
from .phases.anchor import refine_anchor
from .phases.frames import TrackFrame, _frame, anchor_pose
from .phases.lookback import _back_raise_draw
from .phases.shot import TimeOf
from .phases.state import Mark, OpenShot
from .pose_frame import PoseTrack
from .results import Finding, Series, ShotResult
from .shot_series import shot_series
from .shot_view import ShotView, shot_view

MARKS = ("raise_start", "draw_start", "anchor", "release")  # the marks a coach can move, in phase order
WARM_S = 3.0  # the shoulder width's window (s): `SessionTrack.bodies` starts twice this before the first frame judged
DEFAULT_HOLD_S = 2.0  # an added shot's anchor, when the pose shows none: this long before the release
LOOKBACK_S = 12.0  # how far before an added release its anchor and set are looked for


class MarkError(ValueError):
    """Marks that cannot make a shot (out of order, outside the video): one line for the coach."""


@dataclass(slots=True, frozen=True)
class Marks:
    """A shot's phase marks as frame indices (PHASE_MARKS names); release None for a let-down."""

    raise_start: int
    draw_start: int
    anchor: int
    release: int | None
    end: int

    def as_dict(self) -> dict[str, int | None]:
        return {m: getattr(self, m) for m in (*MARKS, "end")}

    def phases(self, index: int, t: TimeOf, handedness: str, **evidence) -> ShotPhases:
        """The shot's phases on these marks: each mark's time from `t` (a frame's time in s, 0 where unknown),
        the hold and the follow-through placed by `phase_windows`; `evidence`: ShotPhases' release and marks
        evidence fields (release_confidence, marks_confidence, release_source, …)."""
        marks = (self.raise_start, self.draw_start, self.anchor, self.release, self.end)
        return ShotPhases.on_marks(index, marks, t, handedness, **evidence)

    def check(self, n_frames: int) -> None:
        seq = [(m, getattr(self, m)) for m in MARKS if getattr(self, m) is not None]
        for m, f in [*seq, ("end", self.end)]:
            if not 0 <= f < n_frames:
                raise MarkError(f"{m.replace('_', ' ')} frame {f} is outside the video (frames 0–{n_frames - 1})")
        for (a, fa), (b, fb) in zip(seq, seq[1:]):
            if fa > fb or (b == "release" and fa == fb):
                raise MarkError(f"{a.replace('_', ' ')} ({fa}) must come before {b.replace('_', ' ')} ({fb})")
        if self.release is not None and self.end < self.release:
            raise MarkError(f"the shot's end ({self.end}) must not come before its release ({self.release})")


@dataclass(slots=True)
class Rejudged:
    shot: ShotResult
    series: Series | None
    bodies: dict[int, Body] = field(default_factory=dict)  # the smoothed poses judged, by frame (key frames)


class SessionTrack:
    """A session's kept pose track with what judging needs: handedness, the session's view, the rule pack
    (the archer's profile applied). Bodies are made per window, on demand."""

    def __init__(self, track: PoseTrack, handedness: str, view: str, pack: RulePack):
        self.track = track
        self.handedness = handedness if handedness in ("left", "right") else "right"
        self.view = view
        self.pack = pack
        self.fps = track.fps
        self._index = [f.index for f in track.frames]
        self._t = {f.index: f.t_ms / 1000.0 for f in track.frames}

    @property
    def n_frames(self) -> int:
        return (self._index[-1] + 1) if self._index else 0

    def t(self, frame: int) -> float | None:
        return self._t.get(frame)

    def bodies(self, lo: int, hi: int) -> list[Body]:
        """The smoothed Bodies of frames lo..hi, as the analysis made them. The shoulder width in use at lo was
        computed on the last frame numbered a multiple of ShoulderWidth.REFRESH, from the last WARM_S of widths
        read: the stream starts twice that before lo (and two REFRESH more), so that a stretch in which the pose
        read no shoulders (folded, lost) up to WARM_S long is made up for, and none of the window is the stream's
        first frames, which its centred smoother cannot centre."""
        frames = self.track.frames
        start = lo - 2 * int(WARM_S * self.fps) - 2 * ShoulderWidth.REFRESH
        a = bisect.bisect_left(self._index, start)
        b = bisect.bisect_right(self._index, hi)
        stream = BodyStream(self.fps, self.track.width, self.track.height, "recorded", self.handedness)
        out: list[Body] = []
        for pf in frames[a : b + stream.lag + 1]:
            out += stream.push(pf)
        out += stream.flush()
        return [x for x in out if lo <= x.index <= hi]


def _engine(st: SessionTrack, bodies: Sequence[Body]) -> RuleEngine:
    span_s = (bodies[-1].t_s - bodies[0].t_s + 10.0) if bodies else 10.0
    engine = RuleEngine(st.pack, buffer_s=span_s, fps=st.fps)
    for b in bodies:
        engine.buffer.append(Sample(b, engine.measure(b)))
    return engine


def _shot_view(st: SessionTrack, bodies: Sequence[Body], sp: ShotPhases) -> ShotView:
    lo = sp.raise_start_frame if sp.raise_start_frame is not None else sp.anchor_frame
    inside = [b for b in bodies if lo <= b.index <= sp.end_frame]
    return shot_view(inside, sp, st.view)


def judge_marks(
    st: SessionTrack,
    marks: Marks,
    index: int,
    *,
    marks_confidence: dict[str, float] | None = None,
    release_confidence: float = 1.0,
    like: ShotResult | None = None,
) -> Rejudged:
    """Judge one shot on these marks: every observable rule of the pack, the shot's measures and phase times,
    and its per-frame metric series. `like`: the stored shot it replaces (its release evidence and sound
    timing are kept where the release did not move)."""
    marks.check(st.n_frames)
    lo = max(0, marks.raise_start - int(round(SETUP_S * st.fps)) - 2)
    bodies = st.bodies(lo, marks.end)
    engine = _engine(st, bodies)
    sp = marks.phases(
        index,
        st.t,
        st.handedness,
        release_confidence=release_confidence,
        marks_confidence=dict(marks_confidence or {}),
        **_kept_release(like, marks.release),
        anchor_from_frame=like.anchor_from_frame if like is not None and like.anchor_frame == marks.anchor else None,
    )
    view = _shot_view(st, bodies, sp)
    findings, measures = engine.judge_shot(sp, view.view, view.off_view)
    shot = ShotResult.from_phases(sp, findings, measures, index=index, fps=st.fps, times_s=phase_times(sp, st.t))
    series = shot_series(engine, sp.raise_start_frame, sp.end_frame, phase_windows(sp, st.t))
    return Rejudged(shot, series, {b.index: b for b in bodies})


def _kept_release(like: ShotResult | None, release: int | None) -> dict:
    """What a re-judged shot keeps of the stored shot it replaces: where the release did not move, how it was
    timed (sound) and what agreed on it; where it moved, that the coach placed it."""
    if like is None:
        return {"release_source": "pose"}
    if like.release_frame != release:
        return {"release_source": "coach"}
    return {
        "release_source": like.release_source,
        "flight_time_s": like.flight_time_s,
        "hand_stayed": like.hand_stayed,
        "release_evidence": tuple(like.release_evidence),
    }


def judge_session(st: SessionTrack, shots: Sequence[ShotResult]) -> tuple[list[Finding], dict[str, float]]:
    """The session's consistency rules on these shots' measures and release times."""
    engine = RuleEngine(st.pack, buffer_s=1.0, fps=st.fps)
    return engine.judge_session(list(shots), st.view)


# ---- an added shot: its marks from the tracker's own code ------------------------------------------------
def find_marks(st: SessionTrack, release: int, floor: int, ceiling: int) -> tuple[Marks, dict[str, float]]:
    """The marks of a shot the tracker missed, given its release: anchor, draw start and raise found around
    it (between `floor`, the previous shot's end, and `ceiling`, the next shot's raise), and how sure each is."""
    if not 0 <= release < st.n_frames:
        raise MarkError(f"release frame {release} is outside the video (frames 0–{st.n_frames - 1})")
    if not floor < release <= ceiling:
        raise MarkError(f"release frame {release} falls inside another shot (frames {floor}–{ceiling} are free)")
    lo = max(floor + 1, release - int(LOOKBACK_S * st.fps))
    hi = min(ceiling, st.n_frames - 1, release + int(round(P.follow_max_s * st.fps)) + 1)
    bodies = st.bodies(lo, hi)
    buf = [f for f in map(_frame, bodies) if f is not None]
    rel_i = next((i for i, f in enumerate(buf) if f.index >= release), None)
    if rel_i is None or rel_i < 2:
        raise MarkError(f"no body is seen before release frame {release}; give the other marks too")
    hand = st.handedness
    anchor_i = _last_anchor_run(buf, rel_i, hand)
    conf: dict[str, float] = {}
    if anchor_i is None:
        t_rel = buf[rel_i].t
        anchor_i = next((i for i in range(rel_i) if buf[i].t >= t_rel - DEFAULT_HOLD_S), 0)
        conf["anchor"] = 0.0  # a guess: rules resting on it wait for the coach
    raise_i, draw_i, mid_i, set_motion = _back_raise_draw(buf, anchor_i, 0, hand)
    shot = OpenShot(
        index=0,
        raise_at=Mark(buf[raise_i].index, buf[raise_i].t),
        draw_at=Mark(buf[draw_i].index, buf[draw_i].t),
        anchor_at=Mark(buf[anchor_i].index, buf[anchor_i].t),
        handedness=hand,
        mid_at=Mark(buf[mid_i].index, buf[mid_i].t),
        set_span=_span_of(buf[draw_i]),
        set_motion=set_motion,
    )
    if "anchor" not in conf:
        refine_anchor(buf[: rel_i + 1], shot, buf[rel_i].t)
        conf = {"draw_start": shot.draw_conf, "anchor": shot.anchor_conf}
    else:
        conf["draw_start"] = 0.0
    anchor = min(shot.anchor_at.frame, release - 1)
    draw = min(shot.draw_at.frame, anchor)
    marks = Marks(min(shot.raise_at.frame, draw), draw, anchor, release, _follow_end(buf, rel_i, hand, hi))
    return marks, conf


def follow_end(st: SessionTrack, release: int, ceiling: int) -> int:
    """Where the follow-through after `release` ends (`_follow_end`), for a shot whose other marks are given."""
    if not 0 <= release < st.n_frames:
        raise MarkError(f"release frame {release} is outside the video (frames 0–{st.n_frames - 1})")
    hi = max(release, min(ceiling, st.n_frames - 1, release + int(round(P.follow_max_s * st.fps)) + 1))
    buf = [f for f in map(_frame, st.bodies(release, hi)) if f is not None]
    return _follow_end(buf, 0, st.handedness, hi) if buf else hi


def _span_of(f: TrackFrame) -> float:
    return math.hypot(*(f.lw - f.rw))


def _last_anchor_run(buf: Sequence[TrackFrame], rel_i: int, hand: str) -> int | None:
    """Position of the first frame of the last run of anchor poses before the release."""
    i = rel_i - 1
    while i >= 0 and not anchor_pose(buf[i], hand):
        i -= 1
    if i < 0:
        return None
    while i > 0 and anchor_pose(buf[i - 1], hand):
        i -= 1
    return i


def _follow_end(buf: Sequence[TrackFrame], rel_i: int, hand: str, hi: int) -> int:
    """The follow-through's end as the tracker closes it: P.follow_max_s after the release, or once the bow
    arm is down after P.follow_min_s."""
    t0 = buf[rel_i].t
    for f in buf[rel_i + 1 :]:
        after = f.t - t0
        bow = f.wrists(hand)[0]
        lowered = np.isnan(bow[1]) or bow[1] > P.raise_level_below_sw + 0.3
        if after >= P.follow_max_s - 1e-6 or (after >= P.follow_min_s - 1e-6 and lowered):
            return f.index
    return min(hi, buf[-1].index)
