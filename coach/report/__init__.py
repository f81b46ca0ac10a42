"""Coach reports of a stored session: HTML (self-contained), PDF (Chinese font embedded), CSV and JSON.

from coach.report import write_report
write_report(store, session_id, "html", "reports/王小明.html", force=False)
"""

from __future__ import annotations

import os
from pathlib import Path

from ..errors import CoachError
from ..safe_io import store_files
from ..store import Store
from .data import ReportData, gather
from .output import write_output

FORMATS = ("html", "pdf", "csv", "json")


def render(d: ReportData, fmt: str) -> bytes | str:
    if fmt == "html":
        from .html import render_html

        return render_html(d)
    if fmt == "pdf":
        from .pdf import render_pdf

        return render_pdf(d)
    if fmt == "csv":
        from .tabular import render_csv

        return render_csv(d)
    if fmt == "json":
        from .tabular import render_json

        return render_json(d)
    raise CoachError(None, f"unknown report format {fmt!r} (known: {', '.join(FORMATS)})")


def default_name(d: ReportData, fmt: str) -> str:
    safe = "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in d.archer.name)
    return f"{safe}-session{d.session.id}.{fmt}"


def write_report(
    store: Store, session_id: int, fmt: str, out: str | os.PathLike | None = None, *, force: bool = False
) -> Path:
    if fmt not in FORMATS:
        raise CoachError(None, f"unknown report format {fmt!r} (known: {', '.join(FORMATS)})")
    d = gather(store, session_id)
    path = Path(out) if out else Path(default_name(d, fmt))
    return write_output(path, render(d, fmt), force, protect=store_files(store.path))


__all__ = ["FORMATS", "ReportData", "gather", "render", "write_report"]
