"""The HTML report: one self-contained file — key frames as data URIs, charts as inline SVG, no external URL."""

from __future__ import annotations

import base64
import math
from html import escape

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
 border-left:3px solid #0b4f8a;margin:.2em 0}.dismissed{color:#777;text-decoration:line-through}
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


def _findings_table(d: ReportData, findings: list[dict], shot: int | None) -> list[str]:
    out = ["<table><tr><th>rule 法</th><th>verdict</th><th>value</th><th>ok if</th><th>frames</th><th>coach</th></tr>"]
    for f in findings:
        v = d.shown_verdict(f, shot)
        frames = ""
        if v == "fault" and f.get("start_frame") is not None:
            frames = (
                f"{f['start_frame']}–{f['end_frame']} ({f['start_frame'] / d.fps:.2f}–{f['end_frame'] / d.fps:.2f} s)"
            )
        elif v == "not_assessable":
            frames = _e(f.get("reason"))
        anns = "".join(
            f'<div class="ann">{_e(a["action"])}{(": " + _e(a["comment"])) if a["comment"] else ""} — '
            f"{_e(a['author'])} {_e(local_time(a['created_at']))}</div>"
            for a in d.annotations_for(shot, f["rule"])
        )
        out.append(
            f'<tr><td>{_e(d.rule_label(f["rule"]))}</td><td class="{_e(v)}">{VERDICT_MARK.get(v, "")} '
            f"{_e(VERDICT_LABEL.get(v, v))}</td><td>{_e(value_text(f.get('value'), f.get('unit', ''), f.get('threshold')))}</td>"
            f"<td>{_e(limits_text(f.get('threshold') or {}, f.get('unit', '')))}</td><td>{frames}</td><td>{anns}</td></tr>"
        )
        r = d.rule(f["rule"])
        if v == "fault" and r:
            out.append(
                f'<tr><td colspan="6"><span class="quote">{_e(r.section)}：{_e(r.quote)}</span><br>'
                f"{_e(r.meaning_zh)} <i>{_e(r.meaning_en)}</i><br>"
                f'<span class="cue">→ {_e(r.cue_zh)} / {_e(r.cue_en)}</span></td></tr>'
            )
    out.append("</table>")
    return out


def render_html(d: ReportData) -> str:
    s = d.session
    a = d.archer
    title = f"射經 Coach — {a.name} — session {s['id']}"
    h: list[str] = [
        "<!DOCTYPE html>",
        '<html lang="zh-Hant"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_e(title)}</title><style>{CSS}</style></head><body>",
        f"<h1>射經 Coach report · {_e(a.name)}</h1>",
        f'<p class="meta">{_e(local_time(s["started_at"]))} · {_e(video_name(s["source"]))} · '
        f"{len(d.shots)} shots 箭 · {d.fault_count} faults 病</p>",
    ]
    h += focus_html(d)
    h += [
        "<details><summary>session details 詳情</summary><table>",
        f"<tr><th>archer 射者</th><td>{_e(a.name)} — {_e(a.handedness or 'auto')}-handed, {_e(a.draw_style)} draw, "
        f"{_e(a.tolerance)} tolerance</td></tr>",
        f"<tr><th>session</th><td>#{s['id']} · {_e(local_time(s['started_at']))} → "
        f"{_e(local_time(s['finished_at']))}</td></tr>",
        f"<tr><th>source</th><td>{_e(s['source'])}<br><small>sha256 {_e(s['content_hash'])}</small></td></tr>",
        f"<tr><th>video</th><td>{_e(s.get('frame_count'))} frames at {d.fps:.2f} fps, {_e(s.get('width'))}×"
        f"{_e(s.get('height'))}; view {_e(s.get('view'))}; {_e(s.get('handedness'))}-handed</td></tr>",
        f"<tr><th>rules</th><td>{_e(d.pack.title)} ({_e(s['pack_id'])} {_e(s['pack_version'])})</td></tr>",
        "</table></details>",
    ]
    for n in d.notes:
        h.append(f'<p class="warn">{_e(n)}</p>')

    h.append(
        '<h2>Rules 射法 — verdict per shot</h2><div class="scroll"><table><tr><th>rule</th>'
        "<th>classical line 原文</th><th>cue 提示</th>"
    )
    h += [f"<th>shot {x.index + 1}</th>" for x in d.shots]
    h.append("</tr>")
    for r, verdicts in d.rule_rows:
        cells = "".join(f'<td class="{_e(v)}">{VERDICT_MARK.get(v, "")}</td>' for v in verdicts)
        h.append(
            f"<tr><td><b>{_e(r.name_zh)}</b><br>{_e(r.name_en)}<br><small>{_e(r.id)}</small></td>"
            f'<td class="quote">{_e(r.section)}：{_e(r.quote)}</td>'
            f'<td class="cue">{_e(r.cue_zh)}<br>{_e(r.cue_en)}</td>{cells}</tr>'
        )
    h.append("</table></div>")

    for x in d.shots:
        t = x.data.get("phase_times_s") or {}
        h.append(f'<h2 id="shot-{x.index + 1}">Shot {x.index + 1} 第{x.index + 1}箭</h2>')
        if not x.data.get("complete", True):
            h.append('<p class="warn">incomplete shot: the release was not seen</p>')
        if x.data.get("corrected"):
            h.append(f'<p class="ann corrected">{_e(corrected_text(x.data))}</p>')
        h.append(f"<p>{phase_times_text(t)}</p>")
        if x.data.get("release_frame") is not None:
            h.append(f"<p>release 發 at frame {x.data['release_frame']}{_e(release_text(x.data))}</p>")
        if x.key_frames:
            h.append('<div class="kf">')
            for kind, frame, jpeg in x.key_frames:
                uri = "data:image/jpeg;base64," + base64.b64encode(jpeg).decode("ascii")
                h.append(
                    f'<figure><img src="{uri}" alt="shot {x.index + 1} {kind}"><figcaption>'
                    f"{_e(kind.replace('_', ' '))} · frame {frame} ({frame / d.fps:.2f} s)</figcaption></figure>"
                )
            h.append("</div>")
        h += _findings_table(d, x.findings, x.index)
        for ann in d.annotations_for(x.index, None):
            h.append(
                f'<div class="ann">{_e(ann["comment"])} — {_e(ann["author"])} {_e(local_time(ann["created_at"]))}</div>'
            )
        if x.charts:
            h.append('<div class="charts">' + "".join(chart_svg(c) for c in x.charts) + "</div>")

    h.append("<h2>Session consistency 間若一</h2>")
    if d.consistency_measures:
        h.append("<p>" + " · ".join(f"{_e(k)} {_e(value_text(v))}" for k, v in d.consistency_measures.items()) + "</p>")
    if d.consistency:
        h += _findings_table(d, d.consistency, None)
    else:
        h.append('<p class="note">no session-level verdicts (too few shots, or the session is incomplete)</p>')

    h.append("<h2>Coach's notes 教練評語</h2>")
    if d.annotations:
        h.append("<table><tr><th>when</th><th>who</th><th>shot</th><th>rule</th><th>action</th><th>comment</th></tr>")
        for ann in d.annotations:
            shot = "" if ann["shot"] is None else ann["shot"] + 1
            h.append(
                f"<tr><td>{_e(local_time(ann['created_at']))}</td><td>{_e(ann['author'])}</td><td>{shot}</td>"
                f"<td>{_e(d.rule_label(ann['rule']) if ann['rule'] else '')}</td><td>{_e(ann['action'])}</td>"
                f"<td>{_e(ann['comment'])}</td></tr>"
            )
        h.append("</table>")
    else:
        h.append('<p class="note">none yet (coach annotate SESSION …)</p>')

    h.append("<h2>Trends 進境 — this archer's sessions</h2>")
    h += trends_html(d)
    h.append('<p class="note">Generated by 射經 Coach. Self-contained: no external resources.</p></body></html>')
    return "\n".join(h)


def focus_html(d: ReportData) -> list[str]:
    """The first thing a reader sees: what to work on first, then which shots showed which faults."""
    out = ['<div class="focus"><h2>What to work on first 先練</h2>']
    lines = focus_lines(d)
    if not lines:
        out.append("<p>No faults stand in this session 本場無病.</p>")
    else:
        out.append("<ol>")
        out += [f"<li><b>{_e(name)}</b> — {_e(where)}<br>→ {_e(cue)}</li>" for name, where, cue in lines]
        out.append("</ol>")
    out.append("<p>")
    for x in d.shots:
        names = ", ".join(d.rule_label(f["rule"]) for f in x.faults) or "no faults 無病"
        out.append(f'<a href="#shot-{x.index + 1}">Shot {x.index + 1} 第{x.index + 1}箭</a>: {_e(names)}<br>')
    out.append("</p></div>")
    return out


def trends_html(d: ReportData) -> list[str]:
    """One row per rule and one column per session (the rules are many, the sessions grow: it scrolls)."""
    rows = d.trends
    if len(rows) < 2:
        return ['<p class="note">the first session of this archer: trends appear from the second one on</p>']
    rules = [r for r, _ in d.rule_rows if any(r.id in t["rules"] for t in rows)]
    out = ['<div class="scroll"><table><tr><th>rule 法</th>']
    out += [
        f"<th>#{t['id']}{'' if t['complete'] else ' (incomplete)'}<br><small>{_e(local_time(t['started_at']))}"
        f"</small><br><small>{t['shots']} shots</small></th>"
        for t in rows
    ]
    out.append("<th>fault rate</th></tr>")
    for r in rules:
        out.append(f"<tr><td>{_e(r.name_zh)}<br><small>{_e(r.name_en)}</small></td>")
        vals = []
        for t in rows:
            c = t["rules"].get(r.id)
            n = (c["fault"] + c["pass"]) if c else 0
            out.append(f"<td>{c['fault']}/{n}</td>" if n else "<td>—</td>")
            vals.append(c["fault"] / n if n else None)
        out.append(f"<td>{sparkline_svg(vals, 110, 30)}</td></tr>")
    out.append("</table></div>")
    return out
