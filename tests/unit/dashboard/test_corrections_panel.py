"""The review page's correction panel under Streamlit's AppTest: a session recorded from the committed
three-shot pose track (its track kept), a release moved to the player's frame, saved under a coach's name,
re-judged; the page then shows the new verdicts and "corrected by"."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from coach.cli import main
from coach.store import Store
from tests.support.dashboard import app, point_dashboard_at, texts
from tests.support.paths import ROOT

TRACK = ROOT / "tests" / "golden" / "clean_rh_3shots.pose.json.gz"


@pytest.fixture()
def store_env(tmp_path: Path, monkeypatch) -> Path:
    db = tmp_path / "coach.db"
    point_dashboard_at(monkeypatch, tmp_path)
    assert main(["analyze", "--pose-track", str(TRACK), "--archer", "張三", "--db", str(db)]) == 0
    return db


def review(lang: str = "en") -> AppTest:
    return app("review", lang)


def button(at: AppTest, label: str):
    return next(b for b in at.button if b.label == label)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_move_a_release_to_the_players_frame_and_save(store_env: Path, lang: str) -> None:
    with Store.open(store_env) as s:
        sid = s.sessions()[0].id
        shot = s.shots(sid)[1]
    target = shot.result.release_frame + 5
    at = review(lang).run()
    assert not at.exception, [e.value for e in at.exception]
    from coach.dashboard.i18n import t

    assert t("corr_title", lang) in texts(at)
    at.selectbox(key=f"corr_shot.{sid}.{lang}").set_value(1).run()
    at.session_state["review_frame"] = target  # what the player sets
    at.run()
    assert at.number_input(key=f"corr_frame.{sid}").value == target
    button(at, t("corr_set", lang, mark=t("mark_release", lang))).click().run()
    at.text_input(key="corr_by").input("李教練").run()
    button(at, t("corr_save", lang)).click().run()
    assert not at.exception, [e.value for e in at.exception]
    page = texts(at)
    assert t("corr_done", lang, by="李教練", secs=0, faults=0).split("，" if lang == "zh" else ";")[0] in page
    assert t("corrected_by", lang, by="李教練") in page  # the shot's tab and the corrections list
    with Store.open(store_env) as s:
        (c,) = s.corrections(sid)
        now = s.shots(sid)[1]
    assert c.by == "李教練" and c.marks == [{"mark": "release", "before": shot.result.release_frame, "after": target}]
    assert now.result.release_frame == target and now.result.corrected["by"] == "李教練"


def test_add_and_delete_from_the_panel(store_env: Path) -> None:
    with Store.open(store_env) as s:
        sid = s.sessions()[0].id
        shots = s.shots(sid)
    at = review().run()
    at.selectbox(key=f"corr_shot.{sid}.en").set_value(2).run()
    button(at, "Delete shot (not a shot)").click().run()
    assert "Shot 3 will be deleted." in texts(at)
    button(at, "Save and re-judge").click().run()
    assert not at.exception and "the shot is removed" in texts(at)
    at.selectbox(key=f"corr_shot.{sid}.en").set_value(-1).run()
    at.number_input(key=f"corr_frame.{sid}").set_value(shots[2].result.release_frame).run()
    button(at, "Add a shot with its release here").click().run()
    button(at, "Save and re-judge").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert "Corrected by coach" in texts(at)
    with Store.open(store_env) as s:
        assert [x.result.release_frame for x in s.shots(sid)] == [x.result.release_frame for x in shots]
        assert [c.action for c in s.corrections(sid)] == ["delete", "add"]


def test_a_bad_mark_is_one_line_on_the_page(store_env: Path) -> None:
    with Store.open(store_env) as s:
        sid = s.sessions()[0].id
        shot = s.shots(sid)[0]
    at = review().run()
    at.number_input(key=f"corr_frame.{sid}").set_value(shot.result.raise_start_frame).run()
    button(at, "Set release to this frame").click().run()
    button(at, "Save and re-judge").click().run()
    assert not at.exception
    assert any("must come before" in e.value for e in at.error)
    with Store.open(store_env) as s:
        assert s.corrections(sid) == []
