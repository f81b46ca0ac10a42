"""What a batch did: one outcome per video, the summary table on the terminal and as CSV."""

from __future__ import annotations

import io
import os
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

from ..safe_io import FormulaSafeWriter

DONE, SKIPPED, FAILED, DUPLICATE = "done", "skipped", "error", "duplicate"


# ---- outcome and summary --------------------------------------------------------------------------------
@dataclass(slots=True)
class Outcome:
    path: str
    archer: str
    status: str  # done | skipped | duplicate | error
    session: int | None = None
    shots: int | None = None
    frames: int | None = None
    faults: dict[str, int] = field(default_factory=dict)
    note: str = ""
    error: str = ""
    seconds: float | None = None
    worker_maxrss_mb: float | None = None
    worker_pid: int | None = None


@dataclass(slots=True)
class BatchResult:
    outcomes: list[Outcome]
    rules: list[str]
    wall_s: float
    workers: int
    engine: str
    interrupted: bool = False

    def count(self, status: str) -> int:
        return sum(o.status == status for o in self.outcomes)

    @property
    def frames_analysed(self) -> int:
        return sum(o.frames or 0 for o in self.outcomes if o.status == DONE)


def session_summary(store, sid: int) -> tuple[int, int | None, dict[str, int], str]:
    """Shots, frames, faults per rule and notes of a stored session."""
    s = store.session(sid)
    notes = "; ".join((s.report or {}).get("notes") or [])
    return store.shot_count(sid), s.frame_count, store.fault_counts(sid), notes


CSV_FIXED = ("file", "archer", "status", "session", "shots", "frames")


def write_csv(result: BatchResult, out: str | os.PathLike) -> Path:
    p = Path(out)
    p.parent.mkdir(parents=True, exist_ok=True)
    with open(p, "w", newline="", encoding="utf-8") as f:
        f.write(summary_csv(result))
    return p


def summary_csv(result: BatchResult) -> str:
    buf = io.StringIO()
    w = FormulaSafeWriter(buf)  # file and archer names: never formulas in a spreadsheet
    w.writerow([*CSV_FIXED, *(f"faults:{r}" for r in result.rules), "faults_total", "note", "error"])
    for o in result.outcomes:
        w.writerow(
            [
                o.path,
                o.archer,
                o.status,
                "" if o.session is None else o.session,
                "" if o.shots is None else o.shots,
                "" if o.frames is None else o.frames,
                *(o.faults.get(r, 0) if o.shots is not None else "" for r in result.rules),
                sum(o.faults.values()) if o.shots is not None else "",
                o.note,
                o.error,
            ]
        )
    return buf.getvalue()


def format_summary(result: BatchResult) -> str:
    rows = [("file", "archer", "status", "shots", "faults by rule", "note / error")]
    for o in result.outcomes:
        faults = ", ".join(f"{r}×{n}" for r, n in sorted(o.faults.items(), key=lambda kv: (-kv[1], kv[0])))
        rows.append(
            (
                o.path,
                o.archer,
                o.status,
                "" if o.shots is None else str(o.shots),
                faults or ("—" if o.shots is not None else ""),
                o.error or o.note,
            )
        )
    widths = [min(max(_cols(r[i]) for r in rows), cap) for i, cap in enumerate((60, 16, 9, 5, 60, 200))]
    lines = []
    for k, r in enumerate(rows):
        cells = [_fit(c, w) for c, w in zip(r, widths)]
        lines.append("  ".join(c + " " * (w - _cols(c)) for c, w in zip(cells, widths)).rstrip())
        if k == 0:
            lines.append("  ".join("-" * w for w in widths))
    n = len(result.outcomes)
    fps = result.frames_analysed / result.wall_s if result.wall_s > 0 else 0.0
    lines.append(
        f"\n{n} video(s): {result.count(DONE)} analysed, {result.count(SKIPPED)} already in the store, "
        f"{result.count(DUPLICATE)} duplicate(s), {result.count(FAILED)} failed — "
        f"{duration_text(result.wall_s)} on {result.workers} {result.engine} worker(s), {fps:.1f} frames/s"
    )
    if result.interrupted:
        lines.append("interrupted: run the same command again to continue where it stopped")
    return "\n".join(lines)


def _cols(text: str) -> int:
    """Terminal columns: CJK characters (archer names, folders) take two."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _fit(text: str, width: int) -> str:
    """Keep the end of a long cell (a file name's end says most), with an ellipsis in front."""
    if _cols(text) <= width:
        return text
    out = ""
    for ch in reversed(text):
        if _cols(out) + _cols(ch) > width - 1:
            break
        out = ch + out
    return "…" + out


def duration_text(s: float) -> str:
    s = max(0, int(round(s)))
    h, rem = divmod(s, 3600)
    m, sec = divmod(rem, 60)
    return f"{h}h{m:02d}m" if h else (f"{m}m{sec:02d}s" if m else f"{sec}s")
