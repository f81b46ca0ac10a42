"""The PDF report: the same content as the HTML one, with a Chinese font embedded (subset) by fpdf2.

The font is the TrueType CJK font `coach.overlay.cjk_font_path()` finds (WenQuanYi Micro Hei from the
`paperang-p2-fonts-cjk` dependency): TrueType outlines, which fpdf2 subsets and embeds reliably."""

from __future__ import annotations

import io
import math

from fpdf import FPDF
from fpdf.enums import XPos, YPos

from ..overlay import cjk_font_path
from .data import (
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
    value_text,
    video_name,
)

RED = (176, 0, 32)
BLUE = (11, 79, 138)
BROWN = (90, 45, 12)
GREY = (110, 110, 110)


class _Doc(FPDF):
    def __init__(self, footer_text: str):
        super().__init__(orientation="P", unit="mm", format="A4")
        self._footer_text = footer_text
        path = str(cjk_font_path())
        self.add_font("cjk", "", path, collection_font_number=0)
        self.add_font("cjk", "B", path, collection_font_number=0)
        self.set_auto_page_break(True, margin=14)
        self.set_margins(14, 14, 14)

    def footer(self) -> None:
        self.set_y(-10)
        self.set_font("cjk", "", 8)
        self.set_text_color(*GREY)
        self.cell(0, 5, f"{self._footer_text} · {self.page_no()}", align="C")
        self.set_text_color(0, 0, 0)


def _para(pdf: FPDF, text: str, size: float = 10, colour=(0, 0, 0), h: float | None = None, style: str = "") -> None:
    pdf.set_font("cjk", style, size)
    pdf.set_text_color(*colour)
    pdf.multi_cell(0, h or size * 0.5, text, new_x=XPos.LMARGIN, new_y=YPos.NEXT)
    pdf.set_text_color(0, 0, 0)


def _heading(pdf: FPDF, text: str, size: float = 14) -> None:
    pdf.ln(2)
    pdf.set_font("cjk", "B", size)
    pdf.set_text_color(139, 26, 26)
    pdf.multi_cell(0, size * 0.55, text, new_x=XPos.LMARGIN, new_y=YPos.NEXT)
    y = pdf.get_y()
    pdf.set_draw_color(139, 26, 26)
    pdf.line(pdf.l_margin, y, pdf.w - pdf.r_margin, y)
    pdf.set_draw_color(0, 0, 0)
    pdf.set_text_color(0, 0, 0)
    pdf.ln(1.5)


def _chart(pdf: FPDF, c: Chart, w: float = 182, h: float = 46) -> None:
    if pdf.get_y() + h + 8 > pdf.h - pdf.b_margin:
        pdf.add_page()
    x0, y0 = pdf.l_margin + 12, pdf.get_y() + 5
    pw, ph = w - 14, h - 10
    f0 = int(c.frames[0])
    f1 = max(int(c.frames[-1]), f0 + 1)
    lo, hi = c.y_range()

    def X(f: float) -> float:
        return x0 + (f - f0) / (f1 - f0) * pw

    def Y(v: float) -> float:
        return y0 + (hi - v) / (hi - lo) * ph

    pdf.set_font("cjk", "", 8)
    pdf.set_xy(pdf.l_margin, y0 - 5)
    pdf.cell(0, 4, c.title + (f" [{c.unit}]" if c.unit else ""))
    pdf.set_fill_color(251, 250, 247)
    pdf.set_draw_color(180, 180, 180)
    pdf.rect(x0, y0, pw, ph, style="DF")
    pdf.set_fill_color(245, 215, 220)
    for a, b in c.spans:
        a, b = max(a, f0), min(b, f1)
        if b >= a:
            pdf.rect(X(a), y0, max(X(b) - X(a), 0.3), ph, style="F")
    pdf.set_font("cjk", "", 6)
    for i in range(5):
        v = lo + (hi - lo) * i / 4
        pdf.set_xy(pdf.l_margin, Y(v) - 1.5)
        pdf.cell(11, 3, f"{v:.3g}", align="R")
    pdf.set_draw_color(130, 130, 130)
    for i, (f, label) in enumerate(c.markers):  # staggered rows: the phase marks are often close together
        if f0 <= f <= f1:
            pdf.line(X(f), y0, X(f), y0 + ph + 3 * (i % 2))
            pdf.set_xy(X(f), y0 + ph + 0.5 + 3 * (i % 2))
            pdf.cell(20, 3, label)
    pdf.set_draw_color(*RED)
    pdf.set_text_color(*RED)
    pdf.set_dash_pattern(dash=1.5, gap=1)
    for v, label in c.thresholds:
        if lo <= v <= hi:
            pdf.line(x0, Y(v), x0 + pw, Y(v))
            pdf.set_xy(x0 + pw - 40, Y(v) - 3.2)
            pdf.cell(40, 3, label, align="R")
    pdf.set_dash_pattern()
    pdf.set_text_color(0, 0, 0)
    pdf.set_draw_color(*BLUE)
    pdf.set_line_width(0.35)
    seg: list[tuple[float, float]] = []
    for f, v in list(zip(c.frames.tolist(), c.values.tolist())) + [(None, math.nan)]:
        if f is not None and math.isfinite(v):
            seg.append((X(f), Y(v)))
            continue
        if len(seg) > 1:
            pdf.polyline(seg)
        seg = []
    pdf.set_line_width(0.2)
    pdf.set_draw_color(0, 0, 0)
    pdf.set_xy(pdf.l_margin, y0 + ph + 7)


def _findings(pdf: FPDF, d: ReportData, findings: list[dict], shot: int | None) -> None:
    for f in findings:
        v = d.shown_verdict(f, shot)
        line = (
            f"{VERDICT_MARK.get(v, '')} {VERDICT_LABEL.get(v, v)}  {d.rule_label(f['rule'])}  "
            f"value {value_text(f.get('value'), f.get('unit', ''), f.get('threshold'))}  ok if {limits_text(f.get('threshold') or {}, f.get('unit', ''))}"
        )
        if v == "fault" and f.get("start_frame") is not None:
            line += f"  frames {f['start_frame']}–{f['end_frame']} ({f['start_frame'] / d.fps:.2f}–{f['end_frame'] / d.fps:.2f} s)"
        elif v == "not_assessable" and f.get("reason"):
            line += f"  ({f['reason']})"
        if v == "dismissed":  # struck through: the machine said fault, the coach disagreed
            _para(pdf, line, 9, GREY, style="S")
        else:
            _para(pdf, line, 9, RED if v == "fault" else (0, 0, 0))
        r = d.rule(f["rule"])
        if v == "fault" and r:
            _para(pdf, f"    {r.section}：{r.quote}", 10, BROWN)
            _para(pdf, f"    {r.meaning_zh} {r.meaning_en}", 8, GREY)
            _para(pdf, f"    → {r.cue_zh} / {r.cue_en}", 9, BLUE)
        for a in d.annotations_for(shot, f["rule"]):
            _para(
                pdf,
                f"    coach: {a['action']} {a['comment'] or ''} — {a['author']} {local_time(a['created_at'])}",
                8,
                BLUE,
            )


def render_pdf(d: ReportData) -> bytes:
    s, a = d.session, d.archer
    pdf = _Doc(f"射經 Coach · {a.name} · session {s['id']}")
    pdf.set_title(f"射經 Coach — {a.name} — session {s['id']}")
    pdf.set_author("射經 Coach")
    pdf.add_page()
    pdf.set_font("cjk", "B", 18)
    pdf.multi_cell(0, 9, f"射經 Coach report · {a.name}", new_x=XPos.LMARGIN, new_y=YPos.NEXT)
    _para(
        pdf,
        f"{local_time(s['started_at'])} · {video_name(s['source'])} · {len(d.shots)} shots 箭 · "
        f"{d.fault_count} faults 病",
        11,
    )
    # page 1 says what to work on first, then which shot showed what; the details come after
    _heading(pdf, "What to work on first 先練")
    lines = focus_lines(d)
    if not lines:
        _para(pdf, "No faults stand in this session 本場無病.", 11)
    for i, (name, where, cue) in enumerate(lines, 1):
        _para(pdf, f"{i}. {name} — {where}", 12, RED)
        _para(pdf, f"    → {cue}", 11, BLUE)
    pdf.ln(1)
    for x in d.shots:
        names = ", ".join(d.rule_label(f["rule"]) for f in x.faults) or "no faults 無病"
        _para(pdf, f"Shot {x.index + 1} 第{x.index + 1}箭: {names}", 9)
    for n in d.notes:
        _para(pdf, f"! {n}", 9, (150, 90, 0))
    pdf.ln(1)
    _para(
        pdf,
        f"archer 射者: {a.name} — {a.handedness or 'auto'}-handed, {a.draw_style} draw, {a.tolerance} tolerance",
        8,
        GREY,
    )
    _para(
        pdf,
        f"session #{s['id']}: {local_time(s['started_at'])} → {local_time(s['finished_at'])} · "
        f"video: {s.get('frame_count')} frames at {d.fps:.2f} fps, {s.get('width')}×{s.get('height')}; "
        f"view {s.get('view')}; {s.get('handedness')}-handed · rules: {d.pack.title} ({s['pack_id']} {s['pack_version']})",
        8,
        GREY,
    )
    _para(pdf, f"source: {s['source']} · sha256 {s['content_hash']}", 6, GREY)

    for x in d.shots:
        if pdf.get_y() > pdf.h * 0.6:  # a new shot starts on a new page only when little room is left
            pdf.add_page()
        _heading(
            pdf, f"Shot {x.index + 1} 第{x.index + 1}箭" + ("" if x.data.get("complete", True) else " (incomplete)")
        )
        t = x.data.get("phase_times_s") or {}
        if x.data.get("corrected"):
            _para(pdf, corrected_text(x.data), 9, BLUE)
        _para(pdf, phase_times_text(t), 9)
        if x.data.get("release_frame") is not None:
            _para(pdf, f"release 發 at frame {x.data['release_frame']}{release_text(x.data)}", 9)
        if x.key_frames:
            wimg = (pdf.w - pdf.l_margin - pdf.r_margin - 4) / 2
            if pdf.get_y() + wimg * 0.75 + 8 > pdf.h - pdf.b_margin:  # images do not break pages by themselves
                pdf.add_page()
            y = pdf.get_y() + 1
            hmax = 0.0
            for i, (kind, frame, jpeg) in enumerate(x.key_frames[:2]):
                info = pdf.image(io.BytesIO(jpeg), x=pdf.l_margin + i * (wimg + 4), y=y, w=wimg)
                hmax = max(hmax, float(info.rendered_height))
                pdf.set_xy(pdf.l_margin + i * (wimg + 4), y + float(info.rendered_height))
                pdf.set_font("cjk", "", 7)
                pdf.cell(wimg, 4, f"{kind.replace('_', ' ')} · frame {frame} ({frame / d.fps:.2f} s)")
            pdf.set_xy(pdf.l_margin, y + hmax + 5)
        _findings(pdf, d, x.findings, x.index)
        for ann in d.annotations_for(x.index, None):
            _para(pdf, f"coach: {ann['comment']} — {ann['author']} {local_time(ann['created_at'])}", 8, BLUE)
        for c in x.charts:
            _chart(pdf, c)

    _heading(pdf, "Session consistency 間若一")
    if d.consistency_measures:
        _para(pdf, " · ".join(f"{k} {value_text(v)}" for k, v in d.consistency_measures.items()), 9)
    if d.consistency:
        _findings(pdf, d, d.consistency, None)
    else:
        _para(pdf, "no session-level verdicts (too few shots, or the session is incomplete)", 9, GREY)

    _heading(pdf, "Rules 射法 — verdict per shot")
    for r, verdicts in d.rule_rows:
        marks = "  ".join(f"{i + 1}:{VERDICT_MARK.get(v, '·')}" for i, v in enumerate(verdicts))
        pdf.set_font("cjk", "B", 10)
        pdf.multi_cell(0, 5, f"{r.name_zh}  {r.name_en}   [{marks}]", new_x=XPos.LMARGIN, new_y=YPos.NEXT)
        _para(pdf, f"{r.section}：{r.quote}", 9, BROWN)
        _para(pdf, f"→ {r.cue_zh} / {r.cue_en}", 8, BLUE)
        pdf.ln(1)

    _heading(pdf, "Coach's notes 教練評語")
    if not d.annotations:
        _para(pdf, "none yet", 9, GREY)
    for ann in d.annotations:
        where = " ".join(
            p
            for p in (
                f"shot {ann['shot'] + 1}" if ann["shot"] is not None else "",
                d.rule_label(ann["rule"]) if ann["rule"] else "",
            )
            if p
        )
        _para(
            pdf, f"{local_time(ann['created_at'])} {ann['author']}: {ann['action']} {where} — {ann['comment'] or ''}", 9
        )

    _heading(pdf, "Trends 進境 — this archer's sessions")
    if len(d.trends) < 2:
        _para(pdf, "the first session of this archer: trends appear from the second one on", 9, GREY)
    else:
        rules = [r for r, _ in d.rule_rows if any(r.id in t["rules"] for t in d.trends)]
        for t in d.trends:
            cells = []
            for r in rules:
                c = t["rules"].get(r.id)
                n = (c["fault"] + c["pass"]) if c else 0
                if n:
                    cells.append(f"{r.name_zh} {c['fault']}/{n}")
            inc = "" if t["complete"] else " (incomplete)"
            _para(pdf, f"#{t['id']}{inc} {t['started_at']} · {t['shots']} shots · " + ", ".join(cells), 8)
    return bytes(pdf.output())
