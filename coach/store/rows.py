"""Row writers the repository and the corrections share (one place for how a finding becomes a row)."""

from __future__ import annotations

import json
import sqlite3

from ..results import Finding


def insert_findings(c: sqlite3.Connection, sid: int, shot_id: int | None, findings: list[Finding]) -> None:
    c.executemany(
        "INSERT INTO findings (session_id, shot_id, rule, verdict, value, threshold_json, start_frame, end_frame, "
        "unit, reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (
                sid,
                shot_id,
                f.rule,
                f.verdict,
                f.to_json()["value"],
                json.dumps(f.to_json()["threshold"]),
                f.start_frame,
                f.end_frame,
                f.unit,
                f.reason,
            )
            for f in findings
        ],
    )
