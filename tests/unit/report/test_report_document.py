"""The HTML and the PDF report are two layouts of one document (issue 16): every section title and every line
of every table cell of `coach.report.document.build` appears in both, and neither says anything the other
leaves out (the HTML's text and the PDF's extracted text agree on the model's words). Store filled from recorded
pose tracks, with a coach's dismissal, comment and correction-free annotations."""

import html
import re
import shutil
import subprocess

import pytest

from coach.cli import main
from coach.report import gather, render
from coach.report.document import Para, Table, build, texts
from coach.store import Store
from tests.support.paths import ROOT

GOLDEN = ROOT / "tests" / "golden"


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    db = tmp_path_factory.mktemp("report_doc") / "coach.db"
    for name in ("fault_elbow", "clean_rh_3shots"):  # two sessions: the second has a trends table
        track = GOLDEN / f"{name}.pose.json.gz"
        assert main(["analyze", "--pose-track", str(track), "--archer", "李四", "--db", str(db)]) == 0
    with Store.open(db) as store:
        store.annotate(1, "dismiss", shot=0, rule="cup_of_water", comment="camera angle 角度", author="李教練")
        store.annotate(2, "comment", shot=1, comment="breathe 調息", author="李教練")
        return {sid: gather(store, sid) for sid in (1, 2)}


def _flat(s: str) -> str:
    return re.sub(r"\s+", "", s)


def _html_text(page: str) -> str:
    return _flat(html.unescape(re.sub(r"<[^>]+>", "", page)))


def _pdf_text(pdf: bytes, tmp_path) -> str:
    path = tmp_path / "r.pdf"
    path.write_bytes(pdf)
    out = subprocess.run(["pdftotext", "-raw", "-enc", "UTF-8", str(path), "-"], capture_output=True, check=True).stdout
    return _flat(out.decode("utf-8"))


@pytest.mark.parametrize("sid", [1, 2])
def test_html_and_pdf_show_every_word_of_one_document(data, sid, tmp_path):
    if not shutil.which("pdftotext"):
        pytest.skip("needs poppler's pdftotext")
    d = data[sid]
    doc = build(d)
    words = texts(doc)
    titles = [s.title for s in doc.sections]
    # the model covers what a reader must find: the headline, every shot, the struck-through dismissal, trends
    assert "What to work on first 先練" in titles and "Rules 射法 — verdict per shot" in titles
    assert [t for t in titles if t.startswith("Shot ")] == [f"Shot {x.index + 1} 第{x.index + 1}箭" for x in d.shots]
    rows = [r for s in doc.sections for b in s.blocks if isinstance(b, Table) for r in b.rows]
    if sid == 1:
        assert any(
            r.tone == "dismissed" and any("camera angle 角度" in c.lines[0] for c in r.cells if c.lines) for r in rows
        )
    else:
        assert "Trends 進境 — this archer's sessions" in titles and any(r.spark is not None for r in rows)
    page = _html_text(render(d, "html"))
    pdf = _pdf_text(render(d, "pdf"), tmp_path)
    missing_html = [w for w in words if _flat(w) not in page]
    missing_pdf = [w for w in words if _flat(w) not in pdf]
    assert not missing_html, missing_html[:5]
    assert not missing_pdf, missing_pdf[:5]
    assert _flat(doc.meta) in page and _flat(doc.meta) in pdf


def test_the_document_is_built_from_the_data_alone(data):
    """A pure function: built twice from the same data, the same document."""
    assert build(data[2]) == build(data[2])


def test_a_sampled_sparsely_note_is_in_english_and_chinese(data):
    """The note an adaptive analysis leaves (coach/sampling.py) reads in both languages in the report; a note
    the i18n table does not know stays as stored."""
    from dataclasses import replace

    from coach.sampling import SamplingLog

    note = SamplingLog(30.0, 10, frames=3527, model_runs=1177, sparse_spans=[[0, 999], [1200, 2850]]).note()
    doc = build(replace(data[1], notes=[note, "something new the table does not know"]))
    focus = next(s for s in doc.sections if s.kind == "focus")
    warn = [b.text for b in focus.blocks if getattr(b, "tone", "") == "warn"]
    assert len(warn) == 3
    en, zh, unknown = warn
    assert en.startswith("Adaptive analysis") and "1177 of 3527 frames" in en and "2651 frames" in en
    assert zh.startswith("自適應分析") and "3527 幀中的 1177 幀" in zh and "每秒取樣 3 幀" in zh
    assert unknown == "something new the table does not know"


def test_a_hint_is_marked_as_the_terminal_marks_it(tmp_path):
    """fault_release faults follow_through_arm and liang_zhai, rules the landmarks judge with low confidence: the
    report marks them "(?)" wherever it names them as faults and says, in both languages, what the mark means;
    a fault the tool stands behind carries no mark."""
    from coach.wording.text import MACHINE_TEXT

    db = tmp_path / "coach.db"
    track = GOLDEN / "fault_release.pose.json.gz"
    assert main(["analyze", "--pose-track", str(track), "--archer", "王五", "--db", str(db)]) == 0
    with Store.open(db) as store:
        d = gather(store, 1)
    lines = [line for t in texts(build(d)) for line in t.splitlines()]
    hint, sure = d.rule_label("follow_through_arm"), d.rule_label("hou_shou_xiao")
    assert any(f"{hint} (?)" in line for line in lines), "the hint is not marked"
    assert any(sure in line for line in lines) and not any(f"{sure} (?)" in line for line in lines)
    page = _html_text(render(d, "html"))
    zh, en = MACHINE_TEXT["hint_note"]
    assert _flat(zh) in page and _flat(en) in page
    assert page.count(_flat(f"{hint} (?)")) >= 2  # the findings table, and the shot's line under "work on first"


def test_a_phase_time_on_an_uncertain_mark_is_marked_as_the_terminal_marks_it(tmp_path):
    """stance_high, filmed from above: each shot's draw start is uncertain. The report marks the draw's time "?"
    (not the hold's, anchor to release, both sure) and says in both languages what the mark means, in the
    document and so in the HTML; a shot on sure marks (fault_elbow's) has neither."""
    from coach.report.data import UNSURE_TIME_NOTE, phase_times_text

    db = tmp_path / "coach.db"
    for name in ("stance_high", "fault_elbow"):
        track = GOLDEN / f"{name}.pose.json.gz"
        assert main(["analyze", "--pose-track", str(track), "--archer", "王五", "--db", str(db)]) == 0
    with Store.open(db) as store:
        high, sure = gather(store, 1), gather(store, 2)
    seen = [x for x in high.shots if x.data["release_confidence"] >= 0.5]  # shot 2: the draw hand hidden, no time
    for x in seen:
        times = x.data["phase_times_s"]
        line = phase_times_text(x.data)
        assert f"draw 開弓 {times['draw_s']:.2f} s?" in line and f"hold 審固 {times['hold_s']:.2f} s ·" in line
    assert _paras(build(high)).count(UNSURE_TIME_NOTE) == len(seen) == 2  # under each shot's times
    assert _flat(UNSURE_TIME_NOTE) in _html_text(render(high, "html"))
    assert not any("?" in phase_times_text(x.data) for x in sure.shots)
    assert UNSURE_TIME_NOTE not in _paras(build(sure))


def _paras(doc) -> list[str]:
    return [b.text for sec in doc.sections for b in sec.blocks if isinstance(b, Para)]


def test_the_session_consistency_reads_in_both_languages_and_no_shot_gives_no_table_of_n_a(data, tmp_path):
    """The consistency section names its measures as the terminal does ("draw length CV 引滿長度變異係數 …", not
    the metric's internal name); a session with no shot has no table of not-assessable rows under it, but one
    line, in both languages, saying why there is no session verdict."""
    import dataclasses

    from coach.pose_frame import load_posetrack, save_posetrack
    from coach.report.document import NO_SESSION_VERDICTS

    clean = build(data[2])  # clean_rh_3shots: three shots, measured
    (section,) = [s for s in clean.sections if s.title == "Session consistency 間若一"]
    measured = section.blocks[0].text
    assert "draw time mean 平均引弓時間 " in measured and "draw_time_mean" not in measured
    assert any(isinstance(b, Table) for b in section.blocks)
    track = load_posetrack(GOLDEN / "short_1shot.pose.json.gz")
    standing = dataclasses.replace(track, frames=track.frames[:40])  # the archer stands: no shot
    save_posetrack(standing, tmp_path / "站立.pose.json")
    db = tmp_path / "coach.db"
    assert main(["analyze", "--pose-track", str(tmp_path / "站立.pose.json"), "--archer", "趙六", "--db", str(db)]) == 0
    with Store.open(db) as store:
        none = gather(store, 1)
    assert none.shots == [] and none.consistency  # the session rules were judged, none could be
    (section,) = [s for s in build(none).sections if s.title == "Session consistency 間若一"]
    assert not any(isinstance(b, Table) for b in section.blocks)
    assert [b.text for b in section.blocks if isinstance(b, Para)][-1] == NO_SESSION_VERDICTS
