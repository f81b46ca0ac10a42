"""The bow arm's fall as release evidence (`release._deepest_drop`): read on its second-deepest frame, so that one
frame the pose misread does not count, but on its deepest where the frames lie far apart (12-15 fps: a GIF, a
cheap camera), where a fall held up again within ~0.1 s shows on one frame only."""

from __future__ import annotations

import numpy as np
import pytest

from coach.phases.frames import TrackFrame
from coach.phases.release import _deepest_drop

NAN2 = np.full(2, np.nan)
FALL = 0.2  # U below the hold's bow wrist height


def _window(fps: float, ys: list[float]) -> list[TrackFrame]:
    """Consecutive frames at `fps` whose bow (left) wrist is at height ys[i] (U, down positive)."""
    out = []
    for i, y in enumerate(ys):
        bow = np.array([1.5, y])
        out.append(TrackFrame(i, i / fps, bow, NAN2, NAN2, np.full((5, 2), np.nan), bow, NAN2))
    return out


@pytest.mark.parametrize("fps", [25.0, 30.0, 60.0])
def test_one_frame_fallen_at_a_video_rate_is_a_misread(fps: float) -> None:
    assert _deepest_drop(_window(fps, [0.0, 0.01, FALL, 0.0, 0.0]), "right", 0.0) == pytest.approx(0.01)


@pytest.mark.parametrize("fps", [12.5, 14.0, 15.0])
def test_one_frame_fallen_at_a_low_rate_is_the_fall(fps: float) -> None:
    assert _deepest_drop(_window(fps, [0.0, 0.01, FALL, 0.0, 0.0]), "right", 0.0) == pytest.approx(FALL)


def test_a_fall_over_frames_reads_the_same_at_any_rate() -> None:
    ys = [0.0, FALL * 0.8, FALL, FALL * 0.9, 0.1]
    assert _deepest_drop(_window(30.0, ys), "right", 0.0) == pytest.approx(FALL * 0.9)
    assert _deepest_drop(_window(12.5, ys), "right", 0.0) == pytest.approx(FALL)
