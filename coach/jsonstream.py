"""Pose tracks read frame by frame: the file is never held whole, nor its parsed JSON (a 10⁶-frame track is
1.2 GB of text and was 10 GB of Python objects). A small streaming reader over the top-level object: scalar
fields are decoded as they come, and each element of `frames` is decoded, turned into arrays and dropped."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import IO, Any

CHUNK = 1 << 20
MAX_VALUE_CHARS = 16 << 20  # no single value (a frame, the meta table) may be larger than this
_WS = re.compile(r"[ \t\n\r]*")
_decoder = json.JSONDecoder()


class ListCount(int):
    """What read_object puts in place of the streamed list: how many elements it had (and that it was one)."""


class StreamError(ValueError):
    """Not the JSON the reader expects; the message says what and where."""


class _Buffer:
    def __init__(self, f: IO[str]):
        self.f = f
        self.buf = ""
        self.pos = 0
        self.eof = False

    def _fill(self) -> bool:
        if self.eof:
            return False
        chunk = self.f.read(CHUNK)
        if not chunk:
            self.eof = True
            return False
        self.buf = self.buf[self.pos :] + chunk
        self.pos = 0
        return True

    def peek(self) -> str:
        """The next character that is not white space ('' at the end)."""
        while True:
            self.pos = _WS.match(self.buf, self.pos).end()  # a gigabyte of spaces at C speed
            if self.pos < len(self.buf):
                return self.buf[self.pos]
            if not self._fill():
                return ""

    def expect(self, ch: str) -> None:
        if self.peek() != ch:
            raise StreamError(f"expected {ch!r}, found {self.peek()[:1]!r}")
        self.pos += 1

    def value(self) -> Any:
        """One JSON value, refilling until it is complete (a number cut at the buffer's end is not)."""
        self.peek()
        while True:
            try:
                v, end = _decoder.raw_decode(self.buf, self.pos)
            except json.JSONDecodeError:
                if len(self.buf) - self.pos > MAX_VALUE_CHARS:
                    raise StreamError("a value is too large") from None
                if not self._fill():
                    raise
                continue
            if end == len(self.buf) and not self.eof and self._fill():
                continue  # maybe cut short (30 of 30.5): decode again with what follows
            self.pos = end
            return v


def read_object(f: IO[str], on_frame: Callable[[int, Any], None], list_key: str = "frames") -> dict:
    """Decode the top-level object of `f`; each element of `list_key` goes to `on_frame(i, element)` as soon
    as it is read. Returns the other fields, with `list_key` set to the number of elements."""
    b = _Buffer(f)
    if b.peek() != "{":
        raise StreamError("the top level is not an object")
    b.pos += 1
    out: dict = {}
    if b.peek() == "}":
        b.pos += 1
        return out
    while True:
        key = b.value()
        if not isinstance(key, str):
            raise StreamError("an object key is not a string")
        b.expect(":")
        if key == list_key and b.peek() == "[":
            b.pos += 1
            n = 0
            if b.peek() == "]":
                b.pos += 1
            else:
                while True:
                    on_frame(n, b.value())
                    n += 1
                    c = b.peek()
                    b.pos += 1
                    if c == "]":
                        break
                    if c != ",":
                        raise StreamError(f"expected ',' or ']' after frame {n - 1}")
            out[key] = ListCount(n)
        else:
            out[key] = b.value()
        c = b.peek()
        b.pos += 1
        if c == "}":
            break
        if c != ",":
            raise StreamError("expected ',' or '}' in the top-level object")
    if b.peek() != "":
        raise StreamError("extra data after the top-level object")
    return out
