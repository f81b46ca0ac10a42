"""Bad input gives one clear line naming the file and the problem, a non-zero exit, never a traceback."""

import json
import subprocess
import sys

import numpy as np
import pytest

from coach.capture import FrameSource
from coach.errors import VideoError
from coach.video_io import VideoWriter


def run_cli(*args, cwd=None):
    return subprocess.run(
        [sys.executable, "-m", "coach", *map(str, args)], capture_output=True, text=True, timeout=300, cwd=cwd
    )


@pytest.fixture(scope="module")
def empty_scene(tmp_path_factory):
    """A real H.264 clip of a plain wall: a video with nobody in it."""
    p = tmp_path_factory.mktemp("vid") / "空 場地 'wall'.mp4"
    rng = np.random.default_rng(0)
    with VideoWriter(p, 320, 240, 30) as w:
        for i in range(20):
            img = np.full((240, 320, 3), 90 + i, np.uint8)
            img += rng.integers(0, 8, img.shape, dtype=np.uint8)
            w.write(img)
    return p


def _assert_one_line_error(res, name, problem):
    assert res.returncode != 0
    assert "Traceback" not in res.stderr
    err = res.stderr.strip().splitlines()
    assert len(err) == 1, res.stderr
    assert name in err[0] and problem in err[0]


def test_missing_file(tmp_path):
    _assert_one_line_error(run_cli("analyze", tmp_path / "nope.mp4"), "nope.mp4", "no such file")


def test_not_a_video(tmp_path):
    p = tmp_path / "notes.mp4"
    p.write_text("this is not a video\n" * 100)
    _assert_one_line_error(run_cli("analyze", p), "notes.mp4", "cannot be opened as a video")


def test_empty_file(tmp_path):
    p = tmp_path / "empty.mp4"
    p.write_bytes(b"")
    _assert_one_line_error(run_cli("analyze", p), "empty.mp4", "empty")


def test_folder(tmp_path):
    _assert_one_line_error(run_cli("analyze", tmp_path), tmp_path.name, "folder")


def test_truncated_video(tmp_path, empty_scene):
    data = empty_scene.read_bytes()
    p = tmp_path / "cut.mp4"
    p.write_bytes(data[: len(data) // 3])
    res = run_cli("analyze", p)
    assert res.returncode != 0 and "Traceback" not in res.stderr
    assert "cut.mp4" in res.stderr


def test_nobody_in_view(empty_scene, tmp_path):
    out = tmp_path / "r.json"
    res = run_cli("analyze", empty_scene, "--json", out)
    _assert_one_line_error(res, empty_scene.name, "no person found")
    report = json.loads(out.read_text(encoding="utf-8"))  # the report is still written, and honest
    assert report["schema"] == "coach.session/1" and report["shots"] == []
    assert "no person found in the video" in report["notes"]


def test_bad_rule_pack(tmp_path, empty_scene):
    p = tmp_path / "pack.toml"
    p.write_text('schema = "coach.rulepack/1"\nid = "x"\nversion = "1"\ntitle = "t"\n[[rules]]\nid = "r"\n')
    res = run_cli("rules", "--check", p)
    _assert_one_line_error(res, "pack.toml", "'r'")


def test_camera_that_does_not_exist():
    with pytest.raises(VideoError, match="camera 57 does not exist"):
        FrameSource(57)


def test_frames_carry_index_and_container_time(empty_scene):
    with FrameSource(empty_scene) as src:
        frames = [(f.index, f.t_ms) for f in src]
    assert [i for i, _ in frames] == list(range(20))
    assert frames[0][1] == pytest.approx(0.0, abs=1e-6)
    assert frames[10][1] == pytest.approx(1000 / 3, abs=1.0)
