"""The command line as a new user meets it (issue 15, item 12): a progress bar on a terminal only, no
"release at frame None", the "(?)" marker explained, columns aligned next to Chinese names, `coach live`
without --archer says nothing is saved, and `coach live --check` without the model's log lines."""

import io
import os
import re
import subprocess
import sys

import pytest

from coach.live.printer import ShotPrinter
from coach.pipeline import analyze_track
from coach.results import FAULT, Finding
from coach.summary import format_report
from coach.terminal import ProgressBar, display_width, ljust, progress_for
from posture_rules.pack import load_pack
from tests.support.paths import ROOT, SAMPLES

PACK = load_pack()
TRACK = ROOT / "tests" / "golden" / "fault_elbow.pose.json.gz"
CLIP = SAMPLES / "short_1shot.mp4"


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_bar_on_a_terminal_only():
    assert progress_for("clip.mp4", io.StringIO()) is None  # piped: nothing drawn
    tty = _Tty()
    bar = progress_for("clip.mp4", tty)
    assert isinstance(bar, ProgressBar)
    line = bar.line(290, 653, 12.0)
    assert "290/653 frames" in line and "fps" in line and "ETA" in line and "44%" in line
    bar(653, 653)
    bar.close()
    assert "\r" in tty.getvalue()


def test_the_analyze_command_passes_a_bar_on_a_terminal(monkeypatch, tmp_path):
    import coach.pipeline as pipeline
    from coach.cli import main

    seen = {}

    def fake_analyze_video(path, *, progress=None, **kw):
        seen["progress"] = progress
        return analyze_track(TRACK, pack=PACK)

    monkeypatch.setattr(pipeline, "analyze_video", fake_analyze_video)
    monkeypatch.setattr(sys, "stderr", _Tty())
    video = tmp_path / "clip.mp4"
    video.write_bytes(b"x")
    assert main(["analyze", str(video)]) == 0
    assert isinstance(seen["progress"], ProgressBar)
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    assert main(["analyze", str(video)]) == 0
    assert seen["progress"] is None


@pytest.fixture(scope="module")
def report():
    return analyze_track(TRACK, pack=PACK)


def test_no_release_at_frame_none(report):
    shot = report.shots[0]
    shot.release_frame = None
    shot.complete = False
    text = format_report(report, PACK)
    assert "frame None" not in text and "Shot 1 第1箭: release not seen · 沒看到發矢" in text
    lines = ShotPrinter(PACK, "en").shot_lines(shot)
    assert "None" not in lines[0] and "release not seen" in lines[0]


def test_the_low_confidence_marker_is_explained(report):
    shot = report.shots[1]
    shot.findings.append(Finding("liang_zhai", FAULT, 0.25, {"above": 0.18}, 10, 20, "SW", "above"))
    text = format_report(report, PACK)
    assert "(?)" in text and "low confidence" in text.split("(?)")[-1]


def test_columns_line_up_next_to_chinese_names(report):
    lines = [ln for ln in format_report(report, PACK).splitlines() if " value " in ln]
    cols = {display_width(ln[: ln.index(" value ")]) for ln in lines}
    assert len(lines) > 10 and len(cols) == 1, cols
    assert display_width("肘可措杯水") == 10 and display_width(ljust("王", 4)) == 4


@pytest.mark.e2e
def test_live_without_an_archer_says_nothing_is_saved():
    if not CLIP.is_file():
        pytest.skip(f"{CLIP} is missing")
    cmd = [sys.executable, "-m", "coach", "live", "--source", str(CLIP), "--no-window", "--no-sound"]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env={**os.environ, "DISPLAY": ""}, cwd=ROOT)
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()  # --lang zh (the default): Chinese first, then English
    assert lines[-2].startswith("第 1 場：") and " · Session 1:" in lines[-2]
    assert lines[-1].startswith("沒有保存：") and " · not saved: no --archer given" in lines[-1]


@pytest.mark.e2e
def test_live_check_prints_no_model_log_lines():
    if not CLIP.is_file():
        pytest.skip(f"{CLIP} is missing")
    cmd = [sys.executable, "-m", "coach", "live", "--check", "--source", str(CLIP)]
    env = {k: v for k, v in os.environ.items() if k not in ("GLOG_minloglevel", "COACH_NATIVE_LOGS")}
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=env, cwd=ROOT)
    noise = [ln for ln in (p.stdout + p.stderr).splitlines() if re.match(r"^(INFO|WARNING|[IWE]\d{4}|W0000)", ln)]
    assert not noise and "XNNPACK" not in p.stderr + p.stdout, noise
