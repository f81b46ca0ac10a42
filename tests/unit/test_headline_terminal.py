"""What to work on first (issue 14): the terminal summary opens with the session's headline and each shot with
faults names its most important one, ranked by coach.headline (severity, then recurrence)."""

import pytest

from coach.headline import pack_headline
from coach.pipeline import analyze_track
from coach.pose_frame import load_posetrack
from coach.results import FAULT
from coach.summary import focus_text, format_report
from posture_rules.pack import load_pack
from tests.support.paths import ROOT

PACK = load_pack()
GOLDEN = ROOT / "tests" / "golden"


@pytest.fixture(scope="module")
def faulty():
    return analyze_track(load_posetrack(GOLDEN / "fault_hold.pose.json.gz"), pack=PACK)


def _section(text: str) -> list[str]:
    lines = text.splitlines()
    start = lines.index("Work on first 先練:")
    out = []
    for ln in lines[start + 1 :]:
        if not ln.strip():
            break
        out.append(ln)
    return out


def test_the_summary_opens_with_the_faults_to_work_on_first(faulty):
    text = format_report(faulty, PACK)
    faults = {f.rule for s in faulty.shots for f in s.faults} | {
        f.rule for f in faulty.consistency if f.verdict == FAULT
    }
    assert faults, "the fault clip must show faults for this test to mean anything"
    section = _section(text)
    assert 1 <= len(section) <= 2
    named = [ln.split(". ", 1)[1].split(" ")[0] for ln in section]
    assert set(named) <= faults
    # It comes before the first shot, so it is the first thing read.
    assert text.index("Work on first") < text.index("Shot 1 第1箭:")
    for rid in named:
        rule = PACK.by_id[rid]
        assert rule.cue_en in text.split("Shot 1 第1箭:")[0]


def test_each_shot_with_a_fault_names_one_to_work_on(faulty):
    text = format_report(faulty, PACK)
    blocks = text.split("\nShot ")[1:]
    assert len(blocks) == len(faulty.shots)
    for shot, block in zip(faulty.shots, blocks):
        focus = [ln for ln in block.splitlines() if ln.strip().startswith("work on 先練:")]
        if shot.faults:
            (line,) = focus
            assert line.split(":", 1)[1].split()[0] in {f.rule for f in shot.faults}
        else:
            assert focus == []


def test_a_clean_session_has_no_headline():
    report = analyze_track(load_posetrack(GOLDEN / "clean_lh.pose.json.gz"), pack=PACK)
    assert not any(s.faults for s in report.shots)
    text = format_report(report, PACK)
    assert "Work on first" not in text and "work on 先練" not in text


def _shot(index: int, *faults: str) -> dict:
    return {"index": index, "findings": [{"rule": r, "verdict": FAULT} for r in faults]}


def test_a_hint_comes_after_the_faults_the_tool_stands_behind():
    """A rule the landmarks judge with low confidence (its fault "a hint, not a verdict") is not the first thing to
    work on while a fault the tool stands behind is there, however often it showed (real03: its one fault,
    follow_through_arm, is such a hint); alone, it is still named."""
    hint = "follow_through_arm"
    assert PACK.by_id[hint].confidence == "low" and PACK.by_id["stillness"].confidence != "low"
    shots = [_shot(0, hint), _shot(1, hint, "stillness"), _shot(2, hint)]
    assert [f.rule for f in pack_headline(shots, [], PACK)] == ["stillness", hint]
    assert [f.rule for f in pack_headline(shots, [], PACK, limit=1)] == ["stillness"]
    assert [f.rule for f in pack_headline([_shot(0, hint)], [], PACK)] == [hint]
    # The terminal says which it is, as it does in the shot's verdicts.
    (line,) = focus_text(pack_headline([_shot(0, hint)], [], PACK), PACK, 1)
    assert line.startswith(f"{hint} {PACK.by_id[hint].name_zh} (?)"), line


def test_a_shot_s_hint_to_work_on_is_marked_as_its_verdict_is():
    """fault_release's first shot has one fault, liang_zhai, a low-confidence rule: the shot's 'work on' line
    carries the (?) its verdict line carries."""
    report = analyze_track(load_posetrack(GOLDEN / "fault_release.pose.json.gz"), pack=PACK)
    assert [f.rule for f in report.shots[0].faults] == ["liang_zhai"]
    block = format_report(report, PACK).split("\nShot 2 第2箭:")[0].split("\nShot 1 第1箭:")[1]
    (line,) = [ln for ln in block.splitlines() if ln.strip().startswith("work on 先練:")]
    assert line.strip() == f"work on 先練: liang_zhai {PACK.by_id['liang_zhai'].name_zh} (?)"


def test_the_hint_legend_follows_the_faults_not_the_text():
    """The legend for "(?)" is printed when a hint's fault is shown, and only then: a video whose name has "(?)"
    in it (a file named by a question) does not bring it, and a hint's fault does."""
    from coach.summary import LOW_CONFIDENCE_NOTE

    clean = analyze_track(load_posetrack(GOLDEN / "clean_lh.pose.json.gz"), pack=PACK)
    clean.source = "練習 (?).mp4"
    assert LOW_CONFIDENCE_NOTE not in format_report(clean, PACK)
    hinted = analyze_track(load_posetrack(GOLDEN / "fault_release.pose.json.gz"), pack=PACK)
    assert LOW_CONFIDENCE_NOTE in format_report(hinted, PACK)
