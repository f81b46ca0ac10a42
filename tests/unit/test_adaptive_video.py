"""Adaptive analysis decodes no more than needed (coach/adaptive_video.py, issue #17), on a real H.264 file: while
sampling, the frames nothing refers to are left undecoded, yet every frame keeps OpenCV's number and time; a
frame left out comes back, pixel for pixel, from the look-back's own decoder."""

from __future__ import annotations

import numpy as np
import pytest

from coach.adaptive_video import LookBack, decoded_frames
from coach.capture import FrameSource
from tests.support.paths import SAMPLES

CLIP = SAMPLES / "clean_rh_3shots.mp4"


@pytest.fixture(scope="module")
def straight() -> list[tuple[int, float]]:
    """Every frame's number and time as OpenCV reads them (the full-rate path)."""
    if not CLIP.is_file():
        pytest.skip(f"{CLIP} not present")
    with FrameSource(CLIP) as src:
        return [(f.index, f.t_ms) for f in src]


def test_frames_left_undecoded_keep_their_numbers_and_times(straight) -> None:
    fps = FrameSource(CLIP).fps
    wanted = set(range(0, len(straight), 10))
    got = list(decoded_frames(CLIP, fps, lambda n: n in wanted))
    assert [d.index for d in got] == [i for i, _ in straight]
    assert np.allclose([d.t_ms for d in got], [t for _, t in straight], atol=0.5)
    pictures = {d.index for d in got if d.frame is not None}
    assert wanted <= pictures  # every frame a sample falls on is decoded …
    assert len(pictures) < 0.8 * len(straight)  # … and many others are not


def test_the_look_back_gives_back_the_same_pixels(straight) -> None:
    fps = FrameSource(CLIP).fps
    left_out = [d for d in decoded_frames(CLIP, fps, lambda n: n % 10 == 0) if d.frame is None]
    assert left_out
    look_back = LookBack(CLIP)
    try:
        # a run of frames (decoded forward), then one behind it (a seek back to its keyframe)
        asked = left_out[20:30] + left_out[3:4]
        numbers = {d.index for d in asked}
        ref = {d.index: d.frame.to_ndarray(format="bgr24") for d in decoded_frames(CLIP, fps) if d.index in numbers}
        for d in asked:
            whole = look_back.picture(d)
            assert whole.frame is not None, d.index
            # the same picture as a straight decode of the file gives
            assert np.array_equal(whole.frame.to_ndarray(format="bgr24"), ref[d.index])
        assert look_back.seeks >= 2
    finally:
        look_back.close()
