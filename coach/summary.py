"""The terminal summary of a session: per shot the phase timings and each rule's verdict, and for every
fault the classical line and the correction cue."""

from __future__ import annotations

from posture_rules.pack import RulePack

from .headline import HINT_MARK, SEVERITY_TEXT, Focus, any_hint, hint_mark, pack_headline
from .results import (
    FAULT,
    NOT_ASSESSABLE,
    PASS,
    Finding,
    SessionReport,
    correction_remarks,
    release_remarks,
)
from .terminal import display_width, ljust, rjust
from .valuefmt import limits_text, value_text
from .wording.machine import certainty_both, note_both, reason_both
from .wording.text import MACHINE_TEXT

MARK = {FAULT: "✗ fault", PASS: "✓ pass", NOT_ASSESSABLE: "– n/a"}
LOW_CONFIDENCE_NOTE = MACHINE_TEXT["hint_note"][1]


def _fmt(v: float | None, unit: str = "") -> str:
    if v is None:
        return "—"
    return f"{v:.2f}{unit}" if abs(v) < 10 else f"{v:.1f}{unit}"


def _limits(f: Finding) -> str:
    return limits_text(f.threshold, f.unit)


def name_width(pack: RulePack) -> int:
    """The rule-name column's width: the widest "id 名 (?)" of the pack, in display columns."""
    return max((display_width(f"{r.id} {r.name_zh}{HINT_MARK}") for r in pack.rules), default=28)


def finding_line(f: Finding, pack: RulePack, fps: float) -> list[str]:
    rule = pack.by_id.get(f.rule)
    name = f"{f.rule} {rule.name_zh}" if rule else f.rule
    if f.verdict == FAULT:
        name += hint_mark(pack, f.rule)  # an interpretive or low-confidence rule: a hint, not a verdict
    # padded by display width: a Chinese character takes two columns
    w = name_width(pack)
    line = f"    {MARK[f.verdict]:8} {ljust(name, w)} value {rjust(value_text(f.value, f.unit, f.threshold), 9)}  ok if {_limits(f)}"
    out = [line]
    if f.verdict == FAULT and rule:
        if f.start_frame is not None:
            out[0] += f"  frames {f.start_frame}–{f.end_frame} ({f.start_frame / fps:.2f}–{f.end_frame / fps:.2f} s)"
        out.append(f"             {rule.section}：{rule.quote}")
        out.append(f"             → {rule.cue_zh} / {rule.cue_en}")
    elif f.verdict == NOT_ASSESSABLE and f.reason:
        out[0] = f"    {MARK[f.verdict]:8} {ljust(name, w)} ({reason_both(f.reason)})"
    return out


def focus_name(f: Focus, pack: RulePack) -> str:
    """ "id 名", marked "(?)" for a rule the landmarks judge with low confidence: a hint, not a verdict (ranked
    after the faults the tool stands behind)."""
    r = pack.by_id.get(f.rule)
    return (f"{f.rule} {r.name_zh}" if r else f.rule) + hint_mark(pack, f.rule)


def focus_text(focus: list[Focus], pack: RulePack, of_shots: int) -> list[str]:
    """The headline's faults, one line each: the rule, where it showed, and its cue first in Chinese."""
    out = []
    for f in focus:
        r = pack.by_id.get(f.rule)
        name = focus_name(f, pack)
        where = "the whole session 全場" if f.session_level else f"{len(f.shots)} of {of_shots} shots 箭"
        cue = f" → {r.cue_zh} / {r.cue_en}" if r else ""
        out.append(f"{name} ({SEVERITY_TEXT.get(f.severity, f.severity)}; {where}){cue}")
    return out


def session_focus(doc: dict, pack: RulePack, limit: int = 2) -> list[Focus]:
    """The one or two faults of a coach.session/1 document to work on first."""
    consistency = doc.get("consistency", {}).get("findings", [])
    return pack_headline(doc["shots"], consistency, pack, limit=limit)


def format_report(report: SessionReport, pack: RulePack) -> str:
    doc = report.to_json()
    lines = [
        f"{report.source}",
        f"  {report.frame_count} frames at {report.fps:.2f} fps, {report.width}×{report.height}; "
        f"person in {report.frames_with_person} frames",
        f"  archer: {report.handedness}-handed ({report.handedness_source}); view: {report.view} "
        f"(confidence {report.view_confidence:.2f}); rules: {report.rule_pack['id']} {report.rule_pack['version']}",
    ]
    lines += [f"  note: {note_both(n)}" for n in report.notes]
    focus = focus_text(session_focus(doc, pack), pack, len(report.shots))
    if focus:
        lines += ["", "Work on first 先練:"] + [f"  {k + 1}. {line}" for k, line in enumerate(focus)]
    for s, shot_doc in zip(report.shots, doc["shots"]):
        t = s.times_s
        lines.append("")
        status = "" if s.complete else "  (incomplete: release not seen)"
        if s.release_frame is None:  # never "release at frame None"
            lines.append(f"Shot {s.index + 1}: release not seen" + status)
        else:
            lines.append(
                f"Shot {s.index + 1}: release at frame {s.release_frame}"
                + (f" ({t.get('release_at'):.2f} s)" if t.get("release_at") is not None else "")
                + release_remarks(s.release_source, s.flight_time_s, s.hand_stayed)
                + status
            )
            lines.append("  " + certainty_both(shot_doc))
        if s.corrected:
            lines.append("  " + correction_remarks(s.corrected))
        if shot_focus := session_focus({"shots": [shot_doc]}, pack, limit=1):
            lines.append(f"  work on 先練: {focus_name(shot_focus[0], pack)}")
        lines.append(
            "  phases: "
            + ", ".join(
                f"{label} {_fmt(t.get(key), ' s')}"
                for label, key in (
                    ("raise", "raise_s"),
                    ("draw", "draw_s"),
                    ("full draw", "full_draw_s"),
                    ("hold", "hold_s"),
                    ("follow-through", "follow_through_s"),
                )
            )
        )
        for f in s.findings:
            lines += finding_line(f, pack, report.fps)
    if report.consistency:
        lines.append("")
        lines.append("Session consistency:")
        m = report.consistency_measures
        shown = [
            (label, m.get(key), fmt)
            for label, key, fmt in (
                ("draw length CV", "draw_length_cv", "{:.1%}"),
                ("anchor spread", "anchor_spread", "{:.3f} SW"),
                ("draw time mean", "draw_time_mean", "{:.2f} s"),
                ("SD", "draw_time_sd", "{:.2f} s"),
                ("hold time mean", "hold_time_mean", "{:.2f} s"),
                ("SD", "hold_time_sd", "{:.2f} s"),
                ("release interval mean", "release_interval_mean", "{:.1f} s"),
                ("release interval CV", "release_interval_cv", "{:.1%}"),
            )
        ]
        vals = [f"{label} {fmt.format(v)}" for label, v, fmt in shown if v is not None and v == v]
        if vals:
            lines.append("  " + "; ".join(vals))
        for f in report.consistency:
            lines += finding_line(f, pack, report.fps)
    if not report.shots:
        lines.append("")
        lines.append("No shots found.")
    faults = [f for s in report.shots for f in s.findings] + list(report.consistency)
    if any_hint(pack, (f.rule for f in faults if f.verdict == FAULT)):
        lines.append("")
        lines.append(LOW_CONFIDENCE_NOTE)
    return "\n".join(lines)
