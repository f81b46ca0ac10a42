"""CSV (one row per shot × rule finding) and JSON (the coach.session/1 report plus archer and annotations)."""

from __future__ import annotations

import io
import json

from ..results import SESSION_SCHEMA
from ..safe_io import FormulaSafeWriter
from .data import ReportData

CSV_COLUMNS = (
    "session",
    "archer",
    "source",
    "started_at",
    "shot",
    "rule",
    "name_zh",
    "name_en",
    "verdict",
    "value",
    "unit",
    "ok_below",
    "ok_above",
    "start_frame",
    "end_frame",
    "start_s",
    "end_s",
    "reason",
    "section",
    "quote",
    "cue_zh",
    "cue_en",
    "coach_action",
    "coach_comment",
    "corrected_by",  # the coach who corrected the shot's marks: its verdicts are judged on theirs
)


def render_csv(d: ReportData) -> str:
    """UTF-8 with a byte-order mark so spreadsheet programs read the Chinese text right."""
    buf = io.StringIO()
    w = FormulaSafeWriter(buf, lineterminator="\n")  # names, sources, comments: never formulas
    w.writerow(CSV_COLUMNS)
    s = d.session
    for x in d.shots:
        for f in x.findings:
            r = d.rule(f["rule"])
            anns = d.annotations_for(x.index, f["rule"])
            last_action = next((a.action for a in reversed(anns) if a.action != "comment"), "")
            comments = " | ".join(a.comment for a in anns if a.comment)
            th = f.get("threshold") or {}
            sf, ef = f.get("start_frame"), f.get("end_frame")
            w.writerow(
                (
                    s.id,
                    d.archer.name,
                    s.source,
                    s.started_at,
                    x.index + 1,
                    f["rule"],
                    r.name_zh if r else "",
                    r.name_en if r else "",
                    f["verdict"],
                    "" if f.get("value") is None else f["value"],
                    f.get("unit", ""),
                    th.get("below", ""),
                    th.get("above", ""),
                    "" if sf is None else sf,
                    "" if ef is None else ef,
                    "" if sf is None else round(sf / d.fps, 3),
                    "" if ef is None else round(ef / d.fps, 3),
                    f.get("reason", ""),
                    r.section if r else "",
                    r.quote if r else "",
                    r.cue_zh if r else "",
                    r.cue_en if r else "",
                    last_action,
                    comments,
                    (x.data.get("corrected") or {}).get("by", ""),
                )
            )
    return "\ufeff" + buf.getvalue()


def report_json(d: ReportData) -> dict:
    s = d.session
    rep = dict(s.report or {})
    if not rep:  # incomplete: rebuild what the shots say
        rep = {
            "schema": SESSION_SCHEMA,
            "source": s.source,
            "fps": s.fps,
            "frame_count": s.frame_count,
            "width": s.width,
            "height": s.height,
            "handedness": s.handedness or "unknown",
            "view": s.view,
            "rule_pack": {"id": s.pack_id, "version": s.pack_version},
            "profile": s.profile or {},
            "consistency": {"measures": {}, "findings": []},
        }
    rep["shots"] = [x.data | {} for x in d.shots]
    rep["complete"] = bool(s.complete)
    rep["archer"] = d.archer.to_json()
    rep["session"] = {
        "id": s.id,
        "content_hash": s.content_hash,
        "started_at": s.started_at,
        "finished_at": s.finished_at,
        "complete": bool(s.complete),
    }
    rep["annotations"] = [a.to_json() for a in d.annotations]
    return rep


def render_json(d: ReportData) -> str:
    return json.dumps(report_json(d), ensure_ascii=False, indent=1)
