"""The browser camera path the dashboard's Live page uses: streamlit-webrtc in headless Chromium with a .y4m fake
camera reaches `connected` and the server receives frames, all on loopback (docs/webrtc-findings.md)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from tests.support.browser import free_port

pytestmark = pytest.mark.browser

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"

APP = """
import os
import streamlit as st
from streamlit_webrtc import WebRtcMode, webrtc_streamer
from coach.live.webrtc import RTC_CONFIGURATION, enable_loopback_candidates

enable_loopback_candidates(only=True)
OUT = os.environ["FRAMES_OUT"]
count = [0]

def on_frame(frame):
    count[0] += 1
    with open(OUT, "w") as f:
        f.write(str(count[0]))
    return frame

webrtc_streamer(key="cam", mode=WebRtcMode.SENDRECV, rtc_configuration=RTC_CONFIGURATION,
                video_frame_callback=on_frame, media_stream_constraints={"video": True, "audio": False})
"""

RECORD_PC = """
(() => {
  const Orig = window.RTCPeerConnection;
  if (!Orig) return;
  window.__pcStates = [];
  window.RTCPeerConnection = function (...a) {
    const pc = new Orig(...a);
    pc.addEventListener('connectionstatechange', () => window.__pcStates.push(pc.connectionState));
    return pc;
  };
  window.RTCPeerConnection.prototype = Orig.prototype;
})();
"""


def _write_y4m(path: Path, w=320, h=240, n=30) -> None:
    import cv2

    with open(path, "wb") as f:
        f.write(f"YUV4MPEG2 W{w} H{h} F30:1 Ip A1:1 C420jpeg\n".encode())
        for i in range(n):
            img = np.full((h, w, 3), 40 + 4 * i, np.uint8)
            f.write(b"FRAME\n" + cv2.cvtColor(img, cv2.COLOR_BGR2YUV_I420).tobytes())


def test_browser_camera_connects_over_loopback(tmp_path):
    pytest.importorskip("streamlit_webrtc")
    playwright = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.skip("no chromium (apt-get install chromium)")
    app, y4m, frames = tmp_path / "app.py", tmp_path / "cam.y4m", tmp_path / "frames.txt"
    app.write_text(APP)
    _write_y4m(y4m)
    port = free_port()
    env = {**os.environ, "FRAMES_OUT": str(frames)}
    server = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", str(app), "--server.headless", "true", "--server.port", str(port),
         "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env,
    )  # fmt: skip
    try:
        with playwright.sync_playwright() as p:
            browser = p.chromium.launch(
                executable_path=CHROMIUM,
                headless=True,
                args=[
                    "--use-fake-device-for-media-stream",
                    "--use-fake-ui-for-media-stream",
                    f"--use-file-for-fake-video-capture={y4m}",
                    "--allow-loopback-in-peer-connection",
                    "--no-sandbox",
                    "--disable-gpu",
                    "--disable-background-networking",
                    "--disable-component-update",
                    "--no-first-run",
                ],
            )
            ctx = browser.new_context(permissions=["camera"])
            ctx.add_init_script(RECORD_PC)
            page = ctx.new_page()
            deadline = time.monotonic() + 60
            while True:
                try:
                    page.goto(f"http://127.0.0.1:{port}", timeout=5000)
                    break
                except playwright.Error:
                    if time.monotonic() > deadline:
                        raise
                    time.sleep(0.5)
            start = None
            while start is None and time.monotonic() < deadline:
                for f in page.frames:
                    if f.locator("button:has-text('START')").count():
                        start = f
                        break
                else:
                    time.sleep(0.5)
            assert start is not None, "the webrtc component never showed its START button"
            start.locator("button:has-text('START')").click()
            states: list[str] = []
            deadline = time.monotonic() + 90  # connecting, then the first frames reaching the server callback
            while time.monotonic() < deadline:
                states = start.evaluate("window.__pcStates || []")
                if "connected" in states and frames.exists():
                    break
                time.sleep(0.5)
            browser.close()
        assert "connected" in states, states
        assert frames.exists() and int(frames.read_text()) > 0
    finally:
        server.terminate()
        server.wait(10)
