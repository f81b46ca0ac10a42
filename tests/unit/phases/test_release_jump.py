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
    buf = [_frame(i, i / fps, d, d) for i, d in enumerate(dists)]
    return buf, list(enumerate(dists))


def _frame(i: int, t: float, smoothed: float, raw: float) -> TrackFrame:
    """Frame i with the draw hand `smoothed` and `raw` U straight back from the anchor (raw NaN: not seen)."""
    return TrackFrame(
        i, t, NAN2, np.array([-smoothed, 0.0]), NAN2, np.full((5, 2), np.nan), NAN2, np.array([-raw, 0.0])
    )


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


def _lagging(raw: float) -> tuple[list[TrackFrame], list[tuple[int, float]]]:
    """A release whose smoothed points read the hand near the anchor for its first 4 frames (0.13 s); its raw
    points there are `raw` U from it."""
    smooth = [NEAR] * 4 + [AWAY] * 6
    buf = [_frame(i, i / 30.0, s, raw if i < 4 else s) for i, s in enumerate(smooth)]
    return buf, list(enumerate(smooth))


def test_smoothed_points_lagging_a_release_are_not_the_hand_back_at_the_anchor() -> None:
    buf, ds = _lagging(raw=AWAY)  # the smoothing lags the flying hand
    assert _jump(buf, SHOT, ds, THR) == 0
    buf, ds = _lagging(raw=NEAR)  # near on its raw points too: the hand was back, and left after
    assert _jump(buf, SHOT, ds, THR) == 4


def test_frames_the_pose_lost_are_no_look_at_the_hand_back_at_the_anchor() -> None:
    # The long session's shot 9 read adaptively: the first frame away on its raw point, then two read near the
    # face and one lost, the smoothed point held near where it was: 0.067 s seen near, not the 0.1 s of a hand back.
    buf, ds = _lagging(raw=NEAR)
    buf[0].raw_rw = np.array([-AWAY, 0.0])
    buf[3].raw_rw = NAN2
    assert _jump(buf, SHOT, ds, THR) == 0
    buf[3].raw_rw = np.array([-NEAR, 0.0])  # the third frame seen near too: the hand was back for 0.1 s
    assert _jump(buf, SHOT, ds, THR) == 4
