"""What the analysis hands out: per-frame results for live views, per-shot and per-session results for the
store, reports and dashboard. `SessionReport.to_json()` is the versioned `coach.session/1` report.

Keep the JSON stable: extend it, never rename a field.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from .phases.shot import PHASE_MARKS
from .wording.text import MACHINE_TEXT
from .wording.text import t as say  # worded from the table, as every front end words it

if TYPE_CHECKING:
    from .phases import ShotPhases

SESSION_SCHEMA = "coach.session/1"

FAULT, PASS, NOT_ASSESSABLE = "fault", "pass", "not_assessable"
VERDICTS = (FAULT, PASS, NOT_ASSESSABLE)


def _num(x: float | None, nd: int = 3) -> float | None:
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return None
    return round(float(x), nd)


@dataclass(slots=True)
class Finding:
    """One rule's verdict on one shot (or the session, for consistency rules)."""

    rule: str
    verdict: str
    value: float | None
    threshold: dict[str, float]  # e.g. {"below": -5.0, "above": 15.0}: a fault is outside these
    start_frame: int | None = None
    end_frame: int | None = None
    unit: str = ""
    reason: str = ""  # why not assessable, or what the fault was (e.g. "below")

    def to_json(self) -> dict:
        return {
            "rule": self.rule,
            "verdict": self.verdict,
            "value": _num(self.value),
            "threshold": {k: _num(v) for k, v in self.threshold.items()},
            "start_frame": self.start_frame,
            "end_frame": self.end_frame,
            "unit": self.unit,
            "reason": self.reason,
        }


# How a release was timed, where not by the pose alone (ShotPhases.release_source): its wording's key.
_TIMED_BY = {"sound+pose": "rel_by_sound", "sound": "rel_heard_only"}


def release_remarks(source: str | None, flight_time_s: float | None, hand_stayed: bool | None, lang: str = "en") -> str:
    """What the report says of how a shot's release was timed, after its frame, in `lang`: ", timed by sound; arrow
    heard hitting 0.80 s later", or, where only the pose timed it and the hand stayed at the anchor, that
    the release may have come earlier, unseen. Empty for a release the pose saw."""
    comma, semicolon = ("，", "；") if lang == "zh" else (", ", "; ")
    out = comma + say(_TIMED_BY[source], lang) if source in _TIMED_BY else ""
    if flight_time_s is not None:
        out += semicolon + say("rel_flight", lang, t=f"{flight_time_s:.2f}")
    if hand_stayed and source not in _TIMED_BY:
        out += semicolon + say("rel_hand_stayed", lang)
    return out


def release_remarks_both(source: str | None, flight_time_s: float | None, hand_stayed: bool | None) -> str:
    """`release_remarks` in English, then in Chinese (the reports' release line): ", timed by sound · 以弦聲定時"."""
    en = release_remarks(source, flight_time_s, hand_stayed, "en")
    zh = release_remarks(source, flight_time_s, hand_stayed, "zh")
    return f"{en} · {zh[1:]}" if en else ""  # the Chinese without its leading "，" or "；": the English's follows


MIN_MARK_CONFIDENCE = 0.5  # under this a phase mark is uncertain (coach/phases.py says why each is)
PHASE_MARK_NAMES = ("raise_start", "draw_start", "anchor", "release")  # the marks a confidence may doubt


def uncertain_marks(marks_confidence: dict[str, float] | None, release_confidence: float | None) -> list[str]:
    """The phase marks of a shot that are uncertain, in phase order: "raise_start" (only for a shot the pose
    did not see, `phases.heard`), "draw_start", "anchor", "release"; the engine leaves the rules resting on
    them unjudged, the reports name them."""
    conf = {**(marks_confidence or {}), "release": 1.0 if release_confidence is None else release_confidence}
    return [m for m in PHASE_MARK_NAMES if conf.get(m, 1.0) < MIN_MARK_CONFIDENCE]


UNSURE_TIME_MARK = "?"  # after a phase time measured from an uncertain mark: the terminal summary, the reports
UNSURE_TIME_NOTE = " · ".join(reversed(MACHINE_TEXT["unsure_time"]))  # what the mark means: "?: … · ?：…"
# The phase times a shot shows, in the order they come, each by its "<phase>_s" in ShotResult.times_s.
SHOWN_PHASES = ("raise", "draw", "full_draw", "hold", "follow_through")


def unsure_times(
    marks_confidence: dict[str, float] | None, release_confidence: float | None, times: dict | None = None
) -> set[str]:
    """The phases ("draw", "hold", …: times_s's "<phase>_s") whose time starts or ends at an uncertain mark, by
    the marks each phase's window rests on (`PHASE_MARKS`, as `analyzer.phase_times` measures them). A time
    resting on uncertain marks alone is not measured at all; one with a sure end still is, and is marked so that
    it is not read as sure. With `times` (a shot's times_s), only the phases whose time was measured: a time not
    shown ("—") is not marked."""
    unsure = set(uncertain_marks(marks_confidence, release_confidence))
    phases = {phase for phase, marks in PHASE_MARKS.items() if unsure & set(marks)}
    return phases if times is None else {p for p in phases if times.get(f"{p}_s") is not None}


# "draw start 開弓起點": the terminal's and the reports' names of the marks, from the wording table.
_MARK_NAMES = {m: f"{MACHINE_TEXT['mark_' + m][1]} {MACHINE_TEXT['mark_' + m][0]}" for m in PHASE_MARK_NAMES}


# What a coach did to a shot (ShotResult.corrected["action"]), for the terminal and the reports.
_CORRECTION_NAMES = {
    "move": "corrected by {by} 由{by}校正",
    "add": "added by {by} (the machine missed it) 由{by}補記（機器漏判）",
}


def correction_remarks(corrected: dict | None) -> str:
    """ "corrected by 李教練 由李教練校正: release 發矢 256 → 258; verdicts judged on the coach's marks
    依教練所定時點判斷" for a shot a coach corrected; empty for the machine's own."""
    if not corrected:
        return ""
    by = str(corrected.get("by") or "coach")
    head = _CORRECTION_NAMES.get(corrected.get("action"), _CORRECTION_NAMES["move"]).format(by=by)
    machine, now = corrected.get("machine") or {}, corrected.get("now") or {}
    moved = [
        f"{_MARK_NAMES.get(m, m)} {machine[m] if machine.get(m) is not None else '—'} → {now[m]}"
        for m in corrected.get("marks", [])
        if now.get(m) is not None
    ]
    marks = f": {', '.join(moved)}" if moved else ""
    return f"{head}{marks}; verdicts judged on the coach's marks 依教練所定時點判斷"


# A shot's phase marks, in the order they come (ShotResult's fields, and the truth sidecars' keys).
SHOT_MARKS = ("raise_start_frame", "draw_start_frame", "anchor_frame", "release_frame")


@dataclass(slots=True)
class ShotResult:
    index: int
    raise_start_frame: int | None
    draw_start_frame: int | None
    anchor_frame: int | None
    release_frame: int | None
    end_frame: int | None
    fps: float
    times_s: dict[str, float | None] = field(default_factory=dict)  # raise, draw, full_draw, hold, … durations
    findings: list[Finding] = field(default_factory=list)
    measures: dict[str, float | None] = field(default_factory=dict)  # draw length, anchor position, …
    complete: bool = True
    release_source: str = "pose"  # "pose", "sound+pose" when the string's sound timed it, "sound": heard only
    flight_time_s: float | None = None  # release to the arrow heard hitting the target (includes sound travel)
    hand_stayed: bool = False  # the draw hand was seen not to fly back: a dead release (後手小), timed late
    release_confidence: float = 1.0  # 0-1: how sure the release is (coach/phases.py ReleaseEvidence)
    release_evidence: list[str] = field(default_factory=list)  # the signals that agreed on it
    marks_confidence: dict[str, float] = field(default_factory=dict)  # draw start and anchor, 0-1
    anchor_from_frame: int | None = None  # the earliest the draw may have ended (ShotPhases.anchor_from_frame)
    # Set when a coach corrected the shot (coach/corrections.py): {"by", "at", "action", "marks": [names set]};
    # its findings were then judged on the coach's marks, not the machine's.
    corrected: dict | None = None

    @property
    def faults(self) -> list[Finding]:
        return [f for f in self.findings if f.verdict == FAULT]

    @classmethod
    def from_phases(
        cls,
        sp: ShotPhases,
        findings: list[Finding],
        measures: dict[str, float | None],
        *,
        index: int,
        fps: float,
        times_s: dict[str, float | None],
    ) -> ShotResult:
        """A judged shot: its marks and release evidence from the tracker's (or a coach's) phases, its verdicts
        and measures from the engine. The one place a shot's phases become its result (the analysis and the
        re-judging of a corrected shot both come here)."""
        return cls(
            index=index,
            raise_start_frame=sp.raise_start_frame,
            draw_start_frame=sp.draw_start_frame,
            anchor_frame=sp.anchor_frame,
            release_frame=sp.release_frame,
            end_frame=sp.end_frame,
            fps=fps,
            times_s=times_s,
            findings=findings,
            measures=measures,
            complete=sp.complete,
            release_source=sp.release_source,
            flight_time_s=sp.flight_time_s,
            hand_stayed=sp.hand_stayed,
            release_confidence=sp.release_confidence,
            release_evidence=list(sp.release_evidence),
            marks_confidence=dict(sp.marks_confidence),
            anchor_from_frame=sp.anchor_from_frame,
        )

    @classmethod
    def from_json(cls, s: dict, fps: float) -> ShotResult:
        """`to_json`'s inverse, for a shot of a report at `fps` (stored reports, the store's shots)."""
        return cls(
            index=s["index"],
            raise_start_frame=s.get("raise_start_frame"),
            draw_start_frame=s.get("draw_start_frame"),
            anchor_frame=s.get("anchor_frame"),
            release_frame=s.get("release_frame"),
            end_frame=s.get("end_frame"),
            fps=fps,
            times_s=dict(s.get("phase_times_s") or {}),
            findings=[finding_from_json(f) for f in s.get("findings", [])],
            measures=dict(s.get("measures") or {}),
            complete=s.get("complete", True),
            release_source=s.get("release_source", "pose"),
            flight_time_s=s.get("flight_time_s"),
            hand_stayed=s.get("hand_stayed", False),
            release_confidence=s.get("release_confidence", 1.0),
            release_evidence=list(s.get("release_evidence") or []),
            marks_confidence=dict(s.get("marks_confidence") or {}),
            anchor_from_frame=s.get("anchor_from_frame"),
            corrected=s.get("corrected"),
        )

    def to_json(self) -> dict:
        return {
            "index": self.index,
            "raise_start_frame": self.raise_start_frame,
            "draw_start_frame": self.draw_start_frame,
            "anchor_frame": self.anchor_frame,
            "release_frame": self.release_frame,
            "end_frame": self.end_frame,
            "complete": self.complete,
            "release_source": self.release_source,
            "flight_time_s": _num(self.flight_time_s),
            "hand_stayed": self.hand_stayed,
            "release_confidence": _num(self.release_confidence),
            "release_evidence": list(self.release_evidence),
            "marks_confidence": {k: _num(v) for k, v in self.marks_confidence.items()},
            "anchor_from_frame": self.anchor_from_frame,
            "phase_times_s": {k: _num(v) for k, v in self.times_s.items()},
            "measures": {k: _num(v, 4) for k, v in self.measures.items()},
            "findings": [f.to_json() for f in self.findings],
            **({"corrected": dict(self.corrected)} if self.corrected else {}),
        }


@dataclass(slots=True)
class SessionReport:
    source: str
    fps: float
    frame_count: int
    width: int
    height: int
    handedness: str
    handedness_source: str  # "auto" | "profile" | "picture" (mirrored against the profile: pipeline.py) | "unknown"
    view: str
    view_confidence: float
    rule_pack: dict[str, str]  # id, version
    profile: dict
    shots: list[ShotResult] = field(default_factory=list)
    consistency: list[Finding] = field(default_factory=list)
    consistency_measures: dict[str, float | None] = field(default_factory=dict)
    frames_with_person: int = 0
    notes: list[str] = field(default_factory=list)
    complete: bool = True
    meta: dict = field(default_factory=dict)

    @classmethod
    def from_json(cls, d: dict) -> SessionReport:
        """`to_json`'s inverse; fields an older report lacks take their defaults."""
        fps = d.get("fps") or 30.0
        cons = d.get("consistency") or {}
        return cls(
            source=d.get("source", ""),
            fps=fps,
            frame_count=d.get("frame_count") or 0,
            width=d.get("width") or 0,
            height=d.get("height") or 0,
            handedness=d.get("handedness") or "unknown",
            handedness_source=d.get("handedness_source", "unknown"),
            view=d.get("view") or "unknown",
            view_confidence=d.get("view_confidence") or 0.0,
            rule_pack=d.get("rule_pack") or {"id": "?", "version": "?"},
            profile=d.get("profile") or {},
            shots=[ShotResult.from_json(s, fps) for s in d.get("shots", [])],
            consistency=[finding_from_json(f) for f in cons.get("findings", [])],
            consistency_measures=cons.get("measures") or {},
            frames_with_person=d.get("frames_with_person", 0),
            notes=list(d.get("notes") or []),
            complete=d.get("complete", True),
        )

    def to_json(self) -> dict:
        return {
            "schema": SESSION_SCHEMA,
            "source": self.source,
            "fps": _num(self.fps),
            "frame_count": self.frame_count,
            "width": self.width,
            "height": self.height,
            "handedness": self.handedness,
            "handedness_source": self.handedness_source,
            "view": self.view,
            "view_confidence": _num(self.view_confidence),
            "rule_pack": dict(self.rule_pack),
            "profile": dict(self.profile),
            "frames_with_person": self.frames_with_person,
            "complete": self.complete,
            "notes": list(self.notes),
            "shots": [s.to_json() for s in self.shots],
            "consistency": {
                "measures": {k: _num(v, 4) for k, v in self.consistency_measures.items()},
                "findings": [f.to_json() for f in self.consistency],
            },
            **({"meta": self.meta} if self.meta else {}),
        }


@dataclass(slots=True)
class FrameResult:
    """What a live view draws for one frame."""

    index: int
    t_ms: float
    xy: object  # (33, 2) pixels, NaN where missing (numpy array)
    vis: object
    phase: str
    shot: int | None
    active_faults: list[str]  # rule ids confirmed at this frame
    metrics: dict[str, float]


def finding_from_json(d: dict) -> Finding:
    return Finding(**{k: d.get(k) for k in Finding.__slots__ if k in d})


# ---- what a shot listener is handed ---------------------------------------------------------------------
@dataclass(slots=True)
class Series:
    """Per-frame values of the pack's frame metrics over one shot (raise start → end)."""

    start_frame: int
    names: list[str]
    offsets: dict[str, float]  # the baseline of metrics judged against the archer's own pose (Metric.relative_to)
    data: np.ndarray  # (len(names), n_frames) float32, NaN = not measurable

    def frames(self) -> np.ndarray:
        return np.arange(self.start_frame, self.start_frame + self.data.shape[1])


def key_frame_indices(shot: ShotResult) -> dict[str, int]:
    """Full draw: the middle of the hold (anchor → release); release: the release frame."""
    out: dict[str, int] = {}
    if shot.anchor_frame is not None:
        end = shot.release_frame if shot.release_frame is not None else shot.end_frame
        out["full_draw"] = (shot.anchor_frame + end) // 2 if end is not None else shot.anchor_frame
    if shot.release_frame is not None:
        out["release"] = shot.release_frame
    return out


@dataclass(frozen=True, slots=True)
class CompletedShot:
    """What a shot listener is handed the moment a shot completes: the judged shot, the per-frame series of the
    pack's frame metrics over it, and the landmarks at its key frames — everything a recorder keeps, so no
    listener reaches into the analyzer."""

    result: ShotResult
    fps: float
    width: int
    height: int
    series: Series | None
    key_frames: dict[str, int]  # kind (full_draw, release) -> frame index (`key_frame_indices`)
    landmarks: dict[int, np.ndarray]  # key frame index -> (33, 3) float32: x, y in source pixels, visibility
    handedness: str | None = None  # the draw hand as the analysis knows it at this shot (None: not yet known)
