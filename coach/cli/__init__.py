"""`coach` command line: one module per command group, listed in `COMMANDS`. Every user error is one line naming
the file and the problem, and a non-zero exit."""

from __future__ import annotations

import argparse
import importlib
import os
import sqlite3
import sys
from dataclasses import dataclass

from .. import __version__
from ..errors import CoachError
from ..quiet import native_stderr_to_null

EXIT_USAGE, EXIT_INPUT = 2, 3


@dataclass(frozen=True)
class CommandGroup:
    """A module with `register(subparsers)` adding `commands`. `extra`: the pip extra it needs beyond the base
    install; when that is missing the commands still show, and running one says what to install."""

    module: str
    commands: tuple[str, ...]
    extra: str | None = None


COMMANDS: tuple[CommandGroup, ...] = (
    CommandGroup("coach.cli.analyze", ("analyze",)),
    CommandGroup("coach.cli.rules", ("rules",)),
    CommandGroup("coach.synth.cli", ("synth",)),
    CommandGroup("coach.cli.sessions", ("sessions", "show", "report", "annotate")),
    CommandGroup("coach.cli.render", ("render",)),
    CommandGroup("coach.live.cli", ("live",)),
    CommandGroup("coach.cli.batch", ("batch",)),
    CommandGroup("coach.cli.correct", ("correct", "labels", "eval")),
    CommandGroup("coach.cli.tidy", ("archers", "delete", "move")),
)


def build_parser(commands: tuple[CommandGroup, ...] | None = None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="coach", description="射經 Coach — archery form against Wang Ju's 射經")
    parser.add_argument("--version", action="version", version=f"coach {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for group in COMMANDS if commands is None else commands:
        _register(sub, group)
    return parser


def _register(sub: argparse._SubParsersAction, group: CommandGroup) -> None:
    try:
        module = importlib.import_module(group.module)
    except ModuleNotFoundError as e:
        if group.extra is None or (e.name or "").partition(".")[0] in ("coach", "posture_rules"):
            raise  # part of the base install, or our own module: a broken install, not a choice
        for name in group.commands:
            # no options of its own (any prefix is a plain word), so whatever follows reaches the message below
            p = sub.add_parser(
                name, help=f"(needs: pip install 'shejing-coach[{group.extra}]')", add_help=False, prefix_chars="\0"
            )
            p.add_argument("rest", nargs="*")
            p.set_defaults(func=_needs_extra(name, group.extra))
        return
    module.register(sub)


def _needs_extra(name: str, extra: str):
    def run(args) -> int:
        raise CoachError(None, f"`coach {name}` needs the {extra!r} extra: pip install 'shejing-coach[{extra}]'")

    return run


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return EXIT_USAGE
    with native_stderr_to_null():
        return _run(args)


def _run(args) -> int:
    try:
        rc = int(args.func(args) or 0)
        sys.stdout.flush()  # a closed pipe shows here, inside the handler, not at interpreter exit
        return rc
    except CoachError as e:
        return _fail(str(e))
    except BrokenPipeError:
        # `coach show 1 | head -1`: the reader has gone; that is not an error, and Python must not print one
        # when it flushes stdout at exit
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except OSError as e:
        # a full disk, a read-only folder, a vanished file: name it and say what happened, on one line
        from ..safe_io import os_problem, printable

        where = printable(e.filename) if e.filename is not None else None
        return _fail(f"{where}: {os_problem(e)}" if where else os_problem(e))
    except sqlite3.DatabaseError as e:
        return _fail(f"database error ({e})")
    except RecursionError:
        return _fail("the input is nested too deeply to read")
    except KeyboardInterrupt:
        print("coach: interrupted", file=sys.stderr)
        return 130


def _fail(line: str) -> int:
    print(f"coach: error: {' '.join(line.splitlines())}", file=sys.stderr)
    return EXIT_INPUT


if __name__ == "__main__":
    sys.exit(main())
