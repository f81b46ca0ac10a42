"""Silence native libraries' chatter on stderr (TFLite, absl, FFmpeg) while they load or probe a file.

Their lines ("Created TensorFlow Lite XNNPACK delegate", "moov atom not found") mean nothing to a coach
and bury the one line of ours that does. Only the file descriptor is redirected, for the duration.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from collections.abc import Iterator

# File descriptor 2 is one per process, and the silencing runs on worker threads too (a live run loads and runs the
# model on its own thread, beside the dashboard's and other runs'). Each thread saving and restoring it on its own
# would restore another's /dev/null, or a descriptor already closed: the first thread in redirects, the last out
# restores, under one lock.
_STDERR_FD = 2
_lock = threading.Lock()
_depth = 0
_saved: int | None = None


def _silence() -> bool:
    global _depth, _saved
    with _lock:
        if _depth == 0:
            try:
                sys.stderr.flush()
            except (AttributeError, OSError, ValueError):  # a closed or replaced Python stderr: nothing to flush
                pass
            try:
                saved = os.dup(_STDERR_FD)
            except OSError:  # no stderr at all (a daemon): nothing to silence
                return False
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, _STDERR_FD)
            os.close(devnull)
            _saved = saved
        _depth += 1
        return True


def _restore() -> None:
    global _depth, _saved
    with _lock:
        _depth -= 1
        if _depth == 0 and _saved is not None:
            os.dup2(_saved, _STDERR_FD)
            os.close(_saved)
            _saved = None


@contextlib.contextmanager
def native_stderr_silenced() -> Iterator[None]:
    if os.environ.get("COACH_NATIVE_LOGS") or not _silence():
        yield
        return
    try:
        yield
    finally:
        _restore()


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
