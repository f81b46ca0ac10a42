"""The session store: migrations, corrupt/foreign files, per-shot commits, re-analysis without duplicates, and
a real `coach analyze` child process killed with SIGKILL mid-video."""

from __future__ import annotations

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

from coach.cli import main
from coach.errors import CoachError
from coach.recording import SessionRecorder
from coach.results import CompletedShot, Finding, SessionReport, ShotResult
from coach.store import APPLICATION_ID, SCHEMA_VERSION, KeyFrame, Series, Store
from posture_rules.pack import Profile, load_pack
from tests.support.clips import sample_clip
from tests.support.paths import OUTPUT


def two_shot_clip() -> Path:
    """short_1shot twice in a row at half the frame rate (every other frame, 15 fps): a two-shot clip for the
    kill test, made in seconds and analysed in half the time."""
    from coach.video_io import VideoWriter, read_frames

    src = sample_clip("short_1shot")
    out = OUTPUT / "clips" / "two_shots_15fps.mp4"
    if out.exists() and out.stat().st_mtime >= src.stat().st_mtime:
        return out
    frames = list(read_frames(src))[::2]
    h, w = frames[0].shape[:2]
    tmp = out.with_name("two_shots.tmp.mp4")
    with VideoWriter(tmp, w, h, 15, preset="veryfast") as vw:
        for f in frames + frames:
            vw.write(f)
    os.replace(tmp, out)
    return out


def _shot(i: int, verdict: str = "fault") -> ShotResult:
    base = 100 * i
    return ShotResult(
        index=i,
        raise_start_frame=base,
        draw_start_frame=base + 10,
        anchor_frame=base + 30,
        release_frame=base + 60,
        end_frame=base + 80,
        fps=30.0,
        times_s={"hold_s": 1.0},
        findings=[
            Finding(
                "cup_of_water", verdict, -20.0, {"below": -8.0, "above": 18.0}, base + 35, base + 59, "deg", "below"
            ),
            Finding("kan_shou", "pass", 2.0, {"above": 12.0}, None, None, "deg"),
        ],
        measures={"draw_length": 2.1},
    )


def _report(n: int) -> SessionReport:
    return SessionReport(
        source="x.mp4",
        fps=30.0,
        frame_count=100 * n,
        width=640,
        height=360,
        handedness="right",
        handedness_source="auto",
        view="face-on",
        view_confidence=1.0,
        rule_pack={"id": "shejing", "version": "t"},
        profile={},
        shots=[_shot(i) for i in range(n)],
        consistency=[Finding("shot_rhythm", "pass", 0.1, {"above": 0.2})],
    )


def _done(shot: ShotResult) -> CompletedShot:
    """A completed shot as the analyzer hands it to its listeners (no series, no key frames)."""
    return CompletedShot(shot, 30.0, 640, 360, None, {}, {})


def _counts(db: Path) -> dict[str, int]:
    c = sqlite3.connect(db)
    try:
        return {
            t: c.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0]
            for t in ("archers", "sessions", "shots", "findings", "annotations")
        }
    finally:
        c.close()


# ---- migrations -----------------------------------------------------------------------------------------
V1_SCHEMA = """
CREATE TABLE archers (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, handedness TEXT, created_at TEXT NOT NULL);
CREATE TABLE sessions (id INTEGER PRIMARY KEY, archer_id INTEGER NOT NULL REFERENCES archers(id),
  source TEXT NOT NULL, content_hash TEXT NOT NULL, pack_id TEXT, pack_version TEXT, fps REAL, view TEXT,
  handedness TEXT, started_at TEXT NOT NULL, finished_at TEXT, complete INTEGER NOT NULL DEFAULT 0,
  report_json TEXT, UNIQUE (archer_id, content_hash));
CREATE TABLE shots (id INTEGER PRIMARY KEY, session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  idx INTEGER NOT NULL, raise_start_frame INTEGER, draw_start_frame INTEGER, anchor_frame INTEGER,
  release_frame INTEGER, end_frame INTEGER, complete INTEGER NOT NULL DEFAULT 1, shot_json TEXT NOT NULL,
  UNIQUE (session_id, idx));
CREATE TABLE findings (id INTEGER PRIMARY KEY, session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  shot_id INTEGER REFERENCES shots(id) ON DELETE CASCADE, rule TEXT NOT NULL, verdict TEXT NOT NULL, value REAL,
  threshold_json TEXT, start_frame INTEGER, end_frame INTEGER, unit TEXT, reason TEXT);
CREATE INDEX findings_session ON findings(session_id, shot_id);
CREATE TABLE annotations (id INTEGER PRIMARY KEY, session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  shot_idx INTEGER, rule TEXT, action TEXT NOT NULL, comment TEXT, author TEXT, created_at TEXT NOT NULL);
"""


def test_v1_file_is_upgraded_in_place_and_keeps_its_data(tmp_path):
    db = tmp_path / "舊 old.db"
    c = sqlite3.connect(db)
    c.executescript(V1_SCHEMA)
    c.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    c.execute("PRAGMA user_version = 1")
    c.execute("INSERT INTO archers VALUES (1, 'Ayşe 王', 'left', '2025-01-01T00:00:00+00:00')")
    shot_json = json.dumps(_shot(0).to_json())
    c.execute(
        "INSERT INTO sessions (id, archer_id, source, content_hash, pack_id, pack_version, fps, started_at, complete, "
        "report_json) VALUES (1, 1, 'old.mp4', 'sha256:aa', 'shejing', '1.0.0', 30, '2025-01-01T00:00:00+00:00', 1, "
        "'{}')"
    )
    c.execute("INSERT INTO shots (id, session_id, idx, anchor_frame, shot_json) VALUES (1, 1, 0, 30, ?)", (shot_json,))
    c.execute(
        "INSERT INTO findings (session_id, shot_id, rule, verdict, value) VALUES (1, 1, 'cup_of_water', 'fault', -20)"
    )
    c.execute(
        "INSERT INTO annotations (session_id, shot_idx, rule, action, comment, author, created_at) "
        "VALUES (1, 0, 'cup_of_water', 'accept', '對', '李', '2025-01-02T00:00:00+00:00')"
    )
    c.commit()
    c.close()

    with Store.open(db) as store:
        assert store.schema_version == SCHEMA_VERSION == 3
        # v3: sessions analysed before pose tracks were kept have none, so they cannot be corrected
        assert not store.has_pose_track(1) and store.corrections(1) == []
        a = store.archer("Ayşe 王")
        assert a.handedness == "left" and a.draw_style == "mediterranean" and a.overrides == {}
        assert [s.id for s in store.sessions()] == [1]
        assert store.shots(1)[0].result.anchor_frame == 30
        assert store.findings(1)[0].rule == "cup_of_water"
        assert store.annotations(1)[0].comment == "對"
        # the new tables work on the upgraded file
        sid = store.begin_session(a, "new.mp4", "sha256:bb", load_pack(), Profile().to_json())
        series = Series(0, ["draw_elbow_elevation"], {}, np.zeros((1, 5), np.float32))
        kf = KeyFrame("full_draw", 45, 1.0, b"\xff\xd8jpeg", np.zeros((33, 3), np.float32))
        store.record_shot(sid, _shot(0), series=series, key_frames=[kf])
        shot_id = store.shots(sid)[0].id
        assert store.series(shot_id).data.shape == (1, 5)
        assert store.key_frames(shot_id)[0].frame == 45
    # opening again is a no-op
    with Store.open(db) as store:
        assert store.schema_version == SCHEMA_VERSION
        assert len(store.sessions()) == 2


def test_new_store_is_wal_with_our_ids(tmp_path):
    db = tmp_path / "a" / "b" / "new.db"
    with Store.open(db) as store:
        assert store.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert store.conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
        assert store.schema_version == SCHEMA_VERSION


def test_default_path_comes_from_env(tmp_path, monkeypatch):
    monkeypatch.setenv("COACH_DB", str(tmp_path / "env.db"))
    with Store.open() as store:
        assert store.path == tmp_path / "env.db"


# ---- foreign and corrupt files --------------------------------------------------------------------------
def _foreign_sqlite(p: Path) -> None:
    c = sqlite3.connect(p)
    c.execute("CREATE TABLE photos (id INTEGER PRIMARY KEY, name TEXT)")
    c.execute("INSERT INTO photos (name) VALUES ('cat.jpg')")
    c.commit()
    c.close()


@pytest.mark.parametrize(
    "kind",
    ["text", "random", "sqlite_header_garbage", "foreign_sqlite", "other_app_id", "newer_schema"],
)
def test_corrupt_or_foreign_db_is_refused_and_left_untouched(tmp_path, capsys, kind):
    db = tmp_path / f"損壞 {kind}.db"
    if kind == "text":
        db.write_text("this is my shopping list\n", encoding="utf-8")
    elif kind == "random":
        db.write_bytes(np.random.default_rng(1).integers(0, 256, 8192, dtype=np.uint8).tobytes())
    elif kind == "sqlite_header_garbage":
        db.write_bytes(b"SQLite format 3\x00" + bytes(84) + np.random.default_rng(2).bytes(8000))
    elif kind == "foreign_sqlite":
        _foreign_sqlite(db)
    elif kind == "other_app_id":
        c = sqlite3.connect(db)
        c.execute("PRAGMA application_id = 1234")
        c.execute("CREATE TABLE t (x)")
        c.commit()
        c.close()
    elif kind == "newer_schema":
        c = sqlite3.connect(db)
        c.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        c.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 5}")
        c.execute("CREATE TABLE t (x)")
        c.commit()
        c.close()
    before = db.read_bytes()
    files_before = sorted(p.name for p in tmp_path.iterdir())

    with pytest.raises(CoachError) as e:
        Store.open(db)
    assert str(db) in str(e.value)

    for argv in (["sessions", "--db", str(db)], ["show", "1", "--db", str(db)], ["report", "1", "--db", str(db)]):
        assert main(argv) == 3
        err = capsys.readouterr().err.strip()
        assert err.count("\n") == 0, err  # one line
        assert err.startswith("coach: error: ") and str(db) in err
        assert "Traceback" not in err
    # analyze refuses before it runs the model (the video need not even be real)
    clip = tmp_path / "clip.mp4"
    clip.write_bytes(b"\x00" * 100)
    assert main(["analyze", str(clip), "--archer", "A", "--db", str(db)]) == 3
    assert str(db) in capsys.readouterr().err

    assert db.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir() if p.name != "clip.mp4") == files_before


def test_empty_file_is_a_new_store(tmp_path):
    db = tmp_path / "empty.db"
    db.touch()
    with Store.open(db) as store:
        assert store.schema_version == SCHEMA_VERSION


def test_missing_store_for_reading_is_a_clear_error(tmp_path, capsys):
    assert main(["sessions", "--db", str(tmp_path / "nope.db")]) == 3
    assert "nope.db" in capsys.readouterr().err
    assert not (tmp_path / "nope.db").exists()


# ---- recording ------------------------------------------------------------------------------------------
def test_each_shot_is_committed_when_it_completes_and_rerecording_replaces(tmp_path):
    db = tmp_path / "s.db"
    clip = tmp_path / "clip.mp4"
    clip.write_bytes(b"not really a video, only hashed")
    pack = load_pack()
    with Store.open(db) as store:
        rec = SessionRecorder(store, "مريم", clip, pack, Profile(), grabber=None)
        rec.on_shot(_done(_shot(0)))
        # visible to another connection at once: committed, not pending
        assert _counts(db)["shots"] == 1
        rec.on_shot(_done(_shot(1)))
        assert _counts(db)["shots"] == 2
        assert store.session(rec.sid).complete is False
        assert store.completed_session(rec.archer.id, rec.chash, pack) is None
        store.annotate(rec.sid, "comment", shot=0, rule="cup_of_water", comment="看肘", author="coach")
        # a second analysis of the same file for the same archer reuses the session
        rec2 = SessionRecorder(store, "مريم", clip, pack, Profile(), grabber=None)
        assert rec2.sid == rec.sid
        for i in range(3):
            rec2.on_shot(_done(_shot(i, "pass")))
        rec2.finish(_report(3))
        s = store.session(rec.sid)
        assert s.complete is True and s.report["schema"] == "coach.session/1"
        assert store.completed_session(rec.archer.id, rec.chash, pack) == rec.sid
        # a shorter re-analysis drops the surplus shots
        rec3 = SessionRecorder(store, "مريم", clip, pack, Profile(), grabber=None)
        rec3.on_shot(_done(_shot(0)))
        rec3.finish(_report(1))
    counts = _counts(db)
    assert counts["sessions"] == 1 and counts["archers"] == 1 and counts["shots"] == 1
    assert counts["findings"] == 2 + 1  # one shot's two findings + the session's consistency finding
    assert counts["annotations"] == 1  # the coach's note survives re-analysis


def test_delete_session_removes_everything_of_it(tmp_path):
    db = tmp_path / "d.db"
    clip = tmp_path / "c.mp4"
    clip.write_bytes(b"c")
    with Store.open(db) as store:
        rec = SessionRecorder(store, "A", clip, load_pack(), Profile(), grabber=None)
        kf = KeyFrame("release", 60, 1.0, b"jpeg", None)
        store.record_shot(rec.sid, _shot(0), series=Series(0, ["m"], {}, np.zeros((1, 3), np.float32)), key_frames=[kf])
        store.annotate(rec.sid, "accept", shot=0, rule="cup_of_water")
        rec.finish(_report(1))
        store.delete_session(rec.sid)
        assert store.sessions() == []
        left = {t: store.conn.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in ("series", "key_frames")}
    assert left == {"series": 0, "key_frames": 0}
    assert {k: v for k, v in _counts(db).items() if k != "archers"} == dict.fromkeys(
        ("sessions", "shots", "findings", "annotations"), 0
    )


def test_same_file_other_archer_is_another_session(tmp_path):
    clip = tmp_path / "clip.mp4"
    clip.write_bytes(b"abc")
    with Store.open(tmp_path / "s.db") as store:
        a = SessionRecorder(store, "甲", clip, load_pack(), Profile(), grabber=None)
        b = SessionRecorder(store, "乙", clip, load_pack(), Profile(), grabber=None)
        assert a.sid != b.sid
        assert [s.archer for s in store.sessions("乙")] == ["乙"]


def test_archer_names_are_normalised(tmp_path):
    with Store.open(tmp_path / "s.db") as store:
        a = store.ensure_archer("Zoe\u0301")  # e + combining acute
        b = store.ensure_archer(" Zoé ")
        assert a.id == b.id


# ---- a real process killed mid-video --------------------------------------------------------------------
def _shot_count(db: Path) -> int:
    if not db.exists():
        return 0
    try:
        c = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1)
        try:
            return c.execute("SELECT COUNT(*) FROM shots").fetchone()[0]
        finally:
            c.close()
    except sqlite3.Error:
        return 0


@pytest.mark.e2e
def test_sigkill_mid_analysis_keeps_completed_shots_and_rerun_does_not_duplicate(tmp_path, capsys):
    clip = two_shot_clip()
    db = tmp_path / "kill 測試.db"
    archer = '射手 "K"'
    env = dict(os.environ, GLOG_minloglevel="2")
    cmd = [sys.executable, "-m", "coach", "analyze", str(clip), "--archer", archer, "--db", str(db)]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    try:
        deadline = time.monotonic() + 240
        while _shot_count(db) < 1:
            assert proc.poll() is None, f"analysis ended before a shot was stored: {proc.stderr.read().decode()}"
            assert time.monotonic() < deadline, "no shot stored within 240 s"
            time.sleep(0.05)
        assert proc.poll() is None, "the analysis finished before it could be killed"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stderr.close()
    assert proc.returncode == -signal.SIGKILL

    with Store.open(db) as store:
        (s,) = store.sessions()
        assert not s.complete
        assert s.archer == archer
        killed_shots = store.shots(s.id)
        assert len(killed_shots) >= 1
        assert killed_shots[0].result.findings, "the shot's findings were committed with it"
        assert store.findings(s.id)
        sid = s.id
        shot_id = killed_shots[0].id
        assert store.series(shot_id) is not None
        assert {k.kind for k in store.key_frames(shot_id)} == {"full_draw", "release"}
    assert main(["sessions", "--db", str(db)]) == 0
    assert "INCOMPLETE" in capsys.readouterr().out
    assert main(["show", str(sid), "--db", str(db)]) == 0
    assert "INCOMPLETE" in capsys.readouterr().out
    page = tmp_path / "incomplete.html"
    assert main(["report", str(sid), "--format", "html", "--out", str(page), "--db", str(db)]) == 0
    html = page.read_text(encoding="utf-8")
    assert "Incomplete session" in html and "分析未完成" in html  # the note, in both languages

    # analysing the same file again resumes/replaces the same session: no duplicate session, shot or finding
    assert main(["analyze", str(clip), "--archer", archer, "--db", str(db)]) == 0
    capsys.readouterr()
    with Store.open(db) as store:
        (s,) = store.sessions()
        assert s.id == sid and s.complete
        shots = store.shots(sid)
        n_report = len(store.session(sid).report["shots"])
        assert [x.index for x in shots] == list(range(n_report)) and n_report >= 2
        per_shot = {}
        for f in store.findings(sid):
            key = (f.shot, f.rule)
            assert key not in per_shot, f"duplicate finding {key}"
            per_shot[key] = f
        assert store.session(sid).report["complete"] is True
    counts = _counts(db)
    assert counts["sessions"] == 1 and counts["shots"] == n_report and counts["archers"] == 1
