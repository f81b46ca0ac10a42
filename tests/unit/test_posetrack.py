import json

import numpy as np
import pytest

from coach.errors import PoseTrackError
from coach.pose_frame import PoseFrame, PoseTrack, load_posetrack, save_posetrack


def test_round_trip_with_missing_frames_and_chinese_path(tmp_path):
    lm = np.random.default_rng(0).random((33, 4))
    track = PoseTrack(30.0, 640, 480, [PoseFrame(0, 0.0, lm, lm[:, :3]), PoseFrame(1, 33.33, None)], source="射手.mp4")
    p = tmp_path / "王琚" / "射手.pose.json"
    p.parent.mkdir()
    save_posetrack(track, p)
    back = load_posetrack(p)
    assert back.fps == 30.0 and back.width == 640 and len(back.frames) == 2
    assert np.allclose(back.frames[0].landmarks, lm, atol=1e-5)
    assert back.frames[1].landmarks is None and back.source == "射手.mp4"
    xy, vis, t = back.xy_vis()
    assert xy.shape == (2, 33, 2) and np.isnan(xy[1]).all() and xy[0, 0, 0] == pytest.approx(lm[0, 0] * 640, abs=0.01)


@pytest.mark.parametrize(
    "content,problem",
    [("{", "not a readable JSON"), (json.dumps({"schema": "other/1"}), "not a coach.posetrack/1")],
)
def test_bad_files_name_the_file(tmp_path, content, problem):
    p = tmp_path / "bad.json"
    p.write_text(content)
    with pytest.raises(PoseTrackError, match=problem) as e:
        load_posetrack(p)
    assert "bad.json" in str(e.value)


def test_the_analysis_reads_a_pose_as_a_track_file_gives_it_back(tmp_path):
    """What the analysis reads is what a saved (or kept) track gives back to the bit, so analysing the track again
    is the same analysis: a reading that tips a borderline mark one way from the model tips it the same way
    from the file."""
    from coach.analyzer import Analyzer

    lm = np.random.default_rng(1).random((33, 4))
    seen: list[PoseFrame] = []
    analyzer = Analyzer(30.0, 640, 480, mode="recorded", on_pose=[seen.append])
    analyzer.push_pose(PoseFrame(1, 33.333333333, lm.copy(), lm[:, :3].copy()))
    save_posetrack(
        PoseTrack(30.0, 640, 480, [PoseFrame(1, 33.333333333, lm.copy(), lm[:, :3].copy())]), tmp_path / "t.json"
    )
    back = load_posetrack(tmp_path / "t.json").frames[0]
    assert np.array_equal(seen[0].landmarks, back.landmarks) and np.array_equal(seen[0].world, back.world)
    assert seen[0].t_ms == back.t_ms == 33.33


def test_a_track_analyses_as_its_saved_copy_does(tmp_path):
    from coach.pipeline import analyze_track
    from coach.track_transforms import jitter
    from tests.support.paths import ROOT

    noisy = jitter(load_posetrack(ROOT / "tests" / "golden" / "fault_elbow.pose.json.gz"), 0.01, 1)  # unrounded
    save_posetrack(noisy, tmp_path / "noisy.pose.json")
    assert analyze_track(tmp_path / "noisy.pose.json").to_json()["shots"] == analyze_track(noisy).to_json()["shots"]
