"""Output files made safely: never overwrite without `force`, create parent folders, write to a temporary
file beside the target and rename it into place, so a failure never leaves half a report behind."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..errors import CoachError


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def prepare_output(path: str | os.PathLike, force: bool = False) -> Path:
    p = Path(path)
    if p.is_dir():
        raise CoachError(p, "is a folder; give a file name for the output")
    if p.exists() and not force:
        raise CoachError(p, "already exists (use --force to overwrite it)")
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise CoachError(p.parent, f"cannot create the folder ({e.strerror or e.__class__.__name__})") from None
    return p


@contextmanager
def atomic_path(path: str | os.PathLike, force: bool = False) -> Iterator[Path]:
    """Yields a temporary path in the target's folder; renamed onto `path` when the block succeeds."""
    p = prepare_output(path, force)
    fd, tmp = tempfile.mkstemp(prefix=".coach-", suffix=p.suffix or ".tmp", dir=p.parent)
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


def write_output(path: str | os.PathLike, data: bytes | str, force: bool = False) -> Path:
    with atomic_path(path, force) as tmp:
        tmp.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    return Path(path)
