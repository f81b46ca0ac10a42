"""Issue 18 item 7: only regular files are read, and sizes are bounded — a FIFO or /dev/urandom never hangs
a command (each run is bounded by a timeout; a hang fails the test)."""

import os

import pytest

from tests.support.hostile_corpus import assert_clear, run_coach


@pytest.fixture
def fifo(tmp_path):
    p = tmp_path / "pipe.toml"
    os.mkfifo(p)
    return p


def test_rules_check_fifo(fifo):
    assert_clear(run_coach("rules", "--check", fifo, timeout=30), "pipe.toml", "not a regular file")


def test_rules_check_urandom():
    assert_clear(run_coach("rules", "--check", "/dev/urandom", timeout=30), "/dev/urandom", "not a regular file")


def test_pose_track_fifo(fifo):
    assert_clear(run_coach("analyze", "--pose-track", fifo, timeout=30), "pipe.toml", "not a regular file")


def test_analyze_fifo(tmp_path):
    p = tmp_path / "cam.mp4"
    os.mkfifo(p)
    assert_clear(run_coach("analyze", p, timeout=30), "cam.mp4", "not a regular file")


def test_batch_with_a_fifo_and_a_symlink_loop_goes_on(tmp_path):
    """The FIFO and the loop are listed as errors; the batch ends (exit 3) instead of hanging or aborting."""
    folder = tmp_path / "club" / "A"
    folder.mkdir(parents=True)
    os.mkfifo(folder / "stuck.mp4")
    os.symlink(folder / "loop.mp4", folder / "loop.mp4")
    (folder / "text.mp4").write_text("not a video")
    o = run_coach("batch", folder.parent, "--archer-from-folder", "--db", tmp_path / "s.db", "--quiet", timeout=120)
    assert o.rc == 3, o.stderr
    assert "Traceback" not in o.stderr
    assert "stuck.mp4" in o.stdout and "not a regular file" in o.stdout
    assert "loop.mp4" in o.stdout and "loop" in o.stdout
