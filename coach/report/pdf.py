"""The PDF report: the document `coach.report.document.build` makes (the HTML lays out the same one), with a
Chinese font embedded (subset) by fpdf2. Tables are written row by row: an A4 page has no room for a column per
shot or per session.

The font is the TrueType CJK font `coach.overlay.cjk_font_path()` finds (WenQuanYi Micro Hei from the
`paperang-p2-fonts-cjk` dependency): TrueType outlines, which fpdf2 subsets and embeds reliably."""

from __future__ import annotations

import io
import math

from fpdf import FPDF
from fpdf.enums import XPos, YPos

from ..overlay import cjk_font_path
from .data import Chart, ReportData
from .document import Block, Document, Figure, KeyFrames, Para, Row, Section, Table, build

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


# colour and size of each tone of a line (coach.report.document)
TONES: dict[str, tuple[tuple[int, int, int], float]] = {
    "fault": (RED, 9),
    "focus": (RED, 12),
    "cue": (BLUE, 9),
    "quote": (BROWN, 10),
    "meaning": (GREY, 8),
    "coach": (BLUE, 8),
    "warn": ((150, 90, 0), 9),
    "note": (GREY, 9),
    "dismissed": (GREY, 9),
}
ASIDE = ("quote", "cue")  # table cells written on their own line under the row, in their colour


def _line(pdf: FPDF, p: Para, size: float = 9, indent: str = "") -> None:
    colour, sz = TONES.get(p.tone, ((0, 0, 0), size))
    _para(pdf, indent + p.text, max(sz, size), colour, style="S" if p.tone == "dismissed" else "")


def _row(pdf: FPDF, t: Table, r: Row) -> None:
    """One table row as one line, each cell after the first labelled with its column; quotes and cues under it."""
    parts, aside = [], []
    for i, c in enumerate(r.cells):
        lines = [x for x in c.lines if x]
        if not lines:
            continue
        if c.tone in ASIDE:
            text = " / ".join(lines)
            aside.append(Para(f"→ {text}" if c.tone == "cue" else text, c.tone))
            continue
        text = " ".join(lines)
        label = t.header[i].lines[0] if 0 < i < len(t.header) and t.header[i].lines and not c.bare else ""
        parts.append(f"{label} {text}" if label else (f"{text}:" if not t.header and i == 0 else text))
    if not t.header:  # a list of facts (the session's details)
        _para(pdf, " ".join(parts), 8, GREY)
    else:
        _line(pdf, Para("  ".join(parts), r.tone if r.tone in ("fault", "dismissed") else ""))
    for p in (*aside, *r.notes):
        _line(pdf, p, indent="    ")


def _table(pdf: FPDF, t: Table) -> None:
    # columns described over several lines (the trends' sessions): their legend first, the rows name them by
    # their first line
    legend = [" ".join(c.lines) for c in t.header if len(c.lines) > 1]
    if legend:
        _para(pdf, " · ".join(legend), 8, GREY)
    for r in t.rows:
        _row(pdf, t, r)


def _key_frames(pdf: FPDF, k: KeyFrames) -> None:
    wimg = (pdf.w - pdf.l_margin - pdf.r_margin - 4) / 2
    if pdf.get_y() + wimg * 0.75 + 8 > pdf.h - pdf.b_margin:  # images do not break pages by themselves
        pdf.add_page()
    y = pdf.get_y() + 1
    hmax = 0.0
    for i, f in enumerate(k.frames[:2]):  # two side by side: the full draw and the release
        info = pdf.image(io.BytesIO(f.jpeg), x=pdf.l_margin + i * (wimg + 4), y=y, w=wimg)
        hmax = max(hmax, float(info.rendered_height))
        pdf.set_xy(pdf.l_margin + i * (wimg + 4), y + float(info.rendered_height))
        pdf.set_font("cjk", "", 7)
        pdf.cell(wimg, 4, f.caption)
    pdf.set_xy(pdf.l_margin, y + hmax + 5)


def _blocks(pdf: FPDF, blocks: tuple[Block, ...], size: float) -> None:
    for b in blocks:
        if isinstance(b, Para):
            _line(pdf, b, size)
        elif isinstance(b, Table):
            _table(pdf, b)
        elif isinstance(b, KeyFrames):
            _key_frames(pdf, b)
        elif isinstance(b, Figure):
            _chart(pdf, b.chart)


def _section(pdf: FPDF, s: Section) -> None:
    if s.kind == "details":  # small print under the summary
        pdf.ln(1)
        _para(pdf, s.title, 8, GREY, style="B")
        _blocks(pdf, s.blocks, 8)
        return
    if s.kind == "shot" and pdf.get_y() > pdf.h * 0.6:  # a shot starts on a new page only when little room is left
        pdf.add_page()
    _heading(pdf, s.title)
    _blocks(pdf, s.blocks, 11 if s.kind == "focus" else 9)


def render_document(doc: Document, footer: str) -> bytes:
    pdf = _Doc(footer)
    pdf.set_title(doc.title)
    pdf.set_author("射經 Coach")
    pdf.add_page()
    pdf.set_font("cjk", "B", 18)
    pdf.multi_cell(0, 9, doc.heading, new_x=XPos.LMARGIN, new_y=YPos.NEXT)
    _para(pdf, doc.meta, 11)
    for s in doc.sections:
        _section(pdf, s)
    return bytes(pdf.output())


def render_pdf(d: ReportData) -> bytes:
    return render_document(build(d), f"射經 Coach · {d.archer.name} · session {d.session.id}")
