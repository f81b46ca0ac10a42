"""The dashboard's data shaping (coach/dashboard/data.py) and i18n, without Streamlit."""

from types import MappingProxyType

import numpy as np
import pytest

from coach.dashboard import data
from coach.dashboard.i18n import TEXT, t
from coach.store import Annotation, Series, SessionSummary, StoredSession, TrendRow
from posture_rules.pack import Profile, load_pack

PACK = load_pack()
FPS = 30.0
SHOT = {
    "index": 0,
    "raise_start_frame": 30,
    "draw_start_frame": 60,
    "anchor_frame": 120,
    "release_frame": 180,
    "end_frame": 220,
    "findings": [
        {"rule": "straight_bow_arm", "verdict": "fault", "value": 128.0, "threshold": {"below": 155.0},
         "start_frame": 125, "end_frame": 175, "unit": "deg", "reason": "below"},
        {"rule": "cup_of_water", "verdict": "pass", "value": 4.0, "threshold": {"below": -8.0, "above": 18.0},
         "start_frame": None, "end_frame": None, "unit": "deg", "reason": ""},
        {"rule": "ding_ba_stance", "verdict": "not_assessable", "value": None, "threshold": {},
         "start_frame": None, "end_frame": None, "unit": "deg", "reason": "feet hidden"},
    ],
}  # fmt: skip


def test_every_label_has_both_languages():
    for key, (zh, en) in TEXT.items():
        assert zh.strip() and en.strip(), key
    assert t("shot", "zh", n=2) == "第 2 箭" and t("shot", "en", n=2) == "Shot 2"


def test_timeline_has_the_phases_in_order_and_a_lane_per_fault():
    rows = data.timeline_rows([SHOT], FPS, PACK, "en")
    phases = [r for r in rows if not r["rule"]]
    assert [r["kind"] for r in phases] == ["raise", "draw", "full draw", "hold", "follow-through"]
    assert all(a["end_s"] <= b["start_s"] + 1e-9 for a, b in zip(phases, phases[1:]))
    assert phases[0]["start_s"] == pytest.approx(1.0)
    faults = [r for r in rows if r["rule"]]
    assert len(faults) == 1 and faults[0]["rule"] == "straight_bow_arm"
    assert faults[0]["start_s"] == pytest.approx(125 / FPS) and faults[0]["end_s"] == pytest.approx(176 / FPS)


def test_fault_jumps_start_a_little_before_the_fault():
    (j,) = data.fault_jumps([SHOT], FPS, PACK, "zh")
    assert j["frame"] == 125 and j["jump_s"] == pytest.approx(125 / FPS - 0.5)
    assert PACK.by_id["straight_bow_arm"].name_zh in j["label"]


def test_verdict_rows_put_faults_first_with_quote_and_both_cues():
    anns = [Annotation(1, 0, "straight_bow_arm", "dismiss", "camera angle", "coach", "2026-01-01T00:00:00")]
    rows = data.verdict_rows(SHOT, PACK, anns, "en")
    first = rows[0]
    rule = PACK.by_id["straight_bow_arm"]
    # the coach dismissed it: struck through, marked, with the note (issue 15, item 5)
    assert first["verdict"] == f"{data.strike('fault')} dismissed by the coach" and first["frames"] == "125–175"
    assert rule.quote in first["classical text"]
    assert first["cue (zh)"] == rule.cue_zh and first["cue (en)"] == rule.cue_en
    assert first["coach"] == "dismiss · camera angle"
    assert [r["verdict"] for r in data.verdict_rows(SHOT, PACK, [], "en")] == ["fault", "n/a", "pass"]
    assert rows[1]["value"] == "feet hidden"
    assert first["rule"] == rule.name_en  # no internal id next to the name


def test_dismissed_faults_leave_the_timeline_and_the_jumps():
    anns = [Annotation(1, 0, "straight_bow_arm", "dismiss", "", "coach", "2026-01-01T00:00:00")]
    assert any(r["rule"] for r in data.timeline_rows([SHOT], FPS, PACK, "en"))
    assert not any(r["rule"] for r in data.timeline_rows([SHOT], FPS, PACK, "en", anns))
    assert data.fault_jumps([SHOT], FPS, PACK, "en") and not data.fault_jumps([SHOT], FPS, PACK, "en", anns)
    # a later accept puts it back
    anns.append(Annotation(2, 0, "straight_bow_arm", "accept", "", "coach", "2026-01-01T00:01:00"))
    assert data.fault_jumps([SHOT], FPS, PACK, "en", anns)


def test_aligned_series_puts_the_release_at_zero_and_subtracts_baselines():
    vals = np.array([[1.0, 2.0, np.nan, 4.0], [10.0, 11.0, 12.0, 13.0]], dtype=np.float32)
    s = Series(178, ["bow_elbow_angle", "shoulder_turn"], {"shoulder_turn": 10.0}, vals)
    rows = data.aligned_series(s, SHOT, FPS)
    elbow = [r for r in rows if r["metric"] == "bow_elbow_angle"]
    assert [r["t"] for r in elbow] == pytest.approx([-2 / FPS, -1 / FPS, 1 / FPS], abs=1e-4)  # NaN dropped
    turn = [r["value"] for r in rows if r["metric"] == "shoulder_turn"]
    assert turn == pytest.approx([0.0, 1.0, 2.0, 3.0])
    assert data.aligned_series(None, SHOT, FPS) == []


def test_threshold_overrides_validate_and_reach_the_analysis():
    assert data.check_override({"enter_below": 150.0, "exit_below": 155.0}) is None
    assert "clears above" in data.check_override({"enter_below": 150.0, "exit_below": 140.0})
    assert "clears below" in data.check_override({"enter_above": 10.0, "exit_above": 12.0}, "en")
    assert "降回此值以下解除" in data.check_override({"enter_above": 10.0, "exit_above": 12.0}, "zh")
    assert data.check_override({"enter_below": 20.0, "enter_above": 10.0})
    ov = data.with_override({"cup_of_water": {"enter_above": 20.0}}, "straight_bow_arm", {"enter_below": 140.0})
    profile = data.profile_with(Profile(tolerance="club"), ov)
    eff = data.effective_rule(PACK, profile, "straight_bow_arm")
    assert eff.thresholds.enter_below == 140.0
    assert data.effective_rule(PACK, profile, "cup_of_water").thresholds.enter_above == 20.0
    assert "straight_bow_arm" not in data.with_override(ov, "straight_bow_arm", None)
    assert isinstance(profile.overrides, MappingProxyType)


def test_trend_tables():
    rules = {
        "cup_of_water": {"fault": 1, "pass": 2, "not_assessable": 0},
        "ding_ba_stance": {"fault": 0, "pass": 0, "not_assessable": 3},
    }
    trend = [TrendRow(1, "2026-01-01", True, 3, rules, {"hold_time": 2.0, "draw_length": 2.9})]
    (rate,) = data.fault_rate_rows(trend, PACK, "en")
    assert rate["rule_id"] == "cup_of_water" and rate["rate"] == pytest.approx(1 / 3)
    assert data.hold_time_rows(trend) == [{"session": 1, "date": "2026-01-01", "measure": "hold_time", "value": 2.0}]
    report = {"consistency": {"measures": {"anchor_spread": 0.05, "release_interval_cv": None, "other": 1.0}}}
    sessions = [
        StoredSession(
            1, 1, "a.mp4", "sha256:a", "p", "1", 30.0, 640, 480, 90, "side", "right", "x", "y", True, report, {}
        )
    ]
    assert data.consistency_rows(sessions) == [{"session": 1, "date": "x", "measure": "anchor_spread", "value": 0.05}]


def test_session_label_marks_incomplete_sessions():
    s = SessionSummary(
        3, "王小明", "/x/y/clip.mp4", "2026-01-02T10:11:12", None, False, None, None, "p", "1", "h", 2, 1
    )
    label = data.session_label(s, "en")
    assert label.startswith("#3 王小明 · clip.mp4 · 2026-01-02 10:11") and "incomplete" in label
