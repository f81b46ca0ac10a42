"""Onsets in an envelope: sharp, broadband rises above the local background — a string's crack, an arrow's impact."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.ndimage import median_filter

from .decoding import DETECT_HZ, HOP_S, WIDE_HZ, Envelope, bin_log_energy, highpass

# --- onset detector --------------------------------------------------------------------------------------
BASE_S = 0.04  # the level an onset rises from: median over this much before it
RISE_S = 0.02  # the onset reaches its peak within this (a string crack is a few ms; a syllable is slower)
RISE_MIN = 0.5  # at least 5 dB above the level just before it
BACKGROUND_S = 1.0  # the adaptive threshold looks this far either side (median + k·MAD of the envelope)
BACKGROUND_K = 2.0  # the peak stands this many robust standard deviations above the local background
DECAY_FROM_S, DECAY_TO_S = 0.02, 0.05  # sharpness: the level this long after the peak ...
LATE_FROM_S, LATE_TO_S = 0.04, 0.10  # (an impact's thud rings longer: its level this long after)
DECAY_MIN = 0.35  # ... has fallen back by at least this share of the rise (a vowel holds its level)
FALL_MIN = 1.0  # ... or by 10 dB (a crack on top of a syllable that starts with it)
REFRACTORY_S = 0.06  # one onset per event: a crack and its ringing are one
BROADBAND_MIN = 0.2  # the wide band rises at least 2 dB at the onset too (a hiss or jingle does not)


@dataclass(slots=True, frozen=True)
class Onset:
    t_s: float  # video clock
    rise: float  # log10 units above the level just before (1.0 = 10 dB)
    peak: float  # log10 energy at the peak
    decay: float  # share of the rise gone 20-50 ms after the peak (1 = back to the level before)
    z: float  # peak above the local background, in robust standard deviations
    broadband: bool | None = None  # None: only one band was known (a stored envelope)
    decay_late: float | None = None  # the same 40-100 ms after the peak

    @property
    def fall(self) -> float:
        """How far (log10 units) the level fell from the peak 20-50 ms later."""
        return self.decay * self.rise

    @property
    def sharp(self) -> bool:
        return (self.decay >= DECAY_MIN or self.fall >= FALL_MIN) and self.broadband is not False

    @property
    def thud(self) -> bool:
        """Sharp enough for an impact: it may ring a little longer than a string's crack."""
        late = self.decay if self.decay_late is None else max(self.decay, self.decay_late)
        return late >= DECAY_MIN and self.broadband is not False


# ---- onsets ---------------------------------------------------------------------------------------------
def _decay(e: np.ndarray, p: int, a: int, b: int, rise: float) -> float:
    after = e[p + a : p + b + 1]
    return float((e[p] - np.median(after)) / rise) if len(after) else 1.0


def _past_median(e: np.ndarray, nb: int) -> np.ndarray:
    """out[k] = median(e[k-nb:k]) (NaN for k < nb)."""
    out = np.full(len(e), np.nan)
    if len(e) > nb:
        win = np.lib.stride_tricks.sliding_window_view(e, nb)
        step = 1 << 16  # np.median copies the windows it is given: a block at a time, not nb x the envelope
        for a in range(nb, len(e), step):
            b = min(len(e), a + step)
            out[a:b] = np.median(win[a - nb : b - nb], axis=1)
    return out


def detect_onsets(env: Envelope, *, background: str = "centred", from_s: float | None = None) -> list[Onset]:
    """Sharp rises of the envelope above an adaptive threshold (local median + k·MAD over ±BACKGROUND_S).

    `background="trailing"` uses only the past (streaming); "centred" both sides (recorded files).
    `from_s`: look for onsets from this time on only."""
    e = np.asarray(env.log_energy, dtype=float)
    n = len(e)
    h = env.hop_s
    nb = max(2, int(round(BASE_S / h)))
    nr = max(1, int(round(RISE_S / h)))
    nd0, nd1 = int(round(DECAY_FROM_S / h)), max(int(round(DECAY_TO_S / h)), int(round(DECAY_FROM_S / h)) + 1)
    nl0, nl1 = int(round(LATE_FROM_S / h)), max(int(round(LATE_TO_S / h)), int(round(LATE_FROM_S / h)) + 1)
    if n < nb + nr + 2:
        return []
    nbg = max(3, int(round(BACKGROUND_S / h)))
    if background == "trailing":
        size, origin = nbg, nbg // 2 - (1 - nbg % 2)  # window ending at the bin itself
        med = median_filter(e, size=size, mode="nearest", origin=origin)
        mad = median_filter(np.abs(e - med), size=size, mode="nearest", origin=origin)
    else:
        med = median_filter(e, size=2 * nbg + 1, mode="nearest")
        mad = median_filter(np.abs(e - med), size=2 * nbg + 1, mode="nearest")
    sigma = np.maximum(1.4826 * mad, 0.05)
    wide = env.wide_log_energy
    has_wide = wide is not None and len(wide) == n
    bases = _past_median(e, nb)
    wide_bases = _past_median(np.asarray(wide, dtype=float), nb) if has_wide else None
    out: list[Onset] = []
    k = nb if from_s is None else max(nb, int((from_s - env.t0_s) / h))
    refractory = max(1, int(round(REFRACTORY_S / h)))
    while k < n - 1:
        base = float(bases[k])
        if e[k] - base < RISE_MIN * 0.6:
            k += 1
            continue
        # The peak: the top of the climb that starts here (a crack peaks within RISE_S).
        p = k + int(np.argmax(e[k : min(n, k + nr + 1)]))
        while p + 1 < n and e[p + 1] > e[p] and p + 1 - k <= 2 * nr:
            p += 1
        rise = float(e[p] - base)
        z = float((e[p] - med[p]) / sigma[p])
        # The onset: the first bin a third of the way up; sub-bin, where the rise crosses that level.
        level = base + rise / 3.0
        o = k
        while o < p and e[o] < level:
            o += 1
        if rise < RISE_MIN or z < BACKGROUND_K or p - o > nr:
            k += 1
            continue
        prev = e[o - 1]
        frac = 0.0 if e[o] <= prev else float(np.clip((level - prev) / (e[o] - prev), 0.0, 1.0))
        t = env.t0_s + (o - 1 + frac + 0.5) * h
        decay = _decay(e, p, nd0, nd1, rise)
        decay_late = _decay(e, p, nl0, nl1, rise)
        broadband = None
        if has_wide:
            wide_base = float(wide_bases[k])
            broadband = bool(np.max(wide[o : min(n, p + 2)]) - wide_base >= BROADBAND_MIN)
        out.append(Onset(t, rise, float(e[p]), decay, z, broadband, decay_late))
        k = p + refractory
    return out


class OnsetDetector:
    """Streaming onsets for a live microphone: `push(samples, t0_s)` returns the times (video/session clock,
    s) of the onsets that became certain with these samples. Onsets are reported ~0.15 s late (the
    sharpness test needs the decay after the peak). Off unless the live view creates one."""

    def __init__(self, rate: int, *, hop_s: float = HOP_S, history_s: float = 3.0, sharp_only: bool = True):
        self.rate = rate
        self.hop = max(1, int(round(hop_s * rate)))
        self.hop_s = self.hop / rate
        self.sharp_only = sharp_only
        self._max_bins = int(history_s / self.hop_s)
        self._det: list[float] = []
        self._wide: list[float] = []
        self._pending = np.zeros(0)
        self._pending_wide = np.zeros(0)
        self._t0: float | None = None  # time of bin 0 of the history
        self._zi_det = None
        self._zi_wide = None
        self._last_reported = -math.inf
        self._scanned_to = -math.inf  # onsets before this were settled by earlier pushes
        self.onsets: list[Onset] = []

    def push(self, samples: np.ndarray, t0_s: float) -> list[float]:
        x = np.asarray(samples, dtype=np.float64).reshape(-1)
        if self._t0 is None:
            self._t0 = t0_s
        det, self._zi_det = highpass(x, self.rate, DETECT_HZ, self._zi_det)
        wide, self._zi_wide = highpass(x, self.rate, WIDE_HZ, self._zi_wide)
        self._pending = np.concatenate([self._pending, det])
        self._pending_wide = np.concatenate([self._pending_wide, wide])
        nb = len(self._pending) // self.hop
        if nb == 0:
            return []
        self._det += list(bin_log_energy(self._pending, self.hop))
        self._wide += list(bin_log_energy(self._pending_wide, self.hop))
        self._pending = self._pending[nb * self.hop :]
        self._pending_wide = self._pending_wide[nb * self.hop :]
        drop = len(self._det) - self._max_bins
        if drop > 0:
            del self._det[:drop], self._wide[:drop]
            self._t0 += drop * self.hop_s
        env = Envelope(np.asarray(self._det), self.hop_s, self._t0, np.asarray(self._wide))
        settled = self._t0 + (len(self._det) * self.hop_s) - (LATE_TO_S + 2 * RISE_S + 0.03)
        start = None if math.isinf(self._scanned_to) else self._scanned_to - 0.1
        new = []
        for o in detect_onsets(env, background="trailing", from_s=start):
            if o.t_s <= self._last_reported + REFRACTORY_S or o.t_s > settled:
                continue
            if self.sharp_only and not (o.sharp or o.thud):
                continue
            new.append(o)
            self._last_reported = o.t_s
        self._scanned_to = max(self._scanned_to, settled)
        self.onsets += new
        return [o.t_s for o in new]
