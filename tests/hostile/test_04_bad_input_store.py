"""Issue 18 item 4: bad input with --archer writes nothing — no archer, no INCOMPLETE or 0-shot session."""

import pytest

from tests.support.hostile_corpus import (
    audio_only,
    make_store,
    pose_track_doc,
    run_coach,
    snapshot,
    wall_clip,
    write_json,
)


def _inputs(tmp_path):
    empty = tmp_path / "empty.mp4"
    empty.write_bytes(b"")
    text = tmp_path / "notes.mp4"
    text.write_text("this is not a video\n" * 20)
    return {
        "empty": empty,
        "text": text,
        "audio-only": audio_only(tmp_path / "sound.mp4"),
        "nobody": wall_clip(tmp_path / "wall.mp4"),
    }


@pytest.mark.parametrize("kind", ["empty", "text", "audio-only", "nobody"])
def test_existing_store_unchanged(tmp_path, kind):
    db = make_store(tmp_path)
    before = snapshot(db)
    video = _inputs(tmp_path)[kind]
    o = run_coach("analyze", video, "--archer", "新人 B", "--db", db, "--no-audio")
    assert o.rc == 3 and o.kind in ("clear",) or (kind == "nobody" and o.rc == 3), o.stderr
    assert "Traceback" not in o.stderr
    assert video.name in o.stderr
    assert snapshot(db) == before


def test_no_store_is_created_for_a_pose_track_with_nobody(tmp_path):
    db = tmp_path / "new.db"
    track = write_json(tmp_path / "nobody.json", pose_track_doc(person=False))
    o = run_coach("analyze", "--pose-track", track, "--archer", "B", "--db", db)
    assert o.rc == 3 and "no person" in o.stderr
    assert not db.exists() or snapshot(db)[""] is None


@pytest.mark.parametrize("kind", ["text", "nobody"])
def test_live_writes_nothing_for_bad_input(tmp_path, kind):
    db = make_store(tmp_path)
    before = snapshot(db)
    video = _inputs(tmp_path)[kind]
    o = run_coach("live", "--source", video, "--no-window", "--no-sound", "--archer", "新人 B", "--db", db)
    assert "Traceback" not in o.stderr and o.rc is not None and o.rc >= 0, o.stderr
    assert snapshot(db) == before
