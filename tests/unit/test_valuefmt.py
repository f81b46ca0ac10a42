"""Values and limits agree with the verdict (issue 15, item 4): a value at or past its limit is shown with the
digits that keep it on its own side, in the terminal, the dashboard and the reports alike."""

from coach.dashboard import data
from coach.report.data import value_text as report_value
from coach.results import FAULT, Finding
from coach.summary import finding_line
from coach.valuefmt import limits_text, value_text
from posture_rules.pack import load_pack

PACK = load_pack()


def test_a_value_just_past_its_limit_is_not_shown_as_the_limit():
    assert value_text(0.1834, "SW", {"above": 0.18}) == "0.183 SW"
    assert value_text(-8.004, "deg", {"below": -8.0, "above": 18.0}) == "-8.004°"
    assert value_text(-9.07, "deg", {"below": -8.0, "above": 18.0}) == "-9.07°"  # no extra digits when clear
    assert value_text(0.5, "log", {"below": -1.2}) == "0.50"  # an internal unit is not shown
    assert limits_text({"below": -8.0, "above": 18.0}, "deg") == "-8° … 18°"
    assert limits_text({"above": 0.18}, "SW") == "≤ 0.18 SW"


def test_the_terminal_dashboard_and_report_show_the_same_digits():
    f = Finding("liang_zhai", FAULT, 0.1834, {"above": 0.18}, 10, 20, "SW", "above")
    (line, *_) = finding_line(f, PACK, 30.0)
    assert "0.183 SW" in line and "≤ 0.18 SW" in line
    assert report_value(0.1834, "SW", {"above": 0.18}) == "0.183 SW"
    shot = {"index": 0, "anchor_frame": 5, "release_frame": 25, "findings": [f.to_json()]}
    (row,) = data.verdict_rows(shot, PACK, [], "en")
    assert row["value"] == "0.183 SW" and row["ok if"] == "at most 0.18 SW"
    (row,) = data.verdict_rows(shot, PACK, [], "zh")
    assert row["量值"] == "0.183 SW" and row["合格範圍"] == "至多 0.18 SW"
