"""What the frame player's tests share: a video whose every frame shows its own number as a bar code (so a test
reads which frame the browser really has on screen, not only what the player says), sessions recorded from the
real pose tracks of tests/golden (no model run) with such a video as their annotated video, and the page helpers
that read a player's frame and the bar code."""

from __future__ import annotations

import os
import time
from pathlib import Path

import numpy as np

from coach.pipeline import analyze_track
from coach.pose_frame import load_posetrack
from coach.recording import SessionRecorder
from coach.store import Store, StoredShot, VideoFrameGrabber
from posture_rules.pack import Profile, load_pack
from tests.support.paths import GOLDEN  # noqa: F401  (the tests import it from here)

BITS = 11  # frames 0 … 2047
CODE_W, CODE_H = 352, 96  # 32 px a bit

# draws the video's current frame on a canvas and reads its bar code (bit k: stripe k white)
READ_CODE_JS = f"""v => {{
  const c = document.createElement('canvas');
  c.width = v.videoWidth; c.height = v.videoHeight;
  const g = c.getContext('2d');
  g.drawImage(v, 0, 0);
  let n = 0;
  for (let b = 0; b < {BITS}; b++) {{
    const x = Math.floor((b + 0.5) * c.width / {BITS});
    const p = g.getImageData(x, Math.floor(c.height / 2), 1, 1).data;
    if (p[0] > 128) n |= (1 << b);
  }}
  return n;
}}"""


def coded_video(path: Path, n: int, fps: float) -> Path:
    """An H.264 video of `n` frames, each showing its index as BITS black/white stripes."""
    from coach.video_io import VideoWriter

    stripe = CODE_W // BITS
    with VideoWriter(path, CODE_W, CODE_H, fps, crf=12, preset="ultrafast") as w:
        img = np.zeros((CODE_H, CODE_W, 3), np.uint8)
        for k in range(n):
            img[:] = 0
            for b in range(BITS):
                if k >> b & 1:
                    img[:, b * stripe : (b + 1) * stripe] = 255
            w.write(img)
    return path


def record_track(db: Path, media: Path, archer: str, clip: str, annotated: bool = True) -> tuple[int, list[StoredShot]]:
    """Record the golden pose track of `clip` as a session, its pose track kept as the dashboard keeps it (key
    frames and their poses from a coded video of
    the track's length, which becomes the session's annotated video, or with `annotated=False` its original
    video); returns its id and stored shots."""
    track_path = GOLDEN / f"{clip}.pose.json.gz"
    track = load_posetrack(track_path)
    media.mkdir(parents=True, exist_ok=True)
    video = coded_video(media / f"{clip}.coded.mp4", len(track.frames), track.fps)
    pack = load_pack()
    profile = Profile()
    with Store.open(db) as store:
        source = track_path if annotated else video
        rec = SessionRecorder(store, archer, source, pack, profile, grabber=VideoFrameGrabber(video))
        try:
            report = analyze_track(track_path, pack=pack, profile=profile, on_shot=[rec.on_shot], on_pose=[rec.on_pose])
            rec.finish(report)
        finally:
            rec.close()
        sid = rec.sid
        shots = store.shots(sid)
    if annotated:
        drawn = media / f"session-{sid}.mp4"
        video.replace(drawn)
        os.utime(drawn)  # drawn "after" the analysis, as the dashboard does: not stale
    return sid, shots


def wait_frame(readout, expected: int, timeout_s: float = 30.0) -> int:
    """Wait until the player's readout shows `expected`; the frame it shows last. Every read is bounded by what
    is left of the one deadline (a missing readout would otherwise wait Playwright's 30 s on each read)."""
    deadline = time.monotonic() + timeout_s
    shown = None
    while True:
        left_ms = (deadline - time.monotonic()) * 1000
        if left_ms <= 0:
            return int(shown) if shown is not None else -1
        shown = readout.get_attribute("data-frame", timeout=left_ms)
        if shown is not None and int(shown) == expected:
            return expected
        time.sleep(0.1)


def wait_video_ready(video, timeout_s: float = 120.0) -> None:
    """Wait until the `video` locator's element has its current frame decoded (readyState ≥ 2), polling with a
    deadline; the locator finds the element afresh on every poll. A promise on one element's `loadeddata` had
    no deadline at all, and hung the test for good whenever that element was dropped or its load started over
    before the event."""
    deadline = time.monotonic() + timeout_s
    state = None
    while time.monotonic() < deadline:
        state = video.evaluate("v => v.readyState", timeout=max(1.0, (deadline - time.monotonic()) * 1000))
        if state >= 2:
            return
        time.sleep(0.1)
    raise AssertionError(f"the video has no frame to show after {timeout_s:.0f} s (readyState {state})")


def wait_moved(readout, past: int, timeout_s: float = 60.0) -> int:
    """Wait until a playing player's readout is beyond frame `past`; the frame it shows then (or last)."""
    deadline = time.monotonic() + timeout_s
    shown = past
    while time.monotonic() < deadline:
        shown = int(readout.get_attribute("data-frame", timeout=(deadline - time.monotonic()) * 1000 + 1))
        if shown > past:
            break
        time.sleep(0.05)
    return shown


def on_screen(video) -> int:
    """The frame the browser has on screen, read from the bar code."""
    return int(video.evaluate(READ_CODE_JS))


def settled_on_screen(video, expected: int, timeout_s: float = 5.0) -> int:
    """The frame on screen once it is `expected`, or the last read after `timeout_s`. A paused seek's frame is
    painted a moment after the player names it: where the browser's frame callback is late (a loaded machine),
    the player trusts its seek's target after 0.2 s (player.js), and the picture catches up."""
    deadline = time.monotonic() + timeout_s
    screen = on_screen(video)
    while screen != expected and time.monotonic() < deadline:
        time.sleep(0.05)
        screen = on_screen(video)
    return screen
