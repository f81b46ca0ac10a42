"""What the browser tests share: Debian's Chromium and its flags, a free port, and the dashboard served by
`streamlit run app.py` on loopback with a temporary store."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

from tests.support.paths import ROOT

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def streamlit_app(tmp: Path, env_extra: dict[str, str], script: str | Path = "app.py") -> Iterator[str]:
    """Serve the dashboard (or another Streamlit `script`) from a temporary store under `tmp`; yields its URL once
    it answers its health check. Its log is tmp/streamlit.log; it is stopped, whole process group, on exit."""
    env = {
        **os.environ,
        "COACH_DB": str(tmp / "coach.db"),
        "COACH_MEDIA": str(tmp / "media"),
        "COACH_DEMO": "off",
        "GLOG_minloglevel": "2",
        **env_extra,
    }
    port = free_port()
    log_path = tmp / "streamlit.log"
    cmd = [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        str(script),
        "--server.port",
        str(port),
        "--server.headless",
        "true",
    ]
    cmd += ["--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"]
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 180  # a loaded machine takes long to import Streamlit: a bound, not a pace
            while True:
                try:
                    with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                        if r.status == 200:
                            break
                except OSError:
                    pass
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(log_path.read_text(errors="replace")[-3000:])
                time.sleep(0.5)
            yield url
        finally:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
