"""Terminal output helpers: a progress bar for long analyses, and padding by display width.

The bar is drawn only on a terminal (stderr a TTY): piped or redirected output stays the plain report. Chinese
characters take two columns, so columns are padded by their display width, not their length."""

from __future__ import annotations

import sys
import time
import unicodedata


def display_width(s: str) -> int:
    return sum(2 if unicodedata.east_asian_width(c) in ("W", "F") else 0 if unicodedata.combining(c) else 1 for c in s)


def ljust(s: str, width: int) -> str:
    """`s` padded with spaces to `width` display columns (never cut)."""
    return s + " " * max(0, width - display_width(s))


def rjust(s: str, width: int) -> str:
    return " " * max(0, width - display_width(s)) + s


class ProgressBar:
    """`bar(done, total)` redraws one line on stderr: "▕████░░░░▏ 45% 290/653 frames · 24.1 fps · ETA 15 s"."""

    def __init__(self, label: str, stream=None, width: int = 28, min_interval_s: float = 0.2):
        self.label = label
        self.stream = stream or sys.stderr
        self.width = width
        self.min_interval_s = min_interval_s
        self._t0 = time.monotonic()
        self._last = 0.0
        self._shown = False

    def __call__(self, done: int, total: int | None) -> None:
        now = time.monotonic()
        if now - self._last < self.min_interval_s and not (total and done >= total):
            return
        self._last = now
        self.stream.write("\r" + self.line(done, total, now - self._t0) + "\x1b[K")
        self.stream.flush()
        self._shown = True

    def line(self, done: int, total: int | None, elapsed: float) -> str:
        fps = done / elapsed if elapsed > 0 else 0.0
        if total:
            part = min(done / total, 1.0)
            full = int(part * self.width)
            bar = "█" * full + "░" * (self.width - full)
            eta = (total - done) / fps if fps > 0 else None
            eta_text = f" · ETA {eta:.0f} s" if eta is not None else ""
            return f"{self.label} ▕{bar}▏ {part:4.0%} {done}/{total} frames · {fps:.1f} fps{eta_text}"
        return f"{self.label} {done} frames · {fps:.1f} fps"

    def close(self) -> None:
        """Clear the bar's line so the report starts on a clean one."""
        if self._shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()


def progress_for(label: str, stream=None) -> ProgressBar | None:
    """A progress bar if `stream` (default stderr) is a terminal, else None (nothing drawn when piped)."""
    stream = stream or sys.stderr
    isatty = getattr(stream, "isatty", None)
    return ProgressBar(label, stream) if callable(isatty) and isatty() else None
