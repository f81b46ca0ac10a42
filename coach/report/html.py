"""The HTML report: one self-contained file — key frames as data URIs, charts as inline SVG, no external URL.
It lays out the document `coach.report.document.build` makes (the PDF lays out the same one)."""

from __future__ import annotations

import base64
import math
from html import escape

from .data import Chart, ReportData
from .document import Block, Cell, Document, Figure, KeyFrames, Para, Section, Table, build

CSS = """
body{font-family:"Noto Sans CJK TC","Noto Sans CJK SC","PingFang TC","Microsoft JhengHei","WenQuanYi Micro Hei",
 sans-serif;margin:0 auto;max-width:1100px;padding:1.2em;color:#222;line-height:1.45}
h1{font-size:1.6em;margin:.2em 0}h2{border-bottom:2px solid #8b1a1a;padding-bottom:.2em;margin-top:1.6em}
table{border-collapse:collapse;margin:.6em 0;width:100%}td,th{border:1px solid #ccc;padding:.3em .5em;
 vertical-align:top;text-align:left}th{background:#f3ede4}.fault{color:#b00020;font-weight:bold}
.pass{color:#1b7f3b}.not_assessable{color:#777}.quote{font-family:serif;font-size:1.1em;color:#5a2d0c}
.cue{color:#0b4f8a}.kf{display:flex;flex-wrap:wrap;gap:.6em}.kf figure{margin:0}.kf img{max-width:520px;
 width:100%;border:1px solid #999}.warn{background:#fff3cd;border:1px solid #e0c060;padding:.5em}
.charts{display:flex;flex-wrap:wrap;gap:.8em}.charts svg{max-width:100%;height:auto}
.scroll{overflow-x:auto;max-width:100%}.scroll th{white-space:nowrap}.focus{background:#fdf3f3;border:2px solid #8b1a1a;
 padding:.4em 1em;margin:.8em 0}.focus h2{border:0;margin:.2em 0}.meta{color:#444;font-size:1.05em}
details{margin:.6em 0}summary{cursor:pointer;color:#555}.note{color:#555}.ann{background:#eef6ff;padding:.2em .5em;
 border-left:3px solid #0b4f8a;margin:.2em 0}.dismissed{color:#777;text-decoration:line-through}.focus p{margin:.3em 0}
"""


def _e(x) -> str:
    return escape("" if x is None else str(x), quote=True)


def chart_svg(c: Chart, width: int = 520, height: int = 212) -> str:
    """A line chart of the metric over the shot with the fault thresholds (dashed) and phase markers."""
    ml, mr, mt, mb = 46, 10, 24, 40
    pw, ph = width - ml - mr, height - mt - mb
    f0, f1 = int(c.frames[0]), int(c.frames[-1]) if len(c.frames) else int(c.frames[0]) + 1
    f1 = max(f1, f0 + 1)
    lo, hi = c.y_range()

    def X(f: float) -> float:
        return ml + (f - f0) / (f1 - f0) * pw

    def Y(v: float) -> float:
        return mt + (hi - v) / (hi - lo) * ph

    parts = [
        f'<svg width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
        f'role="img" aria-label="{_e(c.title)}">',
        f'<rect x="{ml}" y="{mt}" width="{pw}" height="{ph}" fill="#fbfaf7" stroke="#bbb"/>',
        f'<text x="{ml}" y="15" font-size="12">{_e(c.title)}{(" [" + _e(c.unit) + "]") if c.unit else ""}</text>',
    ]
    for a, b in c.spans:
        a, b = max(a, f0), min(b, f1)
        if b >= a:
            parts.append(
                f'<rect x="{X(a):.1f}" y="{mt}" width="{max(X(b) - X(a), 1):.1f}" height="{ph}" fill="#b00020" '
                'fill-opacity="0.12"/>'
            )
    for i in range(5):
        v = lo + (hi - lo) * i / 4
        parts.append(f'<text x="{ml - 4}" y="{Y(v) + 4:.1f}" font-size="10" text-anchor="end">{v:.3g}</text>')
    # phase labels on staggered rows: draw, anchor and release are often a few frames apart
    for i, (f, label) in enumerate(c.markers):
        if f0 <= f <= f1:
            parts.append(
                f'<line x1="{X(f):.1f}" y1="{mt}" x2="{X(f):.1f}" y2="{mt + ph + 10 * (i % 2)}" stroke="#888" '
                f'stroke-width="1"/><text x="{X(f) + 2:.1f}" y="{mt + ph + 10 + 10 * (i % 2)}" font-size="9">'
                f"{_e(label)}</text>"
            )
    for v, label in c.thresholds:
        if lo <= v <= hi:
            parts.append(
                f'<line x1="{ml}" y1="{Y(v):.1f}" x2="{ml + pw}" y2="{Y(v):.1f}" stroke="#b00020" '
                f'stroke-dasharray="5,3"/><text x="{ml + pw - 2}" y="{Y(v) - 3:.1f}" font-size="9" '
                f'text-anchor="end" fill="#b00020">{_e(label)}</text>'
            )
    # the value line, broken where the metric was not measurable
    seg: list[str] = []
    paths = []
    for f, v in zip(c.frames.tolist(), c.values.tolist()):
        if math.isfinite(v):
            seg.append(f"{X(f):.1f},{Y(v):.1f}")
        elif seg:
            paths.append(seg)
            seg = []
    if seg:
        paths.append(seg)
    for s in paths:
        parts.append(f'<polyline fill="none" stroke="#0b4f8a" stroke-width="1.6" points="{" ".join(s)}"/>')
    parts.append(
        f'<text x="{ml + pw / 2:.0f}" y="{height - 3}" font-size="10" text-anchor="middle">'
        f"{f0 / c.fps:.1f}–{f1 / c.fps:.1f} s</text></svg>"
    )
    return "".join(parts)


def sparkline_svg(values: list[float | None], width: int = 160, height: int = 36, vmax: float = 1.0) -> str:
    pts = [(i, v) for i, v in enumerate(values) if v is not None]
    if not pts:
        return ""
    n = max(len(values) - 1, 1)

    def X(i: float) -> float:
        return 4 + i / n * (width - 8)

    def Y(v: float) -> float:
        return height - 4 - (v / vmax if vmax else 0) * (height - 8)

    poly = " ".join(f"{X(i):.1f},{Y(v):.1f}" for i, v in pts)
    dots = "".join(f'<circle cx="{X(i):.1f}" cy="{Y(v):.1f}" r="2" fill="#b00020"/>' for i, v in pts)
    return (
        f'<svg width="{width}" height="{height}">'
        f'<rect width="{width}" height="{height}" fill="#fbfaf7"/>'
        f'<polyline fill="none" stroke="#b00020" stroke-width="1.4" points="{poly}"/>{dots}</svg>'
    )


def _cell(c: Cell, tag: str = "td") -> str:
    lines = [_e(x) for x in c.lines]
    if c.strong and lines:
        lines[0] = f"<b>{lines[0]}</b>"
    cls = f' class="{_e(c.tone)}"' if c.tone else ""
    return f"<{tag}{cls}>{'<br>'.join(lines)}</{tag}>"


def _para(p: Para) -> str:
    text = f'<a href="#{_e(p.link)}">{_e(p.text)}</a>' if p.link else _e(p.text)
    if p.tone == "focus":  # a headline fault: bold ("focus" is the class of the box around the headline)
        return f"<p><b>{text}</b></p>"
    cls = {"coach": "ann", "note": "note", "warn": "warn"}.get(p.tone, p.tone)
    return f'<p class="{cls}">{text}</p>' if cls else f"<p>{text}</p>"


def _table(t: Table) -> str:
    out = ['<div class="scroll"><table>' if t.wide else "<table>"]
    if t.header:
        out.append("<tr>" + "".join(_cell(c, "th") for c in t.header) + "</tr>")
    width = max(len(t.header), *(len(r.cells) for r in t.rows), 1) if t.rows else len(t.header)
    for r in t.rows:
        spark = f"<td>{sparkline_svg(list(r.spark), 110, 30)}</td>" if r.spark is not None else ""
        out.append("<tr>" + "".join(_cell(c) for c in r.cells) + spark + "</tr>")
        if r.notes:
            notes = "<br>".join(f'<span class="{_e(p.tone)}">{_e(p.text)}</span>' for p in r.notes)
            out.append(f'<tr><td colspan="{width}">{notes}</td></tr>')
    out.append("</table></div>" if t.wide else "</table>")
    return "".join(out)


def _key_frames(k: KeyFrames) -> str:
    figs = "".join(
        f'<figure><img src="data:image/jpeg;base64,{base64.b64encode(f.jpeg).decode("ascii")}" alt="{_e(f.alt)}">'
        f"<figcaption>{_e(f.caption)}</figcaption></figure>"
        for f in k.frames
    )
    return f'<div class="kf">{figs}</div>'


def _blocks(blocks: tuple[Block, ...]) -> list[str]:
    out: list[str] = []
    charts: list[str] = []
    for b in blocks:
        if isinstance(b, Figure):  # the charts of a section side by side
            charts.append(chart_svg(b.chart))
            continue
        if isinstance(b, Para):
            out.append(_para(b))
        elif isinstance(b, Table):
            out.append(_table(b))
        elif isinstance(b, KeyFrames):
            out.append(_key_frames(b))
    if charts:
        out.append('<div class="charts">' + "".join(charts) + "</div>")
    return out


def _section(s: Section) -> list[str]:
    if s.kind == "details":
        return [f"<details><summary>{_e(s.title)}</summary>", *_blocks(s.blocks), "</details>"]
    head = f'<h2 id="{_e(s.anchor)}">{_e(s.title)}</h2>' if s.anchor else f"<h2>{_e(s.title)}</h2>"
    if s.kind == "focus":
        return ['<div class="focus">', head, *_blocks(s.blocks), "</div>"]
    return [head, *_blocks(s.blocks)]


def render_document(doc: Document) -> str:
    h = [
        "<!DOCTYPE html>",
        '<html lang="zh-Hant"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_e(doc.title)}</title><style>{CSS}</style></head><body>",
        f"<h1>{_e(doc.heading)}</h1>",
        f'<p class="meta">{_e(doc.meta)}</p>',
    ]
    for s in doc.sections:
        h += _section(s)
    h.append('<p class="note">Generated by 射經 Coach. Self-contained: no external resources.</p></body></html>')
    return "\n".join(h)


def render_html(d: ReportData) -> str:
    return render_document(build(d))
