"""`coach` command line. Every user error is one line naming the file and the problem, and a non-zero exit."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from types import MappingProxyType

from . import __version__
from .errors import CoachError

EXIT_USAGE, EXIT_INPUT = 2, 3


def _profile(args):
    from posture_rules.pack import Profile

    hand = None if args.handedness == "auto" else args.handedness
    return Profile(handedness=hand, draw_style=args.draw_style, tolerance=args.tolerance)


def cmd_analyze(args) -> int:
    from posture_rules.pack import load_pack

    from .pipeline import analyze_track, analyze_video, require_person
    from .summary import format_report
    from .terminal import progress_for

    pack = load_pack(args.rules)
    profile = _profile(args)
    source = args.pose_track or args.video
    if not source:
        raise CoachError(None, "give a video file, or --pose-track FILE")
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
                report = analyze_video(
                    args.video,
                    pack=pack,
                    profile=profile,
                    model=args.model,
                    save_pose=args.save_pose,
                    on_shot=listeners,
                    audio=args.audio,
                    progress=bar,
                )
            finally:
                if bar is not None:
                    bar.close()
        if recorder:
            recorder.finish(report)
    finally:
        if recorder:
            recorder.close()
            recorder.store.close()
    if args.json:
        out = Path(args.json)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(report.to_json(), ensure_ascii=False, indent=1), encoding="utf-8")
    print(format_report(report, profile.apply(pack)))
    if recorder:
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
    a.add_argument("--archer", metavar="NAME", help="record the session for this archer in the store (--db)")
    a.add_argument("--db", metavar="PATH", help="session store (default: $COACH_DB, else ./coach.db)")
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
        return int(args.func(args) or 0)
    except CoachError as e:
        print(f"coach: error: {e}", file=sys.stderr)
        return EXIT_INPUT
    except KeyboardInterrupt:
        print("coach: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
