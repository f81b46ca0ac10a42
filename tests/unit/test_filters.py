import numpy as np
import pytest

from coach.filters import CenteredSmoother, OneEuroFilter, interpolate_gaps, smooth_track, zero_phase


def _noisy_sine(n=300, fps=30.0, seed=0):
    rng = np.random.default_rng(seed)
    t = np.arange(n) / fps
    clean = np.sin(2 * np.pi * 0.5 * t)
    return t, clean, clean + rng.normal(0, 0.05, n)


def test_one_euro_reduces_jitter_at_rest_and_follows_fast_moves():
    rng = np.random.default_rng(0)
    t = np.arange(300) / 30.0
    still = 1.0 + rng.normal(0, 0.05, 300)
    f = OneEuroFilter(min_cutoff=1.0, beta=0.0)
    out = np.array([f(np.array([x]), ti)[0] for x, ti in zip(still, t)])
    assert np.std(out[30:]) < 0.4 * np.std(still[30:])
    # a step (a release): with beta the filter catches up within a few frames, without it it lags
    step = np.where(t < 5, 0.0, 10.0)
    lags = {}
    for beta in (0.0, 1.0):
        f = OneEuroFilter(min_cutoff=1.0, beta=beta)
        out = np.array([f(np.array([x]), ti)[0] for x, ti in zip(step, t)])
        lags[beta] = int(np.argmax(out > 9.0)) - 150
    assert lags[1.0] < lags[0.0] and lags[1.0] <= 3


def test_one_euro_is_causal():
    t, clean, noisy = _noisy_sine()
    f = OneEuroFilter(min_cutoff=1.0, beta=0.0)
    out = np.array([f(np.array([x]), ti)[0] for x, ti in zip(noisy, t)])
    # causal: changing the future does not change the past
    f2 = OneEuroFilter(min_cutoff=1.0, beta=0.0)
    noisy2 = noisy.copy()
    noisy2[200:] += 5
    out2 = np.array([f2(np.array([x]), ti)[0] for x, ti in zip(noisy2, t)])
    assert np.array_equal(out[:200], out2[:200])


def test_one_euro_passes_nan_and_recovers():
    f = OneEuroFilter()
    f(np.array([1.0, 2.0]), 0.0)
    out = f(np.array([np.nan, 2.0]), 0.033)
    assert np.isnan(out[0]) and out[1] == pytest.approx(2.0)
    out = f(np.array([5.0, 2.0]), 0.066)
    assert out[0] == pytest.approx(5.0)  # restarts at the new value rather than dragging from the old one


def test_zero_phase_has_no_lag():
    t, clean, noisy = _noisy_sine()
    out = zero_phase(noisy, 30.0, cutoff_hz=3.0)
    lag = np.argmax(np.correlate(out - out.mean(), clean - clean.mean(), "full")) - (len(t) - 1)
    assert lag == 0
    assert np.std(out - clean) < 0.5 * np.std(noisy - clean)


def test_centered_smoother_streams_with_zero_lag():
    t, clean, noisy = _noisy_sine()
    s = CenteredSmoother(30.0, sigma_s=0.06)
    out = [y for x in noisy if (y := s.push(np.array([x]))) is not None]
    out += s.flush()
    out = np.array(out)[:, 0]
    assert len(out) == len(noisy)
    lag = np.argmax(np.correlate(out - out.mean(), clean - clean.mean(), "full")) - (len(t) - 1)
    assert lag == 0
    assert np.std(out - clean) < 0.6 * np.std(noisy - clean)


def test_short_gaps_are_interpolated_long_gaps_stay():
    t_ms = np.arange(100) * 1000 / 30
    x = np.linspace(0, 10, 100)
    x[10:13] = np.nan  # 0.1 s gap
    x[50:80] = np.nan  # 1 s gap
    out = interpolate_gaps(x, t_ms)
    assert np.allclose(out[10:13], np.linspace(0, 10, 100)[10:13])
    assert np.isnan(out[50:80]).all()


def test_smooth_track_by_name():
    xy = np.random.default_rng(1).normal(size=(60, 33, 2))
    t = np.arange(60) * 33.3
    for name in ("zero-phase", "one-euro", "none"):
        assert smooth_track(xy, t, 30.0, name).shape == xy.shape
    with pytest.raises(KeyError):
        smooth_track(xy, t, 30.0, "kalman")


def _despike(track: list[float], k: int = 3) -> list[float]:
    from coach.filters import Despiker

    d = Despiker(k=k, spike=0.3)
    out = []
    for x in track:
        r = d.push(np.array([[x, 0.0]]), 1.0)
        if r is not None:
            out.append(float(r[0, 0]))
    return out + [float(r[0, 0]) for r in d.flush()]


def test_despiker_takes_out_a_jump_that_comes_back():
    out = _despike([0.0] * 10 + [2.0, 2.0] + [0.0] * 10)
    assert max(out) == 0.0 and len(out) == 22


def test_despiker_keeps_a_move_at_the_end_of_the_video():
    """A release three frames before the clip ends cannot be seen to come back: it is not a spike."""
    out = _despike([0.0] * 10 + [1.0, 2.0, 3.0])
    assert out[-3:] == [1.0, 2.0, 3.0]


def test_despiker_keeps_a_flight_with_a_glitch_beside_it():
    """At 15 fps a frame of the release's flight may have a glitch for a neighbour (fault_hold at half rate): it is
    not the window's median, but it lies on the window's line, so it stays; the glitch, off the line, goes."""
    track = [0.0] * 10 + [0.3, 0.9, 0.2, 2.1, 2.7, 3.3, 3.9]
    out = _despike(track, k=2)
    assert out[11] == 0.9
    assert out[12] == 0.9  # the glitch, replaced by the median of its window
    assert out[:11] == track[:11] and out[13:] == track[13:]


def test_despiker_takes_a_scattered_window_for_garbage_not_a_move():
    """The centre on the window's line is kept only if the window holds to that line but for one point: points
    thrown about (MediaPipe losing the arms) give the median."""
    from coach.filters import Despiker

    d = Despiker(k=2, spike=0.3)
    outs = [d.push(np.array([[x, 0.0]]), 1.0) for x in (-1.0, -1.0, -0.5, -1.0, 0.5)]
    assert float(outs[-1][0, 0]) == -1.0


def test_despiker_still_takes_out_a_three_frame_jump_at_the_edge_of_its_window():
    out = _despike([0.0] * 10 + [0.8, 0.8, 0.8] + [0.0] * 10)
    assert max(out) == 0.0


def test_despiker_window_is_in_seconds():
    from coach.filters import Despiker

    assert [Despiker.for_fps(f).k for f in (60, 30, 25, 15, 12.5, 5)] == [6, 3, 3, 2, 2, 1]


# ---- UpperBodyGuard: MediaPipe's mirrored readings ----------------------------------------------------------------
def _facing(order: int) -> tuple[np.ndarray, np.ndarray]:
    """An upright body whose left shoulder and hip are `order` (+1: image right, as facing the camera) of the right."""
    from coach.filters import L_HIP, L_SH, R_HIP, R_SH

    xy = np.full((33, 2), 100.0)
    xy[[L_SH, R_SH], 0] = 100 + 20 * order, 100 - 20 * order
    xy[[L_HIP, R_HIP], 0] = 100 + 15 * order, 100 - 15 * order
    xy[[L_SH, R_SH], 1] = 50.0
    xy[[L_HIP, R_HIP], 1] = 150.0
    return xy, np.ones(33)


def _mirrored_frames(orders: list[int], fps: float = 30.0) -> list[int]:
    from coach.filters import UpperBodyGuard

    guard = UpperBodyGuard()
    return [i for i, o in enumerate(orders) if guard(*_facing(o), i / fps) == "mirrored"]


def test_first_frames_read_mirrored_do_not_outvote_the_clip():
    """MediaPipe's first reading of a clip may be the mirrored one (fm_starts_at_full_draw: 3 frames): the order
    seen for 0.07 s is no order to keep repairing the next 2 s against."""
    repaired = _mirrored_frames([-1] * 3 + [+1] * 90)
    assert len(repaired) <= 3 and all(i < 8 for i in repaired), repaired


def test_a_mirror_glitch_against_an_established_order_is_repaired_throughout():
    repaired = _mirrored_frames([+1] * 90 + [-1] * 30 + [+1] * 30)
    assert repaired == list(range(90, 120))


# ---- UpperBodyGuard: MediaPipe's folded readings ------------------------------------------------------------------
def _shoulders(width: float) -> tuple[np.ndarray, np.ndarray]:
    """An upright body facing the camera, its shoulders `width` px apart."""
    from coach.filters import L_SH, R_SH

    xy, vis = _facing(+1)
    xy[[L_SH, R_SH], 0] = 100 + width / 2, 100 - width / 2
    return xy, vis


def test_a_fold_lasts_until_the_shoulders_are_back_near_their_width():
    """MediaPipe folds the shoulders for a second and unfolds them in one frame (the long session's shot 2: 8 px,
    then 30-48 px, then 84 px against 77-85 before). The half-unfolded frames are part of the fold: were they
    judged against the fold's own threshold, a pixel of noise would decide which are kept (the full-rate and
    the adaptive run of the same video then saw the hand before the release in 3 frames and in none)."""
    from coach.filters import UpperBodyGuard

    guard = UpperBodyGuard()
    widths = [80.0] * 30 + [8.0, 20.0, 35.0, 47.0, 50.0, 45.0, 52.0, 44.0] + [84.0] * 10
    folded = [i for i, w in enumerate(widths) if guard(*_shoulders(w), i / 30.0) == "collapsed"]
    assert folded == list(range(30, 38))


def test_a_width_that_snaps_down_has_folded_even_above_the_fold_ratio():
    """At 15 fps the fold's first frame may be one a little over `ratio` (fault_bow_arm: 66 px, then 43 px against
    67): the snap says it folded, where a slow narrowing to the same width (a turn) is the archer's."""
    from coach.filters import UpperBodyGuard

    snap, turn = UpperBodyGuard(), UpperBodyGuard()
    snapped = [snap(*_shoulders(w), i / 15.0) for i, w in enumerate([67.0] * 15 + [43.0, 46.0, 67.0])]
    turned = [turn(*_shoulders(w), i / 15.0) for i, w in enumerate([67.0] * 15 + [60.0, 53.0, 47.0, 43.0])]
    assert snapped[15:] == ["collapsed", "collapsed", None]
    assert "collapsed" not in turned


def test_a_turn_is_taken_once_the_new_width_is_the_reference():
    """An archer who does turn (the width stays at half) is followed: a frame each `max_s` is taken in, until the
    new width is the reference's median."""
    from coach.filters import UpperBodyGuard

    guard = UpperBodyGuard()
    widths = [80.0] * 30 + [40.0] * 400
    folded = [i for i, w in enumerate(widths) if guard(*_shoulders(w), i / 30.0) == "collapsed"]
    assert 30 in folded and 60 not in folded and max(folded) < 30 + 10 * 31
