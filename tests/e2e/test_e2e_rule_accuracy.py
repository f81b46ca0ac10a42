"""The rule accuracy benchmark end to end on one synthetic clip (real MediaPipe model, a few seconds)."""

from __future__ import annotations

import pytest

from coach.results import SHOT_MARKS
from tests.support.benchmarks import load_benchmark
from tests.support.paths import SAMPLES

pytestmark = pytest.mark.e2e

CLIP = "fault_release"


def _bench():
    return load_benchmark("rule_accuracy")


def test_rule_accuracy_on_one_clip(tmp_path):
    if not (SAMPLES / f"{CLIP}.mp4").exists() or not (SAMPLES / f"{CLIP}.truth.json").exists():
        pytest.skip(f"{CLIP}.mp4 and its truth sidecar are not in {SAMPLES} yet")
    bench = _bench()
    text, summary = bench.run(SAMPLES, [CLIP], tmp_path / "poses")
    assert "precision" in text and CLIP in text
    assert (tmp_path / "poses" / f"{CLIP}.pose.json").exists()
    # On the phase tracker's own shots too: the dead release of shot 1 is seen only when the arms come down
    # (its release is late, and counted so), but it is still that shot, with its 後手小 fault.
    assert summary["overall"] == {"tp": 3, "fp": 0, "fn": 0}, text
    assert summary["truth_shots"] == 3 and summary["missed_shots"] == 0, text
    assert summary["release_within_tol"] == 2, text
    # Every phase mark of the three shots is scored against the sidecar's, not only the release.
    errs = summary["mark_abs_errors"]
    assert set(errs) == set(SHOT_MARKS) and all(len(v) == 3 for v in errs.values()), errs
    assert "Phase marks |error|" in text and max(errs["anchor_frame"]) < 30, text
    # Judged on the sidecar's own phases (the re-run from the pose cache takes a second), the three
    # release faults of this clip are found and nothing else.
    text, summary = bench.run(SAMPLES, [CLIP], tmp_path / "poses", truth_phases=True)
    assert summary["overall"] == {"tp": 3, "fp": 0, "fn": 0}, text
