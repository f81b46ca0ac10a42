"""Issue 18 item 6: a damaged metric-series or key-frame blob in the store is one line, in the CLI too."""

import sqlite3

import numpy as np
import pytest

from tests.support.hostile_corpus import assert_clear, make_store, run_coach, snapshot


@pytest.mark.parametrize("table", ["series", "key_frames"])
def test_damaged_blob(tmp_path, table):
    from coach.results import Finding, ShotResult
    from coach.store import KeyFrame, Series, Store

    db = make_store(tmp_path)
    with Store.open(db) as store:
        shot = ShotResult(0, 0, 1, 2, 5, 8, 30.0, findings=[Finding("cup_of_water", "fault", 1.0, {})])
        series = Series(0, ["bow_elbow_angle"], {}, np.zeros((1, 9), np.float32))
        kf = KeyFrame("release", 5, 1.0, b"\xff\xd8not a jpeg", np.zeros((33, 3), np.float32))
        store.record_shot(1, shot, series=series, key_frames=[kf])
    c = sqlite3.connect(db)
    column = "data" if table == "series" else "landmarks"
    c.execute(f"UPDATE {table} SET {column} = x'010203'")
    c.commit()
    c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    c.close()
    before = snapshot(db)
    o = run_coach("report", "1", "--format", "html", "--out", tmp_path / "r.html", "--db", db, timeout=120)
    assert_clear(o, "s.db", "damaged")
    assert snapshot(db) == before and not (tmp_path / "r.html").exists()
