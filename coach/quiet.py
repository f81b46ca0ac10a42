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


@contextlib.contextmanager
def native_stderr_to_null() -> Iterator[None]:
    """For a whole command: what native libraries write to file descriptor 2 (MediaPipe's graph threads log
    whenever they please, not only while a call is silenced) goes to /dev/null, while Python's `sys.stderr` (our
    one-line errors, warnings and progress) keeps the real stderr. COACH_NATIVE_LOGS=1 shows everything."""
    if os.environ.get("COACH_NATIVE_LOGS"):
        yield
        return
    try:
        fd = sys.stderr.fileno()
    except (AttributeError, OSError, ValueError):  # pytest capture, a notebook: nothing to redirect
        yield
        return
    python_err = sys.stderr
    python_err.flush()
    saved = os.dup(fd)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fd)
    os.close(devnull)
    sys.stderr = os.fdopen(saved, "w", buffering=1, encoding=python_err.encoding, errors=python_err.errors)
    try:
        yield
    finally:
        sys.stderr.flush()
        os.dup2(saved, fd)
        sys.stderr.close()
        sys.stderr = python_err
