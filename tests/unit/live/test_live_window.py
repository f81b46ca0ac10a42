"""The live window read from the shooting line (issue 15, item 15): the window fills most of the screen at the
source's aspect (or full screen), and the cue, the fault and the phase are drawn in type at least 1/20 of the
frame's height, the cue first. Screenshots in test-output/ (the real window under Xvfb where it is installed)."""

import os
import re
import shutil
import subprocess
import sys
import time

import numpy as np
import pytest

from coach.live.session import LiveFrame, Tally
from coach.live.view import LiveView, window_size
from tests.support.paths import ROOT, SAMPLES
from tests.unit.live.test_live_units import PACK, _result


def test_the_window_fills_most_of_the_screen_at_the_frames_aspect():
    w, h = window_size(960, 540, (1920, 1080))
    assert (w, h) == (1728, 972) and w >= 0.85 * 1920
    w, h = window_size(640, 480, (1280, 1024))
    assert abs(w / h - 640 / 480) < 0.01 and w >= 0.85 * 1280


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_cue_fault_and_phase_are_big_and_the_cue_comes_first(lang, output_dir, monkeypatch):
    import cv2

    view = LiveView(PACK, lang)
    img = np.full((540, 960, 3), 90, np.uint8)
    drawn = []
    put = view.overlay.text.put

    def spy(image, text, org, px, colour=(255, 255, 255)):
        drawn.append((text, org[1], px))
        return put(image, text, org, px, colour)

    monkeypatch.setattr(view.overlay.text, "put", spy)
    lf = LiveFrame(img, _result(120, ("cup_of_water",)), ("cup_of_water",), 0.0, 0.01, 1)
    out = view.compose(lf, Tally(), now=0.5)
    rule = PACK.by_id["cup_of_water"]
    cue = rule.cue_zh if lang == "zh" else rule.cue_en
    name = rule.name_zh if lang == "zh" else rule.name_en
    phase = "審固" if lang == "zh" else "hold"
    by_text = {t: (y, px) for t, y, px in drawn}
    (cue_y, cue_px), (name_y, name_px), (phase_y, phase_px) = (
        by_text[f"→ {cue}"],
        by_text[f"× {name}"],
        by_text[phase],
    )
    H = img.shape[0]
    assert min(cue_px, name_px, phase_px) >= H / 20
    assert cue_y < name_y < phase_y  # the cue first
    cv2.imwrite(str(output_dir / f"live_window_{lang}.png"), out)


def _grab(display: str):
    """The X screen as a BGR image (PyAV's x11grab)."""
    import av

    with av.open(display, format="x11grab", options={"video_size": "1920x1080"}) as c:
        frame = next(c.decode(video=0))
        return frame.to_ndarray(format="bgr24")


@pytest.mark.e2e
def test_the_window_under_xvfb(output_dir):
    import cv2

    xvfb = shutil.which("Xvfb")
    clip = SAMPLES / "short_1shot.mp4"
    if xvfb is None or shutil.which("xwininfo") is None:
        pytest.skip("needs Xvfb and xwininfo (apt-get install xvfb x11-utils)")
    if not clip.is_file():
        pytest.skip(f"{clip} is missing")
    # A free display chosen by Xvfb itself (-displayfd): a fixed one may be taken by another run on this machine.
    read_fd, write_fd = os.pipe()
    server = subprocess.Popen(
        [xvfb, "-displayfd", str(write_fd), "-screen", "0", "1920x1080x24"],
        stderr=subprocess.DEVNULL,
        pass_fds=(write_fd,),
    )
    os.close(write_fd)
    live = None
    try:
        with os.fdopen(read_fd) as ready:
            display = f":{ready.readline().strip()}"
        env = {**os.environ, "DISPLAY": display}
        cmd = [sys.executable, "-m", "coach", "live", "--source", str(clip), "--no-sound", "--max-seconds", "20"]
        live = subprocess.Popen(cmd, env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        # Until the window has grown to fill the screen: under load it first shows at its opening size.
        widths: list[int] = []
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not (widths and max(widths) >= 0.85 * 1920):
            time.sleep(1.0)
            tree = subprocess.run(["xwininfo", "-root", "-tree"], env=env, capture_output=True, text=True).stdout
            widths = [int(w) for w, h in re.findall(r"(\d+)x(\d+)\+", tree) if int(w) > 100 and int(w) < 1920]
        time.sleep(3)  # a few analysed frames in the window
        cv2.imwrite(str(output_dir / "live_window_xvfb.png"), _grab(display))
        assert widths and max(widths) >= 0.85 * 1920, widths
    finally:
        if live is not None:
            live.terminate()
            live.wait(timeout=30)
        server.terminate()
