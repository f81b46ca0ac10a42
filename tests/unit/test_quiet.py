"""Native chatter is silenced on file descriptor 2 for the process: threads that silence it at once (a live run's
model beside another's) must leave it as it was, whatever order they leave in."""

from __future__ import annotations

import os
import threading

from coach.quiet import native_stderr_silenced


def _target(fd: int) -> tuple[int, int]:
    st = os.fstat(fd)
    return st.st_dev, st.st_ino


def test_overlapping_threads_restore_stderr_whatever_order_they_leave_in():
    before = _target(2)
    null = os.stat(os.devnull)
    first_in, second_in, first_out = threading.Event(), threading.Event(), threading.Event()
    seen: dict[str, tuple[int, int]] = {}

    def first() -> None:  # in first, out first: the second is still loading its model
        with native_stderr_silenced():
            first_in.set()
            second_in.wait(5)
        seen["after first left"] = _target(2)
        first_out.set()

    def second() -> None:
        first_in.wait(5)
        with native_stderr_silenced():
            second_in.set()
            first_out.wait(5)

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert seen["after first left"] == (null.st_dev, null.st_ino)  # still silenced: the second is inside
    assert _target(2) == before  # and not left on /dev/null, nor on a closed descriptor, once both are out


def test_silencing_nests_and_restores():
    before = _target(2)
    with native_stderr_silenced():
        with native_stderr_silenced():
            pass
        assert _target(2) == (os.stat(os.devnull).st_dev, os.stat(os.devnull).st_ino)
    assert _target(2) == before
