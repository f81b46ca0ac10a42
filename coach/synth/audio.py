"""Sound for synthetic clips: the string's release at the true release time, the arrow hitting later, and
a background of room noise, wind-like noise or talking, muxed into the rendered MP4 as AAC.

The crack is placed inside the truth's release frame (0.15-0.75 of a frame after its timestamp), where it
is heard on real footage (real05: the crack starts ~0.55 frame after the labelled release frame).
"""

from __future__ import annotations

import json
import os
from fractions import Fraction
from pathlib import Path

import numpy as np
from scipy.signal import butter, sosfilt

NOISES = ("none", "noise", "speech")
RATE = 48000


def _band(x: np.ndarray, lo: float | None, hi: float | None, rate: int, order: int = 2) -> np.ndarray:
    if lo and hi:
        sos = butter(order, [lo, hi], btype="bandpass", fs=rate, output="sos")
    elif lo:
        sos = butter(order, lo, btype="highpass", fs=rate, output="sos")
    elif hi:
        sos = butter(order, hi, btype="lowpass", fs=rate, output="sos")
    else:
        return x
    return sosfilt(sos, x)


def release_sound(rng: np.random.Generator, rate: int = RATE) -> np.ndarray:
    """A string release: a short broadband crack, a mid 'slap' and a decaying low thrum."""
    n = int(0.5 * rate)
    t = np.arange(n) / rate
    loud = float(rng.uniform(0.4, 0.9))
    tau_click = float(rng.uniform(0.001, 0.003))
    click = rng.standard_normal(n) * np.exp(-t / tau_click)
    click = _band(click, float(rng.uniform(300, 1500)), None, rate)
    slap = _band(rng.standard_normal(n), float(rng.uniform(400, 900)), float(rng.uniform(2500, 6000)), rate)
    slap *= np.exp(-t / float(rng.uniform(0.005, 0.02)))
    f0 = float(rng.uniform(60, 180))
    tau_thrum = float(rng.uniform(0.04, 0.18))
    thrum = sum(
        a * np.sin(2 * np.pi * f0 * k * t + rng.uniform(0, 2 * np.pi)) for k, a in ((1, 1.0), (2, 0.5), (3, 0.25))
    )
    thrum = thrum * np.exp(-t / tau_thrum) * (1 - np.exp(-t / 0.002))
    x = click / (np.max(np.abs(click)) + 1e-9)
    x = x + float(rng.uniform(0.2, 0.6)) * slap / (np.max(np.abs(slap)) + 1e-9)
    x = x + float(rng.uniform(0.04, 0.15)) * thrum / (np.max(np.abs(thrum)) + 1e-9)
    return loud * x / np.max(np.abs(x))


def impact_sound(rng: np.random.Generator, rate: int = RATE, loudness: float = 0.5) -> np.ndarray:
    """The arrow hitting a boss or bale: a duller thud with some crack, decaying over tens of ms."""
    n = int(0.3 * rate)
    t = np.arange(n) / rate
    thud = _band(rng.standard_normal(n), 80, float(rng.uniform(1500, 5000)), rate) * np.exp(
        -t / float(rng.uniform(0.008, 0.03))
    )
    crack = _band(rng.standard_normal(n), 1500, None, rate) * np.exp(-t / 0.002)
    x = thud / (np.max(np.abs(thud)) + 1e-9) + float(rng.uniform(0.1, 0.5)) * crack / (np.max(np.abs(crack)) + 1e-9)
    return loudness * x / np.max(np.abs(x))


def room_noise(n: int, rng: np.random.Generator, level: float, rate: int = RATE) -> np.ndarray:
    """Pinkish broadband noise with slow gusts (wind, ventilation, traffic)."""
    white = rng.standard_normal(n)
    x = _band(white, 40, 4000, rate, order=1) + 0.3 * _band(white, 4000, None, rate, order=1)
    gust = 1 + 0.5 * np.sin(2 * np.pi * np.cumsum(rng.uniform(0.1, 0.6, n)) / rate + rng.uniform(0, 6.3))
    x = x * gust
    return level * x / (np.sqrt(np.mean(x**2)) + 1e-12)


def babble(n: int, rng: np.random.Generator, level: float, rate: int = RATE, talkers: int = 2) -> np.ndarray:
    """Speech-like talking: syllables of a glottal buzz through formant filters, with smooth attacks,
    voiced and unvoiced, in words and pauses."""
    out = np.zeros(n)
    vowels = [(730, 1090, 2440), (270, 2290, 3010), (530, 1840, 2480), (570, 840, 2410), (300, 870, 2240)]
    for _ in range(talkers):
        f0 = float(rng.uniform(95, 230))
        t = int(rng.uniform(0, 0.4) * rate)
        while t < n:
            if rng.random() < 0.25:  # a pause between phrases
                t += int(rng.uniform(0.2, 0.7) * rate)
                continue
            dur = int(rng.uniform(0.12, 0.32) * rate)
            m = np.arange(dur) / rate
            f = f0 * (1 + 0.1 * np.sin(2 * np.pi * rng.uniform(1, 4) * m))
            buzz = np.sign(np.sin(2 * np.pi * np.cumsum(f) / rate)) + 0.3 * rng.standard_normal(dur)
            syl = np.zeros(dur)
            for fc, g in zip(vowels[rng.integers(len(vowels))], (1.0, 0.5, 0.25)):
                syl += g * _band(buzz, fc * 0.85, fc * 1.15, rate)
            if rng.random() < 0.3:  # a fricative
                syl += 0.4 * _band(rng.standard_normal(dur), 3000, 8000, rate)
            att, rel = rng.uniform(0.03, 0.08), rng.uniform(0.05, 0.12)
            env = np.clip(m / att, 0, 1) * np.clip((m[-1] - m) / rel, 0, 1)
            env = np.sin(env * np.pi / 2) ** 2
            seg = syl * env * rng.uniform(0.5, 1.0)
            end = min(n, t + dur)
            out[t:end] += seg[: end - t]
            t = end + int(rng.uniform(0.0, 0.08) * rate)
    return level * out / (np.sqrt(np.mean(out**2)) + 1e-12)


def _load_truth(truth: dict | str | os.PathLike) -> dict:
    if isinstance(truth, dict):
        return truth
    return json.loads(Path(truth).read_text(encoding="utf-8"))


def synth_soundtrack(
    truth: dict | str | os.PathLike,
    duration_s: float,
    seed: int = 0,
    *,
    impact: bool = True,
    noise: str = "none",
    release: bool = True,
    rate: int = RATE,
    audio_start_s: float = 0.0,
) -> tuple[np.ndarray, dict]:
    """Mono samples starting at `audio_start_s` on the video clock, and what was placed where (video clock)."""
    if noise not in NOISES:
        raise ValueError(f"noise must be one of {NOISES}, not {noise!r}")
    truth = _load_truth(truth)
    fps = float(truth["fps"])
    rng = np.random.default_rng(seed)
    n = max(1, int(round((duration_s - audio_start_s) * rate)))
    x = room_noise(n, rng, 0.0015)
    if noise == "noise":
        x += room_noise(n, rng, float(rng.uniform(0.01, 0.03)))
    elif noise == "speech":
        x += babble(n, rng, float(rng.uniform(0.015, 0.04))) + room_noise(n, rng, 0.003)
    placed: dict = {"releases_s": [], "impacts_s": [], "noise": noise, "seed": seed}

    def add(sound: np.ndarray, t: float) -> None:
        i = int(round((t - audio_start_s) * rate))
        if 0 <= i < n:
            k = min(len(sound), n - i)
            x[i : i + k] += sound[:k]

    for shot in truth.get("shots", []):
        rf = shot.get("release_frame")
        if rf is None:
            continue
        t_rel = rf / fps + float(rng.uniform(0.15, 0.75)) / fps
        crack = release_sound(rng, rate)
        if release:
            add(crack, t_rel)
            placed["releases_s"].append(round(t_rel, 5))
        if impact:
            t_imp = t_rel + float(rng.uniform(0.3, 1.0))
            add(impact_sound(rng, rate, float(np.max(np.abs(crack))) * float(rng.uniform(0.4, 1.6))), t_imp)
            placed["impacts_s"].append(round(t_imp, 5))
    peak = float(np.max(np.abs(x)))
    if peak > 0.98:
        x *= 0.98 / peak
    return x.astype(np.float32), placed


def add_soundtrack(
    mp4_in: str | os.PathLike,
    truth: dict | str | os.PathLike,
    mp4_out: str | os.PathLike,
    seed: int = 0,
    impact: bool = True,
    noise: str = "none",
    *,
    release: bool = True,
    audio_start_s: float = 0.0,
    rate: int = RATE,
) -> dict:
    """Copy `mp4_in` to `mp4_out` with a synthesised AAC sound track (see `synth_soundtrack`); the video
    packets are re-muxed, not re-encoded, so every frame and its timestamp stay as they were.
    `audio_start_s` > 0 makes the audio stream start that much after the video, as some cameras write it.
    Returns what was placed where (video clock, s)."""
    truth = _load_truth(truth)
    dur = video_duration_s(mp4_in) or truth.get("n_frames", 0) / float(truth["fps"])
    samples, placed = synth_soundtrack(
        truth, dur, seed, impact=impact, noise=noise, release=release, rate=rate, audio_start_s=audio_start_s
    )
    mux_audio(mp4_in, samples, rate, mp4_out, audio_start_s=audio_start_s)
    placed["audio_start_s"] = audio_start_s
    return placed


def video_duration_s(mp4: str | os.PathLike) -> float | None:
    import av

    with av.open(str(mp4)) as src:
        v = src.streams.video[0]
        if v.frames and v.average_rate:
            return v.frames / float(v.average_rate)
    return None


def mux_audio(
    mp4_in: str | os.PathLike,
    samples: np.ndarray,
    rate: int,
    mp4_out: str | os.PathLike,
    *,
    audio_start_s: float = 0.0,
) -> None:
    """`mp4_in`'s video stream (re-muxed, not re-encoded) plus mono `samples` as AAC, starting
    `audio_start_s` after the video stream's start."""
    import av

    mp4_out = Path(mp4_out)
    mp4_out.parent.mkdir(parents=True, exist_ok=True)
    with av.open(str(mp4_in)) as src:
        vin = src.streams.video[0]
        v_start = float(vin.start_time * vin.time_base) if vin.start_time is not None else 0.0
        with av.open(str(mp4_out), mode="w", format="mp4", options={"movflags": "+faststart"}) as dst:
            vout = dst.add_stream_from_template(vin)
            aout = dst.add_stream("aac", rate=rate, layout="mono")
            aout.bit_rate = 128000
            tb = Fraction(1, rate)
            packets: list[tuple[float, object]] = []
            offset = int(round((audio_start_s + v_start) * rate))
            x = np.asarray(samples, dtype=np.float32).reshape(-1)
            chunk = 1024
            for i in range(0, len(x), chunk):
                fr = av.AudioFrame.from_ndarray(x[i : i + chunk].reshape(1, -1), format="flt", layout="mono")
                fr.sample_rate = rate
                fr.pts = offset + i
                fr.time_base = tb
                packets += [(float(p.pts * p.time_base), p) for p in aout.encode(fr)]
            packets += [(float(p.pts * p.time_base), p) for p in aout.encode(None)]
            for p in src.demux(vin):
                if p.dts is None:
                    continue
                p.stream = vout
                packets.append((float(p.dts * p.time_base), p))
            # Interleave by time, as a camera writes them.
            for _, p in sorted(packets, key=lambda tp: tp[0]):
                dst.mux(p)


def write_tone_track(
    path: str | os.PathLike,
    duration_s: float,
    rate: int = RATE,
    *,
    seed: int = 0,
    click_every_s: float = 2.0,
    chunk_s: float = 1.0,
) -> list[float]:
    """An audio-only MP4 (AAC, mono) of any length, generated and encoded a second at a time (never the whole
    track in memory): a quiet 220 Hz hum and room hiss, with a sharp broadband click every `click_every_s`.
    For memory and long-input tests of the audio path. Returns the click times (s)."""
    import av

    rng = np.random.default_rng(seed)
    n_total = int(round(duration_s * rate))
    step = max(1024, int(round(chunk_s * rate)) // 1024 * 1024)
    click = release_sound(rng, rate).astype(np.float64) * 0.6
    every = int(round(click_every_s * rate))
    starts = list(range(every // 2, n_total, every))
    tb = Fraction(1, rate)
    with av.open(str(path), mode="w", format="mp4") as dst:
        aout = dst.add_stream("aac", rate=rate, layout="mono")
        aout.bit_rate = 96000
        for i0 in range(0, n_total, step):
            n = min(step, n_total - i0)
            t = (i0 + np.arange(n)) / rate
            x = 0.01 * np.sin(2 * np.pi * 220.0 * t) + 0.002 * rng.standard_normal(n)
            for s in starts:  # clicks reaching into this chunk (one may start in the previous one)
                a, b = max(s, i0), min(s + len(click), i0 + n)
                if a < b:
                    x[a - i0 : b - i0] += click[a - s : b - s]
            x = x.astype(np.float32)
            for j in range(0, n, 1024):
                fr = av.AudioFrame.from_ndarray(x[j : j + 1024].reshape(1, -1), format="flt", layout="mono")
                fr.sample_rate = rate
                fr.pts = i0 + j
                fr.time_base = tb
                for p in aout.encode(fr):
                    dst.mux(p)
        for p in aout.encode(None):
            dst.mux(p)
    return [s / rate for s in starts]
