"""The audio path's memory is flat in the track's length: envelopes computed while decoding (coach/audio/)."""

from __future__ import annotations

import time
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

from coach.audio import (
    AudioTrack,
    EnvelopeBuilder,
    audio_cues,
    decode_envelope,
    detect_onsets,
    envelope,
    load_audio,
)
from coach.synth.audio import synth_soundtrack, write_tone_track

TRUTH = {"fps": 30, "shots": [{"release_frame": 45}, {"release_frame": 160}]}


def _chunks(x: np.ndarray, sizes=(1, 7, 239, 1023, 1024, 4799, 13, 96001, 2)):
    """`x` in odd-sized pieces, as a decoder might hand them over (some shorter than a hop, one > a block)."""
    i = k = 0
    while i < len(x):
        n = sizes[k % len(sizes)]
        yield x[i : i + n]
        i, k = i + n, k + 1


@pytest.mark.parametrize("rate", [48000, 44100, 22050])
def test_streamed_envelope_equals_whole_track(rate: int) -> None:
    x, placed = synth_soundtrack(TRUTH, 7.0, seed=3, noise="speech", rate=rate)
    x = x[: len(x) - 37]  # a partial hop at the end
    whole = envelope(AudioTrack(x, rate, 0.125))
    b = EnvelopeBuilder(rate)
    for c in _chunks(x):
        b.push(c)
    streamed = b.envelope(0.125)
    assert b.n_samples == len(x)
    assert streamed.hop_s == whole.hop_s and streamed.t0_s == whole.t0_s
    assert len(streamed.log_energy) == len(whole.log_energy) == len(x) // b.hop
    np.testing.assert_allclose(streamed.log_energy, whole.log_energy, rtol=0, atol=1e-9)
    np.testing.assert_allclose(streamed.wide_log_energy, whole.wide_log_energy, rtol=0, atol=1e-9)
    assert detect_onsets(streamed) == detect_onsets(whole)
    assert len(placed["releases_s"]) == 2


def test_decode_envelope_equals_load_audio(tmp_path: Path) -> None:
    path = tmp_path / "tone.mp4"
    clicks = write_tone_track(path, 12.0, 44100)
    track = load_audio(path)
    whole = envelope(track)
    streamed, info = decode_envelope(path)
    assert (info.rate, info.n_samples, info.start_s) == (track.rate, len(track.samples), track.start_s)
    np.testing.assert_allclose(streamed.log_energy, whole.log_energy, rtol=0, atol=1e-9)
    np.testing.assert_allclose(streamed.wide_log_energy, whole.wide_log_energy, rtol=0, atol=1e-9)
    cues = audio_cues(path)
    assert cues.onsets == detect_onsets(whole)
    assert cues.summary()["sample_rate"] == 44100
    sharp = [o.t_s for o in cues.onsets if o.sharp]
    assert len(sharp) == len(clicks) and max(abs(a - b) for a, b in zip(sharp, clicks)) < 0.01


def test_audio_cues_memory_does_not_grow_with_the_track(tmp_path: Path) -> None:
    """3 minutes of 48 kHz sound: the samples alone would be 35 MB as float32 (the old path peaked at ~360 MB)."""
    minutes, rate = 3.0, 48000
    path = tmp_path / "long.mp4"
    clicks = write_tone_track(path, minutes * 60, rate)
    tracemalloc.start()
    try:
        t0 = time.perf_counter()
        cues = audio_cues(path)
        wall = time.perf_counter() - t0
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    samples_mb = minutes * 60 * rate * 4 / 2**20
    print(
        f"audio_cues on {minutes:g} min at {rate} Hz: traced peak {peak / 2**20:.1f} MB in {wall:.1f} s "
        f"(the samples as float32: {samples_mb:.0f} MB)"
    )
    assert peak < 16 * 2**20
    assert cues.info.n_samples == pytest.approx(minutes * 60 * rate, abs=rate * 0.1)
    assert sum(o.sharp for o in cues.onsets) == len(clicks)
