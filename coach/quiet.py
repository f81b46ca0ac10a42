"""Silence native libraries' chatter on stderr (TFLite, absl, FFmpeg) while they load or probe a file.

Their lines ("Created TensorFlow Lite XNNPACK delegate", "moov atom not found") mean nothing to a coach
and bury the one line of ours that does. Only the file descriptor is redirected, for the duration.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator


@contextlib.contextmanager
def native_stderr_silenced() -> Iterator[None]:
    if os.environ.get("COACH_NATIVE_LOGS"):
        yield
        return
    try:
        fd = sys.stderr.fileno()
    except (AttributeError, OSError, ValueError):  # e.g. pytest capture or a notebook
        yield
        return
    sys.stderr.flush()
    saved = os.dup(fd)
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, fd)
        yield
    finally:
        sys.stderr.flush()
        os.dup2(saved, fd)
        os.close(saved)
        os.close(devnull)
