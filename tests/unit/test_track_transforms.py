"""Where a frame of a track lands once the track is transformed: the metamorphic benchmark and tests compare
releases through it."""

from __future__ import annotations

from coach.pose_frame import PoseFrame, PoseTrack
from coach.track_transforms import at_half_rate, clip, half_rate


def test_a_frame_lands_on_the_first_frame_half_rate_keeps_at_or_after_it() -> None:
    track = PoseTrack(30.0, 640, 480, [PoseFrame(i, i * 1000 / 30, None, None) for i in range(12)])
    kept = half_rate(track).frames
    origin = {f.index: round(f.t_ms * 30 / 1000) for f in kept}  # output frame -> the input frame it shows
    for r in range(11):
        first = min(k for k, i in origin.items() if i >= r)
        assert at_half_rate(r) == first, (r, first)


def test_the_odd_half_lands_a_frame_on_the_first_odd_frame_at_or_after_it() -> None:
    track = PoseTrack(30.0, 640, 480, [PoseFrame(i, i * 1000 / 30, None, None) for i in range(12)])
    kept = half_rate(track, odd=True).frames
    origin = {f.index: round(f.t_ms * 30 / 1000) for f in kept}
    assert sorted(origin.values()) == [1, 3, 5, 7, 9, 11]
    for r in range(1, 12):
        first = min(k for k, i in origin.items() if i >= r)
        assert at_half_rate(r, odd=True) == first, (r, first)


def test_a_clip_cut_from_a_track_starts_at_frame_0_and_time_0() -> None:
    track = PoseTrack(25.0, 640, 480, [PoseFrame(i, 3.0 + i * 40.0, None, None) for i in range(20)])
    cut = clip(track, 5, 9)
    assert [f.index for f in cut.frames] == [0, 1, 2, 3, 4]
    assert [f.t_ms for f in cut.frames] == [0.0, 40.0, 80.0, 120.0, 160.0]
    assert [f.index for f in track.frames][:6] == [0, 1, 2, 3, 4, 5]  # the input untouched


def _points(track: PoseTrack):
    import numpy as np

    return np.array([f.landmarks[:, :2] for f in track.frames if f.landmarks is not None])


def test_a_rolled_camera_keeps_the_body_s_proportions_and_rolls_back() -> None:
    import numpy as np

    from coach.track_transforms import tilt
    from tests.unit.phases.test_phases import ShotPlan, make_track

    track = make_track([ShotPlan(raise_start=30, draw_start=55, anchor=85, release=160)], 200)
    px = np.array([track.width, track.height])
    rolled = tilt(track, 8.0)
    a, b = _points(track) * px, _points(rolled) * px
    dist = lambda p: np.hypot(*(p[:, 11] - p[:, 16]).T)  # noqa: E731  (left shoulder to right wrist)
    assert np.allclose(dist(a), dist(b)) and not np.allclose(a, b)
    assert np.allclose(_points(tilt(rolled, -8.0)), _points(track))


def test_a_panning_or_zooming_camera_moves_no_release() -> None:
    """The analysis is body-relative: the whole picture moving or growing is not the archer moving. The anchor
    may move a frame under a zoom: the body unit (the shoulders' upper quartile over 3 s) lags it."""
    from coach.track_transforms import pan, zoom
    from tests.unit.phases.test_phases import ShotPlan, make_track, run

    plan = ShotPlan(raise_start=30, draw_start=55, anchor=85, release=160)
    track = make_track([plan], 260)
    (still,) = run(track)
    for moved in (pan(track, 0.1, 2.0), zoom(track, 1.3), zoom(track, 0.7)):
        (shot,) = run(moved)
        assert shot.release_frame == still.release_frame, moved.source
        assert abs(shot.anchor_frame - still.anchor_frame) <= 1, moved.source


def test_a_noisier_pose_is_seeded_and_leaves_the_track_as_it_was() -> None:
    import numpy as np

    from coach.track_transforms import dropouts, jitter, repeated
    from tests.unit.phases.test_phases import SW_PX, ShotPlan, make_track

    track = make_track([ShotPlan(raise_start=30, draw_start=55, anchor=85, release=160)], 200, noise_px=0.0)
    before = _points(track).copy()
    px = np.array([track.width, track.height])
    moved = (_points(jitter(track, 0.02, 1)) - before) * px / SW_PX  # in shoulder widths
    assert abs(float(moved.std()) - 0.02) < 0.002 and np.allclose(
        _points(jitter(track, 0.02, 1)), before + moved * SW_PX / px
    )
    assert not np.allclose(_points(jitter(track, 0.02, 2)), before + moved * SW_PX / px)
    lost = sum(f.landmarks is None for f in dropouts(track, 0.05, 1).frames)
    assert 3 <= lost <= 20 and len(dropouts(track, 0.05, 1).frames) == len(track.frames)
    again = repeated(track, 5).frames
    assert all(np.array_equal(again[i].landmarks, track.frames[i - 1].landmarks) for i in range(5, 200, 5))
    assert np.array_equal(again[6].landmarks, track.frames[6].landmarks)
    assert np.array_equal(_points(track), before)  # the input untouched


def test_frames_taken_unevenly_keep_their_order_and_show_the_archer_where_they_were_then() -> None:
    """`uneven_times`: each frame moved up to a share of the interval, its points interpolated to that time."""
    import numpy as np

    from coach.track_transforms import uneven_times

    def at(i: int) -> np.ndarray:
        lm = np.zeros((33, 4))
        lm[:, 0] = 0.01 * i  # every point moving right at 0.01 of the picture a frame
        lm[:, 3] = 1.0
        return lm

    track = PoseTrack(30.0, 640, 480, [PoseFrame(i, i * 1000 / 30, at(i), None) for i in range(40)])
    moved = uneven_times(track, 0.25, 3).frames
    times = [f.t_ms for f in moved]
    assert times == sorted(times) and any(abs(t - i * 1000 / 30) > 1.0 for i, t in enumerate(times))
    assert all(abs(t - i * 1000 / 30) <= 0.25 * 1000 / 30 + 1e-9 for i, t in enumerate(times))
    for f in moved[1:-1]:  # where the archer was at the frame's own time
        assert abs(f.landmarks[0, 0] - 0.01 * f.t_ms * 30 / 1000) < 1e-9


def test_a_passer_by_hides_exactly_the_frames_asked_and_leaves_the_track_as_it_was() -> None:
    import numpy as np

    from coach.track_transforms import hidden

    track = PoseTrack(30.0, 640, 480, [PoseFrame(i, i * 1000 / 30, np.zeros((33, 4)), None) for i in range(10)])
    out = hidden(track, 3, 5)
    assert [f.index for f in out.frames if f.landmarks is None] == [3, 4, 5]
    assert [f.t_ms for f in out.frames] == [f.t_ms for f in track.frames]
    assert all(f.landmarks is not None for f in track.frames)
