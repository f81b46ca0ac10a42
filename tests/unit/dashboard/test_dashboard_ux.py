"""What a new user tripped over in the dashboard (issue 15), under Streamlit's AppTest on a store filled from a
recorded pose track (no model run): comment-only notes, no traceback on any page, the language, the archer
picker, dismissed faults, values at their limit, untranslated text."""

import json
import os
import re

import pytest
from streamlit.testing.v1 import AppTest

from coach.cli import main
from coach.dashboard import data as dash_data
from coach.store import Store
from tests.support.dashboard import PAGES, app, dashboard_at, no_exception
from tests.support.paths import ROOT

TRACK = ROOT / "tests" / "golden" / "fault_elbow.pose.json.gz"  # three shots, cup_of_water faulted in shot 1
ARCHER = "王小明"


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("ux")
    with dashboard_at(tmp):
        assert main(["analyze", "--pose-track", str(TRACK), "--archer", ARCHER, "--db", str(tmp / "coach.db")]) == 0
        with Store.open(tmp / "coach.db") as store:
            (s,) = store.sessions()
        yield {"db": tmp / "coach.db", "sid": s.id}


def cells(at: AppTest) -> str:
    return "\n".join(str(v) for df in at.dataframe for v in df.value.astype(str).to_numpy().ravel())


# ---- 1. a comment-only note, and no traceback on any page ------------------------------------------------------
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_comment_only_note_on_an_unjudged_finding_keeps_the_review(env, lang):
    with Store.open(env["db"]) as store:
        store.annotate(env["sid"], "comment", shot=0, rule="cup_of_water", comment=f"看鏡頭 {lang}")
    at = app("review", lang).run()
    no_exception(at)
    assert not at.error, [e.value for e in at.error]
    assert f"看鏡頭 {lang}" in cells(at)  # the note is in the verdict table's coach column


def test_an_unexpected_error_on_a_page_is_one_line_and_a_way_back(env, monkeypatch):
    def boom(*a, **k):
        raise RuntimeError("something broke")

    monkeypatch.setattr(dash_data, "timeline_rows", boom)
    at = app("review").run()
    no_exception(at)
    (err,) = at.error
    assert "something broke" in err.value and "Traceback" not in err.value
    assert "log" in err.value
    assert at.get("page_link")  # a way back


# ---- 2. the language --------------------------------------------------------------------------------------
def test_the_language_comes_from_the_url_and_is_kept_there(env):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.query_params["lang"] = "en"
    at.run()
    no_exception(at)
    assert [t.value for t in at.title] == ["Session review"]
    at.sidebar.radio(key="lang").set_value("zh").run()
    assert [t.value for t in at.title] == ["回顧"]
    assert at.query_params["lang"] == ["zh"] or at.query_params["lang"] == "zh"


def test_pickers_follow_the_language(env):
    at = app("review", "zh").run()
    assert "箭" in at.selectbox(key="review_session.zh").options[0]
    at.sidebar.radio(key="lang").set_value("en").run()
    no_exception(at)
    box = at.selectbox(key="review_session.en")
    assert box.value == env["sid"] and "shots" in box.options[0]


# ---- 10. the archer picker --------------------------------------------------------------------------------
@pytest.mark.parametrize("page, start", [("analyze", "analyse"), ("live", "live_start")])
def test_no_archer_is_preselected_and_the_choice_is_remembered(env, page, start):
    at = app(page).run()
    no_exception(at)
    box = at.selectbox(key="archer.en")
    assert box.value == "\x00pick" and "choose or create" in box.options[0]
    if page == "live":
        at.text_input(key="live_source").input(str(TRACK))
    at.button(key=start).click().run()
    assert "Choose the archer" in at.warning[0].value
    at.selectbox(key="archer.en").set_value(ARCHER).run()
    # another page and back: the choice is still there, on both pages
    at.switch_page(f"{PAGES}/trends.py").run()
    other = "live" if page == "analyze" else "analyze"
    at.switch_page(f"{PAGES}/{other}.py").run()
    assert at.selectbox(key="archer.en").value == ARCHER


# ---- 13. camera check marks ---------------------------------------------------------------------------------
def _check_page():
    import streamlit as st

    from coach.dashboard.live_page import show_check
    from coach.live.check import CameraCheck, CheckItem

    items = [CheckItem("framing", "ok", "m1"), CheckItem("light", "warn", "m2"), CheckItem("room", "fail", "m3")]
    show_check(CameraCheck(items, "face-on", 30, 30, ["cup_of_water"], {}), st.session_state.get("lang", "en"))


@pytest.mark.parametrize("lang, words", [("en", ("OK", "Check", "Fail")), ("zh", ("通過", "注意", "不合格"))])
def test_camera_check_marks_are_words_not_emoji(lang, words):
    at = AppTest.from_function(_check_page)
    at.session_state["lang"] = lang
    at.run()
    no_exception(at)
    body = "\n".join(m.value for m in at.markdown) + "\n".join(e.value for e in at.error)
    assert not re.search("[\u2600-\u27bf\U0001f300-\U0001faff]", body), body  # no emoji at all
    rows = [m.value for m in at.markdown if "m1" in m.value][0]
    for word, msg in zip(words, ("m1", "m2", "m3")):
        assert re.search(rf"\*\*{word}\*\*[^\n]*{msg}", rows), (word, rows)


# ---- 9. a session still being analysed ----------------------------------------------------------------------
def test_a_session_being_analysed_says_so_not_incomplete(env):
    from coach.dashboard.jobs import JOBS, Job, JobState
    from posture_rules.pack import load_pack

    with Store.open(env["db"]) as store:
        sid = store.begin_session(store.archer(ARCHER), "/videos/練習.mp4", "sha256:running", load_pack(), {})
    job = Job(JobState("ux-running", "練習.mp4", ARCHER, stage="analyse", done=50, total=100, sid=sid))
    JOBS._jobs["ux-running"] = job
    try:
        for lang, word, stopped in (("en", "analysing… 42%", "stopped"), ("zh", "分析中… 42%", "中斷")):
            at = app("review", lang).run()
            no_exception(at)
            label = at.selectbox(key=f"review_session.{lang}").options[-1]
            assert word in label and stopped not in label, label
            shown = "\n".join(str(e.value) for kind in ("caption", "info") for e in getattr(at, kind))
            assert stopped not in shown and "No faults" not in shown and "沒有發現病" not in shown, shown
    finally:
        job.update(stage="done")
        JOBS._jobs.pop("ux-running", None)
        with Store.open(env["db"]) as store:
            store.delete_session(sid)


# ---- 3. every string a user sees is in the reader's language ----------------------------------------------
FILE_NAME = re.compile(r"[\w.\-/]+\.(?:mp4|mov|json\.gz|json|db|toml)\b")
ICON = re.compile(r":material/[a-z_]+:")
SNAKE = re.compile(r"\b[a-z]+(?:_[a-z]+)+\b")
CJK = re.compile(r"[\u3400-\u9fff]")
EN_WORD = re.compile(r"[A-Za-z]{3,}")


def _bilingual_by_design(lang: str) -> list[str]:
    """Text shown in both languages on purpose: the rule pack's names, quotes, meanings and cues (the review
    shows the cue in Chinese and English side by side), proper names, and what the coach wrote."""
    from posture_rules.pack import load_pack

    pack = load_pack()
    out = [
        ARCHER,
        "看鏡頭",
        "射經",
        "間若一",
        "語言 · Language",
        "中文",
        "English",
        "王小明 / Wang Xiaoming",
        pack.title,
    ]
    for r in pack.rules:
        out += [r.name_zh, r.name_en, r.quote, r.section, r.cue_zh, r.cue_en, r.meaning_zh, r.meaning_en]
        out += [getattr(r, "source_note", "") or "", getattr(r, "needs", "") or ""]
    return sorted((s for s in out if s), key=len, reverse=True)


def _shown(at: AppTest) -> list[str]:
    kinds = ("title", "header", "subheader", "markdown", "caption", "info", "warning", "error", "success")
    out = [str(e.value) for kind in kinds for e in getattr(at, kind)]
    for kind in ("selectbox", "radio", "multiselect"):
        for w in getattr(at, kind):
            out += [w.label, *map(str, w.options)]
    for kind in ("button", "text_input", "number_input", "text_area", "expander", "tabs", "metric"):
        out += [str(getattr(w, "label", "")) for w in getattr(at, kind)]
    for df in at.dataframe:
        out += [str(c) for c in df.value.columns]
        out += [str(v) for v in df.value.astype(str).to_numpy().ravel()]
    for chart in at.get("vega_lite_chart"):
        out += list(_titles(json.loads(chart.proto.spec)))
    return [s for s in out if s]


def _titles(spec):
    """Every axis, legend, tooltip and chart title in a Vega-Lite spec."""
    if isinstance(spec, dict):
        for k, v in spec.items():
            if k == "title" and isinstance(v, str):
                yield v
            else:
                yield from _titles(v)
    elif isinstance(spec, list):
        for v in spec:
            yield from _titles(v)


def _offences(texts: list[str], lang: str) -> list[str]:
    allowed = _bilingual_by_design(lang)
    bad = []
    for text in texts:
        s = ICON.sub(" ", FILE_NAME.sub(" ", text))  # icon short codes are drawn as icons, not read
        for a in allowed:
            s = s.replace(a, " ")
        if SNAKE.search(s):
            bad.append(f"internal name: {text!r}")
        elif lang == "zh" and [w for w in EN_WORD.findall(s) if w not in ("SW", "Coach", "START", "MB", "URL")]:
            bad.append(f"English in the Chinese UI: {text!r}")
        elif lang == "en" and CJK.search(s):
            bad.append(f"Chinese in the English UI: {text!r}")
    return sorted(set(bad))


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("page", ["review", "analyze", "compare", "trends", "rulebook", "live"])
def test_every_string_on_every_page_is_in_the_readers_language(env, page, lang):
    at = app(page, lang).run()
    no_exception(at)
    if page == "trends":
        at.selectbox(key="trend_archer").set_value(ARCHER).run()
    if page == "rulebook":
        at.selectbox(key="adj_archer").set_value(ARCHER).run()
    no_exception(at)
    bad = _offences(_shown(at), lang)
    assert not bad, "\n".join(bad)


# ---- 7. the timeline; 8. the trends charts ------------------------------------------------------------------
def _specs(at: AppTest) -> list[dict]:
    return [json.loads(c.proto.spec) for c in at.get("vega_lite_chart")]


def _find(spec, key):
    if isinstance(spec, dict):
        for k, v in spec.items():
            if k == key:
                yield v
            yield from _find(v, key)
    elif isinstance(spec, list):
        for v in spec:
            yield from _find(v, key)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_timeline_colours_are_fixed_and_tooltips_human(env, lang):
    from coach.dashboard.i18n import t

    at = app("review", lang).run()
    (spec,) = _specs(at)
    scales = [s for s in _find(spec, "scale") if isinstance(s, dict) and "range" in s]
    phases = ("raise", "draw", "full_draw", "hold", "follow_through", "fault")
    assert scales and scales[0]["domain"] == [t(f"phase_{p}", lang) for p in phases]  # whatever comes first
    assert scales[0]["range"][3] == "#e0b050" and scales[0]["range"][5] == "#c0392b"  # hold, fault
    titles = [tt.get("title") for tip in _find(spec, "tooltip") if isinstance(tip, list) for tt in tip]
    assert titles and "start_s" not in json.dumps(titles) and None not in titles
    assert "text" in json.dumps(spec)  # lane names drawn as text above the bars, not as crowded axis labels
    assert None in list(_find(spec, "axis"))  # no lane axis beside the bars
    assert {"step": 44} in list(_find(spec, "height"))  # each lane tall enough for its name and its bars


def test_trends_label_every_rule_and_fit_the_page(env):
    at = app("trends").run()
    at.selectbox(key="trend_archer").set_value(ARCHER).run()
    specs = _specs(at)
    heat = specs[0]
    axes = [a for a in _find(heat, "axis") if isinstance(a, dict) and "labelOverlap" in a]
    assert axes and axes[0]["labelOverlap"] is False and axes[0]["labelLimit"] == 0
    assert not any("facet" in s for s in specs)  # a faceted chart at container width is cut off at the right


# ---- 6. an annotated video older than the session's latest analysis --------------------------------------
def test_an_annotated_video_drawn_before_the_latest_analysis_is_not_shown(env, tmp_path):
    from coach.dashboard.settings import Settings
    from tests.support.paths import SAMPLES

    clip = SAMPLES / "short_1shot.mp4"
    if not clip.is_file():
        pytest.skip(f"{clip} is missing")
    video = Settings.from_env().annotated_video(env["sid"])
    video.parent.mkdir(parents=True, exist_ok=True)
    video.write_bytes(clip.read_bytes())
    try:
        at = app("review").run()
        assert not any("predates" in c.value for c in at.caption)  # drawn after the analysis: shown
        os.utime(video, (946684800, 946684800))  # drawn in 2000, before the session's latest analysis
        at = app("review").run()
        no_exception(at)
        assert any("predates this session's latest analysis" in c.value for c in at.caption)
    finally:
        video.unlink()


# ---- 3. errors in the reader's language ---------------------------------------------------------------------
@pytest.mark.parametrize(
    "lang, expected",
    [("zh", "壞掉.mp4: 沒有可解碼的畫面（損壞或截斷）"), ("en", "壞掉.mp4: has no decodable video frames")],
)
def test_a_failed_analysis_is_told_in_the_readers_language(env, lang, expected):
    from coach.dashboard.jobs import JOBS, Job, JobState

    error = "壞掉.mp4: has no decodable video frames (corrupt or truncated)"
    JOBS._jobs["ux-failed"] = Job(JobState("ux-failed", "壞掉.mp4", ARCHER, stage="error", error=error))
    try:
        at = app("analyze", lang)
        at.session_state["job"] = "ux-failed"
        at.run()
        no_exception(at)
        assert expected in at.error[0].value
    finally:
        JOBS._jobs.pop("ux-failed", None)


# ---- 2. radios follow the language too ------------------------------------------------------------------------
def test_radios_follow_the_language_and_keep_the_choice(env):
    at = app("analyze", "zh").run()
    at.radio(key="source.zh").set_value("upload").run()
    assert "上傳影片" in at.radio(key="source.zh").options
    at.sidebar.radio(key="lang").set_value("en").run()
    no_exception(at)
    box = at.radio(key="source.en")
    assert box.value == "upload" and "Upload a video" in box.options  # the choice kept, the labels English
    (uploader,) = at.get("file_uploader")  # and the page acts on it
    # it takes what the analysis reads, a camcorder's files too, not only what a browser plays
    assert {".mp4", ".mov", ".mts", ".m2ts", ".gif"} <= set(uploader.proto.type)


def _check_page_real_messages():
    import streamlit as st

    from coach.dashboard.live_page import show_check
    from coach.live.check import CameraCheck, CheckItem

    items = [
        CheckItem("framing", "ok", "whole body in the picture"),
        CheckItem("room", "warn", "too near the left edge: the bow arm will leave the picture at full draw; x"),
        CheckItem("distance", "ok", "good distance (shoulders 21% of the width)"),
        CheckItem("view", "ok", "facing the camera (face-on): the view the most rules are judged from"),
        CheckItem("light", "warn", "too dark: add light"),
    ]
    why = {"ding_ba_stance": "needs a face-on or high view (this camera: down-line)"}
    show_check(CameraCheck(items, "face-on", 30, 30, ["cup_of_water"], why), st.session_state.get("lang", "en"))


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_camera_check_findings_in_the_readers_language(lang):
    at = AppTest.from_function(_check_page_real_messages)
    at.session_state["lang"] = lang
    at.run()
    no_exception(at)
    body = "\n".join(m.value for m in at.markdown) + "\n".join(str(c.value) for c in at.caption)
    if lang == "zh":
        assert "全身都在畫面內" in body and "太靠近畫面左緣" in body and "21%" in body and "正面" in body
        assert "需要正面 或 高處視角（此攝影機：沿箭道）" in body
    bad = _offences(_shown(at), lang)
    assert not bad, "\n".join(bad)
