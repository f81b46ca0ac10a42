"""Finding the videos of a batch, and whose each one is (`--archer-from-folder`)."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from ..capture import VIDEO_EXTENSIONS
from ..errors import CoachError

UNASSIGNED_ARCHER = "unassigned"  # sessions of a batch run without --archer / --archer-from-folder


# ---- finding the videos ----------------------------------------------------------------------------------
def find_videos(paths: Iterable[str | os.PathLike], extensions: frozenset[str] = VIDEO_EXTENSIONS) -> list[Path]:
    """Every video under the paths, recursively: a folder's files, then its sub-folders, each sorted by name.
    A file named directly is always taken; hidden files and folders are left out; a path given twice (or
    inside another) is listed once."""
    out: list[Path] = []
    seen: set[Path] = set()

    def add(p: Path) -> None:
        try:
            key = p.resolve()
        except (OSError, RuntimeError):  # a symlink loop: listed, and failed alone with its reason later
            key = Path(os.path.abspath(p))
        if key not in seen:
            seen.add(key)
            out.append(p)

    for raw in paths:
        p = Path(raw)
        if p.is_file():
            add(p)
        elif p.is_dir():
            for dirpath, dirnames, filenames in os.walk(p, followlinks=False):
                dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
                for name in sorted(filenames):
                    if not name.startswith(".") and Path(name).suffix.lower() in extensions:
                        add(Path(dirpath) / name)
        elif not p.exists():
            raise CoachError(p, "no such file or folder")
        else:
            raise CoachError(p, "is neither a file nor a folder")
    return out


def archer_from_folder(path: Path) -> str:
    """The archer a video belongs to under --archer-from-folder: the name of the folder holding it."""
    name = path.resolve().parent.name
    if not name:
        raise CoachError(path, "is not inside a folder named after an archer (--archer-from-folder)")
    return name
