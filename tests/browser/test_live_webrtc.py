"""The browser camera path the dashboard's Live page uses: streamlit-webrtc in headless Chromium with a .y4m fake
camera reaches `connected` and the server receives frames, all on loopback (docs/webrtc-findings.md).

Each step waits on its own condition with its own deadline (the server's health check, the START button, the
connection and the first frames): on a busy machine the server's start-up alone used to eat the deadline that
the START button was then given."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import numpy as np
import pytest

from tests.support.browser import streamlit_app

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
    with open(OUT + ".part", "w") as f:  # replaced whole: the test never reads a half-written count
        f.write(str(count[0]))
    os.replace(OUT + ".part", OUT)
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
    with streamlit_app(tmp_path, {"FRAMES_OUT": str(frames)}, script=app) as url:
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
            try:
                ctx = browser.new_context(permissions=["camera"])
                ctx.add_init_script(RECORD_PC)
                page = ctx.new_page()
                page.goto(url, timeout=120_000)
                start = _start_frame(page, time.monotonic() + 180)  # the page's script runs, then the component
                assert start is not None, "the webrtc component never showed its START button"
                start.locator("button:has-text('START')").click()
                states: list[str] = []
                deadline = time.monotonic() + 180  # connecting, then the first frames reaching the server callback
                while time.monotonic() < deadline:
                    states = start.evaluate("window.__pcStates || []")
                    if "connected" in states and _frames_seen(frames) > 0:
                        break
                    time.sleep(0.5)
            finally:
                browser.close()
    assert "connected" in states, states
    assert _frames_seen(frames) > 0


def _start_frame(page, deadline: float):
    """The (i)frame that shows the webrtc component's START button, once it does; None by the deadline."""
    while time.monotonic() < deadline:
        for f in page.frames:
            if f.locator("button:has-text('START')").count():
                return f
        time.sleep(0.5)
    return None


def _frames_seen(path: Path) -> int:
    return int(path.read_text()) if path.exists() else 0
