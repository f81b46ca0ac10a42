"""How benchmarks/metamorphic.py tells a transformed clip's report from its original's (`compare`): a shot the
transformed report leaves out is uncertain only where the report says so to the archer (a draw seen, not analysed,
over the original's release), and a fault where the original could not judge the rule is uncertain only where the
clip's truth has that fault. Run on the real analysis of committed tracks; the transformed reports are the
original's with one thing changed, so each test names what `compare` must see."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from coach.pipeline import analyze_track
from coach.pose_frame import load_posetrack
from coach.results import FAULT, MIN_MARK_CONFIDENCE, NOT_ASSESSABLE, SessionReport
from coach.session_notes import UNSEEN_NOTE
from tests.support.benchmarks import load_benchmark
from tests.support.paths import ROOT

GOLDEN = ROOT / "tests" / "golden"
metamorphic = load_benchmark("metamorphic")


@pytest.fixture(scope="module")
def three_shots() -> SessionReport:
    return analyze_track(load_posetrack(GOLDEN / "clean_rh_3shots.pose.json.gz"))


def _without_shot(report: SessionReport, k: int, notes: list[str]) -> SessionReport:
    return replace(report, shots=[s for s in report.shots if s.index != k], notes=notes)


def _unseen(a: int, b: int, fps: float) -> str:
    return UNSEEN_NOTE.format(a=a, b=b, ta=a / fps, tb=b / fps, dur=(b - a) / fps)


def test_a_shot_left_out_where_the_report_says_a_draw_was_not_analysed_is_uncertain(three_shots) -> None:
    lost = three_shots.shots[1]
    moved = _without_shot(three_shots, 1, [_unseen(lost.release_frame - 90, lost.release_frame + 20, three_shots.fps)])
    said = metamorphic.compare(three_shots, moved, half_rate=False)
    assert said.startswith("same, uncertain") and "shot 2 not analysed, said so" in said, said


def test_a_shot_left_out_unsaid_differs(three_shots) -> None:
    assert metamorphic.compare(three_shots, _without_shot(three_shots, 1, []), half_rate=False) == "shots 3 -> 2"


def test_a_draw_not_analysed_elsewhere_does_not_excuse_a_lost_shot(three_shots) -> None:
    # The note covers the time before shot 2's draw, not its release.
    before = three_shots.shots[1].raise_start_frame
    moved = _without_shot(three_shots, 1, [_unseen(before - 60, before - 1, three_shots.fps)])
    assert metamorphic.compare(three_shots, moved, half_rate=False) == "shots 3 -> 2"


def _judged(report: SessionReport, k: int, rule: str) -> SessionReport:
    """The report with shot k's `rule` a fault."""
    shots = list(report.shots)
    findings = [replace(f, verdict=FAULT, value=30.0) if f.rule == rule else f for f in shots[k].findings]
    shots[k] = replace(shots[k], findings=findings)
    return replace(report, shots=shots)


def test_a_fault_the_original_could_not_judge_is_uncertain_only_where_the_truth_has_it() -> None:
    """fault_elbow's shot 2 (the elbow raised 38 deg, a cup_of_water fault by the truth) has its forearm pointing
    at the camera in the original, so the rule is not assessable there; copies that see the forearm longer judge
    it, and judge it a fault."""
    base = analyze_track(load_posetrack(GOLDEN / "fault_elbow.pose.json.gz"))
    verdicts = {f.rule: f.verdict for f in base.shots[1].findings}
    assert verdicts["cup_of_water"] == NOT_ASSESSABLE
    moved = _judged(base, 1, "cup_of_water")
    truth = json.loads((ROOT / "sample_videos" / "fault_elbow.truth.json").read_text(encoding="utf-8"))
    said = metamorphic.compare(base, moved, half_rate=False, truth=truth)
    assert said.startswith("same, uncertain") and "could not judge" in said, said
    assert metamorphic.compare(base, moved, half_rate=False) == "shot 2 new faults ['cup_of_water']"
    clean_shot = {**truth, "faults": [f for f in truth["faults"] if f["shot"] != 1]}
    assert metamorphic.compare(base, moved, half_rate=False, truth=clean_shot) == "shot 2 new faults ['cup_of_water']"


def test_a_sure_release_moved_is_the_same_only_within_a_frame_of_the_truth() -> None:
    """fault_tempo's shot 2: the original's pose puts the release at 462, the truth at 461 (H.264 at CRF 38 read
    460)."""
    base = analyze_track(load_posetrack(GOLDEN / "fault_tempo.pose.json.gz"))
    truth = json.loads((ROOT / "sample_videos" / "fault_tempo.truth.json").read_text(encoding="utf-8"))
    shot = base.shots[1]
    true_release = truth["shots"][1]["release_frame"]
    assert shot.release_frame == true_release + 1 and shot.release_confidence >= MIN_MARK_CONFIDENCE

    def moved_to(frame: int) -> SessionReport:
        return replace(base, shots=[base.shots[0], replace(shot, release_frame=frame)])

    said = metamorphic.compare(base, moved_to(true_release - 1), half_rate=False, truth=truth)
    assert said.startswith("same") and f"the truth's {true_release}" in said, said
    assert metamorphic.compare(base, moved_to(true_release - 1), half_rate=False).startswith("shot 2 release")
    assert metamorphic.compare(base, moved_to(true_release - 2), half_rate=False, truth=truth).startswith(
        "shot 2 release"
    )
