"""Where the hand left the anchor for good (`release_onset._jump`): near frames inside the run away from the
anchor are the hand back at it only when they last P.release_near_run_s, whatever the frame rate."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from coach.phases.frames import TrackFrame
from coach.phases.params import P
from coach.phases.release_onset import _jump

NAN2 = np.full(2, np.nan)
THR = 0.35  # the confirmation distance: under half of it a frame is near the anchor
AWAY, NEAR = 0.3, 0.05


def _window(fps: float, near_frames: int) -> tuple[list[TrackFrame], list[tuple[int, float]]]:
    """A confirmation window: the hand away for 3 frames, back near the anchor for `near_frames`, away again."""
    dists = [AWAY] * 3 + [NEAR] * near_frames + [AWAY] * 6
    buf = [TrackFrame(i, i / fps, NAN2, NAN2, NAN2, np.full((5, 2), np.nan), NAN2, NAN2) for i in range(len(dists))]
    return buf, list(enumerate(dists))


SHOT = SimpleNamespace(cand=SimpleNamespace(back=None, ref=np.zeros(2)), handedness="right")


def test_two_frames_near_at_30_fps_are_the_hand_passing_not_back_at_the_anchor() -> None:
    buf, ds = _window(30.0, 2)  # 67 ms near (real07: the hand lingering by the chin after the string left)
    assert _jump(buf, SHOT, ds, THR) == 0


def test_near_for_the_run_s_time_is_the_hand_back_at_any_rate() -> None:
    for fps in (15.0, 30.0, 60.0):
        n = int(np.ceil(P.release_near_run_s * fps - 1e-9))
        buf, ds = _window(fps, n)
        assert _jump(buf, SHOT, ds, THR) == 3 + n, fps  # the release is the departure after it
        buf, ds = _window(fps, n - 1)
        assert _jump(buf, SHOT, ds, THR) == 0, fps


def _lagging(raw_away: bool) -> tuple[list[TrackFrame], list[tuple[int, float]]]:
    """A release whose smoothed points lag: they read the hand near the anchor for 4 frames (0.13 s) after the
    window opened; its raw points are already `AWAY` there, or still `NEAR` (the hand back at the anchor)."""
    smooth = [NEAR] * 4 + [AWAY] * 6
    raw = [AWAY if raw_away else NEAR] * 4 + [AWAY] * 6
    buf = []
    for i, (s, r) in enumerate(zip(smooth, raw)):
        buf.append(
            TrackFrame(i, i / 30.0, NAN2, np.array([-s, 0.0]), NAN2, np.full((5, 2), np.nan), NAN2, np.array([-r, 0.0]))
        )
    return buf, [(i, s) for i, s in enumerate(smooth)]


def test_smoothed_points_lagging_a_release_are_not_the_hand_back_at_the_anchor() -> None:
    buf, ds = _lagging(raw_away=True)
    assert _jump(buf, SHOT, ds, THR) == 0  # the long session's shot 9 read adaptively: 4 frames late, uncertain
    buf, ds = _lagging(raw_away=False)
    assert _jump(buf, SHOT, ds, THR) == 4  # near on its raw points too: the hand was back, it left after
