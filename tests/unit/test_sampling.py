"""Adaptive analysis of recorded video (coach/sampling.py, issue #17): the sampler's decisions on real and
synthetic pose tracks (a track stands in for the model) give the same shots, marks and verdicts as a
full-rate run, a shot right after a long idle stretch keeps its raise and draw start, and memory stays flat on
a 30-minute session."""

from __future__ import annotations

import tracemalloc
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from coach.analyzer import Analyzer
from coach.landmarks import INDEX
from coach.pose_frame import PoseFrame, load_posetrack
from coach.sampling import AdaptiveSampler, SamplingPlan, could_be_raising, scouted
from coach.sampling_check import differences, padded, replay
from tests.support.paths import ROOT

GOLDEN = ROOT / "tests" / "golden"
REALPOSE = ROOT.parent / "shared" / "realpose"


def _body(wrist_below: float, vis: float = 0.9) -> PoseFrame:
    """A standing person (shoulders at y 0.3, hips at 0.6 of the picture), both wrists `wrist_below` torso
    lengths below the shoulder line."""
    lm = np.zeros((33, 4))
    lm[:, 3] = 0.9
    for name, x, y in (("left_shoulder", 0.45, 0.3), ("right_shoulder", 0.55, 0.3)):
        lm[INDEX[name]] = (x, y, 0, 0.9)
    for name, x in (("left_hip", 0.47), ("right_hip", 0.53)):
        lm[INDEX[name]] = (x, 0.6, 0, 0.9)
    for name, x in (("left_wrist", 0.4), ("right_wrist", 0.6)):
        lm[INDEX[name]] = (x, 0.3 + 0.3 * wrist_below, 0, vis)
    return PoseFrame(0, 0.0, lm)


def test_trigger_is_body_relative_and_says_yes_when_unsure() -> None:
    plan = SamplingPlan()
    assert not could_be_raising(_body(1.05), None, plan, 1.0)  # arms hanging
    assert not could_be_raising(PoseFrame(0, 0.0, None), None, plan, 1.0)  # nobody
    assert could_be_raising(_body(0.1), None, plan, 1.0)  # a wrist at the shoulders
    assert could_be_raising(_body(1.05, vis=0.1), None, plan, 1.0)  # both hands hidden: look
    assert could_be_raising(_body(0.8), _body(1.05), plan, 1.0)  # on its way up since the last sample
    assert not could_be_raising(_body(1.0), _body(1.05), plan, 1.0)  # a small shift is no raise


def _shot_marks(report) -> list[tuple]:
    return [(s.raise_start_frame, s.draw_start_frame, s.anchor_frame, s.release_frame) for s in report.shots]


@pytest.mark.parametrize(
    ("name", "shift"),
    [("clean_rh_3shots", 0.0), ("clean_rh_3shots", 1 / 3), ("clean_rh_3shots", 2 / 3), ("fault_tempo", 0.0)],
)
def test_shot_after_long_idle_keeps_raise_and_draw_start(name: str, shift: float) -> None:
    """60 s of the archer standing at rest, sampled sparsely, then the clip's shots: the look-back brings the
    frames before the trigger back, so the first shot's raise and draw start are those of the full rate.
    `shift` moves the shot by that share of the sparse step, so the trigger falls early and late in it (the
    look-back must reach back over the step as well)."""
    track = load_posetrack(GOLDEN / f"{name}.pose.json.gz")
    rest = track.frames[0]
    assert not could_be_raising(rest, None, SamplingPlan(), track.height / track.width)  # a real rest pose
    idle_s = 60.0 + round(shift * SamplingPlan().step(track.fps)) / track.fps
    full, adaptive, log = replay(padded(track, idle_s, rest=rest), "right")
    assert full.shots, "the padded clip must still have shots at the full rate"
    assert _shot_marks(adaptive) == _shot_marks(full)
    assert differences(full, adaptive, tolerance=0) == []
    # The idle minute was sampled, not analysed frame by frame.
    assert log.sparse_spans and log.sparse_spans[0][0] == 0
    assert log.sparse_spans[0][1] > 50 * track.fps
    assert log.model_runs < 0.5 * log.frames


def _real_tracks() -> list:
    if not REALPOSE.is_dir():
        return [pytest.param(None, id="missing")]
    return [pytest.param(p, id=p.name.removesuffix(".pose.json")) for p in sorted(REALPOSE.glob("*.pose.json"))]


@pytest.mark.parametrize("path", _real_tracks())
def test_real_tracks_same_shots_as_full_rate(path: Path | None) -> None:
    """Real archers' tracks through the sampler, as they are and walked into after 20 s of nobody: the same
    shots, marks and verdicts as the full rate."""
    if path is None:
        pytest.skip("../shared/realpose not present")
    import json

    labels = json.loads(path.with_name(path.name.replace(".pose.json", ".labels.json")).read_text(encoding="utf-8"))
    track = load_posetrack(path)
    for tr in (track, padded(track, 20.0, 5.0)):
        full, adaptive, log = replay(tr, labels.get("handedness"))
        assert differences(full, adaptive, tolerance=0) == [], path.name
        assert len(adaptive.notes) == len(full.notes)
    assert log.sparse_spans, "the 20 s of nobody must have been sampled sparsely"


@dataclass(slots=True)
class _Item:
    """A stand-in for a decoded 720p frame: its number, time and size, no pixels."""

    index: int
    t_ms: float
    nbytes: int = 1280 * 720 * 3 // 2


def test_memory_flat_on_a_30_minute_session() -> None:
    """30 minutes at 14 fps: one shot every 2 minutes, the archer at rest or out of the picture between them.
    The sampler's ring stays within its bound and the Python heap does not grow with the video's length: from
    minute 5 to minute 30 (21 000 frames) it grows by less than 512 kB, so anything kept per frame (~25 bytes
    and more: a dict entry, a sample's pose) shows (measured: ~15 kB)."""
    shot = load_posetrack(GOLDEN / "failure_modes" / "fm_14fps.pose.json.gz")
    fps = shot.fps
    rest = shot.frames[0].landmarks
    cycle = int(120 * fps)
    n = int(30 * 60 * fps)

    def model(item: _Item) -> PoseFrame:
        k = item.index % cycle
        if k < len(shot.frames):
            lm = shot.frames[k].landmarks
        else:
            lm = None if (k // int(20 * fps)) % 2 else rest  # out of the picture every other 20 s
        # A new array per frame, as the model gives: a pose kept too long then costs what it would in a real run.
        return PoseFrame(item.index, item.t_ms, None if lm is None else lm.copy())

    plan = SamplingPlan(max_ring_bytes=128 * 2**20)
    analyzer = Analyzer(fps, shot.width, shot.height, mode="recorded")
    sampler = AdaptiveSampler(
        analyzer, model, index_of=lambda d: d.index, t_ms_of=lambda d: d.t_ms, nbytes_of=lambda d: d.nbytes, plan=plan
    )
    items = scouted((_Item(i, i * 1000.0 / fps) for i in range(n)), sampler.grid(), model, lambda d: d.index)
    tracemalloc.start()
    try:
        at: dict[int, int] = {}
        for item, sample in items:
            sampler.push(item, sample)
            i = item.index
            if i in (n // 6, n - 1):
                at[i] = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    sampler.finish()
    report = analyzer.finish()
    assert len(report.shots) == n // cycle  # every shot found
    log = sampler.log
    assert log.ring_peak_bytes <= plan.max_ring_bytes
    assert log.ring_peak_frames <= plan.preroll_frames(fps)
    assert log.model_runs < 0.5 * n
    five_min, thirty_min = at[n // 6], at[n - 1]
    assert thirty_min - five_min < 512 * 2**10, (five_min, thirty_min)


def test_the_sampling_note_is_worded_in_both_languages() -> None:
    """The report's note on what was sampled (SamplingLog.note) is recognised by the dashboard and shown in
    Chinese, with its numbers; an unrecognised form would be shown in English only."""
    from coach.sampling import SamplingLog
    from coach.wording.machine import note_text

    log = SamplingLog(30.0, 10, frames=3600, model_runs=900, sparse_spans=[[0, 1199], [1500, 2999]])
    zh = note_text(log.note(), "zh")
    assert zh != log.note() and "3600" in zh and "900" in zh and "2700" in zh
    assert "900 of 3600" in note_text(log.note(), "en")
