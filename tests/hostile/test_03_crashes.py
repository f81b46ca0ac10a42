"""Issue 18 item 3: no segfaults. A file name that is not UTF-8 is refused with one line (OpenCV's
VideoCapture crashed on it), and in a batch its valid copies are still analysed; a full disk while writing
video is one line and leaves no `.coach-*` temporary file."""

import os
import resource
import shutil
import signal

from tests.support.hostile_corpus import NON_UTF8, SHORT_CLIP, assert_clear, run_coach, snapshot


def test_non_utf8_name_analyze(tmp_path):
    bad = os.path.join(os.fsencode(tmp_path), NON_UTF8)
    shutil.copy(SHORT_CLIP, bad)
    line = assert_clear(run_coach("analyze", bad, timeout=120), "UTF-8")
    assert "x\\xe9.mp4" in line


def test_non_utf8_name_live(tmp_path):
    bad = os.path.join(os.fsencode(tmp_path), NON_UTF8)
    shutil.copy(SHORT_CLIP, bad)
    assert_clear(run_coach("live", "--source", bad, "--no-window", "--no-sound", timeout=120), "UTF-8")


def test_batch_valid_copy_of_a_bad_name_is_analysed(tmp_path):
    folder = tmp_path / "club" / "A"
    folder.mkdir(parents=True)
    shutil.copy(SHORT_CLIP, os.path.join(os.fsencode(folder), b"a" + NON_UTF8))  # sorts first
    shutil.copy(SHORT_CLIP, folder / "b_good.mp4")
    db = tmp_path / "s.db"
    for _ in range(2):  # and on a re-run: skipped as done, never "duplicate of" the refused one
        o = run_coach("batch", folder.parent, "--archer-from-folder", "--db", db, "--quiet", "--workers", "1")
        assert o.rc == 3 and o.kind != "crash", o.stderr
        assert "Traceback" not in o.stderr
        good = next(line for line in o.stdout.splitlines() if "b_good.mp4" in line)
        assert "duplicate" not in good and ("done" in good or "skipped" in good), o.stdout
        assert "UTF-8" in o.stdout


def _full_disk_after(limit: int):
    """A full disk, simulated without root: the process may not grow any file beyond `limit` bytes
    (RLIMIT_FSIZE; SIGXFSZ ignored so the write fails with EFBIG as a full disk fails with ENOSPC)."""

    def pre():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return pre


def test_render_on_a_full_disk(tmp_path):
    out = tmp_path / "out.mp4"
    o = run_coach("render", SHORT_CLIP, "--out", out, timeout=300, preexec_fn=_full_disk_after(20_000))
    assert_clear(o, "out.mp4", "cannot be written")
    assert not out.exists()
    assert not list(tmp_path.glob(".coach-*"))


def test_analyze_db_on_a_full_disk(tmp_path):
    """Recording into the store on a full disk: one line, and what was there before is intact."""
    import sqlite3

    from tests.support.hostile_corpus import make_store

    db = make_store(tmp_path)
    c = sqlite3.connect(db)
    c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    c.close()
    before = snapshot(db)
    # room for the -wal to start, not for the shot's key frames: the disk fills mid-recording
    limit = db.stat().st_size + 12_000
    o = run_coach("analyze", SHORT_CLIP, "--archer", "B", "--db", db, timeout=300, preexec_fn=_full_disk_after(limit))
    assert o.kind == "clear", o.stderr
    assert "s.db" in o.stderr or "space" in o.stderr or "disk" in o.stderr, o.stderr
    c = sqlite3.connect(db)  # what was recorded before is intact, the file healthy
    assert c.execute("PRAGMA quick_check").fetchone()[0] == "ok"
    assert c.execute("SELECT COUNT(*) FROM sessions s JOIN archers a ON a.id = s.archer_id WHERE a.name = 'A'")
    c.close()
    assert before[""] is not None
