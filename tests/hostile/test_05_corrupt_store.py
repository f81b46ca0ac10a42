"""Issue 18 item 5: a store that fails PRAGMA quick_check (or the schema checks) is never written; a healthy
store the process may not write (read-only media, simulated by dropping to an unprivileged user over a
read-only folder) is still read by the read-only commands."""

import os
import shutil
import sqlite3
import subprocess
import sys

import pytest

from tests.support.hostile_corpus import assert_clear, make_store, pose_track_doc, run_coach, snapshot, write_json


def _checkpoint(db):
    c = sqlite3.connect(db)
    c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    c.close()


def _corrupt_a_page(db):
    """Damage the middle of the file (an index/table page), leaving the header — and so the application id
    and schema version the old check looked at — intact."""
    _checkpoint(db)
    data = bytearray(db.read_bytes())
    page = 4096
    assert len(data) >= 3 * page
    for off in range(page * 2 + 8, page * 2 + 400):
        data[off] = 0xA5
    db.write_bytes(bytes(data))


def test_corrupt_store_is_never_written(tmp_path):
    db = make_store(tmp_path)
    _corrupt_a_page(db)
    before = snapshot(db)
    track = write_json(tmp_path / "t2.json", pose_track_doc(n=40))
    o = run_coach("analyze", "--pose-track", track, "--archer", "A2", "--db", db)
    assert_clear(o, "s.db")
    assert snapshot(db) == before


def test_dropped_table_is_one_line_and_unchanged(tmp_path):
    db = make_store(tmp_path)
    c = sqlite3.connect(db)
    c.execute("DROP TABLE annotations")
    c.close()
    _checkpoint(db)
    before = snapshot(db)
    for args in (("sessions",), ("show", "1"), ("annotate", "1", "--comment", "x")):
        assert_clear(run_coach(*args, "--db", db), "s.db", "annotations")
    assert snapshot(db) == before


def _nobody():
    try:
        import pwd

        pw = pwd.getpwnam("nobody")
    except (ImportError, KeyError):
        return None
    return pw.pw_uid, pw.pw_gid


@pytest.mark.skipif(_nobody() is None or os.geteuid() != 0, reason="needs root to drop to the user nobody")
def test_read_only_store_is_read(tmp_path):
    import tempfile
    from pathlib import Path

    db = make_store(tmp_path)
    _checkpoint(db)
    # pytest's tmp_path sits in a root-only folder; this one the user nobody can reach
    top = Path(tempfile.mkdtemp(prefix="coach-ro-"))
    top.chmod(0o755)
    ro = top / "ro"
    ro.mkdir()
    shutil.copy(db, ro / "s.db")
    shutil.copy(tmp_path / "track.json", top / "t.json")
    (top / "t.json").chmod(0o644)
    (ro / "s.db").chmod(0o444)
    ro.chmod(0o555)
    tmp_path = top
    uid, gid = _nobody()

    def drop():
        os.setgid(gid)
        os.setuid(uid)

    try:
        subprocess.run([sys.executable, "-c", "pass"], preexec_fn=drop, check=True)
    except (OSError, subprocess.SubprocessError):
        shutil.rmtree(top)  # made before the check: leave nothing behind in /tmp
        pytest.skip("the user nobody cannot run this interpreter (it lives in a private folder)")
    before = snapshot(ro / "s.db")
    o = run_coach("sessions", "--db", ro / "s.db", preexec_fn=drop, env={"HOME": "/tmp"})
    assert o.rc == 0, o.stderr
    assert "complete" in o.stdout and " A " in o.stdout
    o = run_coach("show", "1", "--db", ro / "s.db", preexec_fn=drop, env={"HOME": "/tmp"})
    assert o.rc == 0, o.stderr
    track = top / "t.json"
    o = run_coach("analyze", "--pose-track", track, "--archer", "A", "--db", ro / "s.db", preexec_fn=drop)
    assert_clear(o, "s.db", "read-only")
    assert snapshot(ro / "s.db") == before
    ro.chmod(0o755)
    shutil.rmtree(top)


def test_unwritable_store_is_read_in_process(tmp_path, monkeypatch, capsys):
    """The same rules without privileges to drop: the store reports itself unwritable (as on read-only media,
    where SQLite cannot create the -shm file either)."""
    from coach.cli import main
    from coach.store import schema as store_schema

    db = make_store(tmp_path)
    _checkpoint(db)
    capsys.readouterr()
    before = snapshot(db)
    monkeypatch.setattr(store_schema, "writable", lambda p: False)
    assert main(["sessions", "--db", str(db)]) == 0
    assert "complete" in capsys.readouterr().out
    assert main(["show", "1", "--db", str(db)]) == 0
    capsys.readouterr()
    track = write_json(tmp_path / "t.json", pose_track_doc())
    assert main(["analyze", "--pose-track", str(track), "--archer", "A", "--db", str(db)]) == 3
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "read-only" in err[0]
    assert main(["annotate", "1", "--comment", "x", "--db", str(db)]) == 3
    assert snapshot(db) == before
