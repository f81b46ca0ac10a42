"""The terminal summary in Chinese and English (`coach analyze`, `coach sessions show`): every line of it is worded
from coach/wording/text.py in both languages, its verdict columns line up by display width next to Chinese, and a
phase time measured from an uncertain mark is marked "?" with a line saying what that means."""

import re

import pytest

from coach.engine import RuleEngine
from coach.pipeline import analyze_track
from coach.pose_frame import load_posetrack
from coach.results import NOT_ASSESSABLE, SessionReport, ShotResult
from coach.summary import LOW_CONFIDENCE_NOTE, UNSURE_TIME_NOTE, format_report, phases_line
from coach.terminal import display_width
from posture_rules.pack import load_pack
from tests.support.paths import ROOT

PACK = load_pack()
GOLDEN = ROOT / "tests" / "golden"
CJK = re.compile(r"[\u3400-\u9fff]")


def _analysed(name: str) -> SessionReport:
    return analyze_track(load_posetrack(GOLDEN / f"{name}.pose.json.gz"), pack=PACK)


@pytest.fixture(scope="module")
def faulty() -> SessionReport:
    """fault_hold: faults in two shots, consistency measures and session faults, the headline."""
    return _analysed("fault_hold")


@pytest.fixture(scope="module")
def high() -> SessionReport:
    """stance_high: filmed from above (rules not judged, with reasons), the draw starts of the shots the hand showed
    uncertain."""
    return _analysed("stance_high")


def _odd_shots(report: SessionReport) -> SessionReport:
    """`report` (a copy) with its first shot's release unseen, its second timed by sound with the arrow heard and
    corrected by a coach, and a hint's fault: the heading's every form."""
    r = SessionReport.from_json(report.to_json())
    first, second = r.shots[0], r.shots[1]
    first.release_frame, first.complete = None, False
    second.release_source, second.flight_time_s = "sound+pose", 0.8
    second.corrected = {"by": "李教練", "action": "move", "marks": ["release"], "machine": {"release": 347}}
    second.corrected["now"] = {"release": second.release_frame}
    hint = next(f for f in second.findings if f.rule == "liang_zhai")
    hint.verdict, hint.value, hint.start_frame, hint.end_frame = "fault", 0.3, 330, 340
    return r


def _no_shots() -> SessionReport:
    return SessionReport(
        source="空.mp4",
        fps=30.0,
        frame_count=90,
        width=640,
        height=480,
        handedness="unknown",
        handedness_source="unknown",
        view="unknown",
        view_confidence=0.0,
        rule_pack={"id": PACK.id, "version": PACK.version},
        profile={},
        notes=["no person found in the video"],
    )


def test_every_line_reads_in_both_languages(faulty, high):
    """Every line but the video's name carries Chinese, and every one of those English too: faults with their
    classical lines, n/a verdicts with reasons, notes, consistency, an unseen release, a sound-timed and corrected
    release, a hint, uncertain marks, and a session with no shots."""
    reports = [faulty, high, _odd_shots(faulty), _no_shots()]
    texts = [format_report(r, PACK) for r in reports]
    for r, text in zip(reports, texts):
        (name, *lines) = text.splitlines()
        assert name == r.source
        worded = [ln for ln in lines if ln.strip()]
        assert worded and all(CJK.search(ln) for ln in worded), [ln for ln in worded if not CJK.search(ln)]
        # and every line carries English too (a classical quote is its rule's, under a line that does)
        quotes = {f"             {rule.section}：{rule.quote}" for rule in PACK.rules}
        assert all(re.search(r"[A-Za-z]", ln) for ln in worded if ln not in quotes)
    # each kind of line was there to be read
    joined = "\n".join(texts)
    for said in (
        "  615 frames at 30.00 fps, 960×540; person in 615 frames · 615 幀，每秒 30.00 幀，960×540；615 幀有人",
        "archer: right-handed (detected); view: face-on (confidence 1.00)",
        "射手：右手拉弦（自動偵測）；視角：正面（信心 1.00）",
        "archer: handedness unknown (not detected); view: unknown",
        "射手：慣用手不明（沒偵測到）；視角：不明",
        "Work on first 先練:",
        "✗ fault 病",
        "– n/a 不可判",
        "✓ pass 合",
        "value 量值",
        "ok if 合格範圍",
        "frames 幀 ",
        "Session consistency 間若一:",
        "draw length CV 引滿長度變異係數 ",
        "hold time mean 平均持滿時間 ",
        "note 附註: ",
        "Shot 1 第1箭: release not seen · 沒看到發矢  (incomplete: release not seen · 未完成：沒看到發矢)",
        "No shots found. · 沒有找到任何一箭。",
        "work on 先練: ",
        UNSURE_TIME_NOTE,
        LOW_CONFIDENCE_NOTE,
    ):
        assert said in joined, said


def test_a_shot_heading_says_the_release_in_both_languages(faulty):
    text = format_report(_odd_shots(faulty), PACK)
    shot = faulty.shots[1]
    at = f"{shot.times_s['release_at']:.2f}"
    (heading,) = [ln for ln in text.splitlines() if ln.startswith("Shot 2 ")]
    assert heading == (
        f"Shot 2 第2箭: release at frame {shot.release_frame} ({at} s), timed by sound; arrow heard hitting 0.80 s "
        f"later · 第 {shot.release_frame} 幀發矢（{at} 秒），以弦聲定時；0.80 秒後聽到箭中靶"
    )
    assert "corrected by 李教練 由李教練校正" in text.split(heading)[1].splitlines()[2]


def _verdict_lines(text: str) -> list[str]:
    return [ln for ln in text.splitlines() if ln.startswith(("    ✗ ", "    ✓ ", "    – "))]


def test_verdicts_line_up_whatever_the_verdict_or_the_name(faulty, high):
    """The value column (or, for a rule not judged, its reason) starts at one display column on every verdict
    line: the marks "✓ pass 合" and "– n/a 不可判" differ in width, as the rules' Chinese names do."""
    for r in (faulty, high, _odd_shots(faulty)):
        lines = _verdict_lines(format_report(r, PACK))
        starts = {display_width(ln[: ln.index(" value 量值 " if " value 量值 " in ln else " (")]) for ln in lines}
        assert len(lines) > 20 and len(starts) == 1, starts
        assert any("– n/a" in ln and " value " not in ln for ln in lines)


def _shot(**marks) -> ShotResult:
    """A shot with every phase timed; `marks` its marks' confidences (release_confidence among them)."""
    release = marks.pop("release", 1.0)
    times = {"raise_s": 0.8, "draw_s": 1.9, "full_draw_s": 0.3, "hold_s": 1.6, "follow_through_s": 0.9}
    return ShotResult(
        index=0,
        raise_start_frame=10,
        draw_start_frame=34,
        anchor_frame=91,
        release_frame=148,
        end_frame=175,
        fps=30.0,
        times_s={**times, "release_at": 4.93},
        release_confidence=release,
        marks_confidence=marks,
    )


def _marked(line: str) -> set[str]:
    """The phases whose time a phases line marks "?": "draw 開弓 1.90 s?" → "draw"."""
    return set(re.findall(r"([a-z-]+(?: [a-z]+)?) \S+ [\d.]+ s\?", line))


def test_a_time_on_an_uncertain_mark_is_marked_and_one_on_sure_marks_is_not():
    sure = phases_line(_shot(draw_start=0.9, anchor=0.9))
    assert "?" not in sure
    assert sure == (
        "  phases 階段: raise 舉弓 0.80 s, draw 開弓 1.90 s, full draw 滿弓 0.30 s, hold 審固 1.60 s, "
        "follow-through 收勢 0.90 s"
    )
    # the draw start is a guess: the raise ends there and the draw starts there; the rest rests on sure marks
    assert _marked(phases_line(_shot(draw_start=0.3))) == {"raise", "draw"}
    assert "full draw 滿弓 0.30 s," in phases_line(_shot(draw_start=0.3))
    assert _marked(phases_line(_shot(anchor=0.2))) == {"draw", "full draw", "hold"}
    assert _marked(phases_line(_shot(release=0.4))) == {"hold", "follow-through"}
    # a time not measured ("—") is not marked: there is nothing to doubt
    s = _shot(draw_start=0.3)
    s.times_s["raise_s"] = None
    assert "raise 舉弓 —," in phases_line(s) and _marked(phases_line(s)) == {"draw"}


def _report_of(*shots: ShotResult) -> SessionReport:
    r = _no_shots()
    r.notes, r.shots = [], list(shots)
    return r


def test_the_question_mark_is_explained_only_when_shown():
    assert UNSURE_TIME_NOTE in format_report(_report_of(_shot(), _shot(draw_start=0.3)), PACK)
    assert UNSURE_TIME_NOTE.startswith("?: ") and " · ?：" in UNSURE_TIME_NOTE
    assert UNSURE_TIME_NOTE not in format_report(_report_of(_shot(), _shot(draw_start=0.9)), PACK)
    text = format_report(_report_of(_shot(draw_start=0.3)), PACK)
    assert text.count(UNSURE_TIME_NOTE) == 1 and text.rstrip().endswith(UNSURE_TIME_NOTE)


def test_a_real_shot_with_an_uncertain_draw_start_is_marked_as_its_certainty_line_says(high):
    """stance_high, seen from above: the draw start of each shot the hand showed is uncertain (its certainty line says so); the
    draw's time is marked, the hold's (anchor to release, both sure) is not; the same from the stored report
    (`coach sessions show`)."""
    for report in (high, SessionReport.from_json(high.to_json())):
        text = format_report(report, PACK)
        blocks = text.split("\nShot ")[1:]
        assert len(blocks) == len(report.shots) == 3
        for shot, block in zip(report.shots, blocks):
            if shot.release_confidence < 0.5:
                continue  # shot 2: the draw hand hidden at full draw, no mark sure (tests/e2e/test_phases_synth.py)
            assert "Uncertain: draw start" in block and "不確定：開弓起點" in block
            (line,) = [ln for ln in block.splitlines() if ln.startswith("  phases 階段: ")]
            assert f"draw 開弓 {shot.times_s['draw_s']:.2f} s?" in line
            assert f"hold 審固 {shot.times_s['hold_s']:.2f} s," in line
            assert "draw" in _marked(line) and not _marked(line) & {"full draw", "hold", "follow-through"}
        assert text.rstrip().endswith(UNSURE_TIME_NOTE)


def test_a_session_rule_with_too_few_shots_says_so_not_in_this_shot(faulty):
    """A consistency rule with too few shots to compare is not judged "in this shot" (it is not a shot's rule):
    the reason says there were too few shots, in both languages; with no shot at all the terminal shows no
    consistency section, rather than a page of n/a lines."""
    one = SessionReport.from_json(faulty.to_json())
    one.shots = one.shots[:1]
    findings, _ = RuleEngine(PACK).judge_session(one.shots, "face-on")
    assert {f.verdict for f in findings} == {NOT_ASSESSABLE}
    assert {f.reason for f in findings} == {"too few shots measured to compare"}
    one.consistency = findings
    block = format_report(one, PACK).split("Session consistency 間若一:")[1]
    assert block.count("(too few shots measured to compare · 量到的箭太少，無法比較)") == len(findings)
    assert "in this shot" not in block
    none = SessionReport.from_json(faulty.to_json())
    none.shots, none.consistency = [], RuleEngine(PACK).judge_session([], "face-on")[0]
    assert "Session consistency" not in format_report(none, PACK)


@pytest.mark.parametrize("lang,hold", [("en", "hold 1.6 s"), ("zh", "審固 1.6 秒")])
def test_the_live_page_marks_a_hold_timed_from_an_uncertain_mark_as_the_terminal_does(lang, hold):
    """The Live page's summary of each shot shows its hold time: "?" after it where the anchor or the release it
    is timed from is uncertain, as the terminal's phase line does; not where both are sure."""
    from coach.dashboard.live_page import shot_head

    assert f"{hold}?" in shot_head(_shot(anchor=0.3), lang)
    assert f"{hold}?" in shot_head(_shot(release=0.4), lang)
    assert "hold 審固 1.60 s?" in phases_line(_shot(anchor=0.3))
    sure = shot_head(_shot(draw_start=0.3), lang)  # the draw start does not time the hold
    assert hold in sure and f"{hold}?" not in sure
