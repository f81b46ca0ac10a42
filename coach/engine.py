"""The rule engine: rules from a pack, judged per frame (live flags), per shot and per session.

Frame metrics are computed once per frame and cached beside the Body; a shot's verdicts are then read off
that cache when the shot completes, so live and recorded analysis judge the same numbers.

A little over 400 lines: the frame, shot and session judging share the hysteresis, the phase windows and the
Finding builders, and the reference a metric is judged against (`pose_reference`, `setup_camera_roll`) stays
beside the judging that takes it out, live and per shot.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, replace

import numpy as np

from posture_rules.pack import Rule, RulePack

from .kinematics import VIS_MIN, Body
from .metrics import METRICS, ShotFrames
from .metrics.registry import MIN_MEASURED_SHARE, Metric
from .phases import PHASE_MARKS, REFERENCE_POSES, first_seen_drawn, phase_windows
from .results import FAULT, NOT_ASSESSABLE, PASS, Finding, uncertain_marks

# The measures every shot keeps for the session (beside its rules' own), and the marks each is taken between.
MEASURE_MARKS: dict[str, tuple[str, ...]] = {
    "draw_length": ("anchor", "release"),
    "anchor_height": ("anchor", "release"),
    "draw_time": ("draw_start", "anchor"),
    "hold_time": ("anchor", "release"),
}
# The consistency block of every session report, whether or not a rule judges the measure.
SESSION_MEASURES = (
    "draw_length_cv",
    "anchor_spread",
    "draw_time_mean",
    "draw_time_sd",
    "hold_time_mean",
    "hold_time_sd",
    "release_interval_mean",
    "release_interval_cv",
)
# Durations to or from the anchor. Where the draw's end is a range (ShotPhases.anchor_from_frame: the span at
# the hold's there, the arms at rest only at the anchor), they are judged at both ends, and a verdict that
# changes within the range is not assessable. Motion in the hold is measured from the later end, where the arms
# are at rest: that is what the hold is.
ANCHOR_TIMED = ("draw_time", "hold_time")
UNMEASURABLE = "landmarks hidden, out of frame, or foreshortened"
PHASE_UNCERTAIN = "phase uncertain"
# The reference pose a metric is judged against was no such pose (`Metric.reference_within`: the trunk bent in the
# setup, or the camera far off level).
NOT_UPRIGHT = "the setup pose was not upright"
NOT_MEASURED = "not measurable in this shot"
# A session measure (a spread, a rhythm) is not measured until enough shots are (metrics/session.py
# MIN_SPREAD_SHOTS): its rule is then not judged for that reason, not "in this shot".
TOO_FEW_SHOTS = "too few shots measured to compare"
FAULT_SHARE = 0.25  # share of the measurable window a confirmed fault must cover to fault the shot
# Measured on every frame whatever the pack judges: the shot metrics read against the picture's level take out the
# camera's roll the standing trunk shows in the setup (setup_camera_roll).
CAMERA_ROLL = "camera_roll"


def phase_uncertain_rules(findings) -> set[str]:
    """The rules among `findings` not judged because a phase mark they rest on is uncertain."""
    return {f.rule for f in findings if f.verdict == NOT_ASSESSABLE and (f.reason or "").startswith(PHASE_UNCERTAIN)}


def _not_from(view: str) -> str:
    """Why a rule was not judged from this view (coach/wording/machine.py words it)."""
    return f"not judged from a {view} view"


@dataclass(slots=True)
class Sample:
    body: Body
    values: dict[str, float]  # frame metric name → value (NaN where landmarks were not visible)


class Hysteresis:
    """Fault state of one rule: enters beyond the enter threshold, clears only inside the exit threshold,
    and is confirmed only after min_duration_s (norfair's initialization_delay, in seconds)."""

    __slots__ = ("rule", "state", "since_ms", "confirmed")

    def __init__(self, rule: Rule):
        self.rule = rule
        self.reset()

    def reset(self) -> None:
        self.state = False
        self.since_ms: float | None = None
        self.confirmed = False

    def beyond_enter(self, v: float) -> bool:
        th = self.rule.thresholds
        return (th.enter_above is not None and v > th.enter_above) or (
            th.enter_below is not None and v < th.enter_below
        )

    def inside_exit(self, v: float) -> bool:
        th = self.rule.thresholds
        return (th.exit_above is None or v <= th.exit_above) and (th.exit_below is None or v >= th.exit_below)

    def update(self, v: float, t_ms: float) -> bool:
        """Feed one value (NaN = not measurable, which holds the state); returns the confirmed state."""
        if math.isnan(v):
            return self.confirmed
        if not self.state and self.beyond_enter(v):
            self.state, self.since_ms = True, t_ms
        elif self.state and self.inside_exit(v):
            self.state, self.since_ms, self.confirmed = False, None, False
        if self.state and not self.confirmed and t_ms - self.since_ms >= self.rule.min_duration_s * 1000.0:
            self.confirmed = True
        return self.confirmed


def fault_spans(rule: Rule, frames: list[int], times_ms: list[float], values) -> list[tuple[int, int]]:
    """Confirmed fault spans (first frame, last frame) of a value series, with hysteresis and duration."""
    h = Hysteresis(rule)
    spans: list[tuple[int, int]] = []
    start = last = None
    confirmed = False
    for f, t, v in zip(frames, times_ms, values):
        confirmed = h.update(v, t) or confirmed
        if h.state and not math.isnan(v):
            start = f if start is None else start
            last = f
        else:
            if start is not None and confirmed:
                spans.append((start, last))
            start, confirmed = None, False
    if start is not None and confirmed:
        spans.append((start, last))
    return spans


def shot_value(rule: Rule, measured: np.ndarray) -> float:
    """The value a frame rule reports for a shot, from the measurable frames of its phase window alone.

    It is the value the archer sat at or beyond for FAULT_SHARE of the window, on the side the rule guards:
    the lower quartile for a lower limit (an elbow that drops), the upper one for an upper limit. That is the
    question the verdict asks ("beyond the limit for a quarter of the full draw and hold?") read without a
    threshold, so value and verdict agree (a shot is faulted only where this value is beyond the limit) and an
    archer's override moves only the verdict. A plain median would hide a dip over a third of the hold; the median of the faulted frames
    (what was reported before) moved with the limit: −9.07° at a limit of −8°, −29.2° at −12°, same shot.
    A rule guarding both sides reports the quartile farther from its norm: where the archer strayed most.
    Which sides a rule guards is part of the rule, not of its numbers, so an override never flips it."""
    th = rule.thresholds
    lo = float(np.quantile(measured, FAULT_SHARE))
    hi = float(np.quantile(measured, 1.0 - FAULT_SHARE))
    if th.enter_below is not None and th.enter_above is None:
        return lo
    if th.enter_above is not None and th.enter_below is None:
        return hi
    centre = rule.norm if rule.norm is not None else float(np.median(measured))
    return lo if centre - lo > hi - centre else hi


def _beyond(th, side: str, measured: np.ndarray) -> bool:
    """Was the archer beyond the entry limit on `side` for FAULT_SHARE of the window?"""
    if side == "above":
        return float(np.quantile(measured, 1.0 - FAULT_SHARE)) > th.enter_above
    return float(np.quantile(measured, FAULT_SHARE)) < th.enter_below


def pose_reference(m: Metric, samples: Iterable[Sample], windows) -> tuple[float, np.ndarray]:
    """What metric `m`, judged against the archer's own pose (`Metric.relative_to`), has subtracted in a shot with
    these phase windows (NaN: not judged), and the reference pose's values it was taken from."""
    pose = _pose_values(samples, windows.get(m.relative_to, (0, 0)), m.reference_source)
    return m.offset(pose), pose


def setup_camera_roll(samples: Iterable[Sample], windows) -> float:
    """The picture's roll in a shot: camera_roll in its setup, as arrow_tilt's reference takes it (NaN where no
    standing setup was seen). The shot metrics read against the picture's level take it out (ShotFrames.camera_roll,
    0 where NaN), and the session notes say it where it is large (coach/analyzer.py)."""
    return METRICS[CAMERA_ROLL].reference(_pose_values(samples, windows.get("setup", (0, 0)), CAMERA_ROLL))


def _pose_values(samples: Iterable[Sample], window: tuple[int, int], metric: str) -> np.ndarray:
    """The values of `metric` over the frames [a, b) of a reference pose's window."""
    a, b = window
    return np.array([s.values[metric] for s in samples if a <= s.body.index < b], dtype=float)


class RuleEngine:
    """Judges one archer's frames and shots against a (profile-adjusted) rule pack."""

    def __init__(self, pack: RulePack, buffer_s: float = 60.0, fps: float = 30.0):
        self.pack = pack
        self.rules = pack.observable
        self.frame_rules = tuple(r for r in self.rules if r.scope == "frame")
        self.shot_rules = tuple(r for r in self.rules if r.scope == "shot")
        self.session_rules = tuple(r for r in self.rules if r.scope == "session")
        # The frame rules' metrics and those their reference is taken from (arrow_tilt's camera roll), each measured
        # where its landmarks are as visible as the least demanding rule that needs it asks.
        self._min_vis: dict[str, float] = {}
        for r in self.frame_rules:
            for m in (r.metric, METRICS[r.metric].reference_source):
                self._min_vis[m] = min(self._min_vis.get(m, 1.0), r.min_visibility)
        self._min_vis.setdefault(CAMERA_ROLL, VIS_MIN)
        self.frame_metrics = tuple(sorted(self._min_vis))
        self.judged_metrics = tuple(sorted({r.metric for r in self.frame_rules}))  # a shot's series: what rules read
        self._landmarks = {m: METRICS[m].landmarks for m in self.frame_metrics}
        self.buffer: deque[Sample] = deque(maxlen=max(int(buffer_s * fps), 60))
        self._live = {r.id: Hysteresis(r) for r in self.frame_rules}
        # Live, each metric judged against the archer's own pose (`Metric.relative_to`) takes that pose's median:
        # the newest REFERENCE_POSES seconds of its phases (the setup and the raise as the draw begins, or the
        # setup), recomputed only when that window changes (not on every frame).
        refs = {m: REFERENCE_POSES[r] for m in self.frame_metrics if (r := METRICS[m].relative_to) is not None}
        self._baseline: dict[str, deque[float]] = {m: deque(maxlen=max(int(s * fps), 5)) for m, (s, _) in refs.items()}
        self._baseline_phases = {m: phases for m, (_, phases) in refs.items()}
        self._baseline_source = {m: METRICS[m].reference_source for m in refs}
        self._baseline_value = {m: METRICS[m].offset(np.empty(0)) for m in refs}

    # ---- per frame -------------------------------------------------------------------------------------
    def measure(self, body: Body) -> dict[str, float]:
        vals: dict[str, float] = {}
        ok_sw = body.sw > 0 and not math.isnan(body.sw)
        for m in self.frame_metrics:
            if ok_sw and body.visible(self._landmarks[m], self._min_vis[m]):
                vals[m] = float(METRICS[m].fn(body))
            else:
                vals[m] = math.nan
        return vals

    def push(self, body: Body, phase: str, view: str) -> tuple[dict[str, float], list[str]]:
        """Measure a frame, buffer it, and return (metric values, rule ids flagged live at this frame)."""
        vals = self.measure(body)
        self.buffer.append(Sample(body, vals))
        for m, q in self._baseline.items():
            v = vals[self._baseline_source[m]]
            if phase in self._baseline_phases[m] and not math.isnan(v):
                q.append(v)
                self._baseline_value[m] = METRICS[m].offset(np.fromiter(q, float, len(q)))
        active = []
        for r in self.frame_rules:
            h = self._live[r.id]
            if phase not in r.phases or not r.applies_to_view(view):
                h.reset()
                continue
            v = vals[r.metric]
            if r.metric in self._baseline_value:
                v = v - self._baseline_value[r.metric]
            if h.update(v, body.t_ms):
                active.append(r.id)
        return vals, active

    # ---- per shot --------------------------------------------------------------------------------------
    def samples_between(self, start: int, end: int) -> list[Sample]:
        return [s for s in self.buffer if start <= s.body.index <= end]

    def judge_shot(self, shot, view: str, off_view: str | None = None) -> tuple[list[Finding], dict[str, float]]:
        """Findings for every observable rule on a completed shot, and the shot's measures. `off_view`: why a rule
        the view does not judge was not judged, where the shot's view says more than its name (ShotView.off_view:
        seen face-on, but with the arrow into the depth)."""
        first = shot.raise_start_frame if shot.raise_start_frame is not None else shot.anchor_frame
        samples = self.samples_between(max(0, first - 300), shot.end_frame)
        times = {s.body.index: s.body.t_s for s in samples}
        windows = phase_windows(shot, times.get)
        findings: list[Finding] = []
        # ShotPhases, or phases given as truth (benchmarks), which carry no confidence: all sure.
        unsure = set(uncertain_marks(getattr(shot, "marks_confidence", None), getattr(shot, "release_confidence", 1.0)))
        for r in self.frame_rules:
            findings.append(
                self._unsure(r, windows, unsure, every=True)
                or self._judge_frame_rule(r, samples, windows, view, off_view)
            )
        frames = ShotFrames(
            [s.body for s in samples if s.body.index >= first],
            first,
            shot.draw_start_frame,  # None when unknown: the draw time is then not measurable
            shot.anchor_frame,
            shot.release_frame,
            shot.end_frame,
            windows["hold"][0] if "hold" in windows else None,
            0.0 if math.isnan(roll := setup_camera_roll(samples, windows)) else roll,
        )
        measures: dict[str, float] = {}
        drawn_unseen = first_seen_drawn(getattr(shot, "marks_confidence", None) or {})
        for r in self.shot_rules:
            v = measures.get(r.metric)
            if v is None:
                v = measures[r.metric] = float(METRICS[r.metric].fn(frames))
            found = self._unsure(r, windows, unsure, every=False) or self._judge_value(
                r, v, windows, view, off_view=off_view
            )
            found = self._over_anchor_range(r, found, frames, getattr(shot, "anchor_from_frame", None), view)
            findings.append(self._timed_from_first_seen(r, found) if drawn_unseen else found)
        for m in MEASURE_MARKS:
            if m not in measures:
                measures[m] = float(METRICS[m].fn(frames))
        # A measure taken between uncertain marks stays out of the session's figures (its means and spreads).
        rests_on = {r.metric: {k for p in r.phases for k in PHASE_MARKS.get(p, ())} for r in self.shot_rules}
        for m, marks in MEASURE_MARKS.items():
            rests_on.setdefault(m, set()).update(marks)
        for m, marks in rests_on.items():
            if marks & unsure or (drawn_unseen and m in ANCHOR_TIMED):
                measures[m] = math.nan
        return findings, measures

    @staticmethod
    def _timed_from_first_seen(r: Rule, found: Finding) -> Finding:
        """A duration from the anchor of a shot whose archer was first seen at full draw (`first_seen_drawn`: the
        clip starts there, or the picture found them drawn): full draw was reached before that frame, so the hold
        was at least as long as measured, and maybe much longer. Not assessable: never a hold "too short"."""
        if r.metric not in ANCHOR_TIMED or found.verdict == NOT_ASSESSABLE:
            return found
        return replace(found, verdict=NOT_ASSESSABLE, value=None, reason=f"{PHASE_UNCERTAIN}: anchor")

    def _over_anchor_range(self, r: Rule, found: Finding, frames: ShotFrames, early: int | None, view: str) -> Finding:
        """`found` judged again with the draw ended at `early` (ANCHOR_TIMED): "not assessable: phase uncertain"
        if the verdict changes, the limit lying inside the anchor's range."""
        if early is None or r.metric not in ANCHOR_TIMED or found.verdict == NOT_ASSESSABLE:
            return found
        v = float(METRICS[r.metric].fn(replace(frames, anchor=early)))
        if not math.isnan(v) and self._judge_value(r, v, {}, view).verdict == found.verdict:
            return found
        return replace(found, verdict=NOT_ASSESSABLE, value=None, reason=f"{PHASE_UNCERTAIN}: anchor")

    def _unsure(self, r: Rule, windows, unsure: set[str], every: bool) -> Finding | None:
        """ "Not assessable: phase uncertain" when the rule rests on uncertain marks: a shot measure (a draw time,
        a release's travel) on any of them; a frame rule, whose window spans several phases, only when all of
        them are (an anchor a few frames off hardly moves a two-second hold)."""
        marks = {m for p in r.phases for m in PHASE_MARKS.get(p, ())}
        bad = marks & unsure
        if not bad or (every and bad != marks):
            return None
        win = self._window(r, windows)
        start, end = (win[0], win[1] - 1) if win else (None, None)
        limits = r.thresholds.as_fault_limits()
        reason = f"{PHASE_UNCERTAIN}: {', '.join(sorted(m.replace('_', ' ') for m in bad))}"
        return Finding(r.id, NOT_ASSESSABLE, None, limits, start, end, METRICS[r.metric].unit, reason)

    def _window(self, r: Rule, windows: dict[str, tuple[int, int]]) -> tuple[int, int] | None:
        spans = [windows[p] for p in r.phases if p in windows and windows[p][1] > windows[p][0]]
        if not spans:
            return None
        return min(s[0] for s in spans), max(s[1] for s in spans)

    def _judge_frame_rule(self, r: Rule, samples: list[Sample], windows, view: str, off_view: str | None) -> Finding:
        limits = r.thresholds.as_fault_limits()
        unit = METRICS[r.metric].unit
        if not r.applies_to_view(view):
            return Finding(r.id, NOT_ASSESSABLE, None, limits, unit=unit, reason=off_view or _not_from(view))
        win = self._window(r, windows)
        if win is None:
            return Finding(r.id, NOT_ASSESSABLE, None, limits, unit=unit, reason="phase not reached in this shot")
        inside = [
            s for s in samples if any(a <= s.body.index < b for p in r.phases if p in windows for a, b in [windows[p]])
        ]
        vals = np.array([s.values[r.metric] for s in inside], dtype=float)
        m = METRICS[r.metric]
        if m.relative_to is not None:
            ref, pose = pose_reference(m, samples, windows)
            if math.isnan(ref):
                why = NOT_UPRIGHT if (~np.isnan(pose)).sum() >= 3 else "no setup pose to compare with"
                return Finding(r.id, NOT_ASSESSABLE, None, limits, win[0], win[1] - 1, unit, why)
            vals = vals - ref
        ok = ~np.isnan(vals)
        if len(vals) == 0 or ok.mean() < MIN_MEASURED_SHARE:
            return Finding(r.id, NOT_ASSESSABLE, None, limits, win[0], win[1] - 1, unit, UNMEASURABLE)
        frames = [s.body.index for s in inside]
        spans = fault_spans(r, frames, [s.body.t_ms for s in inside], vals)
        in_fault = np.zeros(len(vals), dtype=bool)
        for a, b in spans:
            in_fault |= (np.array(frames) >= a) & (np.array(frames) <= b)
        in_fault &= ok
        value = shot_value(r, vals[ok])
        # A shot is faulted when the confirmed fault covers a real part of the window, not one wobble of
        # MediaPipe, and the archer was beyond the entry limit for that share of it: the hysteresis holds a fault
        # open down to its exit limit, and a value MediaPipe reads just inside the limit (a re-encoded video's
        # elbow at 16-17 deg against 18) must not fault a shot whose value says "ok". The side is the fault's own
        # (its median), whatever value the shot reports.
        if in_fault.sum() >= max(FAULT_SHARE * ok.sum(), 1) and spans:
            fault_median = float(np.median(vals[in_fault]))
            th = r.thresholds
            side = "above" if th.enter_above is not None and fault_median > th.exit_above else "below"
            if _beyond(th, side, vals[ok]):
                return Finding(r.id, FAULT, value, limits, spans[0][0], spans[-1][1], unit, side)
        return Finding(r.id, PASS, value, limits, win[0], win[1] - 1, unit)

    def _judge_value(
        self, r: Rule, v: float, windows, view: str, unmeasured: str = NOT_MEASURED, off_view: str | None = None
    ) -> Finding:
        limits = r.thresholds.as_fault_limits()
        unit = METRICS[r.metric].unit
        win = self._window(r, windows)
        start, end = (win[0], win[1] - 1) if win else (None, None)
        if not r.applies_to_view(view):
            return Finding(r.id, NOT_ASSESSABLE, None, limits, start, end, unit, off_view or _not_from(view))
        if v is None or math.isnan(v):
            return Finding(r.id, NOT_ASSESSABLE, None, limits, start, end, unit, unmeasured)
        th = r.thresholds
        if th.enter_above is not None and v > th.enter_above:
            return Finding(r.id, FAULT, v, limits, start, end, unit, "above")
        if th.enter_below is not None and v < th.enter_below:
            return Finding(r.id, FAULT, v, limits, start, end, unit, "below")
        return Finding(r.id, PASS, v, limits, start, end, unit)

    # ---- per session -----------------------------------------------------------------------------------
    def judge_session(self, shots, view: str) -> tuple[list[Finding], dict[str, float]]:
        per_shot: dict[str, list[float]] = {}
        for s in shots:
            for k, v in s.measures.items():
                per_shot.setdefault(k, []).append(v)
        releases = [s.times_s.get("release_at") for s in shots if s.release_frame is not None]
        measures = {m: float(METRICS[m].fn(per_shot, releases)) for m in SESSION_MEASURES}
        findings = []
        for r in self.session_rules:
            v = measures.get(r.metric)
            if v is None:
                v = measures[r.metric] = float(METRICS[r.metric].fn(per_shot, releases))
            findings.append(self._judge_value(r, v, {}, view, TOO_FEW_SHOTS))
        return findings, measures
