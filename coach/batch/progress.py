"""The batch's one progress line on stderr: videos done, how much video time is covered (and how many times
real time that is) and an ETA."""

from __future__ import annotations

import sys
import time

from .summary import duration_text


# ---- progress ------------------------------------------------------------------------------------------
class ProgressLine:
    """Overall progress on stderr: one self-rewriting line on a terminal, one line per finished video
    otherwise (logs, CI). Work is weighted by file size; a running video counts by the share of its own time
    the analysis has covered (`update`, from the workers' `VideoProgress`), never by frames analysed: adaptive
    analysis runs the model on few frames of an idle stretch and many of a shot."""

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
        self.running: dict[int, tuple[int, float]] = {}  # key -> (size, fraction of its time covered)
        self.video_s = 0.0  # video time covered by the finished videos
        self.running_video_s: dict[int, float] = {}  # key -> video time covered so far
        self.t0: float | None = None
        self.in_flight = 0  # handed to workers, not yet back
        self._last_draw = 0.0

    def start_clock(self) -> None:
        if self.t0 is None:
            self.t0 = time.monotonic()

    def add_work(self, size: int) -> None:
        self.bytes_total += size

    def update(self, key: int, size: int, covered_s: float, total_s: float | None) -> None:
        """A running video has covered `covered_s` of its `total_s` seconds."""
        frac = min(covered_s / total_s, 0.99) if total_s else 0.0
        self.running[key] = (size, frac)
        self.running_video_s[key] = covered_s
        self.draw()

    def video_done(self, key: int, size: int, video_s: float, line: str, failed: bool = False) -> None:
        """A video is over: `video_s` seconds of it were covered (all of it, unless it failed)."""
        self.running.pop(key, None)
        self.running_video_s.pop(key, None)
        self.finished += 1
        self.failed += failed
        self.bytes_done += size
        self.video_s += video_s
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
        covered = self.video_s + sum(self.running_video_s.values())
        speed = (
            f" ({covered / el:.1f}× real time)" if el > 2 and covered > 0 else ""
        )  # as the ETA: once it means something
        eta = f"ETA {duration_text(el * (1 - frac) / frac)}" if 0.0 < frac < 1.0 and el > 2 else "ETA —"
        handled = self.finished + self.skipped
        extra = ", ".join(
            p
            for p in (f"{self.skipped} skipped" if self.skipped else "", f"{self.failed} failed" if self.failed else "")
            if p
        )
        return (
            f"[batch] {handled}/{self.total_videos} videos{f' ({extra})' if extra else ''} | {frac:4.0%} | "
            f"{duration_text(covered)} of video covered{speed} | {self.in_flight} in progress | "
            f"{duration_text(el)} elapsed | {eta}"
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
