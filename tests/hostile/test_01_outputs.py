"""Issue 18 item 1: no output overwrites an existing file without --force, and none may ever be the store
(or its -wal/-shm) or the input, even with --force; outputs are written to a temporary file and renamed."""

import pytest

from coach.cli import main
from tests.support.hostile_corpus import assert_clear, make_store, pose_track_doc, run_coach, snapshot, write_json


@pytest.fixture
def store(tmp_path):
    return make_store(tmp_path)


@pytest.mark.parametrize("suffix", ["", "-wal", "-shm"])
@pytest.mark.parametrize("force", [False, True])
def test_json_never_replaces_the_store(tmp_path, store, suffix, force):
    track = write_json(tmp_path / "t.json", pose_track_doc())
    target = store.with_name(store.name + suffix)
    before = snapshot(store)
    args = ["analyze", "--pose-track", track, "--archer", "A", "--db", store, "--json", target]
    o = run_coach(*args, *(["--force"] if force else []), timeout=120)
    line = assert_clear(o, target.name, "session store")
    assert "even with --force" in line or "not even with --force" in line
    assert snapshot(store) == before


def test_existing_outputs_need_force(tmp_path, capsys):
    track = write_json(tmp_path / "t.json", pose_track_doc())
    old = tmp_path / "old.json"
    old.write_text("precious")
    assert main(["analyze", "--pose-track", str(track), "--json", str(old)]) == 3
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "old.json" in err[0] and "--force" in err[0]
    assert old.read_text() == "precious"
    assert main(["analyze", "--pose-track", str(track), "--json", str(old), "--force"]) == 0
    assert old.read_text().startswith("{")
    assert not list(tmp_path.glob(".coach-*"))


def test_report_refuses_the_wal(tmp_path, store):
    before = snapshot(store)
    o = run_coach("report", "1", "--db", store, "--format", "json", "--out", f"{store}-wal", "--force")
    assert_clear(o, "wal")
    assert snapshot(store) == before


def test_batch_out_needs_force_and_never_the_store(tmp_path, store, monkeypatch):
    from coach.cli.batch import check_out

    old = tmp_path / "summary.csv"
    old.write_text("precious")
    with pytest.raises(Exception, match="--force"):
        check_out(str(old), force=False, db=str(store))
    with pytest.raises(Exception, match="session store"):
        check_out(str(store), force=True, db=str(store))
    assert old.read_text() == "precious"


def test_input_is_never_an_output(tmp_path):
    track = write_json(tmp_path / "t.json", pose_track_doc())
    before = track.read_bytes()
    o = run_coach("analyze", "--pose-track", track, "--json", track, "--force")
    assert_clear(o, "t.json", "input")
    assert track.read_bytes() == before


def test_json_and_save_pose_together(tmp_path, monkeypatch, capsys):
    """Both outputs in one run are written; the same path for both is refused."""
    track = write_json(tmp_path / "t.json", pose_track_doc())
    same = tmp_path / "same.json"
    assert main(["analyze", "--pose-track", str(track), "--json", str(same), "--save-pose", str(same)]) == 3
    assert "--json output" in capsys.readouterr().err
    monkeypatch.setattr("coach.pipeline.analyze_video", _fake_video)
    out, pose = tmp_path / "r.json", tmp_path / "p.json"
    assert main(["analyze", str(track), "--json", str(out), "--save-pose", str(pose)]) == 0
    assert out.is_file() and pose.is_file()


def _fake_video(path, *, save_pose=None, **kw):
    from coach.pipeline import analyze_track
    from coach.pose_frame import PoseTrack, save_posetrack

    if save_pose:
        save_posetrack(PoseTrack(30.0, 64, 48, []), save_pose)
    return analyze_track(path)  # the "video" here is the pose track: a report with a person in it
