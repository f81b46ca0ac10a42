"""Feedback without looking: a short tone per confirmed fault (its pitch and number of beeps tell the severity)
and the rule's cue spoken by an offline speech engine.

Tones are made with numpy and played by whichever optional backend is installed (`simpleaudio`, then
`sounddevice`); with neither, or with no audio device (a headless machine), nothing is played and nothing
fails. Speech uses the `espeak-ng` binary if it is on PATH, else `pyttsx3` if installed, else nothing.
Everything runs in one worker thread fed by a small queue: announcing never blocks the analysis, and a burst
of faults is thinned rather than queued behind the archer's next shot.
"""

from __future__ import annotations

import queue
import shutil
import subprocess
import threading
from collections.abc import Callable

import numpy as np

SAMPLE_RATE = 22050
# severity → (frequency Hz, beeps): higher and more insistent the worse it is
TONES = {"minor": (660.0, 1), "major": (880.0, 2), "critical": (1175.0, 3)}
BEEP_S, GAP_S = 0.09, 0.06


def tone(severity: str, sample_rate: int = SAMPLE_RATE) -> np.ndarray:
    """Mono int16 samples: `beeps` sine bursts with 10 ms fades (no clicks)."""
    freq, beeps = TONES.get(severity, TONES["major"])
    n = int(BEEP_S * sample_rate)
    t = np.arange(n) / sample_rate
    burst = np.sin(2 * np.pi * freq * t)
    ramp = min(int(0.01 * sample_rate), n // 2)
    env = np.ones(n)
    env[:ramp] = np.linspace(0, 1, ramp)
    env[-ramp:] = np.linspace(1, 0, ramp)
    burst *= env * 0.5
    gap = np.zeros(int(GAP_S * sample_rate))
    parts = []
    for i in range(beeps):
        parts.append(burst)
        if i < beeps - 1:
            parts.append(gap)
    return (np.concatenate(parts) * 32767).astype(np.int16)


def audio_backend() -> Callable[[np.ndarray, int], None] | None:
    """A function playing int16 mono samples (blocking until done), or None when no backend or no device."""
    try:
        import simpleaudio  # type: ignore[import-not-found]

        def play_sa(samples: np.ndarray, sr: int) -> None:
            simpleaudio.play_buffer(samples.tobytes(), 1, 2, sr).wait_done()

        return play_sa
    except Exception:  # not installed, or no ALSA
        pass
    try:
        import sounddevice  # type: ignore[import-not-found]

        sounddevice.query_devices(kind="output")  # raises without an output device

        def play_sd(samples: np.ndarray, sr: int) -> None:
            sounddevice.play(samples, sr, blocking=True)

        return play_sd
    except Exception:  # not installed, PortAudio missing, or no device
        return None


def speech_backend(lang: str = "zh") -> Callable[[str], None] | None:
    """A function speaking text (blocking until done), or None when no offline engine is installed."""
    espeak = shutil.which("espeak-ng") or shutil.which("espeak")
    if espeak:
        voice = "cmn" if lang == "zh" else "en"

        def say_espeak(text: str) -> None:
            subprocess.run(
                [espeak, "-v", voice, "-s", "165", text],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                timeout=15,
                check=False,
            )

        return say_espeak
    try:
        import pyttsx3  # type: ignore[import-not-found]

        engine = pyttsx3.init()

        def say_pyttsx3(text: str) -> None:
            engine.say(text)
            engine.runAndWait()

        return say_pyttsx3
    except Exception:
        return None


class Announcer:
    """`on_fault(rule_id, frame_result)` is a LiveSession fault listener: tone (+ spoken cue) per confirmed fault.

    `play` / `say` replace the backends (tests pass recorders); with sound=False and speech=False it does
    nothing and starts no thread."""

    def __init__(
        self,
        pack,
        *,
        lang: str = "zh",
        sound: bool = True,
        speech: bool = True,
        play: Callable[[np.ndarray, int], None] | None = None,
        say: Callable[[str], None] | None = None,
        max_pending: int = 2,
    ):
        self.rules = pack.by_id
        self.lang = lang
        self.play = (play or audio_backend()) if sound else None
        self.say = (say or speech_backend(lang)) if speech else None
        self.announced: list[str] = []
        self.skipped = 0
        self._q: queue.Queue = queue.Queue(maxsize=max_pending)
        self._thread: threading.Thread | None = None
        if self.play or self.say:
            self._thread = threading.Thread(target=self._run, name="coach-live-announce", daemon=True)
            self._thread.start()

    @property
    def active(self) -> bool:
        return self._thread is not None

    def on_fault(self, rule_id: str, frame=None) -> None:
        if self._thread is None:
            return
        try:
            self._q.put_nowait(rule_id)
        except queue.Full:
            self.skipped += 1  # the archer is already hearing about the last ones

    def _run(self) -> None:
        while True:
            rid = self._q.get()
            if rid is None:
                return
            rule = self.rules.get(rid)
            severity = rule.severity if rule else "major"
            try:
                if self.play:
                    self.play(tone(severity), SAMPLE_RATE)
                if self.say and rule:
                    self.say(rule.cue_zh if self.lang == "zh" else rule.cue_en)
            except Exception:  # a device that went away: feedback is a nicety, never an error
                pass
            self.announced.append(rid)

    def close(self, timeout: float = 2.0) -> None:
        if self._thread is None:
            return
        try:
            self._q.put(None, timeout=timeout)
        except queue.Full:
            pass
        self._thread.join(timeout)
        self._thread = None
