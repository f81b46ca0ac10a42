"""The dashboard's pages under Streamlit's AppTest, on a temporary store: every page loads (empty and with a
session), the Analyze page runs a sample through to the review, bad videos give a clear message, the coach's
annotations and threshold overrides are saved.

One real analysis (the short sample clip, bundled MediaPipe model) for the whole module."""

import time

import pytest
from streamlit.testing.v1 import AppTest

from coach.dashboard.i18n import t
from coach.dashboard.jobs import JOBS, save_upload
from coach.dashboard.settings import Settings
from coach.errors import CoachError
from coach.store import Store
from posture_rules.pack import load_pack
from tests.support.dashboard import SAMPLE_CLIP, app, dashboard_at, no_exception, sample_folder, texts

PACK = load_pack()
NEW_ARCHER = "\x00new"  # the "+ New archer" choice of the Analyze page


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    """A temporary store, media folder and sample folder (the short clip and a broken 'video')."""
    tmp = tmp_path_factory.mktemp("dash")
    samples = sample_folder(tmp)
    (samples / "broken_clip.mp4").write_bytes(b"this is not a video at all" * 100)
    with dashboard_at(tmp) as settings:  # its samples: tmp/samples
        yield settings


# ---- empty store -------------------------------------------------------------------------------------------
def test_empty_store_pages_say_how_to_start(env):
    at = app().run()
    no_exception(at)
    assert "No sessions yet" in at.info[0].value and "Analyze" in at.info[0].value
    for page, expected in (("compare", "at least one analysed shot"), ("trends", "No archers yet")):
        at = app(page).run()
        no_exception(at)
        assert expected in texts(at)


def test_live_page_renders_through_its_hook(env):
    at = app("live").run()
    no_exception(at)
    assert at.radio(key="live_mode.en") and at.text_input(key="live_source").value == "0"


def test_rulebook_lists_every_rule_with_its_text(env):
    at = app("rulebook", lang="zh").run()
    no_exception(at)
    assert len(at.expander) == len(PACK.rules)
    body = texts(at)
    for r in PACK.rules:
        assert r.quote in body and r.cue_zh in body
    hidden = [r for r in PACK.rules if not r.observable]
    labels = [e.label for e in at.expander]
    assert sum("不可觀測" in label for label in labels) == len(hidden)
    # what clean shots read, which the elite tolerance tightens no limit past (the pack's clean_reads)
    assert "無病的箭量得 -6.3 … 21.1" in body


def test_first_start_on_an_empty_store_analyses_the_demo_clip_once(env, tmp_path, monkeypatch):
    monkeypatch.setenv("COACH_DB", str(tmp_path / "first.db"))
    monkeypatch.setenv("COACH_MEDIA", str(tmp_path / "media"))
    monkeypatch.setenv("COACH_DEMO", "broken_clip")  # fails fast; the real default is short_1shot
    at = app().run()
    job = JOBS.demo_job(Settings.from_env())
    assert job is not None and job.snapshot().video == "broken_clip.mp4"
    at = wait_for_job(at, job)
    no_exception(at)
    assert "broken_clip.mp4" in at.error[0].value  # the demo's outcome, then how to start
    assert "No sessions yet" in at.info[0].value
    at.run()
    assert JOBS.demo_job(Settings.from_env()) is job  # submitted once per store, not on every run


# ---- uploads -----------------------------------------------------------------------------------------------
def test_unreadable_upload_names_the_file_and_the_problem(env):
    with pytest.raises(CoachError) as e:
        save_upload(b"plain text, not a video\n" * 50, "my shot.mp4", env)
    assert str(e.value).startswith("my shot.mp4: ")
    assert "cannot be opened as a video" in str(e.value) or "no decodable video frames" in str(e.value)
    with pytest.raises(CoachError, match=r"^empty\.mov: is empty \(0 bytes\)$"):
        save_upload(b"", "empty.mov", env)
    assert not any(env.uploads.glob("*my_shot*"))  # a failed upload is not kept
    kept = save_upload(SAMPLE_CLIP.read_bytes(), "練習 1.mp4", env)
    assert kept.is_file() and kept.parent == env.uploads and kept.read_bytes() == SAMPLE_CLIP.read_bytes()


def test_analyze_asks_for_a_name_and_reports_a_broken_sample(env):
    at = app("analyze").run()
    no_exception(at)
    assert "MB per file" in texts(at)  # the upload limit is stated
    at.button(key="analyse").click().run()
    assert "Enter the archer's name" in at.warning[0].value
    at.selectbox(key="sample").set_value("broken_clip")
    at.text_input(key="new_name").input("Broken Test")
    at.button(key="analyse").click().run()
    at = wait_for_job(at)
    err = at.error[0].value
    assert "broken_clip.mp4" in err and "Traceback" not in err


def wait_for_job(at: AppTest, job=None, timeout: float = 240) -> AppTest:
    """Wait until the analysis `job` (default: the one this page submitted) is over, on the job's own state, then
    rerun the page until it shows the outcome. What a page shows while the job runs says nothing: the review page
    has its title all along, so waiting on the page alone returned at once, before a slow job had failed."""
    job = job or JOBS.get(at.session_state["job"])
    assert job is not None, "no analysis was submitted"
    end = time.monotonic() + timeout  # generous: the worker thread shares two cores with everything else
    while not job.snapshot().is_over:
        assert time.monotonic() < end, f"the analysis did not finish in {timeout:.0f} s: {job.snapshot()}"
        time.sleep(0.2)
    for _ in range(3):  # the outcome, then (analyze page, success) the switch to the review
        at.run()
        if at.error or at.success or any(t.value == "Session review" for t in at.title):
            return at
    raise AssertionError(f"the page does not show the analysis' outcome: {job.snapshot()}")


# ---- one real analysis, then every page on it ----------------------------------------------------------------
@pytest.fixture(scope="module")
def analysed(env):
    at = app("analyze").run()
    at.selectbox(key="archer.en").set_value(NEW_ARCHER).run()
    at.selectbox(key="sample").set_value("short_1shot")
    at.text_input(key="new_name").input("王小明")
    at.radio(key="hand.en").set_value("right")
    at.selectbox(key="tol.en").set_value("beginner")
    at.button(key="analyse").click().run()
    at = wait_for_job(at)
    no_exception(at)
    with Store.open(env.db) as store:
        sessions = [s for s in store.sessions() if s.archer == "王小明"]
        archer = store.archer("王小明")
        kept = store.pose_track(sessions[0].id)  # the pose track is kept, so a coach can correct the session
    assert len(sessions) == 1 and sessions[0].complete and sessions[0].shots == 1
    assert kept is not None and len(kept.frames) == store_frames(env.db, sessions[0].id)
    assert archer.handedness == "right" and archer.tolerance == "beginner"
    return at, sessions[0].id


def store_frames(db, sid: int) -> int:
    with Store.open(db) as store:
        return store.session(sid).frame_count


def test_analyze_opens_the_new_session_in_the_review(env, analysed):
    at, sid = analysed
    assert [t.value for t in at.title] == ["Session review"]
    assert at.selectbox(key="review_session.en").value == sid
    assert env.annotated_video(sid).is_file()
    (player,) = at.get("bidi_component")  # the frame player on the annotated video
    assert player.proto.component_name == "coach_frame_player" and "media/" in player.proto.json
    (timeline,) = at.get("vega_lite_chart")
    assert '"field": "lane"' in timeline.proto.spec  # one lane per shot's phases and per fault
    assert "fault_pick" in timeline.proto.spec  # clicking a band selects it (and the player lands on it)
    body = texts(at)
    assert "Key frames" in body
    assert "Release confidence 0." in body  # how sure the shot's release is, said on its tab
    frame = at.dataframe[0].value
    assert {"rule", "verdict", "classical text", "cue (zh)", "cue (en)"} <= set(frame.columns)
    assert PACK.by_id["cup_of_water"].quote in " ".join(frame["classical text"])


def test_review_saves_the_coachs_annotation(env, analysed):
    _, sid = analysed
    at = app("review").run()
    no_exception(at)
    at.radio(key="ann_action.en").set_value("dismiss")
    at.text_area(key="ann_comment").input("對著鏡頭太斜 camera too oblique")
    next(b for b in at.button if b.label == t("save", "en")).click().run()  # the form's save button
    no_exception(at)
    with Store.open(env.db) as store:
        (ann,) = store.annotations(sid)
    assert ann.action == "dismiss" and ann.comment == "對著鏡頭太斜 camera too oblique" and ann.shot == 0
    assert "camera too oblique" in texts(at)


def test_compare_two_shots_aligned_at_release(env, analysed):
    at = app("compare").run()
    no_exception(at)
    assert at.selectbox(key="cmp_a.en").value == at.selectbox(key="cmp_b.en").value
    assert at.multiselect(key="cmp_metrics.en").value  # metrics chosen, chart drawn
    assert at.get("vega_lite_chart")
    assert "Shot measures" in texts(at)


def test_trends_for_the_archer(env, analysed):
    at = app("trends").run()
    no_exception(at)
    assert at.selectbox(key="trend_archer").value in ("王小明", "Broken Test")
    at.selectbox(key="trend_archer").set_value("王小明").run()
    no_exception(at)
    assert "Fault rate per rule" in texts(at)
    assert at.get("vega_lite_chart")


def test_rulebook_threshold_override_is_saved_for_the_archer(env, analysed):
    at = app("rulebook").run()
    at.selectbox(key="adj_archer").set_value("王小明")
    at.selectbox(key="adj_rule.en").set_value("straight_bow_arm").run()
    key = "adj_王小明_straight_bow_arm_enter_below"
    at.number_input(key=key).set_value(140.0)
    at.button(key="adj_save").click().run()
    no_exception(at)
    assert "Saved Bow arm straight as a branch thresholds" in at.success[0].value
    with Store.open(env.db) as store:
        archer = store.archer("王小明")
    assert archer.overrides["straight_bow_arm"]["enter_below"] == 140.0
    assert archer.profile().apply(PACK).by_id["straight_bow_arm"].thresholds.enter_below == 140.0
    # an impossible band is refused with the reason, and nothing is saved
    at.number_input(key="adj_王小明_straight_bow_arm_exit_below").set_value(100.0)
    at.button(key="adj_save").click().run()
    assert "“clears above” must not lie below “fault below”" in at.error[0].value
    at.button(key="adj_reset").click().run()
    with Store.open(env.db) as store:
        assert "straight_bow_arm" not in store.archer("王小明").overrides


def test_reanalysis_after_an_override_keeps_the_value_and_redraws_the_video(env, analysed):
    """#15 item 6: lower the archer's cup_of_water limit (-18.5 for a beginner) to -20 and analyse the clip again
    from the Analyze page: the same session, the new limit, the same measured value, and the annotated video
    drawn again after the new analysis (the review shows it, not flagged as older than the analysis)."""
    _, sid = analysed
    video = env.annotated_video(sid)
    drawn_before = video.stat().st_mtime_ns
    with Store.open(env.db) as store:
        (before,) = [f for f in store.findings(sid) if f.rule == "cup_of_water"]
    at = app("rulebook").run()
    at.selectbox(key="adj_archer").set_value("王小明")
    at.selectbox(key="adj_rule.en").set_value("cup_of_water").run()
    at.number_input(key="adj_王小明_cup_of_water_enter_below").set_value(-20.0)
    at.button(key="adj_save").click().run()
    no_exception(at)
    try:
        at = app("analyze").run()
        at.selectbox(key="archer.en").set_value("王小明").run()
        at.selectbox(key="sample").set_value("short_1shot")
        at.button(key="analyse").click().run()
        at = wait_for_job(at)
        no_exception(at)
        with Store.open(env.db) as store:
            (after,) = [f for f in store.findings(sid) if f.rule == "cup_of_water"]
            assert [s.id for s in store.sessions() if s.archer == "王小明"] == [sid]
        assert before.threshold["below"] == -18.5 and after.threshold["below"] == -20.0  # beginner: -11 → -18.5
        assert after.value == before.value
        assert video.stat().st_mtime_ns > drawn_before  # drawn again, after the new analysis
        (player,) = at.get("bidi_component")  # the frame player, on the annotated video drawn again
        assert "media/" in player.proto.json and not any("predates" in c.value for c in at.caption)
    finally:
        at = app("rulebook").run()
        at.selectbox(key="adj_archer").set_value("王小明")
        at.selectbox(key="adj_rule.en").set_value("cup_of_water").run()
        at.button(key="adj_reset").click().run()


def test_language_switch(env, analysed):
    at = app("review", lang="zh").run()
    assert [t.value for t in at.title] == ["回顧"]
    assert "發矢把握 0." in texts(at)
    at.sidebar.radio(key="lang").set_value("en").run()
    assert [t.value for t in at.title] == ["Session review"]
