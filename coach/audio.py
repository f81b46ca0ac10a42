"""The release by ear: a video's sound track, its onsets, and the pose release refined by the string's crack.

    video file ─► load_audio (PyAV, mono float, on the video clock) ─► envelope (5 ms log energy)
               ─► detect_onsets (adaptive threshold + sharpness) ─► refine_release(ShotPhases, onsets)

`audio_cues` (what the pipeline runs per file) does the first two steps at once: `decode_envelope` feeds
each decoded chunk to an `EnvelopeBuilder`, which keeps only the envelopes (2 x 200 float64 a second,
~11 MB an hour), never the samples, so its memory does not grow with the sound track's length beyond that.
`load_audio` + `envelope` (the whole track in memory) give the same envelopes, for tests and tools.

The string leaving the fingers makes a short, sharp, broadband sound that phone and camera microphones pick
up well; the pose sees the draw hand only when it is large and unhidden. Sound is a strong cue, not an oracle
(a neighbour's bow, the arrow hitting the target, a clap), so it is only ever used inside the window the pose
allows: `refine_release` never moves a release farther than `window_s` from where the pose put it, and a
shot without a fitting onset keeps its pose release (`release_source = "pose"`).

Time: every time here is on the video clock, whose zero is the first video frame (OpenCV's
CAP_PROP_POS_MSEC, which the Analyzer's frame times come from, counts from the video stream's start). An
audio stream that starts later or earlier than the video (`stream.start_time * stream.time_base`) is shifted
by the difference.

The envelope is the `coach.audioenvelope/1` format: log10 of the mean squared amplitude (samples in [-1, 1])
over 5 ms bins, -12 for digital silence.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path

import numpy as np
from scipy.ndimage import median_filter
from scipy.signal import butter, sosfilt, sosfilt_zi

from .phases import ShotPhases

ENVELOPE_SCHEMA = "coach.audioenvelope/1"
HOP_S = 0.005
LOG_FLOOR = -12.0  # log10 energy of digital silence
SOUND_EVIDENCE_WEIGHT = 0.8  # how much a string crack in the pose's window adds to the release confidence

# --- onset detector --------------------------------------------------------------------------------------
DETECT_HZ = 1000.0  # onsets are found above this: the crack is broadband, talking and the thrum mostly lower
WIDE_HZ = 150.0  # the broadband test's band (above handling rumble and wind)
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

# --- release refinement ----------------------------------------------------------------------------------
WINDOW_S = 0.25  # sound may move the pose release by at most this much (but see pick_unseen_release)
PRIOR_S = 0.2  # how far the pose release typically is from the true one (Gaussian prior on the onset)
UNSEEN_AFTER_ANCHOR_S = 0.3  # a release the pose did not see is looked for from this long after the anchor
EARLIER_SHARE = 0.35  # an earlier onset at least this share of the best score wins (the later one: impact)
IMPACT_MIN_S, IMPACT_MAX_S = 0.2, 2.0  # the arrow is heard hitting this long after the release
IMPACT_RISE_MIN = 0.8  # ... as a sharp onset at least 8 dB above the level before it
ONSET_SLACK_S = 0.002  # an onset this close before a frame's timestamp belongs to that frame
# Phone video often carries its sound late or early against the picture (real06: 2.5 frames late). The offset is
# learnt from the session's own shots whose release the pose saw clearly (the hand seen jumping, confidence at
# least OFFSET_LEARN_CONF), once OFFSET_MIN_SHOTS of them agree within OFFSET_AGREE_S, and is taken off every
# onset after that; with fewer, or shots that disagree, no offset is assumed rather than a wrong one.
OFFSET_LEARN_CONF = 0.8
OFFSET_MIN_SHOTS = 2
OFFSET_AGREE_S = 0.05
OFFSET_MAX_S = 0.2


@dataclass(slots=True)
class AudioTrack:
    samples: np.ndarray  # mono float32 in [-1, 1]
    rate: int
    start_s: float  # video-clock time of samples[0] (audio stream start - video stream start)
    audio_start_s: float = 0.0
    video_start_s: float = 0.0

    @property
    def duration_s(self) -> float:
        return len(self.samples) / self.rate


@dataclass(slots=True, frozen=True)
class AudioInfo:
    """What is kept of a decoded sound track once its samples are gone (see `decode_envelope`)."""

    rate: int
    n_samples: int
    start_s: float  # video-clock time of the first sample
    audio_start_s: float = 0.0
    video_start_s: float = 0.0

    @property
    def duration_s(self) -> float:
        return self.n_samples / self.rate


@dataclass(slots=True)
class Envelope:
    log_energy: np.ndarray  # log10 mean square per bin: the band onsets are detected in
    hop_s: float
    t0_s: float  # video-clock time of bin 0's start
    wide_log_energy: np.ndarray | None = None  # the same above WIDE_HZ, when the samples are known

    def times(self) -> np.ndarray:
        return self.t0_s + np.arange(len(self.log_energy)) * self.hop_s


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


# ---- decoding -------------------------------------------------------------------------------------------
def _start_s(stream) -> float:
    if stream.start_time is None or stream.time_base is None:
        return 0.0
    return float(stream.start_time * stream.time_base)


def _decode_mono(path: str | os.PathLike, on_chunk: Callable[[np.ndarray, int], None]) -> tuple[float, float] | None:
    """Decode the first audio stream of a media file to mono float32, handing each chunk and its sample rate
    to `on_chunk` as it is decoded (nothing is kept here). Returns (audio start, video start) on the file's
    clock; None if the file has no audio stream, cannot be opened, or nothing of it could be decoded (a
    stream that breaks off later keeps what was decoded before)."""
    import av

    try:
        container = av.open(str(path))
    except (av.FFmpegError, OSError):
        return None
    got = False
    with container:
        if not container.streams.audio:
            return None
        astream = container.streams.audio[0]
        v_start = _start_s(container.streams.video[0]) if container.streams.video else 0.0
        a_start = _start_s(astream)
        resampler = av.AudioResampler(format="flt", layout="mono")
        first_pts_s: float | None = None
        try:
            for frame in container.decode(astream):
                if first_pts_s is None and frame.pts is not None and frame.time_base is not None:
                    first_pts_s = float(frame.pts * frame.time_base)
                for out in resampler.resample(frame):
                    on_chunk(out.to_ndarray().reshape(-1), out.sample_rate)
                    got = True
            for out in resampler.resample(None):
                on_chunk(out.to_ndarray().reshape(-1), out.sample_rate)
                got = True
        except av.FFmpegError:
            if not got:
                return None
    if not got:
        return None
    # The first decoded frame's time is the truth (the container may trim encoder priming from it).
    a0 = first_pts_s if first_pts_s is not None else a_start
    return a0, v_start


def load_audio(path: str | os.PathLike) -> AudioTrack | None:
    """The first audio stream of a media file as mono float32 on the video clock; None if the file has no
    audio stream or it cannot be decoded. Holds the whole track (4 bytes a sample: ~690 MB for an hour at
    48 kHz): the pipeline uses `decode_envelope` instead."""
    chunks: list[np.ndarray] = []
    rate = 0

    def take(x: np.ndarray, r: int) -> None:
        nonlocal rate
        chunks.append(x)
        rate = r

    starts = _decode_mono(path, take)
    if starts is None or not chunks or rate <= 0:
        return None
    a0, v_start = starts
    samples = np.concatenate(chunks).astype(np.float32, copy=False)
    return AudioTrack(samples, int(rate), a0 - v_start, a0, v_start)


# ---- envelope -------------------------------------------------------------------------------------------
def _log_energy(x: np.ndarray, hop: int) -> np.ndarray:
    n = len(x) // hop
    if n == 0:
        return np.zeros(0)
    e = np.mean(np.square(x[: n * hop].astype(np.float64).reshape(n, hop)), axis=1)
    return np.log10(np.maximum(e, 10.0**LOG_FLOOR))


@lru_cache(maxsize=16)
def _highpass_sos(rate: int, hz: float) -> np.ndarray:
    return butter(2, hz, btype="highpass", fs=rate, output="sos")


def _highpass(x: np.ndarray, rate: int, hz: float, zi=None):
    """`x` high-passed, and the filter state to carry into the next chunk (zero state when `zi` is None)."""
    if hz <= 0 or hz >= rate / 2:
        return x, zi
    sos = _highpass_sos(rate, hz)
    if zi is None:
        zi = sosfilt_zi(sos) * 0.0
    return sosfilt(sos, x, zi=zi)


def envelope(track: AudioTrack, hop_s: float = HOP_S, highpass_hz: float = DETECT_HZ) -> Envelope:
    """The detection envelope (above `highpass_hz`) and the wide one (above WIDE_HZ) of a track."""
    hop = max(1, int(round(hop_s * track.rate)))
    x = track.samples.astype(np.float64)
    det, _ = _highpass(x, track.rate, highpass_hz)
    wide, _ = _highpass(x, track.rate, WIDE_HZ)
    return Envelope(_log_energy(det, hop), hop / track.rate, track.start_s, _log_energy(wide, hop))


class EnvelopeBuilder:
    """`envelope()` of a track whose samples arrive in chunks of any size, keeping only the envelopes.

    The high-pass filters carry their state from chunk to chunk and the filtered samples of a partial hop
    wait for the next chunk, so the result equals `envelope()` of the whole track (to the last bit: the same
    operations on the same numbers). Chunks are gathered into blocks of about `block_s` before filtering
    (fewer, larger NumPy calls); memory is that block plus the envelopes."""

    def __init__(self, rate: int, hop_s: float = HOP_S, highpass_hz: float = DETECT_HZ, block_s: float = 1.0):
        if rate <= 0:
            raise ValueError(f"sample rate must be positive, not {rate}")
        self.rate = int(rate)
        self.hop = max(1, int(round(hop_s * rate)))
        self.n_samples = 0
        self._cutoffs = (highpass_hz, WIDE_HZ)  # detection band, wide band
        self._zi: list = [None, None]
        self._left = [np.zeros(0), np.zeros(0)]  # filtered samples of the hop not yet complete
        self._bins: tuple[list[np.ndarray], list[np.ndarray]] = ([], [])
        self._block = max(self.hop, int(block_s * rate))
        self._buf: list[np.ndarray] = []
        self._n_buf = 0

    def push(self, samples: np.ndarray) -> None:
        x = np.asarray(samples).reshape(-1)
        if not len(x):
            return
        self._buf.append(x)
        self._n_buf += len(x)
        self.n_samples += len(x)
        if self._n_buf >= self._block:
            self._flush()

    def _flush(self) -> None:
        if not self._buf:
            return
        x = (np.concatenate(self._buf) if len(self._buf) > 1 else self._buf[0]).astype(np.float64)
        self._buf, self._n_buf = [], 0
        for b, hz in enumerate(self._cutoffs):
            y, self._zi[b] = _highpass(x, self.rate, hz, self._zi[b])
            if len(self._left[b]):
                y = np.concatenate([self._left[b], y])
            n = len(y) // self.hop * self.hop
            self._bins[b].append(_log_energy(y[:n], self.hop))
            self._left[b] = y[n:].copy()  # not a view: the block itself is let go

    def envelope(self, t0_s: float = 0.0) -> Envelope:
        """The envelopes of everything pushed so far (a trailing partial hop is left out, as `envelope()` does)."""
        self._flush()
        det, wide = (np.concatenate(b) if b else np.zeros(0) for b in self._bins)
        return Envelope(det, self.hop / self.rate, t0_s, wide)


def decode_envelope(
    path: str | os.PathLike, hop_s: float = HOP_S, highpass_hz: float = DETECT_HZ
) -> tuple[Envelope, AudioInfo] | None:
    """`envelope(load_audio(path))` computed while decoding, without ever holding the samples: memory is the
    envelopes (~11 MB an hour) plus a second of samples, whatever the length. None as for `load_audio`."""
    builder: EnvelopeBuilder | None = None

    def take(x: np.ndarray, rate: int) -> None:
        nonlocal builder
        if builder is None:
            builder = EnvelopeBuilder(rate, hop_s, highpass_hz)
        builder.push(x)

    starts = _decode_mono(path, take)
    if starts is None or builder is None:
        return None
    a0, v_start = starts
    info = AudioInfo(builder.rate, builder.n_samples, a0 - v_start, a0, v_start)
    return builder.envelope(info.start_s), info


def load_envelope(path: str | os.PathLike) -> Envelope:
    """A `coach.audioenvelope/1` file (the shared real-footage envelopes)."""
    d = json.loads(Path(path).read_text(encoding="utf-8"))
    if d.get("schema") != ENVELOPE_SCHEMA:
        raise ValueError(f"{path}: not a {ENVELOPE_SCHEMA} file")
    t0 = float(d.get("audio_start_s", 0.0)) - float(d.get("video_start_s", 0.0))
    return Envelope(np.asarray(d["log_energy"], dtype=float), float(d["hop_s"]), t0)


def save_envelope(env: Envelope, path: str | os.PathLike, rate: int = 0, **extra) -> None:
    d = {
        "schema": ENVELOPE_SCHEMA,
        **extra,
        "sample_rate": rate,
        "hop_samples": int(round(env.hop_s * rate)) if rate else None,
        "hop_s": env.hop_s,
        "audio_start_s": env.t0_s,
        "video_start_s": 0.0,
        "log_energy": [round(float(v), 3) for v in env.log_energy],
    }
    Path(path).write_text(json.dumps(d), encoding="utf-8")


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
        det, self._zi_det = _highpass(x, self.rate, DETECT_HZ, self._zi_det)
        wide, self._zi_wide = _highpass(x, self.rate, WIDE_HZ, self._zi_wide)
        self._pending = np.concatenate([self._pending, det])
        self._pending_wide = np.concatenate([self._pending_wide, wide])
        nb = len(self._pending) // self.hop
        if nb == 0:
            return []
        self._det += list(_log_energy(self._pending, self.hop))
        self._wide += list(_log_energy(self._pending_wide, self.hop))
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


# ---- fusion with the pose -------------------------------------------------------------------------------
FrameTimes = Mapping[int, float] | Callable[[int], float | None]


def _time_fn(frame_times: FrameTimes | None, fps: float) -> Callable[[int], float | None]:
    if frame_times is None:
        return lambda i: i / fps
    if callable(frame_times):
        return frame_times
    return lambda i: frame_times.get(i, i / fps)


@dataclass(slots=True, frozen=True)
class ReleaseCue:
    """What the sound said about one shot."""

    release_t_s: float | None  # the onset taken as the release, None if none fitted
    impact_t_s: float | None
    flight_time_s: float | None


def pick_release(onsets: Sequence[Onset], t_pose: float, window_s: float = WINDOW_S) -> Onset | None:
    """The onset in [t_pose ± window_s] that best fits a release: sharp, strong and near the pose release;
    an earlier one of comparable score wins over a later one (the later one is the arrow hitting)."""
    cands = [o for o in onsets if abs(o.t_s - t_pose) <= window_s and o.sharp]
    if not cands:
        return None

    def score(o: Onset) -> float:
        return o.rise * math.exp(-0.5 * ((o.t_s - t_pose) / PRIOR_S) ** 2)

    best = max(cands, key=score)
    # A louder onset that could be this one's impact (heard >= IMPACT_MIN_S later) does not outrank it.
    earlier = [o for o in cands if best.t_s - o.t_s >= IMPACT_MIN_S and score(o) >= EARLIER_SHARE * score(best)]
    return min(earlier, key=lambda o: o.t_s) if earlier else best


def pick_impact(onsets: Sequence[Onset], release: Onset) -> Onset | None:
    """The arrow hitting: the strongest sharp onset 0.2-2 s after the release, clear of the background."""
    cands = [
        o
        for o in onsets
        if IMPACT_MIN_S <= o.t_s - release.t_s <= IMPACT_MAX_S and o.thud and o.rise >= IMPACT_RISE_MIN
    ]
    return max(cands, key=lambda o: o.rise) if cands else None


def pick_unseen_release(onsets: Sequence[Onset], heard: Onset, t_from: float, t_before: float) -> Onset | None:
    """The release `heard` may be the arrow hitting after a release the pose did not see: after a dead
    release (後手小) the hand stays at the face and the pose's "release" is the arms coming down, 0.5-1 s
    later, when the impact is heard. That is so when a crack at least EARLIER_SHARE as strong was heard
    earlier in the hold (after t_from, before t_before), IMPACT_MIN_S..IMPACT_MAX_S before `heard`: the
    strongest such crack, or None."""
    cands = [
        o
        for o in onsets
        if o.sharp
        and t_from <= o.t_s < t_before
        and IMPACT_MIN_S <= heard.t_s - o.t_s <= IMPACT_MAX_S
        and o.rise >= EARLIER_SHARE * heard.rise
    ]
    return max(cands, key=lambda o: o.rise) if cands else None


def refine_release(
    sp: ShotPhases,
    onsets: Sequence[Onset],
    fps: float,
    window_s: float = WINDOW_S,
    frame_times: FrameTimes | None = None,
    offset_s: float = 0.0,
) -> ShotPhases:
    """`sp` with its release moved to the frame during which the string was heard (`release_source` "sound+pose")
    and `flight_time_s` set where the impact was heard; `sp` itself when no onset fits. The new release
    frame's time lies within `window_s` of the pose release, after the anchor and before the end; only for a
    shot whose hand the pose saw stay at the face (`hand_stayed`) may it go back as far as the anchor.
    `offset_s`: how late the sound runs against the picture (`AvOffset`); onsets are moved back by it."""
    if sp.release_frame is None or not onsets:
        return sp
    if offset_s:
        onsets = [replace(o, t_s=o.t_s - offset_s) for o in onsets]
    t_of = _time_fn(frame_times, fps)
    t_pose = t_of(sp.release_frame)
    if t_pose is None:
        t_pose = (sp.release_ms or 0.0) / 1000.0
    rel = pick_release(onsets, t_pose, window_s)
    if rel is None:
        return sp
    t_lo = t_pose - window_s
    t_anchor = t_of(sp.anchor_frame)
    # Only where the pose saw the hand stay at the face: at a busy shooting line a neighbour's crack in the
    # hold must not take the place of a release the pose did see.
    if t_anchor is not None and sp.hand_stayed:
        unseen = pick_unseen_release(onsets, rel, t_anchor + UNSEEN_AFTER_ANCHOR_S, t_lo)
        if unseen is not None:
            rel, t_lo = unseen, t_anchor
    # Frames allowed: time within the window (or, for a release the pose did not see, back to the anchor),
    # strictly after the anchor, not past the end. The release frame is the one whose interval [t_i, t_i+1)
    # holds the onset: a frame stands for its exposure, and on real footage the crack is heard ~0.5 frame
    # after the timestamp of the frame labelled as release.
    span = int(math.ceil((t_pose - t_lo) * fps)) + 2
    allowed = []
    for i in range(max(sp.anchor_frame + 1, sp.release_frame - span), min(sp.end_frame, sp.release_frame + span) + 1):
        t = t_of(i)
        if t is not None and t_lo - 1e-9 <= t <= t_pose + window_s + 1e-9:
            allowed.append((i, t))
    if not allowed:
        return sp
    at_or_before = [i for i, t in allowed if t <= rel.t_s + ONSET_SLACK_S]
    best_i = at_or_before[-1] if at_or_before else allowed[0][0]
    t_rel = t_of(best_i)
    moved = replace(sp, release_frame=best_i)
    follow = moved.windows(t_of)["follow_through"][0]  # the one definition of the phase windows
    imp = pick_impact(onsets, rel)
    return replace(
        moved,
        release_ms=t_rel * 1000.0,
        follow_start_frame=min(follow, sp.end_frame),
        release_source="sound+pose",
        flight_time_s=None if imp is None else round(imp.t_s - rel.t_s, 3),
        # The string's crack inside the window the pose allows is evidence of its own.
        release_confidence=round(1.0 - (1.0 - sp.release_confidence) * (1.0 - SOUND_EVIDENCE_WEIGHT), 3),
        release_evidence=(*sp.release_evidence, "sound"),
    )


@dataclass(slots=True)
class AudioCues:
    """A recording's sound, decoded once before the pose runs: its envelopes and onsets, not its samples."""

    envelope: Envelope
    onsets: list[Onset]
    info: AudioInfo | None = None
    offset: AvOffset = field(default_factory=lambda: AvOffset())

    def refiner(self, fps: float, window_s: float = WINDOW_S) -> Callable[[ShotPhases, FrameTimes], ShotPhases]:
        """The Analyzer's `release_refiner`: (ShotPhases, frame times) -> ShotPhases. Each shot the pose saw
        clearly also teaches the sound's offset against the picture, used from then on."""

        def refine(sp: ShotPhases, frame_times: FrameTimes) -> ShotPhases:
            self.offset.learn(sp, self.onsets, _time_fn(frame_times, fps), window_s)
            return refine_release(sp, self.onsets, fps, window_s, frame_times, self.offset.seconds)

        return refine

    def summary(self) -> dict:
        t = self.info
        return {
            "onsets": len(self.onsets),
            "sharp_onsets": sum(o.sharp for o in self.onsets),
            "av_offset_s": round(self.offset.seconds, 4),
            **({"sample_rate": t.rate, "start_offset_s": round(t.start_s, 4)} if t else {}),
        }


@dataclass(slots=True)
class AvOffset:
    """How late the sound runs against the picture (s; negative: early), learnt from the session's shots."""

    seen: list[float] = field(default_factory=list)  # onset - pose release of each clearly seen release

    def learn(self, sp: ShotPhases, onsets: Sequence[Onset], t_of: Callable[[int], float | None], window_s: float):
        clear = sp.release_confidence >= OFFSET_LEARN_CONF and "draw_hand" in sp.release_evidence
        if sp.release_frame is None or sp.hand_stayed or not clear:
            return
        t_pose = t_of(sp.release_frame)
        rel = None if t_pose is None else pick_release(onsets, t_pose + self.seconds, window_s)
        if rel is not None:
            self.seen.append(rel.t_s - t_pose)

    @property
    def seconds(self) -> float:
        if len(self.seen) < OFFSET_MIN_SHOTS:
            return 0.0
        mid = float(np.median(self.seen))
        agree = [d for d in self.seen if abs(d - mid) <= OFFSET_AGREE_S]
        if len(agree) < OFFSET_MIN_SHOTS or 2 * len(agree) <= len(self.seen):
            return 0.0
        return float(np.clip(np.median(agree), -OFFSET_MAX_S, OFFSET_MAX_S))


def audio_cues(path: str | os.PathLike) -> AudioCues | None:
    """Decode a video's sound and find its onsets; None if it has no (decodable) audio. The samples are
    reduced to envelopes while decoding (`decode_envelope`): memory does not grow with the track's length."""
    try:
        decoded = decode_envelope(path)
    except (ValueError, RuntimeError, MemoryError):  # an odd or broken audio stream: the pose alone times it
        return None
    if decoded is None:
        return None
    env, info = decoded
    if info.n_samples < info.rate * BASE_S * 4:
        return None
    return AudioCues(env, detect_onsets(env), info)


def cues_from_envelope(env: Envelope) -> AudioCues:
    return AudioCues(env, detect_onsets(env))


def onset_times(onsets: Iterable[Onset], sharp_only: bool = True) -> list[float]:
    return [o.t_s for o in onsets if o.sharp or not sharp_only]
