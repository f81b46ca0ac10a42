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
