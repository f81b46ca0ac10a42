"""The browser camera path the dashboard's Live page uses: streamlit-webrtc in headless Chromium with a .y4m fake
camera reaches `connected` and the server receives frames, all on loopback (docs/webrtc-findings.md).

Each step waits on its own condition with its own deadline (the server's health check, the START button, the
connection and the first frames): on a busy machine the server's start-up alone used to eat the deadline that
the START button was then given.

When no frame reaches the server, the failure says which stage stalled (`stalled_stage`): the browser's camera
track produced no frames, the browser sent frames the server never returned (ICE/SRTP, aiortc's receiver or
decoder), the server returned frames but the frame callback never ran (streamlit-webrtc's processing thread), or
the connection was closed; with the browser's WebRTC stats, the peer connection's states and the server's
streamlit_webrtc/aioice log (debug for streamlit_webrtc: its worker teardown is logged only there)."""

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
import logging
import os
import streamlit as st
from streamlit_webrtc import WebRtcMode, webrtc_streamer
from coach.live.webrtc import RTC_CONFIGURATION, enable_loopback_candidates

OUT = os.environ["FRAMES_OUT"]
LOG = OUT + ".log"
for name, level in (("streamlit_webrtc", logging.DEBUG), ("aioice", logging.INFO), ("aiortc", logging.INFO)):
    logger = logging.getLogger(name)  # the script reruns: one handler per logger
    if not any(getattr(h, "baseFilename", None) == os.path.abspath(LOG) for h in logger.handlers):
        handler = logging.FileHandler(LOG)
        handler.setFormatter(logging.Formatter("%(asctime)s %(threadName)s %(name)s %(levelname)s %(message)s"))
        logger.addHandler(handler)
        logger.setLevel(level)

enable_loopback_candidates(only=True)
count = [0]

def on_frame(frame):
    count[0] += 1
    if count[0] == 1 or count[0] % 30 == 0:  # the first frame at once, then now and then: not a file per frame
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
  window.__pcs = [];
  window.RTCPeerConnection = function (...a) {
    const pc = new Orig(...a);
    window.__pcs.push(pc);
    pc.addEventListener('connectionstatechange', () => window.__pcStates.push(pc.connectionState));
    return pc;
  };
  window.RTCPeerConnection.prototype = Orig.prototype;
})();
"""

# Each peer connection's video stats, as stages: the camera's frames (media-source), what the browser encoded and
# sent (outbound-rtp), whether the server reported receiving it (remote-inbound-rtp: aiortc's RTCP receiver
# reports), and the frames the server sent back (inbound-rtp: with async processing streamlit-webrtc returns each
# frame it received, processed or not, so these count frames the server received and decoded).
PC_STATS = """
async () => {
  const out = [];
  for (const pc of (window.__pcs || [])) {
    const r = {state: pc.connectionState, ice: pc.iceConnectionState};
    (await pc.getStats()).forEach(s => {
      if (s.kind !== 'video' && s.mediaType !== 'video') return;
      if (s.type === 'media-source') r.camera_frames = s.frames;
      if (s.type === 'outbound-rtp') Object.assign(r, {encoded: s.framesEncoded, sent: s.framesSent,
                                                       packets_sent: s.packetsSent});
      if (s.type === 'remote-inbound-rtp') Object.assign(r, {server_reports: true, server_lost: s.packetsLost});
      if (s.type === 'inbound-rtp') Object.assign(r, {returned: s.framesDecoded, packets_returned: s.packetsReceived});
    });
    out.push(r);
  }
  return out;
}
"""


def stalled_stage(states: list[str], pcs: list[dict], server_frames: int) -> str:
    """Which stage of browser camera → server callback stalled, in one line, from the browser's peer connection
    states and video stats (PC_STATS) and the frames the server's callback counted."""
    if server_frames > 0 and "connected" in states:
        return f"none: {server_frames} frames reached the server's callback"
    if "connected" not in states:
        return f"the peer connection never reached `connected` (states {states})"
    pc = pcs[-1] if pcs else {}
    if "state" not in pc:
        return f"unknown: connected, no frame at the server, and no WebRTC stats from the browser ({pc})"
    ended = pc.get("state") in ("closed", "failed", "disconnected")
    closed = f"; the connection then went `{pc.get('state')}` (ICE `{pc.get('ice')}`)" if ended else ""
    if not pc.get("camera_frames") and not pc.get("encoded"):
        return f"the browser's camera track produced no frames{closed} {pc}"
    if not pc.get("sent"):
        return f"the browser's camera produced frames but it sent none{closed} {pc}"
    if not pc.get("returned"):
        got = "the server reported receiving RTP" if pc.get("server_reports") else "no receiver report from the server"
        return (
            f"the browser sent {pc.get('sent')} frames, the server returned none ({got}): aiortc's receiver, "
            f"decoder or output track stalled{closed} {pc}"
        )
    return (
        f"the server received and returned {pc.get('returned')} frames but the frame callback never ran "
        f"(streamlit-webrtc's processing thread){closed} {pc}"
    )


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
                states: list[str] = []
                pcs: list[dict] = []
                for attempt in range(START_ATTEMPTS):
                    states = _connect(start, frames, time.monotonic() + 180)
                    if _frames_seen(frames) > 0 or attempt + 1 == START_ATTEMPTS:
                        break
                try:
                    pcs = start.evaluate(PC_STATS)
                except Exception as e:  # the component's frame gone: the failure still says what it can
                    pcs = [{"stats": f"unavailable: {e}"}]
            finally:
                browser.close()
        server_log = _tail(Path(f"{frames}.log"), skip=("Adding ICE candidate", "Setting ICE candidates"))
    seen = _frames_seen(frames)
    if "connected" not in states or seen == 0:
        raise AssertionError(
            f"no frame reached the server: stalled at {stalled_stage(states, pcs, seen)}\n"
            f"--- server webrtc log ---\n{server_log}\n--- streamlit log ---\n{_tail(tmp_path / 'streamlit.log')}"
        )


# streamlit-webrtc may reset its worker in a rerun that lands while the SDP answer is on its way ("Context for
# key=cam was not rendered for 1 script runs; resetting stale state" in the server log, then the connection
# closed before any frame): a race of the component's own, seen in a freshly installed clone, which a user meets
# as a START that stops at once and answers by pressing START again. The test does the same, once.
START_ATTEMPTS = 2


def _connect(start, frames: Path, deadline: float) -> list[str]:
    """Press START (its button shown again after a connection that closed) and wait until the first frames reach
    the server's callback, or the connection is over; the peer connection's states on the way."""
    start.evaluate("window.__pcStates = []")
    start.locator("button:has-text('START')").click(timeout=60_000)
    states: list[str] = []
    while time.monotonic() < deadline:
        states = start.evaluate("window.__pcStates || []")
        if "connected" in states and _frames_seen(frames) > 0:
            break
        if "connected" in states and states[-1] in ("closed", "failed"):
            break  # over: no frame will come on this connection
        time.sleep(0.5)
    return states


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


def _tail(path: Path, n: int = 4000, skip: tuple[str, ...] = ()) -> str:
    """The end of a log, without the lines that say `skip` (the browser's long candidate lines would push the
    server's stages, track received and output added, out of the tail)."""
    if not path.exists():
        return f"({path.name}: none)"
    lines = path.read_text(errors="replace").splitlines()
    return "\n".join(line for line in lines if not any(s in line for s in skip))[-n:]
