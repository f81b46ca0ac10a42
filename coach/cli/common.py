"""What several commands share: the profile flags, the files no output may replace, the store opened for one
command, and printing stored text safely."""

from __future__ import annotations

import argparse
import sqlite3
from contextlib import contextmanager
from pathlib import Path

from ..errors import CoachError
from ..safe_io import terminal_safe

DB_HELP = "session store (default: $COACH_DB, else ./coach.db)"


def add_profile_args(p: argparse.ArgumentParser) -> None:
    """--rules and the archer's profile: handedness, draw style, tolerance."""
    p.add_argument("--rules", default=None, help="rule pack TOML (default: the bundled 射經 pack)")
    p.add_argument("--handedness", choices=("auto", "right", "left"), default="auto")
    p.add_argument("--draw-style", choices=("mediterranean", "thumb"), default="mediterranean")
    p.add_argument("--tolerance", choices=("beginner", "club", "elite"), default="club")


def add_db_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--db", metavar="PATH", help=DB_HELP)


def profile_from_args(args):
    """The profile the command line asks for (see `add_profile_args`)."""
    from posture_rules.pack import Profile

    hand = None if args.handedness == "auto" else args.handedness
    return Profile(handedness=hand, draw_style=args.draw_style, tolerance=args.tolerance)


def protected_paths(args, source: str | None) -> dict[Path, str]:
    """What no output of this command may replace, --force or not: the store (and its -wal/-shm), the input."""
    from ..safe_io import store_files
    from ..store import default_db_path

    out = store_files(default_db_path(getattr(args, "db", None)))
    if source and "://" not in str(source):
        out[Path(source)] = "the input being analysed"
    return out


@contextmanager
def open_store(path: str | None, create: bool = False, readonly: bool = False):
    """The store for one command; a database error inside it is one line naming the file."""
    from ..store import Store, default_db_path

    store = Store.open(path, create=create, readonly=readonly)
    try:
        yield store
    except sqlite3.DatabaseError as e:
        raise CoachError(default_db_path(path), f"database error ({e})") from None
    finally:
        store.close()


def print_safe(text: str) -> None:
    """Stored names, sources and comments are anyone's text: never raw escape sequences on the terminal."""
    print(terminal_safe(text))
