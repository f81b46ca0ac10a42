"""``coach synth``: render synthetic archer clips with ground-truth sidecars."""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path

from coach.synth.scenarios import ALL_SCENARIOS, SCENARIOS

DEFAULT_OUT = "sample_videos"


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "synth",
        help="render synthetic archer clips (MP4 + .truth.json)",
        description="Render a synthetic archer shooting, with an exact ground-truth sidecar beside each MP4.",
    )
    p.add_argument("--out", default=DEFAULT_OUT, help=f"output directory (default: {DEFAULT_OUT})")
    p.add_argument("--scenario", action="append", choices=sorted(ALL_SCENARIOS), help="clip to render (repeatable)")
    p.add_argument("--all", action="store_true", help="regenerate the committed set (not the fm_* failure modes)")
    p.add_argument("--list", action="store_true", help="list the scenarios and exit")
    p.add_argument("--seed", type=int, default=None, help="override the scenario's seed")
    p.add_argument(
        "--fps", type=int, choices=(14, 15, 24, 25, 30, 60), default=None, help="override the scenario's frame rate"
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from coach.synth.generate import generate_clip  # heavy imports only when rendering

    if args.list:
        for name, scn in ALL_SCENARIOS.items():
            print(f"{name:22s} {scn.view:9s} {scn.handedness:5s} {scn.fps}fps  {scn.description}")
        return 0
    names = list(SCENARIOS) if args.all else (args.scenario or [])
    if not names:
        print("coach synth: give --scenario NAME, --all or --list", file=sys.stderr)
        return 2
    out = Path(args.out)
    for name in names:
        scn = ALL_SCENARIOS[name]
        if args.fps is not None:
            scn = replace(scn, fps=args.fps)
        mp4 = generate_clip(scn, out, seed=args.seed)
        print(f"wrote {mp4} and {mp4.with_suffix('.truth.json').name}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="coach")
    register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["synth", *(sys.argv[1:] if argv is None else argv)])
    return int(args.func(args))
