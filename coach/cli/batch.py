"""`coach batch`: analyse every video under some folders, in parallel, into the session store (coach/batch/)."""

from __future__ import annotations

import argparse
import sys

from ..errors import CoachError
from .common import add_db_arg

EXIT_SOME_FAILED = 3  # like any input error: the failed videos are listed in the summary


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "batch",
        help="analyse every video under folders, in parallel, into the session store (resumable)",
        description=(
            "Analyse every video under the given files and folders (recursively) in parallel and record each "
            "in the session store. Videos the store already holds (same content, same rule pack version, "
            "finished) are skipped, so an interrupted batch continues where it stopped when run again. "
            "A video that cannot be analysed is reported and the batch goes on."
        ),
    )
    p.add_argument("paths", nargs="+", metavar="PATH", help="video files and/or folders")
    p.add_argument("--workers", type=int, default=None, metavar="N", help="parallel workers (default: one per core)")
    who = p.add_mutually_exclusive_group()
    who.add_argument("--archer", metavar="NAME", help="record every video for this archer")
    who.add_argument(
        "--archer-from-folder",
        action="store_true",
        help="the archer of each video is the name of the folder it is in (e.g. club/王小明/day1.mp4)",
    )
    add_db_arg(p)
    p.add_argument(
        "--out", metavar="SUMMARY.csv", help="also write the summary table as CSV (an existing file needs --force)"
    )
    p.add_argument("--rules", default=None, help="rule pack TOML (default: the bundled 射經 pack)")
    p.add_argument("--model", metavar="FILE.task", help="MediaPipe Tasks pose model (default: bundled full model)")
    p.add_argument(
        "--handedness",
        choices=("auto", "right", "left"),
        default=None,
        help="set the archer's handedness (saved to the archer, as coach analyze does)",
    )
    p.add_argument(
        "--draw-style", choices=("mediterranean", "thumb"), default=None, help="set the archer's profile (saved)"
    )
    p.add_argument(
        "--tolerance", choices=("beginner", "club", "elite"), default=None, help="set the archer's profile (saved)"
    )
    p.add_argument(
        "--force",
        action="store_true",
        help="analyse again videos the store already holds, and overwrite an existing --out file",
    )
    p.add_argument(
        "--engine",
        choices=("process", "ray"),
        default="process",
        help="local worker processes (default), or a Ray cluster (pip install 'shejing-coach[ray]')",
    )
    p.add_argument(
        "--address",
        metavar="ADDR",
        help="with --engine ray: the cluster to join ('auto', 'HOST:6379', 'ray://HOST:10001'); "
        "default: start a local Ray instance",
    )
    p.add_argument(
        "--full-rate",
        action="store_true",
        help="run the pose model on every frame (default: sample the stretches where nobody draws; same shots)",
    )
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    p.set_defaults(func=cmd_batch)


def check_out(out: str, force: bool, db: str | None):
    """The summary path, checked before hours of analysis: not an existing file without --force, never the
    store or its side files (coach/safe_io.py)."""
    from ..report.output import prepare_output
    from ..safe_io import store_files
    from ..store import default_db_path

    return prepare_output(out, force, store_files(default_db_path(db)))


def cmd_batch(args) -> int:
    from posture_rules.pack import parse_handedness

    from ..batch import FAILED, BatchOptions, format_summary, run_batch, summary_csv

    if args.address and args.engine != "ray":
        raise CoachError(None, "--address is for --engine ray")
    if args.workers is not None and args.workers < 1:
        raise CoachError(None, f"--workers must be at least 1, not {args.workers}")
    if args.out:
        check_out(args.out, args.force, args.db)
    overrides = {}
    if parse_handedness(args.handedness) is not None:
        overrides["handedness"] = args.handedness
    if args.draw_style is not None:
        overrides["draw_style"] = args.draw_style
    if args.tolerance is not None:
        overrides["tolerance"] = args.tolerance
    opts = BatchOptions(
        workers=args.workers,
        archer=args.archer,
        archer_from_folder=args.archer_from_folder,
        db=args.db,
        pack_path=args.rules,
        model=args.model,
        profile_overrides=overrides,
        engine=args.engine,
        address=args.address,
        force=args.force,
        progress=not args.quiet,
        full_rate=args.full_rate,
    )
    result = run_batch(args.paths, opts)
    print(format_summary(result))
    if args.out:
        from ..report.output import write_output
        from ..safe_io import printable, store_files
        from ..store import default_db_path

        out = write_output(args.out, summary_csv(result), args.force, store_files(default_db_path(args.db)))
        print(f"summary written to {printable(out)}")
    if result.interrupted:
        print("coach: interrupted", file=sys.stderr)
        return 130
    return EXIT_SOME_FAILED if result.count(FAILED) else 0
