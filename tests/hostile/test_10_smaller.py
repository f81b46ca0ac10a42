"""Issue 18 item 10: truncated videos say so on one line without FFmpeg's noise; a file named `123` is a
file; an unreadable file is "permission denied"; escape sequences in names never reach the terminal raw;
--workers 0 is refused; the pack and pose-track validators refuse nonsense."""

import os
import shutil

import pytest

from coach.capture import FrameSource, parse_source
from coach.errors import RulePackError, VideoError
from posture_rules.pack import load_pack
from tests.support.hostile_corpus import PACK_HEAD, PACK_RULE, SHORT_CLIP, assert_clear, make_store, run_coach


def test_truncated_video_is_one_line_without_ffmpeg_noise(tmp_path):
    cut = tmp_path / "cut.mp4"
    data = SHORT_CLIP.read_bytes()
    cut.write_bytes(data[: len(data) * 2 // 3])
    o = run_coach("analyze", cut, "--no-audio", timeout=300)
    lines = o.stderr.strip().splitlines()
    assert "Traceback" not in o.stderr and o.rc is not None and o.rc >= 0
    assert len(lines) == 1, o.stderr
    assert "cut.mp4" in lines[0] and ("truncated" in lines[0] or "decodable" in lines[0] or "opened" in lines[0])


def test_a_file_named_123_is_a_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    shutil.copy(SHORT_CLIP, tmp_path / "123")
    assert parse_source("123") == "123"
    assert parse_source("7") == 7  # no such file: a camera index
    with FrameSource("123") as src:
        assert src.is_file and src.width > 0


def test_unreadable_file_says_permission_denied(tmp_path, monkeypatch):
    """Simulated in-process (the tests may run as root, who reads everything): os.access says no."""
    p = tmp_path / "locked.mp4"
    shutil.copy(SHORT_CLIP, p)
    real = os.access
    monkeypatch.setattr(os, "access", lambda path, mode, **kw: False if str(path) == str(p) else real(path, mode))
    with pytest.raises(VideoError, match="permission denied"):
        FrameSource(p)


def test_escape_sequences_never_reach_the_terminal(tmp_path):
    db = make_store(tmp_path, archer="\x1b[2J\x1b]0;pwned\x07A")
    for args in (("sessions",), ("show", "1")):
        o = run_coach(*args, "--db", db)
        assert o.rc == 0, o.stderr
        assert "\x1b" not in o.stdout and "\x07" not in o.stdout
        assert "\\x1b[2J" in o.stdout


def test_workers_zero_is_refused(tmp_path):
    assert_clear(run_coach("batch", SHORT_CLIP, "--workers", "0", "--db", tmp_path / "s.db"), "--workers")
    assert not (tmp_path / "s.db").exists()


@pytest.mark.parametrize(
    "extra,field",
    [
        ("[rules.thresholds]\nenter_above = 10.0\nenter_below = 20.0\n", "thresholds"),
        ('body_parts = ["bow_wrist", "tail"]\n', "body_parts"),
        ('family = "not a family!"\n', "family"),
        ("min_visibility = 7\n", "min_visibility"),
    ],
    ids=["inverted", "body_parts", "family", "visibility"],
)
def test_pack_validator_refuses(tmp_path, extra, field):
    p = tmp_path / "p.toml"
    body = (
        PACK_RULE + extra if "thresholds" in extra else PACK_RULE + extra + "[rules.thresholds]\nenter_below = 150.0\n"
    )
    p.write_text(PACK_HEAD + body)
    with pytest.raises(RulePackError, match=field):
        load_pack(p)
