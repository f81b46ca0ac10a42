"""Issue 18 item 2: the dashboard answers on 127.0.0.1 only; shared on the network it shows nothing but the
login until the passcode or token is given; the Live page opens no URL the operator has not allowed; user
text is shown as text, never Markdown; uploads are bounded on the server and do not pile up."""

import errno
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import replace
from pathlib import Path

import pytest
from streamlit import config as st_config

from coach.dashboard import access
from coach.dashboard.jobs import discard_upload, prune_uploads, save_upload
from coach.dashboard.settings import Settings
from coach.errors import CoachError
from tests.support.dashboard import app, point_dashboard_at, texts
from tests.support.hostile_corpus import ROOT, SHORT_CLIP, make_store
from tests.support.paths import SAMPLES


@pytest.fixture
def env(tmp_path, monkeypatch):
    point_dashboard_at(monkeypatch, tmp_path, samples=SAMPLES)
    monkeypatch.delenv("COACH_LIVE_SOURCES", raising=False)
    return tmp_path


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _listening(port: int) -> set[str]:
    """Local addresses listening on `port`, from /proc/net/tcp{,6} (hex, little-endian for IPv4)."""
    out = set()
    for name, v6 in (("/proc/net/tcp", False), ("/proc/net/tcp6", True)):
        try:
            lines = Path(name).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            local, state = line.split()[1], line.split()[3]
            addr, p = local.split(":")
            if state != "0A" or int(p, 16) != port:
                continue
            if v6:
                out.add(
                    "::1" if addr == "0" * 31 + "1" or addr.endswith("01000000") and set(addr[:24]) == {"0"} else addr
                )
            else:
                out.add(socket.inet_ntoa(bytes.fromhex(addr)[::-1]))
    return out


def test_started_as_a_user_would_it_answers_on_loopback_only(env):
    port = _free_port()
    cmd = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true", "--server.port", str(port)]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=os.environ.copy())
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as r:
                    assert r.status == 200
                    break
            except OSError:
                assert proc.poll() is None, "the dashboard exited"
                assert time.monotonic() < deadline, "the dashboard did not answer on 127.0.0.1"
                time.sleep(0.5)
        addrs = _listening(port)
        assert addrs and addrs <= {"127.0.0.1", "::1"}, addrs
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()


@pytest.fixture
def shared(env, monkeypatch):
    monkeypatch.setenv("COACH_PASSCODE", "長弓 s3cret")
    old = st_config.get_option("server.address")
    st_config.set_option("server.address", "0.0.0.0")
    yield
    st_config.set_option("server.address", old)


def test_shared_without_the_passcode_shows_only_the_login(shared):
    at = app()
    at.run()
    assert not at.exception
    assert [t.value for t in at.title] == ["射經 Coach: sign in"]
    assert "Database" not in texts(at) and "Session review" not in texts(at)
    at.query_params["token"] = "wrong"
    at.run()
    assert [t.value for t in at.title] == ["射經 Coach: sign in"]
    at.text_input(key="login_passcode").input("guess")
    at.button[0].click().run()
    assert at.error and "not the passcode" in at.error[0].value
    at.text_input(key="login_passcode").input("長弓 s3cret")
    at.button[0].click().run()
    assert "sign in" not in " ".join(t.value for t in at.title)


def test_shared_with_the_token_in_the_url_is_admitted(shared):
    at = app()
    at.query_params["token"] = "長弓 s3cret"
    at.run()
    assert not at.exception
    assert "sign in" not in " ".join(t.value for t in at.title)


@pytest.mark.parametrize(
    "spec", ["http://169.254.169.254/latest/meta-data/", "rtsp://10.0.0.1/cam", "file:///etc/passwd", "/etc/hosts"]
)
def test_live_page_refuses_sources_not_allowed(env, spec):
    at = app("live")
    at.run()
    at.text_input(key="live_new_archer").input("甲")
    at.text_input(key="live_source").input(spec)
    at.button(key="live_start").click().run()
    assert not at.exception
    assert at.error and "allowed" in at.error[0].value, texts(at)


def test_live_sources_the_operator_allows(env, monkeypatch):
    s = Settings.from_env()
    assert access.live_source("0", s) == 0
    assert access.live_source(str(SHORT_CLIP), s) == str(SHORT_CLIP.resolve())
    with pytest.raises(CoachError, match="not allowed"):
        access.live_source("http://cam.local/stream", s)
    monkeypatch.setenv("COACH_LIVE_SOURCES", "http://cam.local/")
    assert access.live_source("http://cam.local/stream", s) == "http://cam.local/stream"


def test_annotation_markdown_is_shown_as_text(env):
    from coach.store import Store

    db = make_store(env, archer="![a](http://evil.example/a.png)")
    shutil.move(db, env / "coach.db")
    with Store.open(env / "coach.db") as store:
        store.annotate(1, "comment", comment="![x](http://evil.example/p.png) <img src=x> :red[boo]", author="c")
    at = app()
    at.run()
    assert not at.exception
    shown = texts(at)
    assert "evil" in shown  # the comment is there …
    for raw in ("![x](", ":red[boo]", "![a]("):  # … as text
        assert raw not in shown, [line for line in shown.splitlines() if raw in line]
    assert "\\<img" in shown and not re.search(r"(?<!\\)<img", shown)


def _settings(tmp_path, **kw) -> Settings:
    return replace(Settings(tmp_path / "c.db", tmp_path / "media", tmp_path / "samples", None), **kw)


def test_upload_limit_is_enforced_on_the_server(tmp_path):
    s = _settings(tmp_path, upload_max_mb=1)
    with pytest.raises(CoachError, match="1 MB upload limit"):
        save_upload(b"\0" * (2 << 20), "big.mp4", s)
    assert not s.uploads.exists() or not any(s.uploads.iterdir())


def test_uploads_are_deleted_after_analysis_and_capped(tmp_path):
    s = _settings(tmp_path, uploads_cap_mb=1)
    data = SHORT_CLIP.read_bytes()
    first = save_upload(data, "a.mp4", s)
    discard_upload(s, first)
    assert not first.exists()
    s.uploads.mkdir(parents=True, exist_ok=True)
    for i in range(30):  # older uploads kept by request, beyond the cap: the oldest go first
        p = s.uploads / f"old{i}.mp4"
        p.write_bytes(b"\0" * 60_000)
        os.utime(p, (i, i))
    prune_uploads(s)
    assert sum(p.stat().st_size for p in s.uploads.iterdir()) <= 1 << 20
    assert not (s.uploads / "old0.mp4").exists() and (s.uploads / "old29.mp4").exists()


def test_upload_to_a_full_disk_is_one_line(tmp_path, monkeypatch):
    """ENOSPC simulated in-process for the upload's write."""

    def full(self, data):
        raise OSError(errno.ENOSPC, "No space left on device", str(self))

    monkeypatch.setattr(Path, "write_bytes", full)
    s = _settings(tmp_path)
    with pytest.raises(CoachError, match="no space left"):
        save_upload(SHORT_CLIP.read_bytes(), "clip.mp4", s)
    assert not [p for p in s.uploads.iterdir()]
