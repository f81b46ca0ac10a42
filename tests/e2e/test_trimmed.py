"""The same shots from a video that begins a few frames later (benchmarks/trimmed.py): past the first shot, inside
whose first 3 s the shoulder width's window is still filling, every mark and verdict is the whole track's."""

from __future__ import annotations

import pytest

from coach.pipeline import analyze_track
from coach.pose_frame import load_posetrack
from tests.support.benchmarks import load_benchmark
from tests.support.paths import ROOT


@pytest.mark.parametrize(("name", "late"), [("fault_hold", 1), ("fault_hold", 3), ("fault_elbow", 3)])
def test_an_archer_seen_a_few_frames_later_gets_the_same_later_shots(name: str, late: int) -> None:
    """The archer comes into the picture `late` frames in (frame numbers kept). The width was recomputed on every
    6th frame seen, so its steps fell elsewhere: fault_hold's third anchor moved 512 -> 507 with one frame fewer,
    its second shot's stillness and liang_zhai were not judged with three fewer."""
    bench = load_benchmark("trimmed")
    track = load_posetrack(ROOT / "tests" / "golden" / f"{name}.pose.json.gz")
    whole = bench._answer(analyze_track(track), 0)
    trimmed, shift = bench.KINDS["late"](track, late)
    got = bench._answer(analyze_track(trimmed), shift)
    assert len(whole) == 3
    assert got[1:] == whole[1:], bench._differences(whole, got)
