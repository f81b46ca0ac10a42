"""`coach` command line. Every user error is one line naming the file and the problem, and a non-zero exit."""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import sys
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from types import MappingProxyType

from . import __version__
from .errors import CoachError

EXIT_USAGE, EXIT_INPUT = 2, 3


def _profile(args):
    from posture_rules.pack import Profile

    hand = None if args.handedness == "auto" else args.handedness
    return Profile(handedness=hand, draw_style=args.draw_style, tolerance=args.tolerance)


def _protected(args, source: str | None) -> dict[Path, str]:
    """What no output of this command may replace, --force or not: the store (and its -wal/-shm), the input."""
    from .safe_io import store_files
    from .store import default_db_path

    out = store_files(default_db_path(getattr(args, "db", None)))
    if source and "://" not in str(source):
        out[Path(source)] = "the input being analysed"
    return out


def cmd_analyze(args) -> int:
    from posture_rules.pack import load_pack

    from .pipeline import analyze_track, analyze_video, require_person
    from .report.output import atomic_path, prepare_output, write_output
    from .safe_io import printable, terminal_safe
    from .summary import format_report
    from .terminal import progress_for

    pack = load_pack(args.rules)
    profile = _profile(args)
    source = args.pose_track or args.video
    if not source:
        raise CoachError(None, "give a video file, or --pose-track FILE")
    # Outputs are checked before the analysis (a refusal costs nothing) and written through a temporary
    # file renamed into place, so a full disk or a kill never leaves half a file where the old one was.
    protect = _protected(args, source)
    if args.json:
        prepare_output(args.json, args.force, protect)
    if args.save_pose:
        also = {Path(args.json): "the --json output"} if args.json else {}
        prepare_output(args.save_pose, args.force, {**protect, **also})
    recorder = None
    if args.archer:  # record into the session store as the analysis goes (coach/store.py)
        from .store_cli import start_recording

        recorder, profile = start_recording(args, pack, profile, source)
    listeners = [recorder.on_shot] if recorder else []
    try:
        if args.pose_track:
            report = analyze_track(args.pose_track, pack=pack, profile=profile, on_shot=listeners)
        else:
            bar = progress_for(Path(args.video).name)  # on a terminal only: piped output stays the report
            try:
                with ExitStack() as stack:
                    pose_out = stack.enter_context(atomic_path(args.save_pose, args.force)) if args.save_pose else None
                    report = analyze_video(
                        args.video,
                        pack=pack,
                        profile=profile,
                        model=args.model,
                        save_pose=pose_out,
                        on_shot=listeners,
                        audio=args.audio,
                        progress=bar,
                        full_rate=args.full_rate,
                    )
            finally:
                if bar is not None:
                    bar.close()
        if recorder:
            recorder.finish(report)
    finally:
        if recorder:
            recorder.close()
    if args.json:
        write_output(args.json, json.dumps(report.to_json(), ensure_ascii=False, indent=1), args.force, protect)
    print(terminal_safe(format_report(report, profile.apply(pack))))
    cut = report.meta.get("truncated")
    if cut and report.frames_with_person:  # one line, where FFmpeg would have printed a screenful
        print(
            f"coach: warning: {printable(source)}: truncated: analysed the first {cut['frames']} frames",
            file=sys.stderr,
        )
    if recorder and recorder.sid is not None:
        print(f"\nrecorded as session {recorder.sid} for {recorder.archer.name} in {recorder.store.path}")
    require_person(report, source)
    return 0


def cmd_rules(args) -> int:
    from posture_rules.pack import load_pack

    from .rulebook_text import check_summary, format_pack

    pack = load_pack(args.check or args.rules)
    if args.check:
        print(check_summary(pack, args.check))
        return 0
    print(format_pack(pack))
    return 0


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--rules", default=None, help="rule pack TOML (default: the bundled 射經 pack)")
    p.add_argument("--handedness", choices=("auto", "right", "left"), default="auto")
    p.add_argument("--draw-style", choices=("mediterranean", "thumb"), default="mediterranean")
    p.add_argument("--tolerance", choices=("beginner", "club", "elite"), default="club")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="coach", description="射經 Coach — archery form against Wang Ju's 射經")
    parser.add_argument("--version", action="version", version=f"coach {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    a = sub.add_parser("analyze", help="analyse a recorded video (or a saved pose track)")
    a.add_argument("video", nargs="?", help="video file")
    a.add_argument("--json", metavar="OUT", help="write the coach.session/1 JSON report here")
    a.add_argument("--model", metavar="FILE.task", help="MediaPipe Tasks pose model (default: bundled full model)")
    a.add_argument("--save-pose", metavar="TRACK.json", help="save the landmarks as a coach.posetrack/1 file")
    a.add_argument("--pose-track", metavar="TRACK.json", help="re-analyse a saved pose track (no model run)")
    a.add_argument(
        "--audio",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="time each release by the string's sound where the video has audio (default: on)",
    )
    a.add_argument(
        "--full-rate",
        action="store_true",
        help="run the pose model on every frame (default: sample the stretches where nobody draws; same shots)",
    )
    a.add_argument("--archer", metavar="NAME", help="record the session for this archer in the store (--db)")
    a.add_argument("--db", metavar="PATH", help="session store (default: $COACH_DB, else ./coach.db)")
    a.add_argument("--force", action="store_true", help="overwrite existing --json / --save-pose files")
    _common(a)
    a.set_defaults(func=cmd_analyze)

    r = sub.add_parser("rules", help="list the rule pack, or check a pack file")
    r.add_argument("--rules", default=None, help="rule pack TOML to list")
    r.add_argument("--check", metavar="FILE", help="validate this rule pack and exit")
    r.set_defaults(func=cmd_rules)

    for register in _plugins():
        register(sub)
    return parser


def _plugins() -> list[Callable]:
    """Sub-commands that live beside their feature (synth, live, batch, store …), registered by name."""
    out = []
    for module, attr in EXTRA_COMMANDS.items():
        try:
            mod = __import__(module, fromlist=[attr])
        except ImportError:
            continue
        out.append(getattr(mod, attr))
    return out


EXTRA_COMMANDS = MappingProxyType(
    {
        "coach.synth.cli": "register",
        "coach.store_cli": "register",
        "coach.live.cli": "register",
        "coach.batch_cli": "register",
    }
)


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return EXIT_USAGE
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
        from .safe_io import os_problem, printable

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
