"""Landmark smoothing: a causal One-Euro filter for live use, a zero-phase low-pass for recorded video.

Velocity and stillness measures are meaningless on raw MediaPipe jitter, so every series is filtered before
kinematics. Live must be causal; a recording can afford zero phase lag, which keeps the release where it was.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable
from types import MappingProxyType

import numpy as np
from scipy.signal import butter, sosfiltfilt

MAX_GAP_S = 0.25  # gaps up to this long are interpolated; longer ones stay gaps (the body really left view)


class OneEuroFilter:
    """Casiez et al. 2012, vectorised over any array shape; NaN input resets the affected values.

    Buffers are allocated once for the array shape and reused, so filtering a frame allocates nothing
    beyond numpy temporaries.
    """

    def __init__(self, min_cutoff: float = 1.5, beta: float = 0.3, d_cutoff: float = 1.0):
        self.min_cutoff = min_cutoff
        self.beta = beta
        self.d_cutoff = d_cutoff
        self._x: np.ndarray | None = None
        self._dx: np.ndarray | None = None
        self._t: float | None = None

    @staticmethod
    def _alpha(cutoff: np.ndarray | float, dt: float) -> np.ndarray | float:
        tau = 1.0 / (2.0 * math.pi * cutoff)
        return 1.0 / (1.0 + tau / dt)

    def reset(self) -> None:
        self._x = self._dx = self._t = None

    def __call__(self, x: np.ndarray, t_s: float) -> np.ndarray:
        if self._x is None or self._x.shape != x.shape or self._t is None or t_s <= self._t:
            self._x = x.astype(float, copy=True)
            self._dx = np.zeros_like(self._x)
            self._t = t_s
            return self._x.copy()
        dt = t_s - self._t
        self._t = t_s
        fresh = np.isnan(self._x) & ~np.isnan(x)
        if fresh.any():
            self._x[fresh] = x[fresh]
            self._dx[fresh] = 0.0
        dx = (x - self._x) / dt
        a_d = self._alpha(self.d_cutoff, dt)
        np.nan_to_num(dx, copy=False)
        self._dx += a_d * (dx - self._dx)
        cutoff = self.min_cutoff + self.beta * np.abs(self._dx)
        a = self._alpha(cutoff, dt)
        upd = a * (x - self._x)
        valid = ~np.isnan(x)
        self._x[valid] += upd[valid]
        self._x[~valid] = np.nan
        return self._x.copy()


class Despiker:
    """Centred Hampel-style despike for recorded video: a point farther than `spike` body units from the
    median of its ±k-frame window (±SPIKE_MAX_S at the video's rate, `for_fps`), and from the window's line, is
    replaced by that median. A monotone move (a release) is its own median, or on its line, and passes
    unchanged; a 1-3 frame jump or wrist swap at 30 fps does not. Delays its output by k frames.

    The window is always centred on the frame judged: at the ends of the video it shrinks to the frames on
    both sides. A move in the last frames of a clip (a release 3 frames before the end) cannot be seen to come
    back, so it is not a spike; a one-sided window would put it back at the anchor."""

    # The longest glitch taken out: MediaPipe's 1-3 frame jumps at 30 fps. A window of frames would not do: at
    # 15 fps ±3 frames span ±0.2 s, and a release's flight (0.1-0.2 s) beside a frame the model lost is then
    # no longer its own median (clean_rh_3shots at half rate: the hand put back 0.4 U towards the anchor).
    SPIKE_MAX_S = 0.1

    def __init__(self, k: int = 3, spike: float = 0.3):
        self.k = k
        self.spike = spike
        self._win: deque[tuple[np.ndarray, float]] = deque(maxlen=2 * k + 1)
        self._count = 0

    @classmethod
    def for_fps(cls, fps: float) -> Despiker:
        """The window at a frame rate: ±SPIKE_MAX_S, at least ±1 frame (30 fps: ±3, 15 fps: ±1)."""
        return cls(k=max(1, math.ceil(fps * cls.SPIKE_MAX_S - 1e-6)))

    def push(self, x: np.ndarray, scale: float) -> np.ndarray | None:
        """Add frame t (pixels, with the body scale in px); returns the despiked frame t - k once known."""
        self._win.append((x, scale))
        self._count += 1
        if self._count <= self.k:
            return None
        return self._centre(len(self._win) - 1 - self.k)

    def flush(self) -> list[np.ndarray]:
        out = []
        n = min(self.k, self._count)
        for j in range(n):
            out.append(self._centre(len(self._win) - n + j))
        return out

    def _centre(self, c: int) -> np.ndarray:
        x, scale = self._win[c]
        r = min(c, len(self._win) - 1 - c, self.k)
        if r < 1 or math.isnan(scale):
            return x
        stack = np.stack([self._win[j][0] for j in range(c - r, c + r + 1)])
        med, n_ok = _nan_median(stack)
        with np.errstate(invalid="ignore"):
            dev = np.hypot(*(x - med).T)
        bad = (dev > self.spike * scale) & (n_ok[:, 0] >= 3)
        if not bad.any():
            return x
        # A point on the window's trend is the body moving, not a glitch: a release's flight with a glitch
        # beside it (at 15 fps the neighbour of a frame in the flight may be one) is not its own median, but it
        # lies on the line through the window (fault_hold at half rate: the hand 0.65 U out put back at the
        # anchor). The line is Theil-Sen's (median of the pairwise slopes), which a 3-frame jump in 7 does not
        # tilt, so a glitch that comes back is still taken out; and it must hold the window but for one point,
        # or the window is garbage (the wrists thrown about as MediaPipe loses the arms, fault_bow_hand shot 3),
        # not a move, and its median is the better guess.
        idx = np.flatnonzero(bad)
        bad[idx[self._on_trend(stack[:, idx], x[idx], self.spike * scale)]] = False
        if not bad.any():
            return x
        out = x.copy()
        out[bad] = med[bad]
        return out

    @staticmethod
    def _on_trend(stack: np.ndarray, x: np.ndarray, tol: float) -> np.ndarray:
        """Which centre points `x` (n, 2) lie within `tol` of the Theil-Sen line through their window `stack`
        (w, n, 2), a line all the window's seen points but one lie within `tol` of."""
        w = len(stack)
        a, b = np.triu_indices(w, 1)
        slopes = (stack[b] - stack[a]) / (b - a)[:, None, None]
        slope, _ = _nan_median(slopes)
        offs = (np.arange(w, dtype=float) - (w - 1) / 2)[:, None, None]
        fit, _ = _nan_median(stack - offs * slope)
        with np.errstate(invalid="ignore"):
            off = np.hypot(*np.moveaxis(stack - (fit + offs * slope), -1, 0)) > tol  # (w, n); NaN: not off
            seen = ~np.isnan(stack[..., 0]).any(axis=0)  # a window the model lost frames of (a fold) proves no line
            return (np.hypot(*(x - fit).T) <= tol) & (off.sum(axis=0) <= 1) & seen


def _nan_median(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Median over axis 0 ignoring NaN, and the count of values it had, without np.nanmedian (slow on small
    windows): NaN sorts last."""
    srt = np.sort(a, axis=0)
    n_ok = (~np.isnan(a)).sum(axis=0)
    lo = np.take_along_axis(srt, np.maximum(n_ok - 1, 0)[None] // 2, axis=0)[0]
    hi = np.take_along_axis(srt, (n_ok // 2)[None], axis=0)[0] if len(srt) else lo
    return (lo + hi) * 0.5, n_ok


class CenteredSmoother:
    """Zero-phase smoothing that still streams: a NaN-aware Gaussian window centred `lag` frames back.

    Recorded video can wait `lag` frames for the future half of the window, so shots still complete (and
    are saved) while the video is being read, with no phase lag. Missing samples get no weight, so gaps
    shorter than the window are bridged; a frame with no valid neighbours stays NaN.
    """

    def __init__(self, fps: float, sigma_s: float = 0.035):
        sigma = max(sigma_s * fps, 0.5)
        self.lag = max(1, int(math.ceil(3 * sigma)))
        k = np.arange(-self.lag, self.lag + 1)
        self._w = np.exp(-0.5 * (k / sigma) ** 2)
        self._n = 2 * self.lag + 1
        self._buf: np.ndarray | None = None
        self._ok: np.ndarray | None = None
        self._count = 0

    def push(self, x: np.ndarray) -> np.ndarray | None:
        """Add frame t; returns the smoothed frame t - lag once enough frames have arrived."""
        if self._buf is None:
            self._buf = np.zeros((self._n, *x.shape))
            self._ok = np.zeros((self._n, *x.shape), dtype=bool)
        self._buf[:-1] = self._buf[1:]
        self._ok[:-1] = self._ok[1:]
        ok = ~np.isnan(x)
        self._ok[-1] = ok
        self._buf[-1] = np.where(ok, x, 0.0)
        self._count += 1
        if self._count <= self.lag:
            return None
        return self._centre()

    def flush(self) -> list[np.ndarray]:
        """The last `lag` frames, smoothed with the half window they have."""
        out = []
        for _ in range(min(self.lag, self._count)):
            self._buf[:-1] = self._buf[1:]
            self._ok[:-1] = self._ok[1:]
            self._ok[-1] = False
            out.append(self._centre())
        return out

    def _centre(self) -> np.ndarray:
        w = self._w.reshape(-1, *([1] * (self._buf.ndim - 1)))
        wsum = (w * self._ok).sum(axis=0)
        val = (w * self._buf).sum(axis=0)
        centre_ok = self._ok[self.lag]
        with np.errstate(invalid="ignore", divide="ignore"):
            out = val / wsum
        # A frame with no sample of its own is only bridged when both sides of the window have one.
        before = self._ok[: self.lag].any(axis=0)
        after = self._ok[self.lag + 1 :].any(axis=0)
        out[~(centre_ok | (before & after))] = np.nan
        return out


def interpolate_gaps(series: np.ndarray, t_ms: np.ndarray, max_gap_s: float = MAX_GAP_S) -> np.ndarray:
    """Fill NaN runs no longer than max_gap_s linearly along axis 0; longer runs and the ends stay NaN."""
    out = series.astype(float, copy=True)
    flat = out.reshape(len(out), -1)
    for j in range(flat.shape[1]):
        col = flat[:, j]
        bad = np.isnan(col)
        if not bad.any() or bad.all():
            continue
        edges = np.diff(np.concatenate(([0], bad.view(np.int8), [0])))
        starts, ends = np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)
        for s, e in zip(starts, ends):
            if s == 0 or e == len(col):
                continue
            if (t_ms[e] - t_ms[s - 1]) / 1000.0 <= max_gap_s:
                col[s:e] = np.interp(t_ms[s:e], [t_ms[s - 1], t_ms[e]], [col[s - 1], col[e]])
    return out


def zero_phase(series: np.ndarray, fps: float, cutoff_hz: float = 6.0, order: int = 2) -> np.ndarray:
    """Butterworth low-pass run forward and backward along axis 0, per contiguous non-NaN run."""
    out = series.astype(float, copy=True)
    nyq = fps / 2.0
    if cutoff_hz >= nyq * 0.95:
        return out
    sos = butter(order, cutoff_hz / nyq, output="sos")
    flat = out.reshape(len(out), -1)
    valid_rows = ~np.isnan(flat).any(axis=1)
    edges = np.diff(np.concatenate(([0], valid_rows.view(np.int8), [0])))
    for s, e in zip(np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)):
        if e - s > 3 * (2 * order + 1):
            flat[s:e] = sosfiltfilt(sos, flat[s:e], axis=0)
    return out


def smooth_track(xy: np.ndarray, t_ms: np.ndarray, fps: float, method: str = "zero-phase") -> np.ndarray:
    """Filter a whole (T, 33, 2) series with a filter chosen by name."""
    return SMOOTHERS[method](interpolate_gaps(xy, t_ms), t_ms, fps)


def _one_euro_series(xy: np.ndarray, t_ms: np.ndarray, fps: float) -> np.ndarray:
    f = OneEuroFilter()
    return np.stack([f(x, t / 1000.0) for x, t in zip(xy, t_ms)]) if len(xy) else xy.copy()


SMOOTHERS: MappingProxyType[str, Callable[[np.ndarray, np.ndarray, float], np.ndarray]] = MappingProxyType(
    {
        "zero-phase": lambda xy, t, fps: zero_phase(xy, fps),
        "one-euro": _one_euro_series,
        "none": lambda xy, t, fps: xy.astype(float, copy=True),
    }
)
