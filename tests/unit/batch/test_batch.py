"""`coach batch`: a folder of videos in parallel into the store — bad files reported, resumable after a kill,
the same task on Ray."""

from __future__ import annotations

import contextlib
import csv
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from coach.batch import (
    DONE,
    DUPLICATE,
    FAILED,
    SKIPPED,
    BatchOptions,
    StoreOpLog,
    analyse_task,
    find_videos,
    format_summary,
    run_batch,
    summary_csv,
)
from coach.errors import CoachError
from coach.store import Store
from tests.support.paths import OUTPUT, SAMPLES

ARCHER_CLIP = "short_1shot.mp4"


# ---- clips ---------------------------------------------------------------------------------------------
def write_blank_clip(path: Path, frames: int = 45, seed: int = 0, size: tuple[int, int] = (160, 120)) -> Path:
    """A small clip with no person in it ("no person" is a valid per-video outcome)."""
    from coach.video_io import VideoWriter

    w, h = size
    rng = np.random.default_rng(seed)
    base = rng.integers(40, 200, size=3)
    with VideoWriter(path, w, h, 30) as vw:
        for i in range(frames):
            img = np.empty((h, w, 3), np.uint8)
            img[:] = (base + i) % 255
            img[:, (i * 3 + seed * 7) % w] = 255
            vw.write(img)
    return path


def write_corrupt(path: Path) -> Path:
    path.write_bytes(b"\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00" + bytes(range(256)) * 20)
    return path


@pytest.fixture(scope="session")
def archer_clip() -> Path:
    """The short real-archer sample clip; rendered once into test-output/ if sample_videos/ lacks it."""
    p = SAMPLES / ARCHER_CLIP
    if p.is_file():
        return p
    cached = OUTPUT / "batch_clips" / ARCHER_CLIP
    if not cached.is_file():
        from coach.synth.generate import generate_clip
        from coach.synth.scenarios import SCENARIOS

        generate_clip(SCENARIOS["short_1shot"], cached.parent)
    return cached


def _sessions(db: Path) -> list[dict]:
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        con.row_factory = sqlite3.Row
        return [
            dict(r)
            for r in con.execute(
                "SELECT s.id, s.source, s.content_hash, s.complete, s.started_at, s.finished_at, a.name AS archer, "
                "(SELECT COUNT(*) FROM shots WHERE session_id = s.id) AS shots "
                "FROM sessions s JOIN archers a ON a.id = s.archer_id ORDER BY s.id"
            )
        ]
    finally:
        con.close()


# ---- unit level ----------------------------------------------------------------------------------------
def test_find_videos_recursive_sorted_deduplicated(tmp_path):
    (tmp_path / "b" / "deep").mkdir(parents=True)
    (tmp_path / ".hidden").mkdir()
    for rel in ("a.mp4", "b/x.MOV", "b/deep/y.mkv", "b/notes.txt", ".hidden/z.mp4", "b/.partial.mp4", "b/射.gif"):
        (tmp_path / rel).write_bytes(b"x")
    found = find_videos([tmp_path, tmp_path / "b" / "x.MOV"])
    assert [p.relative_to(tmp_path).as_posix() for p in found] == ["a.mp4", "b/x.MOV", "b/射.gif", "b/deep/y.mkv"]
    # a file named directly is taken whatever its extension
    assert find_videos([tmp_path / "b" / "notes.txt"]) == [tmp_path / "b" / "notes.txt"]
    with pytest.raises(CoachError, match="no such file or folder"):
        find_videos([tmp_path / "missing"])


def test_oplog_records_recorder_calls_for_replay():
    log = StoreOpLog()
    assert log.begin_session("archer", "src", "sha256:x", object(), {"tolerance": "club"}) == 0
    log.set_session_media(0, 30.0, 640, 480)
    log.record_shot(0, "shot", series=None, key_frames=[])
    assert log.begin == ("archer", "src", "sha256:x", {"tolerance": "club"})
    assert [op[0] for op in log.ops] == ["set_session_media", "record_shot"]
    assert log.ops[1] == ("record_shot", ("shot",), {"series": None, "key_frames": []})


def test_run_batch_rejects_empty_input(tmp_path):
    (tmp_path / "readme.txt").write_text("no videos here")
    with pytest.raises(CoachError, match="no video files found"):
        run_batch([tmp_path], BatchOptions(db=tmp_path / "s.db", progress=False))


# ---- progress: each running video reports the share of its own time covered ---------------------------
def test_the_progress_line_counts_video_time_covered_not_frames():
    import io

    from coach.batch.progress import ProgressLine

    bar = ProgressLine(2, stream=io.StringIO())
    bar.start_clock()
    bar.add_work(1000)
    bar.add_work(3000)
    bar.update(1, 3000, 30.0, 120.0)  # a quarter of the big video's time
    assert " 19% | 30s of video covered |" in bar.status()  # a quarter of 3000 of the 4000 bytes of work
    bar.video_done(0, 1000, 60.0, "done     a.mp4")
    assert " 44% | 1m30s of video covered |" in bar.status()
    bar.update(1, 3000, 119.9, None)  # no length known: covered time still counts, its share does not
    assert " 25% | 3m00s of video covered |" in bar.status()


def test_each_running_video_sends_the_video_time_it_has_covered(tmp_path, archer_clip, monkeypatch):
    """The worker's progress reaches the parent's progress line while the video runs (it was never sent: the
    callback was made but not handed to the analysis), in seconds of the video's own time."""
    import coach.batch as batch
    from coach.capture import FrameSource

    updates: list[tuple[int, float, float | None]] = []

    class Recording(batch.ProgressLine):
        def update(self, key, size, covered_s, total_s):
            updates.append((key, covered_s, total_s))
            super().update(key, size, covered_s, total_s)

    monkeypatch.setattr(batch, "ProgressLine", Recording)
    (tmp_path / "v").mkdir()
    clip = tmp_path / "v" / "day1.mp4"
    clip.write_bytes(archer_clip.read_bytes())
    res = run_batch([tmp_path / "v"], BatchOptions(workers=1, archer="p", db=tmp_path / "c.db", progress=False))
    assert [o.status for o in res.outcomes] == [DONE]
    with FrameSource(clip) as src:
        length_s = src.frame_count_hint / src.fps
    assert updates, "no progress reached the parent while the video ran"
    covered = [c for _, c, _ in updates]
    assert covered == sorted(covered) and 0 < covered[0] and covered[-1] <= length_s + 1e-6
    assert all(key == 0 and total == pytest.approx(length_s) for key, _, total in updates)


# ---- a folder: good videos, a corrupt one, a copy; then everything skipped --------------------------
def test_batch_folder_good_and_corrupt(tmp_path, archer_clip):
    clips = tmp_path / "clips"
    (clips / "王小明").mkdir(parents=True)
    (clips / "bob").mkdir()
    (clips / "王小明" / "day1.mp4").write_bytes(archer_clip.read_bytes())
    write_blank_clip(clips / "bob" / "empty.mp4", frames=40, seed=1)
    write_corrupt(clips / "bob" / "corrupt.mp4")
    (clips / "bob" / "zz_copy_of_empty.mp4").write_bytes((clips / "bob" / "empty.mp4").read_bytes())
    db = tmp_path / "coach.db"

    res = run_batch([clips], BatchOptions(workers=2, archer_from_folder=True, db=db, progress=False))
    by = {Path(o.path).name: o for o in res.outcomes}
    assert by["day1.mp4"].status == DONE and by["day1.mp4"].archer == "王小明"
    assert by["day1.mp4"].shots >= 1  # the real archer clip: a shot is found
    assert by["empty.mp4"].status == DONE and by["empty.mp4"].shots == 0
    assert "no person" in by["empty.mp4"].note
    assert by["corrupt.mp4"].status == FAILED and "cannot be opened" in by["corrupt.mp4"].error
    assert by["zz_copy_of_empty.mp4"].status == DUPLICATE  # same archer, same content: one session
    rows = _sessions(db)
    assert sorted((r["archer"], Path(r["source"]).name, r["complete"]) for r in rows) == [
        ("bob", "empty.mp4", 1),
        ("王小明", "day1.mp4", 1),
    ]
    assert next(r for r in rows if r["archer"] == "王小明")["shots"] == by["day1.mp4"].shots
    # what the worker's recorder made reached the store through the parent: shots, series, key frames
    truth = json.loads(archer_clip.with_suffix(".truth.json").read_text(encoding="utf-8"))
    with Store.open(db) as st:
        shots = st.shots(by["day1.mp4"].session)
        assert len(shots) == len(truth["shots"])
        assert abs(shots[0].result.release_frame - truth["shots"][0]["release_frame"]) <= 2
        assert st.series(shots[0].id) is not None
        assert {k.kind for k in st.key_frames(shots[0].id)} == {"full_draw", "release"}
        assert st.session(by["day1.mp4"].session).report["frame_count"] == by["day1.mp4"].frames
        kept = st.pose_track(by["day1.mp4"].session)  # its pose track too, so a coach can correct it
        assert kept is not None and len(kept.frames) == by["day1.mp4"].frames

    table = format_summary(res)
    assert "corrupt.mp4" in table and "1 failed" in table
    parsed = list(csv.DictReader(summary_csv(res).splitlines()))
    assert {r["file"].split(os.sep)[-1]: r["status"] for r in parsed} == {
        "zz_copy_of_empty.mp4": DUPLICATE,
        "corrupt.mp4": FAILED,
        "day1.mp4": DONE,
        "empty.mp4": DONE,
    }
    assert "faults:cup_of_water" in parsed[0]

    # again: nothing analysed twice; the corrupt one is tried again and reported again
    again = run_batch([clips], BatchOptions(workers=2, archer_from_folder=True, db=db, progress=False))
    st = {Path(o.path).name: o.status for o in again.outcomes}
    assert st == {"day1.mp4": SKIPPED, "empty.mp4": SKIPPED, "zz_copy_of_empty.mp4": SKIPPED, "corrupt.mp4": FAILED}
    assert next(o for o in again.outcomes if o.path.endswith("day1.mp4")).shots == by["day1.mp4"].shots
    assert [(r["id"], r["started_at"]) for r in _sessions(db)] == [(r["id"], r["started_at"]) for r in rows]


# ---- a worker that dies does not take the batch with it ---------------------------------------------
def crashing_task(job):
    """Stands in for analyse_task in a spawned worker: dies like a segfaulting decoder on `crash*` files."""
    if Path(job.path).name.startswith("crash"):
        os._exit(11)
    return analyse_task(job)


def test_batch_survives_a_dying_worker(tmp_path):
    for i in range(2):
        write_blank_clip(tmp_path / f"ok{i}.mp4", frames=20, seed=10 + i)
    write_blank_clip(tmp_path / "crash.mp4", frames=20, seed=20)
    res = run_batch(
        [tmp_path], BatchOptions(workers=2, archer="t", db=tmp_path / "c.db", progress=False), task=crashing_task
    )
    st = {Path(o.path).name: o for o in res.outcomes}
    assert st["crash.mp4"].status == FAILED and "worker" in st["crash.mp4"].error
    assert all(st[f"ok{i}.mp4"].status == DONE for i in range(2)), [(o.path, o.status, o.error) for o in res.outcomes]
    assert len(_sessions(tmp_path / "c.db")) == 2


# ---- SIGKILL in the middle, then run again ---------------------------------------------------------------
def test_kill_mid_batch_then_resume(tmp_path):
    clips = tmp_path / "clips"
    clips.mkdir()
    names = [f"v{i:02d}.mp4" for i in range(5)]
    for i, n in enumerate(names):
        write_blank_clip(clips / n, frames=50 + 15 * i, seed=100 + i)
    db = tmp_path / "coach.db"
    cmd = [sys.executable, "-m", "coach", "batch", str(clips), "--archer", "resume", "--db", str(db), "--workers", "2"]
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    with open(tmp_path / "run1.log", "wb") as log:
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    try:
        deadline = time.monotonic() + 90
        done = 0
        while time.monotonic() < deadline and proc.poll() is None:
            if db.exists():
                try:
                    done = sum(r["complete"] for r in _sessions(db))
                except sqlite3.OperationalError:  # schema not there yet
                    done = 0
                if done >= 1:
                    break
            time.sleep(0.05)
        assert proc.poll() is None, (
            "the batch finished before it could be killed:\n" + (tmp_path / "run1.log").read_text()
        )
        assert done >= 1, "no video finished in time:\n" + (tmp_path / "run1.log").read_text()
        proc.send_signal(signal.SIGKILL)  # the parent only: its workers must notice and go
        proc.wait(timeout=10)
        t0 = time.monotonic()
        while time.monotonic() - t0 < 15:
            try:
                os.killpg(proc.pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.2)
        else:
            pytest.fail("orphaned batch workers still running 15 s after the parent was killed")
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)

    before = _sessions(db)
    finished_before = {Path(r["source"]).name: r for r in before if r["complete"]}
    assert 1 <= len(finished_before) < len(names), before

    out = tmp_path / "summary.csv"
    res = subprocess.run([*cmd, "--out", str(out)], capture_output=True, text=True, timeout=180, env=env)
    assert res.returncode == 0, res.stderr + res.stdout
    rows = {Path(r["file"]).name: r for r in csv.DictReader(out.read_text(encoding="utf-8").splitlines())}
    assert set(rows) == set(names)
    # nothing done twice: what finished before the kill is skipped, everything else is analysed now
    assert {n for n, r in rows.items() if r["status"] == SKIPPED} == set(finished_before)
    assert {n for n, r in rows.items() if r["status"] == DONE} == set(names) - set(finished_before)
    after = _sessions(db)
    # nothing missing, nothing duplicated: one complete session per video
    assert sorted(Path(r["source"]).name for r in after) == sorted(names)
    assert all(r["complete"] for r in after)
    assert len({r["content_hash"] for r in after}) == len(names)
    for r in after:  # the sessions finished before the kill were not touched
        if Path(r["source"]).name in finished_before:
            old = finished_before[Path(r["source"]).name]
            assert (r["id"], r["started_at"], r["finished_at"]) == (old["id"], old["started_at"], old["finished_at"])


# ---- the same task on Ray --------------------------------------------------------------------------------
def test_ray_engine_local_instance(tmp_path):
    ray = pytest.importorskip(
        "ray", reason="Ray is not installed (pip install '.[ray]'); the Ray engine cannot be tested here"
    )
    for i in range(3):
        write_blank_clip(tmp_path / "v" / f"r{i}.mp4", frames=30, seed=200 + i)
    write_corrupt(tmp_path / "v" / "bad.mp4")
    db = tmp_path / "ray.db"
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        res = run_batch([tmp_path / "v"], BatchOptions(engine="ray", workers=2, archer="ray", db=db, progress=False))
    finally:
        ray.shutdown()
    st = {Path(o.path).name: o for o in res.outcomes}
    assert st["bad.mp4"].status == FAILED
    assert all(st[f"r{i}.mp4"].status == DONE for i in range(3))
    assert sorted(Path(r["source"]).name for r in _sessions(db) if r["complete"]) == ["r0.mp4", "r1.mp4", "r2.mp4"]
    # the process engine sees the Ray results in the same store and skips them
    again = run_batch([tmp_path / "v"], BatchOptions(workers=1, archer="ray", db=db, progress=False))
    assert sorted(o.status for o in again.outcomes) == [FAILED, SKIPPED, SKIPPED, SKIPPED]


# ---- --full-rate: the same path as `coach analyze --full-rate` ---------------------------------------------
def test_batch_full_rate_runs_the_model_on_every_frame(tmp_path, archer_clip):
    """`coach batch --full-rate` reaches the worker: its session was analysed at the full rate (the model on
    every frame), the default run adaptively, and both found the same shots."""
    (tmp_path / "v").mkdir()
    (tmp_path / "v" / "day1.mp4").write_bytes(archer_clip.read_bytes())
    modes, releases = {}, {}
    for full_rate in (False, True):
        db = tmp_path / f"full{full_rate}.db"
        res = run_batch(
            [tmp_path / "v"], BatchOptions(workers=1, archer="t", db=db, progress=False, full_rate=full_rate)
        )
        (o,) = res.outcomes
        assert o.status == DONE, o.error
        with Store.open(db) as st:
            modes[full_rate] = st.session(o.session).report["meta"]["sampling"]["mode"]
            releases[full_rate] = [s.result.release_frame for s in st.shots(o.session)]
    assert modes == {False: "adaptive", True: "full-rate"}
    assert releases[True] and releases[True] == releases[False]


def test_cli_batch_full_rate_flag() -> None:
    from coach.cli import build_parser

    args = build_parser().parse_args(["batch", "some/folder", "--full-rate"])
    assert args.full_rate is True
    assert build_parser().parse_args(["batch", "some/folder"]).full_rate is False
