"""What to work on first on the review page (issue 14): the session's headline faults with their cue, and in
each shot's tab its one fault to work on first; a dismissed fault leaves the headline. AppTest, both languages,
on sessions recorded from committed pose tracks."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from coach.cli import main
from coach.dashboard.i18n import t
from coach.report.data import gather
from coach.store import Store
from tests.support.dashboard import app, no_exception, point_dashboard_at
from tests.support.paths import ROOT

GOLDEN = ROOT / "tests" / "golden"


@pytest.fixture()
def db(tmp_path: Path, monkeypatch) -> Path:
    path = tmp_path / "coach.db"
    point_dashboard_at(monkeypatch, tmp_path)
    return path


def _record(db: Path, track: str) -> int:
    assert (
        main(["analyze", "--pose-track", str(GOLDEN / f"{track}.pose.json.gz"), "--archer", "甲", "--db", str(db)]) == 0
    )
    with Store.open(db) as s:
        return max(r.id for r in s.sessions())


def _review(lang: str) -> AppTest:
    at = app("review", lang).run()
    no_exception(at)
    return at


def _markdown(at: AppTest) -> str:
    return "\n".join(str(m.value) for m in at.markdown)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_review_opens_with_what_to_work_on_first(db: Path, lang: str) -> None:
    sid = _record(db, "fault_hold")
    with Store.open(db) as s:
        rd = gather(s, sid)
    focus = rd.focus()
    assert focus, "the fault clip must have faults for this test to mean anything"
    page = _markdown(_review(lang))
    assert t("focus_title", lang) in page
    for f in focus:
        r = rd.pack.by_id[f.rule]
        assert (r.name_zh if lang == "zh" else r.name_en) in page and (r.cue_zh if lang == "zh" else r.cue_en) in page
    for sv in rd.shots:
        first = rd.shot_focus(sv)
        if first is not None:
            name = rd.pack.by_id[first.rule]
            assert t("focus_shot", lang, rule=name.name_zh if lang == "zh" else name.name_en) in page


def test_a_dismissed_fault_leaves_the_headline_and_a_clean_session_has_none(db: Path) -> None:
    sid = _record(db, "fault_hold")
    with Store.open(db) as s:
        rd = gather(s, sid)
        top = rd.focus()[0]
        for shot in top.shots:
            s.annotate(sid, "dismiss", shot=shot, rule=top.rule, comment="", author="coach")
        if top.session_level:
            s.annotate(sid, "dismiss", shot=None, rule=top.rule, comment="", author="coach")
        assert top.rule not in [f.rule for f in gather(s, sid).focus()]
    _record(db, "clean_lh")  # the newest: the page opens on it
    assert t("focus_title", "en") not in _markdown(_review("en"))


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_hint_is_marked_on_the_review_page(db: Path, lang: str) -> None:
    """fault_release's third shot faults follow_through_arm, a rule the landmarks judge with low confidence: its
    verdict table and its 'work on first' line mark it "(?)", as the terminal and the reports do; a fault the
    tool stands behind carries no mark."""
    sid = _record(db, "fault_release")
    with Store.open(db) as s:
        rd = gather(s, sid)
    hint = rd.pack.by_id["follow_through_arm"]
    sure = rd.pack.by_id["hou_shou_xiao"]
    hint_name, sure_name = (hint.name_zh, sure.name_zh) if lang == "zh" else (hint.name_en, sure.name_en)
    at = _review(lang)
    cells = [str(v) for df in at.dataframe for v in df.value.to_numpy().ravel()]
    assert f"{hint_name} (?)" in cells
    assert sure_name in cells and f"{sure_name} (?)" not in cells
    liang_zhai = rd.pack.by_id["liang_zhai"]  # the first shot's one fault, a hint too: its 'work on first' line
    first = t("focus_shot", lang, rule=f"{liang_zhai.name_zh if lang == 'zh' else liang_zhai.name_en} (?)")
    assert first in _markdown(at)
    assert t("hint_note", lang) in [str(c.value) for c in at.caption]  # and what the mark means
