"""The store's reads are typed records (issue 16): a session, a session in the list and a shot each come back as
one record with its row id a field, and what the records hand on as JSON is exactly what the store holds. A real
analysis of a committed pose track is recorded, and every record is checked against the raw rows."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from coach.cli import main
from coach.errors import CoachError
from coach.store import SessionSummary, Store, StoredSession, StoredShot
from tests.support.paths import ROOT

TRACK = ROOT / "tests" / "golden" / "clean_lh.pose.json.gz"


@pytest.fixture(scope="module")
def recorded(tmp_path_factory) -> tuple[Path, int]:
    db = tmp_path_factory.mktemp("records") / "club 會.db"
    assert main(["analyze", "--pose-track", str(TRACK), "--archer", "王小明", "--db", str(db)]) == 0
    with Store.open(db) as s:
        (row,) = s.sessions()
    return db, row.id


def _raw(db: Path, q: str, *args) -> list[tuple]:
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return con.execute(q, args).fetchall()
    finally:
        con.close()


def test_a_session_in_the_list_is_a_summary(recorded) -> None:
    db, sid = recorded
    with Store.open(db, readonly=True) as s:
        (row,) = s.sessions("王小明")
    assert isinstance(row, SessionSummary)
    ((n_shots, source, complete),) = _raw(
        db,
        "SELECT (SELECT COUNT(*) FROM shots WHERE session_id = ?), source, complete FROM sessions WHERE id = ?",
        sid,
        sid,
    )
    assert (row.id, row.archer, row.source, row.shots) == (sid, "王小明", source, n_shots) and n_shots >= 2
    assert row.complete is True and complete == 1
    assert row.faults == len(_raw(db, "SELECT 1 FROM findings WHERE session_id = ? AND verdict = 'fault'", sid))


def test_a_session_is_one_record_and_its_json_every_column(recorded) -> None:
    db, sid = recorded
    with Store.open(db, readonly=True) as s:
        session = s.session(sid)
    assert isinstance(session, StoredSession)
    ((report_json, profile_json, fps, archer_id),) = _raw(
        db, "SELECT report_json, profile_json, fps, archer_id FROM sessions WHERE id = ?", sid
    )
    assert session.report == json.loads(report_json) and session.profile == json.loads(profile_json)
    assert session.archer_id == archer_id and session.frame_rate == pytest.approx(fps)
    js = session.to_json()
    assert list(js) == [
        "id",
        "archer_id",
        "source",
        "content_hash",
        "pack_id",
        "pack_version",
        "fps",
        "width",
        "height",
        "frame_count",
        "view",
        "handedness",
        "started_at",
        "finished_at",
        "complete",
        "report",
        "profile",
    ]
    assert js["complete"] is True and js["report"] == session.report


def test_a_shot_carries_its_row_id_and_its_stored_json_untouched(recorded) -> None:
    db, sid = recorded
    with Store.open(db, readonly=True) as s:
        shots = s.shots(sid)
        key_frames = [len(s.key_frames(sh.id)) for sh in shots]
        kept_series = [s.series(sh.id) for sh in shots]
    rows = _raw(db, "SELECT id, idx, shot_json FROM shots WHERE session_id = ? ORDER BY idx", sid)
    assert [type(sh) for sh in shots] == [StoredShot] * len(rows) and len(rows) >= 2
    assert [(sh.id, sh.index) for sh in shots] == [(r[0], r[1]) for r in rows]
    assert [sh.to_json() for sh in shots] == [json.loads(r[2]) for r in rows]
    assert all("_id" not in sh.to_json() for sh in shots)
    # the typed shot is the stored one: written by ShotResult.to_json, read back to the same JSON
    assert [sh.result.to_json() for sh in shots] == [sh.to_json() for sh in shots]
    # the row id is the one the series and key frames hang off
    assert key_frames == [_raw(db, "SELECT COUNT(*) FROM key_frames WHERE shot_id = ?", r[0])[0][0] for r in rows]
    assert all(series is not None for series in kept_series)


def test_the_json_report_holds_the_stored_shots_exactly(recorded, tmp_path) -> None:
    db, sid = recorded
    out = tmp_path / "r.json"
    assert main(["report", str(sid), "--format", "json", "--out", str(out), "--db", str(db)]) == 0
    d = json.loads(out.read_text(encoding="utf-8"))
    rows = _raw(db, "SELECT shot_json FROM shots WHERE session_id = ? ORDER BY idx", sid)
    assert d["shots"] == [json.loads(r[0]) for r in rows]
    assert d["session"]["id"] == sid and d["session"]["complete"] is True


def test_a_damaged_shot_is_one_line_naming_the_store(recorded, tmp_path) -> None:
    db, sid = recorded
    copy = tmp_path / "damaged.db"
    con = sqlite3.connect(db)
    con.execute(f"VACUUM INTO '{copy}'")
    con.close()
    con = sqlite3.connect(copy)
    con.execute("UPDATE shots SET shot_json = '{\"release_frame\": 3}' WHERE session_id = ?", (sid,))
    con.commit()
    con.close()
    with Store.open(copy) as s, pytest.raises(CoachError) as e:
        s.shots(sid)
    assert "damaged.db" in str(e.value) and "holds damaged data (shots: KeyError)" in str(e.value)
