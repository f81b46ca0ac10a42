"""A one-slot mailbox: `put` replaces whatever the reader has not taken yet (counted as dropped), `get` waits
for the newest item. The live path's only queue, so a slow model never builds a backlog of stale frames."""

from __future__ import annotations

import threading
import time
from typing import Generic, TypeVar

T = TypeVar("T")


class Closed(Exception):
    """The mailbox was closed and holds nothing more."""


class Mailbox(Generic[T]):
    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._item: T | None = None
        self._full = False
        self._closed = False
        self.posted = 0  # items put
        self.taken = 0  # items handed to the reader
        self.dropped = 0  # items replaced before the reader took them, or left behind at close

    def put(self, item: T) -> bool:
        """Leave `item` for the reader; returns True if it replaced (dropped) an item not yet taken."""
        with self._cond:
            if self._closed:
                raise Closed("put on a closed mailbox")
            replaced = self._full
            if replaced:
                self.dropped += 1
            self._item, self._full = item, True
            self.posted += 1
            self._cond.notify()
            return replaced

    def get(self, timeout: float | None = None) -> T | None:
        """The newest item; None after `timeout` seconds with nothing new. Raises Closed once closed and empty."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            while not self._full:
                if self._closed:
                    raise Closed("mailbox closed")
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    return None
                self._cond.wait(left)
            item, self._item, self._full = self._item, None, False
            self.taken += 1
            self._cond.notify_all()  # a writer may be waiting for the slot (`wait_taken`)
            return item

    def wait_taken(self, timeout: float | None = None) -> bool:
        """Wait until the reader has taken the waiting item (or there is none); False after `timeout` seconds
        with the item still there. For a writer that must not drop (a file fed without losing frames)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            while self._full and not self._closed:
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    return False
                self._cond.wait(left)
            return not self._full

    def discard(self) -> bool:
        """Drop the waiting item, if any (counted as dropped): e.g. while the analysis is paused."""
        with self._cond:
            if not self._full:
                return False
            self._item, self._full = None, False
            self.dropped += 1
            return True

    def close(self) -> None:
        """No more puts; a waiting item can still be taken."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()

    @property
    def closed(self) -> bool:
        return self._closed
