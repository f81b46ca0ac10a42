"""Output files made safely: never overwrite without `force`, create parent folders, write to a temporary
file beside the target and rename it into place, so a failure never leaves half a report behind."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from types import MappingProxyType

from ..errors import CoachError
from ..safe_io import guard_output, os_problem

NOTHING: Mapping[Path, str] = MappingProxyType({})


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def prepare_output(path: str | os.PathLike, force: bool = False, protect: Mapping[Path, str] = NOTHING) -> Path:
    """`protect`: files no output may replace, --force or not (the store, the input; coach/safe_io.py)."""
    p = guard_output(path, protect)
    if p.is_dir():
        raise CoachError(p, "is a folder; give a file name for the output")
    if p.exists() and not force:
        raise CoachError(p, "already exists (use --force to overwrite it)")
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise CoachError(p.parent, f"cannot create the folder ({os_problem(e)})") from None
    return p


@contextmanager
def atomic_path(path: str | os.PathLike, force: bool = False, protect: Mapping[Path, str] = NOTHING) -> Iterator[Path]:
    """Yields a temporary path in the target's folder; renamed onto `path` when the block succeeds."""
    p = prepare_output(path, force, protect)
    try:
        fd, tmp = tempfile.mkstemp(prefix=".coach-", suffix=p.suffix or ".tmp", dir=p.parent)
    except OSError as e:  # a read-only or full folder: one line, not a traceback
        raise CoachError(p.parent, f"cannot write here ({os_problem(e)})") from None
    os.close(fd)
    tmp_path = Path(tmp)
    try:
        yield tmp_path
        if p.exists() and not force:  # appeared while we worked
            raise CoachError(p, "already exists (use --force to overwrite it)")
        tmp_path.chmod(0o666 & ~_umask())  # mkstemp makes 0600; give the file the usual permissions
        os.replace(tmp_path, p)
    finally:
        if tmp_path.exists():
            tmp_path.unlink()


def write_output(
    path: str | os.PathLike, data: bytes | str, force: bool = False, protect: Mapping[Path, str] = NOTHING
) -> Path:
    with atomic_path(path, force, protect) as tmp:
        try:
            tmp.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
        except OSError as e:  # e.g. the disk filled up: the temporary file goes, the target is untouched
            raise CoachError(path, f"cannot be written ({os_problem(e)})") from None
    return Path(path)
