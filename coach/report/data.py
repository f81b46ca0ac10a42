"""Everything a report shows about one stored session, gathered once and shared by the HTML, PDF, CSV and JSON
writers: the archer, the session, per shot the findings, key frames (with the skeleton and faults drawn on
them), metric charts with their thresholds, the consistency block, the coach's annotations and the trends
over the archer's sessions."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import cv2
import numpy as np

from posture_rules.pack import Profile, Rule, RulePack, load_pack

from ..errors import CoachError
from ..headline import Focus, hint_mark, pack_headline
from ..metrics import METRICS
from ..overlay import Overlay, PoseView
from ..results import (  # noqa: F401  (UNSURE_TIME_NOTE re-exported for the writers)
    SHOWN_PHASES,
    UNSURE_TIME_MARK,
    UNSURE_TIME_NOTE,
    correction_remarks,
    release_remarks_both,
    unsure_times,
)
from ..store import Annotation, Archer, Store, StoredSession, StoredShot, TrendRow
from ..valuefmt import limits_text  # noqa: F401  (re-exported for the writers)
from ..valuefmt import value_text as fmt_value
from ..wording.machine import certainty_both
from ..wording.text import label

VERDICT_MARK = {"fault": "×", "pass": "✓", "not_assessable": "–", "dismissed": "×"}
VERDICT_LABEL = {
    "fault": "fault 病",
    "pass": "pass 合",
    "not_assessable": "n/a 不可判",
    "dismissed": "fault 病 (dismissed by the coach 教練駁回)",
}


@dataclass(slots=True)
class Chart:
    """One metric over one shot: values against frames, the fault thresholds and the phase markers."""

    metric: str
    title: str
    unit: str
    frames: np.ndarray
    values: np.ndarray  # NaN = not measurable
    thresholds: list[tuple[float, str]]  # (value, label)
    markers: list[tuple[int, str]]  # (frame, label)
    spans: list[tuple[int, int]]  # fault windows (frames)
    fps: float

    def y_range(self) -> tuple[float, float]:
        vals = [v for v in self.values.tolist() if math.isfinite(v)] + [t for t, _ in self.thresholds]
        if not vals:
            return 0.0, 1.0
        lo, hi = min(vals), max(vals)
        pad = (hi - lo) * 0.08 or 1.0
        return lo - pad, hi + pad


@dataclass(slots=True)
class ShotView:
    index: int
    data: dict  # coach.session/1 shot JSON (what the writers render)
    findings: list[dict]
    faults: list[dict]
    key_frames: list[tuple[str, int, bytes]]  # (kind, frame, JPEG with overlay)
    charts: list[Chart]


@dataclass(slots=True)
class ReportData:
    session: StoredSession
    archer: Archer
    pack: RulePack
    shots: list[ShotView]
    consistency: list[dict]
    consistency_measures: dict
    annotations: list[Annotation]
    trends: list[TrendRow]
    rule_rows: list[tuple[Rule, list[str]]]  # per rule, the verdict of each shot
    notes: list[str] = field(default_factory=list)

    @property
    def fps(self) -> float:
        return self.session.frame_rate

    def rule(self, rid: str) -> Rule | None:
        return self.pack.by_id.get(rid)

    def annotations_for(self, shot: int | None, rule: str | None) -> list[Annotation]:
        return [a for a in self.annotations if a.shot == shot and a.rule == rule]

    def is_dismissed(self, shot: int | None, rule: str | None) -> bool:
        """The coach's last accept/dismiss on this finding is a dismissal."""
        return latest_actions(self.annotations).get((shot, rule), {}).get("action") == "dismiss"

    def dismissed(self) -> set[tuple[int | None, str | None]]:
        return {k for k, v in latest_actions(self.annotations).items() if v["action"] == "dismiss"}

    def focus(self) -> list[Focus]:
        """The session's headline: the one or two faults to work on first (coach.headline)."""
        return self._headline([s.data for s in self.shots], self.consistency)

    def shot_focus(self, shot: ShotView) -> Focus | None:
        """The one fault of this shot to work on first, if it has any standing after the coach's review."""
        picked = self._headline([shot.data], [], limit=1)
        return picked[0] if picked else None

    def _headline(self, shots: list[dict], consistency: list[dict], limit: int = 2) -> list[Focus]:
        return pack_headline(shots, consistency, self.pack, self.dismissed(), limit)

    @property
    def fault_count(self) -> int:
        """Faults standing after the coach's review: per shot, and session-level ones."""
        dismissed = self.dismissed()
        return sum(len(x.faults) for x in self.shots) + sum(
            f["verdict"] == "fault" and (None, f["rule"]) not in dismissed for f in self.consistency
        )

    def shown_verdict(self, f: dict, shot: int | None) -> str:
        """The verdict as the report shows it: a fault the coach dismissed is "dismissed" (struck through)."""
        if f["verdict"] == "fault" and self.is_dismissed(shot, f["rule"]):
            return "dismissed"
        return f["verdict"]

    def rule_label(self, rid: str) -> str:
        r = self.rule(rid)
        return f"{r.name_zh} {r.name_en}" if r else rid

    def fault_label(self, rid: str) -> str:
        """The rule's label as its fault is shown: marked "(?)" where the landmarks judge the rule with low
        confidence (a hint, not a verdict; the terminal marks it so too, coach/summary.py)."""
        return self.rule_label(rid) + hint_mark(self.pack, rid)


def latest_actions(annotations: list[Annotation]) -> dict[tuple[int | None, str | None], dict]:
    """The coach's last accept/dismiss per (shot, rule), with all comments ("" when there are only comments)."""
    out: dict[tuple[int | None, str | None], dict] = {}
    for a in annotations:
        d = out.setdefault((a.shot, a.rule), {"action": "", "comments": []})
        if a.action in ("accept", "dismiss"):
            d["action"] = a.action
        if a.comment:
            d["comments"].append(a.comment)
    return out


def _pack_for(session: StoredSession) -> RulePack:
    rep = session.report or {}
    path = (rep.get("rule_pack") or {}).get("path")
    pack = None
    if path and Path(path).is_file():
        try:
            pack = load_pack(path)
        except CoachError:
            pack = None
    pack = pack or load_pack()
    prof = session.profile or {}
    try:
        profile = Profile.from_json(prof)
    except (ValueError, TypeError, AttributeError):
        profile = Profile()
    return profile.apply(pack)


def _charts(store: Store, stored: StoredShot, pack: RulePack, fps: float, faults: list[dict]) -> list[Chart]:
    series = store.series(stored.id)
    if series is None:
        return []
    frames = series.frames()
    out = []
    # only the rules this shot was judged on: a chart of a rule it could not judge would be drawn empty
    shot = stored.result
    judged = {f.rule for f in shot.findings if f.verdict in ("fault", "pass")}
    for k, m in enumerate(series.names):
        rules = [r for r in pack.observable if r.metric == m and r.id in judged]
        if not rules:
            continue
        vals = series.data[k].astype(np.float64)
        if not np.isfinite(vals).any():
            continue
        if m in series.offsets:
            vals = vals - series.offsets[m]
        th = []
        for r in rules:
            t = r.thresholds
            if t.enter_above is not None:
                th.append((t.enter_above, f"{r.name_zh} > {t.enter_above:g}"))
            if t.enter_below is not None:
                th.append((t.enter_below, f"{r.name_zh} < {t.enter_below:g}"))
        marks = [
            (frame, label)
            for frame, label in (
                (shot.draw_start_frame, "開弓 draw"),
                (shot.anchor_frame, "滿 anchor"),
                (shot.release_frame, "發 release"),
            )
            if frame is not None
        ]
        spans = [
            (f["start_frame"], f["end_frame"])
            for f in faults
            if f["rule"] in {r.id for r in rules} and f.get("start_frame") is not None
        ]
        met = METRICS.get(m)
        unit = {"deg": "°", "SW": "SW", "s": "s"}.get(met.unit if met else "", met.unit if met else "")
        title = " / ".join(dict.fromkeys(f"{r.name_zh} {r.name_en}" for r in rules))
        out.append(Chart(m, title, unit, frames, vals, th, marks, spans, fps))
    out.sort(key=lambda c: not c.spans)  # the charts of this shot's faults first
    return out


def _key_frames(store: Store, stored: StoredShot, overlay: Overlay, faults: list[dict]) -> list[tuple[str, int, bytes]]:
    kfs = store.key_frames(stored.id)
    shot = stored.result
    if not kfs:
        return []
    # each fault is drawn on the key frame inside (or nearest to) its window
    at: dict[int, list[str]] = {kf.frame: [] for kf in kfs}
    for f in faults:
        a = f.get("start_frame")
        b = f.get("end_frame")
        a = a if a is not None else shot.anchor_frame or 0
        b = b if b is not None else a
        best = min(kfs, key=lambda kf, a=a, b=b: 0 if a <= kf.frame <= b else min(abs(kf.frame - a), abs(kf.frame - b)))
        at[best.frame].append(f["rule"])
    out = []
    for kf in kfs:
        img = cv2.imdecode(np.frombuffer(kf.jpeg, np.uint8), cv2.IMREAD_COLOR)
        if img is None:
            continue
        title = f"第{shot.index + 1}箭 shot {shot.index + 1} · " + (
            "滿弓 full draw" if kf.kind == "full_draw" else "發矢 release"
        )
        if kf.landmarks is not None:
            pv = PoseView(kf.landmarks[:, :2], kf.landmarks[:, 2])
            overlay.draw(img, pv, at.get(kf.frame, []), scale=kf.scale, title=title)
        else:
            overlay.draw(img, PoseView(None, None), at.get(kf.frame, []), title=title)
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 85])
        if ok:
            out.append((kf.kind, kf.frame, buf.tobytes()))
    return out


def gather(store: Store, sid: int) -> ReportData:
    session = store.session(sid)
    archer = store.archer_by_id(session.archer_id)
    pack = _pack_for(session)
    fps = session.frame_rate
    hand = session.handedness if session.handedness in ("left", "right") else None
    hand = hand or archer.handedness or "right"
    overlay = Overlay(pack, hand)
    shots = []
    annotations = store.annotations(sid)
    acts = latest_actions(annotations)
    for stored in store.shots(sid):
        sh = stored.to_json()
        findings = sh.get("findings", [])
        # a fault the coach dismissed is not counted, drawn or charted as one (it stays in the JSON as judged)
        faults = [
            f
            for f in findings
            if f["verdict"] == "fault" and acts.get((stored.index, f["rule"]), {}).get("action") != "dismiss"
        ]
        shots.append(
            ShotView(
                stored.index,
                sh,
                findings,
                faults,
                _key_frames(store, stored, overlay, faults),
                _charts(store, stored, pack, fps, faults),
            )
        )
    rep = session.report or {}
    cons = rep.get("consistency") or {}
    consistency = cons.get("findings")
    if consistency is None:
        consistency = [f.to_json() for f in store.findings(sid) if f.shot is None]
    notes = list(rep.get("notes") or [])
    if not session.complete:
        notes.insert(0, f"incomplete session: the analysis stopped after {len(shots)} completed shot(s)")
    rule_rows = []
    for r in pack.rules:
        verdicts = []
        for s in shots:
            f = next((f for f in s.findings if f["rule"] == r.id), None)
            v = f["verdict"] if f else ""
            if v == "fault" and acts.get((s.index, r.id), {}).get("action") == "dismiss":
                v = "dismissed"  # struck through in the rules table too
            verdicts.append(v)
        if any(verdicts) or r.observable:
            rule_rows.append((r, verdicts))
    return ReportData(
        session=session,
        archer=archer,
        pack=pack,
        shots=shots,
        consistency=consistency,
        consistency_measures=cons.get("measures") or {},
        annotations=annotations,
        trends=store.trend_rows(archer.id, up_to=sid),
        rule_rows=rule_rows,
        notes=notes,
    )


def value_text(v, unit: str = "", threshold: dict | None = None) -> str:
    return fmt_value(v, unit, threshold)


def release_text(shot: dict) -> str:
    """How a stored shot's release was timed and how sure its phases are (`coach.results.release_remarks_both`,
    `wording.machine.certainty_both`), from its JSON."""
    timed = release_remarks_both(shot.get("release_source"), shot.get("flight_time_s"), shot.get("hand_stayed"))
    sure = certainty_both(shot)
    return timed + (f"; {sure}" if sure else "")


def corrected_text(shot: dict) -> str:
    """ "corrected by NAME 由NAME校正: release 發矢 256 → 258; …" for a shot a coach corrected, else empty."""
    return correction_remarks(shot.get("corrected"))


def unsure_phase_times(shot: dict) -> set[str]:
    """The phases whose stored time is measured from an uncertain mark (`coach.results.unsure_times`)."""
    return unsure_times(shot.get("marks_confidence"), shot.get("release_confidence"), shot.get("phase_times_s") or {})


def phase_times_text(shot: dict) -> str:
    """A stored shot's phase durations on one line, e.g. "raise 舉弓 0.47 s · draw 開弓 2.13 s? · …", a time
    measured from an uncertain mark marked "?" as the terminal marks it (UNSURE_TIME_NOTE says what it means)."""
    times, marked = shot.get("phase_times_s") or {}, unsure_phase_times(shot)
    return " · ".join(
        f"{label('phase_' + p)} {value_text(times.get(f'{p}_s'), 's')}{UNSURE_TIME_MARK if p in marked else ''}"
        for p in SHOWN_PHASES
    )


def local_time(iso: str | None) -> str:
    """A stored UTC ISO time as the reader's local date and time, "2026-12-01 09:57"."""
    if not iso:
        return "—"
    try:
        return datetime.fromisoformat(iso).astimezone().strftime("%Y-%m-%d %H:%M")
    except ValueError:
        return iso


UPLOAD_PREFIX = re.compile(r"^[0-9a-f]{12}-(?=.)")  # coach/dashboard/jobs.py save_upload: "<sha256[:12]>-<name>"


def video_name(source: str | None) -> str:
    """The video's file name as its owner knows it: an upload kept by the dashboard loses the content-hash
    prefix its stored copy carries."""
    parts = str(source or "").replace("\\", "/").rsplit("/", 2)
    name = parts[-1]
    if len(parts) >= 2 and parts[-2] == "uploads":
        name = UPLOAD_PREFIX.sub("", name)
    return name or "—"


def focus_lines(d: ReportData) -> list[tuple[str, str, str]]:
    """The headline as (rule label, where it showed, cue) rows, bilingual like the rest of the report."""
    out = []
    n = len(d.shots)
    for f in d.focus():
        r = d.rule(f.rule)
        where = "the whole session 全場" if f.session_level else f"{len(f.shots)} of {n} shots {len(f.shots)}/{n} 箭"
        cue = f"{r.cue_zh} / {r.cue_en}" if r else ""
        out.append((d.fault_label(f.rule), where, cue))
    return out
