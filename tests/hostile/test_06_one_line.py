"""Issue 18 item 6: one line where one line is promised — bad pose tracks and rule packs, full disks and
read-only folders, damaged store fields, huge ids, a closed pipe."""

import errno
import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from coach.cli import main
from tests.support.hostile_corpus import ROOT, assert_clear, make_store, pose_track_doc, run_coach, snapshot, write_json

DEEP = "[" * 100_000 + "]" * 100_000


@pytest.mark.parametrize(
    "doc,needle",
    [
        (pose_track_doc(fps="fast"), "fps"),
        (pose_track_doc(fps=0), "fps"),
        (pose_track_doc(frames={"0": 1}), "frames"),
        (pose_track_doc(width=0), "width"),
        ([1, 2, 3], "top level"),
        (None, "nested too deeply"),
    ],
    ids=["fps-text", "fps-zero", "frames-not-list", "width-0", "top-level-list", "deep-nesting"],
)
def test_bad_pose_tracks(tmp_path, capsys, doc, needle):
    p = tmp_path / "bad.json"
    p.write_text('{"schema": "coach.posetrack/1", "meta": ' + DEEP + "}" if doc is None else json.dumps(doc))
    assert main(["analyze", "--pose-track", str(p)]) == 3
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "bad.json" in err[0] and needle in err[0], err


def test_visibility_out_of_range(tmp_path, capsys):
    doc = pose_track_doc()
    doc["frames"][3]["landmarks"][0][3] = 7
    p = write_json(tmp_path / "vis.json", doc)
    assert main(["analyze", "--pose-track", str(p)]) == 3
    assert "visibility" in capsys.readouterr().err


@pytest.mark.parametrize(
    "text,needle",
    [
        ('schema = "coach.rulepack/1"\nid = "x"\nversion = "1"\ntitle = "t"\nrules = [1, 2]\n', "rules"),
        ("a = " + "[" * 3000 + "]" * 3000 + "\n", "nested too deeply"),
    ],
    ids=["rules-ints", "deep-toml"],
)
def test_bad_rule_packs(tmp_path, text, needle):
    p = tmp_path / "pack.toml"
    p.write_text(text)
    assert_clear(run_coach("rules", "--check", p, timeout=60), "pack.toml", needle)


def test_full_disk_report_leaves_nothing(tmp_path, monkeypatch, capsys):
    """Full disk simulated in-process: every write of the report's temporary file fails with ENOSPC."""
    db = make_store(tmp_path)
    capsys.readouterr()
    out = tmp_path / "out" / "r.json"

    def full(self, data):
        raise OSError(errno.ENOSPC, "No space left on device", str(self))

    monkeypatch.setattr(Path, "write_bytes", full)
    assert main(["report", "1", "--db", str(db), "--format", "json", "--out", str(out)]) == 3
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "r.json" in err[0] and "no space" in err[0]
    assert not out.exists() and not list(out.parent.glob(".coach-*"))


def test_full_disk_save_pose_leaves_nothing(tmp_path, monkeypatch, capsys):
    """--save-pose on a full disk (ENOSPC simulated in-process): one line, no truncated file left."""
    from coach import pose_frame

    def full(self, text, **kw):
        raise OSError(errno.ENOSPC, "No space left on device", str(self))

    monkeypatch.setattr(pose_frame.Path, "write_text", full)
    monkeypatch.setattr("coach.pipeline.analyze_video", _fake_analyze_video)
    out = tmp_path / "pose.json"
    assert main(["analyze", str(ROOT / "sample_videos" / "short_1shot.mp4"), "--save-pose", str(out)]) == 3
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no space" in err[0], err
    assert not out.exists() and not list(tmp_path.glob(".coach-*"))


def _fake_analyze_video(path, *, save_pose=None, **kw):
    """The pipeline without the model: a pose track's report, and the pose file written as the real one is."""
    from coach.pipeline import analyze_track
    from coach.pose_frame import PoseTrack, save_posetrack

    report = analyze_track(PoseTrack(30.0, 64, 48, []))
    if save_pose:
        save_posetrack(PoseTrack(30.0, 64, 48, []), save_pose)
    return report


def test_read_only_output_folder(tmp_path, monkeypatch, capsys):
    """A folder that refuses new files (EROFS simulated in-process for the temporary file)."""
    import tempfile

    db = make_store(tmp_path)
    capsys.readouterr()

    def ro(*a, **kw):
        raise OSError(errno.EROFS, "Read-only file system", kw.get("dir"))

    monkeypatch.setattr(tempfile, "mkstemp", ro)
    assert main(["report", "1", "--db", str(db), "--format", "csv", "--out", str(tmp_path / "r.csv")]) == 3
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "read-only" in err[0]


@pytest.mark.parametrize("column,value", [("report_json", "{not json"), ("profile_json", "[")])
def test_damaged_json_field(tmp_path, column, value):
    db = make_store(tmp_path)
    c = sqlite3.connect(db)
    c.execute(f"UPDATE sessions SET {column} = ?", (value,))
    c.commit()
    c.close()
    before = snapshot(db)
    for args in (("show", "1"), ("report", "1", "--format", "json", "--out", tmp_path / "r.json")):
        assert_clear(run_coach(*args, "--db", db), "s.db", "damaged")
    assert snapshot(db) == before


def test_huge_session_id(tmp_path):
    db = make_store(tmp_path)
    assert_clear(run_coach("show", "99999999999999999999", "--db", db), "99999999999999999999")


def test_broken_pipe(tmp_path):
    db = make_store(tmp_path)
    c = sqlite3.connect(db)  # enough coach's notes that the output outgrows the pipe's buffer
    c.executemany(
        "INSERT INTO annotations (session_id, action, comment, author, created_at) VALUES (1, 'comment', ?, 'c', 'x')",
        [("note " * 20,)] * 3000,
    )
    c.commit()
    c.close()
    cmd = f"{sys.executable} -m coach show 1 --db {db} | head -1"
    r = subprocess.run(["bash", "-c", "set -o pipefail; " + cmd], capture_output=True, text=True, timeout=60)
    assert "Traceback" not in r.stderr and "BrokenPipe" not in r.stderr, r.stderr
    assert r.stdout.count("\n") == 1


def test_batch_out_with_a_name_that_is_not_utf8(tmp_path):
    import os

    from tests.support.hostile_corpus import NON_UTF8, wall_clip

    clip = wall_clip(tmp_path / "wall.mp4")
    out = os.path.join(os.fsencode(tmp_path), NON_UTF8 + b".csv")
    assert_clear(run_coach("batch", clip, "--db", tmp_path / "s.db", "--out", out), "UTF-8")
    assert not (tmp_path / "s.db").exists()


def test_symlink_loop_named_on_the_command_line(tmp_path):
    loop = tmp_path / "loop.mp4"
    loop.symlink_to(loop)
    assert_clear(run_coach("analyze", loop), "loop.mp4", "symbolic link loop")
