"""One report document, built once from `ReportData` by a pure function and drawn by two thin writers
(`html.py`, `pdf.py`): every word a reader sees is decided here, the writers only lay it out.

A document is a heading, a meta line and sections; a section holds blocks: paragraphs, tables (a row can carry
notes under it, e.g. a fault's classical line and cue, and a tone such as "dismissed" = struck through), metric
charts and key frames. Tones name what a line is ("fault", "cue", "quote", "coach", "warn", "note", …); each
writer maps them to its own colours."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..headline import any_hint
from ..wording.machine import consistency_both, note_text, reason_both
from ..wording.text import MACHINE_TEXT
from .data import (
    UNSURE_TIME_NOTE,
    VERDICT_LABEL,
    VERDICT_MARK,
    Chart,
    ReportData,
    corrected_text,
    focus_lines,
    limits_text,
    local_time,
    phase_times_text,
    release_text,
    unsure_phase_times,
    value_text,
    video_name,
)

NO_SESSION_VERDICTS = (
    "no session-level verdicts: too few shots, or the session is incomplete · 沒有全場判定：箭數太少，或這一場未完成"
)


@dataclass(frozen=True, slots=True)
class Para:
    text: str
    tone: str = ""
    link: str = ""  # the anchor of the section it points to ("shot-2")


@dataclass(frozen=True, slots=True)
class Cell:
    lines: tuple[str, ...]
    tone: str = ""
    strong: bool = False  # the first line in bold
    bare: bool = False  # says what it is without its column's name (a verdict)


@dataclass(frozen=True, slots=True)
class Row:
    cells: tuple[Cell, ...]
    tone: str = ""  # the row's verdict: "fault", "dismissed" (struck through), …
    notes: tuple[Para, ...] = ()  # shown under the row across the table
    spark: tuple[float | None, ...] | None = None  # a fault-rate sparkline after the cells (trends)


@dataclass(frozen=True, slots=True)
class Table:
    header: tuple[Cell, ...]
    rows: tuple[Row, ...]
    wide: bool = False  # may scroll sideways (one column per shot or per session)


@dataclass(frozen=True, slots=True)
class Figure:
    chart: Chart


@dataclass(frozen=True, slots=True)
class KeyFrame:
    jpeg: bytes
    caption: str
    alt: str


@dataclass(frozen=True, slots=True)
class KeyFrames:
    frames: tuple[KeyFrame, ...]


Block = Para | Table | Figure | KeyFrames


@dataclass(frozen=True, slots=True)
class Section:
    title: str
    blocks: tuple[Block, ...]
    anchor: str = ""
    kind: str = ""  # "focus" (boxed, first), "details" (folded away), "shot"


@dataclass(frozen=True, slots=True)
class Document:
    title: str
    heading: str
    meta: str
    sections: tuple[Section, ...] = field(default_factory=tuple)


def _c(*lines, tone: str = "", strong: bool = False, bare: bool = False) -> Cell:
    return Cell(tuple("" if x is None else str(x) for x in lines), tone, strong, bare)


def _header(*names: str) -> tuple[Cell, ...]:
    return tuple(_c(n) for n in names)


def findings_table(d: ReportData, findings: list[dict], shot: int | None) -> Table:
    rows = []
    for f in findings:
        v = d.shown_verdict(f, shot)
        frames = ""
        if v == "fault" and f.get("start_frame") is not None:
            a, b = f["start_frame"], f["end_frame"]
            frames = f"{a}–{b} ({a / d.fps:.2f}–{b / d.fps:.2f} s)"
        elif v == "not_assessable":
            frames = reason_both(f.get("reason")) if f.get("reason") else ""
        coach = [
            f"{a.action}{(': ' + a.comment) if a.comment else ''} — {a.author} {local_time(a.created_at)}"
            for a in d.annotations_for(shot, f["rule"])
        ]
        notes: tuple[Para, ...] = ()
        r = d.rule(f["rule"])
        if v == "fault" and r:
            notes = (
                Para(f"{r.section}：{r.quote}", "quote"),
                Para(f"{r.meaning_zh} {r.meaning_en}", "meaning"),
                Para(f"→ {r.cue_zh} / {r.cue_en}", "cue"),
            )
        cells = (
            _c(d.fault_label(f["rule"]) if v == "fault" else d.rule_label(f["rule"])),
            _c(f"{VERDICT_MARK.get(v, '')} {VERDICT_LABEL.get(v, v)}", tone=v, bare=True),
            _c(value_text(f.get("value"), f.get("unit", ""), f.get("threshold"))),
            _c(limits_text(f.get("threshold") or {}, f.get("unit", ""))),
            _c(frames),
            _c(*coach, tone="ann" if coach else ""),
        )
        rows.append(Row(cells, v, notes))
    return Table(_header("rule 法", "verdict", "value", "ok if", "frames", "coach"), tuple(rows))


def _focus(d: ReportData) -> Section:
    """The first thing a reader sees: what to work on first, then which shots showed which faults."""
    lines = focus_lines(d)
    blocks: list[Block] = [] if lines else [Para("No faults stand in this session 本場無病.")]
    for i, (name, where, cue) in enumerate(lines, 1):
        blocks += [Para(f"{i}. {name} — {where}", "focus"), Para(f"→ {cue}", "cue")]
    for x in d.shots:
        names = ", ".join(d.fault_label(f["rule"]) for f in x.faults) or "no faults 無病"
        blocks.append(Para(f"Shot {x.index + 1} 第{x.index + 1}箭: {names}", link=f"shot-{x.index + 1}"))
    if _shows_a_hint(d):
        zh, en = MACHINE_TEXT["hint_note"]
        blocks += [Para(en, "warn"), Para(zh, "warn")]
    blocks += [p for n in d.notes for p in _note_paras(n)]
    return Section("What to work on first 先練", tuple(blocks), kind="focus")


def _shows_a_hint(d: ReportData) -> bool:
    """Does the report show a fault of a low-confidence rule (marked "(?)"), standing after the coach's review?"""
    faults = [f for x in d.shots for f in x.faults]
    faults += [f for f in d.consistency if d.shown_verdict(f, None) == "fault"]
    return any_hint(d.pack, (f["rule"] for f in faults))


def _note_paras(note: str) -> list[Para]:
    """A session note (written in English where the analysis happens, e.g. which spans adaptive analysis
    sampled) in English and Chinese, worded from the i18n table the dashboard shows it from; a note the table
    does not know, as stored."""
    en, zh = note_text(note, "en"), note_text(note, "zh")
    return [Para(en, "warn")] if zh == en else [Para(en, "warn"), Para(zh, "warn")]


def _details(d: ReportData) -> Section:
    s, a = d.session, d.archer
    rows = [
        ("archer 射者", f"{a.name} — {a.handedness or 'auto'}-handed, {a.draw_style} draw, {a.tolerance} tolerance"),
        ("session", f"#{s.id} · {local_time(s.started_at)} → {local_time(s.finished_at)}"),
        ("source", f"{s.source} · sha256 {s.content_hash}"),
        (
            "video",
            f"{s.frame_count} frames at {d.fps:.2f} fps, {s.width}×{s.height}; "
            f"view {s.view}; {s.handedness}-handed",
        ),
        ("rules", f"{d.pack.title} ({s.pack_id} {s.pack_version})"),
    ]
    table = Table((), tuple(Row((_c(k, strong=True), _c(v))) for k, v in rows))
    return Section("session details 詳情", (table,), kind="details")


def _shot(d: ReportData, x) -> Section:
    blocks: list[Block] = []
    if not x.data.get("complete", True):
        blocks.append(Para("incomplete shot: the release was not seen", "warn"))
    if x.data.get("corrected"):
        blocks.append(Para(corrected_text(x.data), "coach"))
    blocks.append(Para(phase_times_text(x.data)))
    if unsure_phase_times(x.data):
        blocks.append(Para(UNSURE_TIME_NOTE, "note"))
    if x.data.get("release_frame") is not None:
        blocks.append(Para(f"release 發 at frame {x.data['release_frame']}{release_text(x.data)}"))
    if x.key_frames:
        blocks.append(
            KeyFrames(
                tuple(
                    KeyFrame(
                        jpeg,
                        f"{kind.replace('_', ' ')} · frame {frame} ({frame / d.fps:.2f} s)",
                        f"shot {x.index + 1} {kind}",
                    )
                    for kind, frame, jpeg in x.key_frames
                )
            )
        )
    blocks.append(findings_table(d, x.findings, x.index))
    blocks += [
        Para(f"{a.comment} — {a.author} {local_time(a.created_at)}", "coach") for a in d.annotations_for(x.index, None)
    ]
    blocks += [Figure(c) for c in x.charts]
    return Section(f"Shot {x.index + 1} 第{x.index + 1}箭", tuple(blocks), f"shot-{x.index + 1}", "shot")


def _consistency(d: ReportData) -> Section:
    blocks: list[Block] = []
    if measured := consistency_both(d.consistency_measures):
        blocks.append(Para(" · ".join(measured)))
    if d.consistency and d.shots:  # no shot, nothing to compare: not a table of n/a rows
        blocks.append(findings_table(d, d.consistency, None))
    else:
        blocks.append(Para(NO_SESSION_VERDICTS, "note"))
    return Section("Session consistency 間若一", tuple(blocks))


def _rules(d: ReportData) -> Section:
    header = _header("rule", "classical line 原文", "cue 提示", *(f"shot {x.index + 1}" for x in d.shots))
    rows = tuple(
        Row(
            (
                _c(r.name_zh, r.name_en, r.id, strong=True),
                _c(f"{r.section}：{r.quote}", tone="quote"),
                _c(r.cue_zh, r.cue_en, tone="cue"),
                *(_c(VERDICT_MARK.get(v, ""), tone=v) for v in verdicts),
            )
        )
        for r, verdicts in d.rule_rows
    )
    return Section("Rules 射法 — verdict per shot", (Table(header, rows, wide=True),))


def _coach_notes(d: ReportData) -> Section:
    if not d.annotations:
        return Section("Coach's notes 教練評語", (Para("none yet (coach annotate SESSION …)", "note"),))
    rows = tuple(
        Row(
            (
                _c(local_time(a.created_at)),
                _c(a.author),
                _c("" if a.shot is None else a.shot + 1),
                _c(d.rule_label(a.rule) if a.rule else ""),
                _c(a.action),
                _c(a.comment),
            )
        )
        for a in d.annotations
    )
    table = Table(_header("when", "who", "shot", "rule", "action", "comment"), rows)
    return Section("Coach's notes 教練評語", (table,))


def _trends(d: ReportData) -> Section:
    """One row per rule and one column per session (the rules are many, the sessions grow: it scrolls)."""
    title = "Trends 進境 — this archer's sessions"
    ts = d.trends
    if len(ts) < 2:
        return Section(title, (Para("the first session of this archer: trends appear from the second one on", "note"),))
    header = (
        _c("rule 法"),
        *(
            _c(
                f"#{t.id}{'' if t.complete else ' (incomplete)'}",
                local_time(t.started_at),
                f"{t.shots} shots",
            )
            for t in ts
        ),
        _c("fault rate"),
    )
    rows = []
    for r, _ in d.rule_rows:
        if not any(r.id in t.rules for t in ts):
            continue
        cells, rates = [_c(r.name_zh, r.name_en)], []
        for t in ts:
            c = t.rules.get(r.id)
            n = (c["fault"] + c["pass"]) if c else 0
            cells.append(_c(f"{c['fault']}/{n}" if n else "—"))
            rates.append(c["fault"] / n if n else None)
        rows.append(Row(tuple(cells), spark=tuple(rates)))
    return Section(title, (Table(header, tuple(rows), wide=True),))


def build(d: ReportData) -> Document:
    """The report of one session: what to work on first, the session's details, each shot, the session's
    consistency, the rules, the coach's notes and the trends — in this order in the HTML and the PDF."""
    s, a = d.session, d.archer
    meta = f"{local_time(s.started_at)} · {video_name(s.source)} · {len(d.shots)} shots 箭 · {d.fault_count} faults 病"
    sections = (
        _focus(d),
        _details(d),
        *(_shot(d, x) for x in d.shots),
        _consistency(d),
        _rules(d),
        _coach_notes(d),
        _trends(d),
    )
    return Document(f"射經 Coach — {a.name} — session {s.id}", f"射經 Coach report · {a.name}", meta, sections)


def texts(doc: Document) -> list[str]:
    """Every section title and every table cell line of the document (what both writers must show)."""
    out = []
    for sec in doc.sections:
        out.append(sec.title)
        for b in sec.blocks:
            if isinstance(b, Table):
                out += [line for row in b.rows for cell in row.cells for line in cell.lines if line]
    return out
