"""Guards for the paths a user names: what may be read, what may be written over.

Every entry point (CLI, batch, dashboard) reads only regular files of a bounded size — a FIFO or
/dev/urandom would otherwise block or stream forever — and never writes over the session store, its
SQLite side files or the input being analysed, even with --force (a typo such as `--json s.db` must not
turn a store into JSON). Names that are not valid UTF-8 are refused here with one line: OpenCV's
VideoCapture segfaults on them, and they cannot be printed or stored as text either.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from collections.abc import Iterable, Mapping
from pathlib import Path

from .errors import CoachError

MB = 1 << 20
SQLITE_SIDE_FILES = ("-wal", "-shm", "-journal")


def name_problem(path: str | os.PathLike) -> str | None:
    """Why this file name cannot be used, or None. Undecodable bytes arrive as lone surrogates
    (os.fsdecode's surrogateescape); they never encode to UTF-8."""
    try:
        os.fspath(path).encode("utf-8")
    except UnicodeEncodeError:
        return "the file name is not valid UTF-8; rename the file"
    return None


def printable(path: str | os.PathLike) -> str:
    """The name as one printable line: undecodable bytes as \\xNN, control characters escaped."""
    s = os.fspath(path)
    s = s.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    return "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii") for ch in s)


_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def terminal_safe(text: str) -> str:
    """Text for the terminal with control characters (ANSI escapes in an archer's name or a file name)
    shown as \\xNN instead of acted on; newlines and tabs stay."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def os_problem(e: OSError) -> str:
    """An OSError as the short words a user acts on."""
    if e.errno in (errno.EACCES, errno.EPERM):
        return "permission denied"
    if e.errno == errno.ENOSPC:
        return "no space left on the device"
    if e.errno == errno.EROFS:
        return "the file system is read-only"
    if e.errno == errno.ELOOP:
        return "a symbolic link loop"
    return e.strerror or e.__class__.__name__


def require_regular_file(path: str | os.PathLike, what: str = "file", max_bytes: int | None = None) -> Path:
    """The path, if it names a readable regular file (after symlinks) no larger than `max_bytes`."""
    p = Path(path)
    bad = name_problem(p)
    if bad:
        raise CoachError(printable(p), bad)
    try:
        st = p.stat()
    except FileNotFoundError:
        raise CoachError(p, "no such file") from None
    except OSError as e:
        raise CoachError(p, f"cannot be read ({os_problem(e)})") from None
    if stat.S_ISDIR(st.st_mode):
        raise CoachError(p, f"is a folder, not a {what}")
    if not stat.S_ISREG(st.st_mode):
        # reading a FIFO blocks until a writer comes; a device such as /dev/urandom never ends
        raise CoachError(p, f"is not a regular file (a pipe, device or socket), not a {what}")
    if not os.access(p, os.R_OK):
        raise CoachError(p, "cannot be read (permission denied)")
    if max_bytes is not None and st.st_size > max_bytes:
        raise CoachError(p, f"is {st.st_size / MB:.0f} MB, more than the {max_bytes // MB} MB a {what} may be")
    return p


def read_bounded(path: str | os.PathLike, what: str, max_bytes: int) -> bytes:
    p = require_regular_file(path, what, max_bytes)
    try:
        with open(p, "rb") as f:
            data = f.read(max_bytes + 1)
    except OSError as e:
        raise CoachError(p, f"cannot be read ({os_problem(e)})") from None
    if len(data) > max_bytes:  # grew since the stat
        raise CoachError(p, f"is more than the {max_bytes // MB} MB a {what} may be")
    return data


def store_files(db: str | os.PathLike) -> dict[Path, str]:
    """The store and its SQLite side files, as `protect` for guard_output."""
    p = Path(db)
    out = {p: "the session store"}
    for suffix in SQLITE_SIDE_FILES:
        out[p.with_name(p.name + suffix)] = f"the session store's {suffix[1:]} file"
    return out


def same_file(a: Path, b: Path) -> bool:
    try:
        if a.exists() and b.exists():
            return os.path.samefile(a, b)
    except OSError:
        pass
    return os.path.realpath(a) == os.path.realpath(b)


def guard_output(path: str | os.PathLike, protect: Mapping[Path, str] | Iterable = ()) -> Path:
    """Refuse an output path that is not UTF-8 or that is a protected file (store, input): --force or not."""
    p = Path(path)
    bad = name_problem(p)
    if bad:
        raise CoachError(printable(p), bad)
    items = protect.items() if isinstance(protect, Mapping) else ((q, "an input of this command") for q in protect)
    for q, what in items:
        if q is not None and same_file(p, Path(q)):
            raise CoachError(p, f"is {what}; an output may never replace it, not even with --force")
    return p


# ---- CSV cells a spreadsheet will not run ---------------------------------------------------------------
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: object) -> object:
    """OWASP's rule against CSV formula injection: text that a spreadsheet would take for a formula (an archer
    named `=HYPERLINK(…)`, a comment `@SUM(…)`) gets a leading quote. Numbers are left as numbers."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


class FormulaSafeWriter:
    """csv.writer whose text cells pass through csv_cell."""

    def __init__(self, f, **kw):
        import csv

        self._w = csv.writer(f, **kw)

    def writerow(self, row) -> None:
        self._w.writerow([csv_cell(v) for v in row])
