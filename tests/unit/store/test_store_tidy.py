"""Keeping the store tidy (issue 14): delete a session, rename or merge archers, move a session — from the
command line and from the dashboard (with a confirmation). Each test records real analyses of committed pose
tracks and checks that the change touched only what it names (every other row of every table is the same) and
that the trends follow."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from coach.cli import main
from coach.dashboard.i18n import t
from coach.report.data import video_name
from coach.store import Store
from tests.support.dashboard import point_dashboard_at
from tests.support.paths import ROOT

GOLDEN = ROOT / "tests" / "golden"
ONE = GOLDEN / "short_1shot.pose.json.gz"
TWO = GOLDEN / "clean_lh.pose.json.gz"


def _analyse(db: Path, track: Path, archer: str) -> int:
    assert main(["analyze", "--pose-track", str(track), "--archer", archer, "--db", str(db)]) == 0
    with Store.open(db) as s:
        return max(r.id for r in s.sessions())


def _rows(db: Path) -> dict[str, set]:
    c = sqlite3.connect(db)
    try:
        tables = [r[0] for r in c.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return {tb: set(c.execute(f"SELECT * FROM {tb}").fetchall()) for tb in tables}
    finally:
        c.close()


def _count(db: Path, table: str, sid: int) -> int:
    c = sqlite3.connect(db)
    try:
        return c.execute(f"SELECT COUNT(*) FROM {table} WHERE session_id = ?", (sid,)).fetchone()[0]
    finally:
        c.close()


def _trend_sessions(db: Path, archer: str) -> list[int]:
    with Store.open(db) as s:
        a = s.archer(archer)
        return [r.id for r in s.trend_rows(a.id)] if a else []


@pytest.fixture()
def db(tmp_path: Path, monkeypatch) -> Path:
    path = tmp_path / "coach.db"
    point_dashboard_at(monkeypatch, tmp_path)
    _analyse(path, ONE, "王小明")
    _analyse(path, TWO, "王小明")
    _analyse(path, TWO, "李四")
    return path


def _sid(db: Path, archer: str, nth: int = 0) -> int:
    with Store.open(db) as s:
        return sorted(r.id for r in s.sessions(archer))[nth]


def test_delete_a_session_removes_it_its_rows_and_its_video_only(db: Path, tmp_path: Path) -> None:
    sid = _sid(db, "王小明", 1)
    video = tmp_path / "media" / f"session-{sid}.mp4"
    video.parent.mkdir(parents=True)
    video.write_bytes(b"annotated")
    before = _rows(db)
    assert main(["delete", str(sid), "--yes", "--db", str(db)]) == 0
    after = _rows(db)
    assert not video.exists()
    gone = {tb: before[tb] - after[tb] for tb in before}
    assert after == {tb: before[tb] - gone[tb] for tb in before}  # nothing added or changed, only removed
    assert [r[0] for r in gone["sessions"]] == [sid]
    for tb in ("shots", "findings", "pose_tracks"):
        assert gone[tb] and _count(db, tb, sid) == 0, f"the session's {tb} stay"
    assert gone["series"]  # it hangs off its shots
    assert _trend_sessions(db, "王小明") == [_sid(db, "王小明", 0)]


def test_delete_asks_first_and_without_a_terminal_needs_yes(db: Path, capsys) -> None:
    before = _rows(db)
    assert main(["delete", str(_sid(db, "李四")), "--db", str(db)]) != 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--yes" in err[0]
    assert _rows(db) == before


def test_merge_archers_moves_every_session_and_removes_the_first(db: Path) -> None:
    # 李四's only video is also one of 王小明's: merging 王小明 into 李四 would put it twice — refused first
    before = _rows(db)
    assert main(["archers", "merge", "王小明", "李四", "--db", str(db)]) != 0
    assert _rows(db) == before
    assert main(["delete", str(_sid(db, "李四")), "--yes", "--db", str(db)]) == 0
    mine = _trend_sessions(db, "王小明")
    before = _rows(db)
    assert main(["archers", "merge", "王小明", "李四", "--db", str(db)]) == 0
    after = _rows(db)
    with Store.open(db) as s:
        assert s.archer("王小明") is None
    assert _trend_sessions(db, "李四") == mine
    for tb in before:
        if tb not in ("sessions", "archers"):
            assert after[tb] == before[tb], f"{tb} changed"
    # sessions differ only in their archer
    strip = lambda rows: {r[:1] + r[2:] for r in rows}  # noqa: E731
    assert strip(after["sessions"]) == strip(before["sessions"])


def test_rename_and_move(db: Path, capsys) -> None:
    assert main(["archers", "rename", "李四", "王小明", "--db", str(db)]) != 0  # a name taken: merge instead
    assert "merge" in capsys.readouterr().err
    assert main(["archers", "rename", "李四", "李大四", "--db", str(db)]) == 0
    sid = _sid(db, "王小明", 0)  # short_1shot: 李大四 has no copy of it
    before = _rows(db)
    assert main(["move", str(sid), "--to", "李大四", "--db", str(db)]) == 0
    assert sid in _trend_sessions(db, "李大四") and sid not in _trend_sessions(db, "王小明")
    after = _rows(db)
    assert {tb: after[tb] for tb in after if tb != "sessions"} == {tb: before[tb] for tb in before if tb != "sessions"}
    # the same video twice under one archer is refused, in one line
    assert main(["move", str(_sid(db, "王小明", 0)), "--to", "李大四", "--db", str(db)]) != 0
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


def test_uploads_are_listed_by_their_own_name() -> None:
    assert video_name("/m/coach-media/uploads/0123456789ab-射箭 練習.mp4") == "射箭 練習.mp4"
    assert video_name("/clips/0123456789ab-kept.mp4") == "0123456789ab-kept.mp4"  # not an upload: as it is
    assert video_name(None) == "—"


# ---- the dashboard ---------------------------------------------------------------------------------------
def _page(page: str, lang: str) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.session_state["lang"] = lang
    at.switch_page(f"coach/dashboard/pages/{page}.py")
    return at.run()


def _button(at: AppTest, label: str):
    return next(b for b in at.button if b.label == label)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_review_page_deletes_a_session_only_once_confirmed(db: Path, lang: str) -> None:
    at = _page("review", lang)
    assert not at.exception, [e.value for e in at.exception]
    with Store.open(db) as s:
        shown = max(r.id for r in s.sessions())  # the page opens on the newest
    delete = _button(at, t("tidy_delete", lang))
    assert delete.disabled  # not before the tick
    at.checkbox(key=f"tidy_del_ok.{shown}").check().run()
    _button(at, t("tidy_delete", lang)).click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert t("tidy_deleted", lang, id=shown) in [str(e.value) for e in at.success]
    with Store.open(db) as s:
        assert shown not in [r.id for r in s.sessions()] and len(s.sessions()) == 2


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_trends_page_merges_archers_once_confirmed_and_says_why_not(db: Path, lang: str) -> None:
    at = _page("trends", lang)
    at.selectbox(key="trend_archer").set_value("李四").run()
    at.selectbox(key="tidy_merge.李四").set_value("王小明").run()
    at.checkbox(key="tidy_merge_ok.李四").check().run()
    _button(at, t("tidy_merge", lang)).click().run()
    assert not at.exception, [e.value for e in at.exception]
    refused = [str(e.value) for e in at.error]
    assert refused == [t("tidy_err_same_video", lang, archer="王小明", sessions=str(_sid(db, "李四")))]
    with Store.open(db) as s:
        assert s.archer("李四") is not None  # nothing was written
    assert main(["delete", str(_sid(db, "王小明", 1)), "--yes", "--db", str(db)]) == 0
    at = _page("trends", lang)
    at.selectbox(key="trend_archer").set_value("李四").run()
    at.selectbox(key="tidy_merge.李四").set_value("王小明").run()
    at.checkbox(key="tidy_merge_ok.李四").check().run()
    _button(at, t("tidy_merge", lang)).click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert t("tidy_merged", lang, n=1, src="李四", dst="王小明") in [str(e.value) for e in at.success]
    assert len(_trend_sessions(db, "王小明")) == 2
