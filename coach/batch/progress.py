"""The batch's one progress line on stderr: videos done, frames per second and an ETA."""

from __future__ import annotations

import sys
import time

from .summary import duration_text


# ---- progress ------------------------------------------------------------------------------------------
class ProgressLine:
    """Overall progress on stderr: one self-rewriting line on a terminal, one line per finished video
    otherwise (logs, CI). Work is weighted by file size; a running video counts by its frames."""

    def __init__(self, total_videos: int, stream=None, enabled: bool = True):
        self.stream = stream or sys.stderr
        self.enabled = enabled
        self.tty = enabled and hasattr(self.stream, "isatty") and self.stream.isatty()
        self.total_videos = total_videos
        self.finished = 0
        self.failed = 0
        self.skipped = 0
        self.bytes_total = 0
        self.bytes_done = 0.0
        self.running: dict[int, tuple[int, float]] = {}  # key -> (size, fraction)
        self.frames = 0
        self.running_frames: dict[int, int] = {}
        self.t0: float | None = None
        self.in_flight = 0  # handed to workers, not yet back
        self._last_draw = 0.0

    def start_clock(self) -> None:
        if self.t0 is None:
            self.t0 = time.monotonic()

    def add_work(self, size: int) -> None:
        self.bytes_total += size

    def update(self, key: int, size: int, frames: int, total: int | None) -> None:
        frac = min(frames / total, 0.99) if total else 0.0
        self.running[key] = (size, frac)
        self.running_frames[key] = frames
        self.draw()

    def video_done(self, key: int, size: int, frames: int, line: str, failed: bool = False) -> None:
        self.running.pop(key, None)
        self.running_frames.pop(key, None)
        self.finished += 1
        self.failed += failed
        self.bytes_done += size
        self.frames += frames
        self.event(line)

    def video_skipped(self, line: str | None = None) -> None:
        self.skipped += 1
        if line:
            self.event(line)

    def event(self, line: str) -> None:
        if not self.enabled:
            return
        if self.tty:
            self.stream.write("\r\x1b[2K")
        self.stream.write(f"{line}\n")
        if not self.tty:
            self.stream.write(self.status() + "\n")
        self.stream.flush()
        self.draw(force=True)

    def status(self) -> str:
        done = self.bytes_done + sum(s * f for s, f in self.running.values())
        frac = done / self.bytes_total if self.bytes_total else 1.0
        el = time.monotonic() - self.t0 if self.t0 else 0.0
        frames = self.frames + sum(self.running_frames.values())
        fps = frames / el if el > 0 else 0.0
        eta = f"ETA {duration_text(el * (1 - frac) / frac)}" if 0.0 < frac < 1.0 and el > 2 else "ETA —"
        handled = self.finished + self.skipped
        extra = ", ".join(
            p
            for p in (f"{self.skipped} skipped" if self.skipped else "", f"{self.failed} failed" if self.failed else "")
            if p
        )
        return (
            f"[batch] {handled}/{self.total_videos} videos{f' ({extra})' if extra else ''} | {frac:4.0%} | "
            f"{fps:.1f} frames/s | {self.in_flight} in progress | {duration_text(el)} elapsed | {eta}"
        )

    def draw(self, force: bool = False) -> None:
        if not self.tty:
            return
        now = time.monotonic()
        if not force and now - self._last_draw < 0.25:
            return
        self._last_draw = now
        self.stream.write("\r\x1b[2K" + self.status())
        self.stream.flush()

    def close(self) -> None:
        if self.tty:
            self.stream.write("\r\x1b[2K")
            self.stream.flush()
