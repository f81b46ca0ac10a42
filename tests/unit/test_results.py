"""The analysis's records round-trip through their JSON: a stored report read back is the report written."""

from __future__ import annotations

import json

from coach.pipeline import analyze_track
from coach.results import SessionReport
from tests.support.paths import GOLDEN


def test_session_report_round_trips_through_json():
    track = sorted(GOLDEN.glob("*.pose.json.gz"))[0]
    report = analyze_track(track)
    assert report.shots, "the golden track has shots to carry"
    doc = json.loads(json.dumps(report.to_json()))
    assert SessionReport.from_json(doc).to_json() == doc
