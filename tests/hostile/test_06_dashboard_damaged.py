"""Issue 18 item 6, the dashboard's half: a store with a damaged JSON field, a damaged stored shot or a
dropped table is never a traceback on any page — a page that reads the damage says so in one line naming the
store — and the store is not written."""

import shutil
import sqlite3

import pytest

from tests.support.dashboard import app, point_dashboard_at
from tests.support.hostile_corpus import make_store, snapshot
from tests.support.paths import SAMPLES

PAGES = ("review", "analyze", "compare", "trends", "rulebook", "live")


def _damage(db, how: str) -> None:
    c = sqlite3.connect(db)
    if how == "json":
        c.execute("UPDATE sessions SET report_json = '{not json', profile_json = '['")
        c.execute("UPDATE archers SET overrides_json = '{'")
    elif how == "blob":
        c.execute("UPDATE shots SET shot_json = 'x'")
    else:
        c.execute("DROP TABLE findings")
    c.commit()
    c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    c.close()


@pytest.mark.parametrize("how", ["json", "blob", "table"])
def test_every_page_says_one_line(tmp_path, monkeypatch, how):
    from coach.results import Finding, ShotResult
    from coach.store import Store

    db = make_store(tmp_path / "made")
    with Store.open(db) as store:
        store.record_shot(1, ShotResult(0, 0, 1, 2, 5, 8, 30.0, findings=[Finding("cup_of_water", "fault", 1.0, {})]))
    shutil.copy(db, tmp_path / "coach.db")
    _damage(tmp_path / "coach.db", how)
    point_dashboard_at(monkeypatch, tmp_path, samples=SAMPLES)
    before = snapshot(tmp_path / "coach.db")
    said = []
    for page in PAGES:
        at = app(page).run()
        assert not at.exception, (page, [e.value for e in at.exception])
        for e in at.error:  # a page that reads the damage says so in one line naming the store
            assert "coach.db" in e.value and "\n" not in e.value.strip(), (page, e.value)
            said.append(page)
    assert "review" in said  # the review reads everything of the session
    assert snapshot(tmp_path / "coach.db") == before
