"""The terminal summary of a session: per shot the phase timings and each rule's verdict, and for every
fault the classical line and the correction cue.

Every line is in English and Chinese, worded from `coach/wording/text.py`: a label reads "English 中文" ("phases
階段:", "✗ fault 病"), a sentence in one language then the other ("release at frame 184 · 第 184 幀發矢"), as the
certainty line (`certainty_both`) does."""

from __future__ import annotations

from collections.abc import Callable

from posture_rules.pack import RulePack

from .headline import HINT_MARK, SEVERITY_TEXT, Focus, any_hint, hint_mark, pack_headline
from .results import (
    FAULT,
    NOT_ASSESSABLE,
    PASS,
    SHOWN_PHASES,
    UNSURE_TIME_MARK,
    UNSURE_TIME_NOTE,
    Finding,
    SessionReport,
    ShotResult,
    correction_remarks,
    release_remarks,
    unsure_times,
)
from .terminal import display_width, ljust, rjust
from .valuefmt import limits_text, value_text
from .wording.machine import certainty_both, consistency_both, note_both, reason_both, view_name
from .wording.text import label, t, word


def both(line: Callable[[str], str]) -> str:
    """A line worded in English (`line("en")`), then in Chinese; once where both read the same."""
    en, zh = line("en"), line("zh")
    return en if en == zh else f"{en} · {zh}"


MARK = {
    FAULT: "✗ " + label("v_fault"),
    PASS: "✓ " + label("v_pass"),
    NOT_ASSESSABLE: "– " + label("v_not_assessable"),
}
MARK_WIDTH = max(display_width(m) for m in MARK.values())
LOW_CONFIDENCE_NOTE = both(lambda lang: t("hint_note", lang))


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
    head = f"    {ljust(MARK[f.verdict], MARK_WIDTH)} {ljust(name, name_width(pack))}"
    if f.verdict == NOT_ASSESSABLE and f.reason:
        return [f"{head} ({reason_both(f.reason)})"]
    value = rjust(value_text(f.value, f.unit, f.threshold), 9)
    out = [f"{head} {label('col_value')} {value}  {label('col_limits')} {_limits(f)}"]
    if f.verdict == FAULT and rule:
        if f.start_frame is not None:
            a, b = f.start_frame, f.end_frame
            out[0] += f"  {label('col_frames')} {a}–{b} ({a / fps:.2f}–{b / fps:.2f} s)"
        out.append(f"             {rule.section}：{rule.quote}")
        out.append(f"             → {rule.cue_zh} / {rule.cue_en}")
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
        where = label("focus_session") if f.session_level else label("focus_shots", k=len(f.shots), n=of_shots)
        cue = f" → {r.cue_zh} / {r.cue_en}" if r else ""
        out.append(f"{name} ({SEVERITY_TEXT.get(f.severity, f.severity)}; {where}){cue}")
    return out


def session_focus(doc: dict, pack: RulePack, limit: int = 2) -> list[Focus]:
    """The one or two faults of a coach.session/1 document to work on first."""
    consistency = doc.get("consistency", {}).get("findings", [])
    return pack_headline(doc["shots"], consistency, pack, limit=limit)


def header_lines(report: SessionReport) -> list[str]:
    """The video (frames, size, who was seen), the archer, the view and the rules."""
    r = report

    def video(lang: str) -> str:
        fps = f"{r.fps:.2f}"
        return t("sum_video", lang, n=r.frame_count, fps=fps, w=r.width, h=r.height, person=r.frames_with_person)

    def archer(lang: str) -> str:
        return t(
            "sum_archer",
            lang,
            hand=word(f"hand_{r.handedness}", lang, f"{r.handedness}-handed"),
            source=word(f"hand_from_{r.handedness_source}", lang, r.handedness_source),
            view=view_name(r.view, lang),
            conf=f"{r.view_confidence:.2f}",
            pack=f"{r.rule_pack['id']} {r.rule_pack['version']}",
        )

    return [r.source, "  " + both(video), "  " + both(archer)]


def shot_heading(s: ShotResult) -> str:
    """ "Shot 1 第1箭: release at frame 184 (6.13 s) · 第 184 幀發矢（6.13 秒）", with how the release was timed
    in each language, and whether the shot is incomplete."""

    def when(lang: str) -> str:
        if s.release_frame is None:  # never "release at frame None"
            return t("sum_release_not_seen", lang)
        at = s.times_s.get("release_at")
        head = (
            t("sum_release_at", lang, frame=s.release_frame)
            if at is None
            else t("sum_release_at_s", lang, frame=s.release_frame, t=f"{at:.2f}")
        )
        return head + release_remarks(s.release_source, s.flight_time_s, s.hand_stayed, lang)

    status = "" if s.complete else f"  ({both(lambda lang: t('sum_incomplete', lang))})"
    return f"{label('sum_shot', n=s.index + 1)}: {both(when)}{status}"


def marked_times(s: ShotResult) -> set[str]:
    """The phases whose shown time is measured from an uncertain mark (a time not measured, "—", is not marked)."""
    return unsure_times(s.marks_confidence, s.release_confidence, s.times_s)


def phases_line(s: ShotResult) -> str:
    """ "phases 階段: raise 舉弓 0.80 s, draw 開弓 1.90 s?, …": a time measured from an uncertain mark is marked
    "?" (UNSURE_TIME_NOTE says so), for a time on a guessed mark would read as sure as any other."""
    marked = marked_times(s)
    times = [
        f"{label('phase_' + p)} {_fmt(s.times_s.get(f'{p}_s'), ' s')}{UNSURE_TIME_MARK if p in marked else ''}"
        for p in SHOWN_PHASES
    ]
    return f"  {label('sum_phases')}: " + ", ".join(times)


def shot_lines(s: ShotResult, shot_doc: dict, pack: RulePack, fps: float) -> list[str]:
    lines = ["", shot_heading(s)]
    if s.release_frame is not None:
        lines.append("  " + certainty_both(shot_doc))
    if s.corrected:
        lines.append("  " + correction_remarks(s.corrected))
    if shot_focus := session_focus({"shots": [shot_doc]}, pack, limit=1):
        lines.append(f"  {label('sum_work_on')}: {focus_name(shot_focus[0], pack)}")
    lines.append(phases_line(s))
    for f in s.findings:
        lines += finding_line(f, pack, fps)
    return lines


def consistency_lines(report: SessionReport, pack: RulePack) -> list[str]:
    if not report.consistency or not report.shots:  # no shot, nothing to compare: not a page of n/a lines
        return []
    lines = ["", f"{label('sum_consistency')}:"]
    vals = consistency_both(report.consistency_measures)
    if vals:
        lines.append("  " + "; ".join(vals))
    for f in report.consistency:
        lines += finding_line(f, pack, report.fps)
    return lines


def format_report(report: SessionReport, pack: RulePack) -> str:
    doc = report.to_json()
    lines = header_lines(report)
    lines += [f"  {label('sum_note')}: {note_both(n)}" for n in report.notes]
    focus = focus_text(session_focus(doc, pack), pack, len(report.shots))
    if focus:
        lines += ["", f"{label('sum_work_on_first')}:"] + [f"  {k + 1}. {line}" for k, line in enumerate(focus)]
    for s, shot_doc in zip(report.shots, doc["shots"]):
        lines += shot_lines(s, shot_doc, pack, report.fps)
    lines += consistency_lines(report, pack)
    if not report.shots and "no shots found" not in report.notes:  # not twice: the notes above said it
        lines += ["", both(lambda lang: t("note_no_shots", lang))]
    legends = []
    faults = [f for s in report.shots for f in s.findings] + list(report.consistency)
    if any_hint(pack, (f.rule for f in faults if f.verdict == FAULT)):
        legends.append(LOW_CONFIDENCE_NOTE)
    if any(marked_times(s) for s in report.shots):
        legends.append(UNSURE_TIME_NOTE)
    return "\n".join(lines + ([""] + legends if legends else []))
