"""A video's sound track decoded on the video clock, and its 5 ms log-energy envelopes (`coach.audioenvelope/1`)."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
from scipy.signal import butter, sosfilt, sosfilt_zi

ENVELOPE_SCHEMA = "coach.audioenvelope/1"
HOP_S = 0.005
LOG_FLOOR = -12.0  # log10 energy of digital silence
DETECT_HZ = 1000.0  # onsets are found above this: the crack is broadband, talking and the thrum mostly lower
WIDE_HZ = 150.0  # the broadband test's band (above handling rumble and wind)


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
def bin_log_energy(x: np.ndarray, hop: int) -> np.ndarray:
    n = len(x) // hop
    if n == 0:
        return np.zeros(0)
    e = np.mean(np.square(x[: n * hop].astype(np.float64).reshape(n, hop)), axis=1)
    return np.log10(np.maximum(e, 10.0**LOG_FLOOR))


@lru_cache(maxsize=16)
def highpass_sos(rate: int, hz: float) -> np.ndarray:
    return butter(2, hz, btype="highpass", fs=rate, output="sos")


def highpass(x: np.ndarray, rate: int, hz: float, zi=None):
    """`x` high-passed, and the filter state to carry into the next chunk (zero state when `zi` is None)."""
    if hz <= 0 or hz >= rate / 2:
        return x, zi
    sos = highpass_sos(rate, hz)
    if zi is None:
        zi = sosfilt_zi(sos) * 0.0
    return sosfilt(sos, x, zi=zi)


def envelope(track: AudioTrack, hop_s: float = HOP_S, highpass_hz: float = DETECT_HZ) -> Envelope:
    """The detection envelope (above `highpass_hz`) and the wide one (above WIDE_HZ) of a track."""
    hop = max(1, int(round(hop_s * track.rate)))
    x = track.samples.astype(np.float64)
    det, _ = highpass(x, track.rate, highpass_hz)
    wide, _ = highpass(x, track.rate, WIDE_HZ)
    return Envelope(bin_log_energy(det, hop), hop / track.rate, track.start_s, bin_log_energy(wide, hop))


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
            y, self._zi[b] = highpass(x, self.rate, hz, self._zi[b])
            if len(self._left[b]):
                y = np.concatenate([self._left[b], y])
            n = len(y) // self.hop * self.hop
            self._bins[b].append(bin_log_energy(y[:n], self.hop))
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


def envelope_beside(track: str | os.PathLike) -> Path | None:
    """The sound envelope kept beside a pose track: `NAME.audio.json` for `NAME.pose.json(.gz)`; None if none."""
    p = Path(track)
    name = p.name.removesuffix(".gz").removesuffix(".json").removesuffix(".pose")
    env = p.with_name(f"{name}.audio.json")
    return env if env.is_file() else None
