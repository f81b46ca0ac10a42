"""`coach render`: the video with skeleton, phase and faults drawn on it (H.264). It reads no store."""

from __future__ import annotations

import argparse
import sys

from .common import add_profile_args, profile_from_args, protected_paths


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("render", help="write the video with skeleton, phase and faults drawn on it (H.264)")
    p.add_argument("video", help="video file")
    p.add_argument("--out", required=True, metavar="OUT.mp4")
    p.add_argument("--force", action="store_true", help="overwrite an existing file")
    p.add_argument("--model", metavar="FILE.task", help="MediaPipe Tasks pose model (default: bundled full model)")
    add_profile_args(p)
    p.set_defaults(func=cmd_render)


def cmd_render(args) -> int:
    from posture_rules.pack import load_pack

    from ..render import render_video

    def progress(stage: str, i: int, n: int | None) -> None:
        if sys.stderr.isatty() and i % 30 == 0:
            print(f"\r{stage} {i}/{n or '?'}", end="", file=sys.stderr, flush=True)

    r = render_video(
        args.video,
        args.out,
        pack=load_pack(args.rules),
        profile=profile_from_args(args),
        model=args.model,
        force=args.force,
        progress=progress,
        protect=protected_paths(args, None),
    )
    if sys.stderr.isatty():
        print(file=sys.stderr)
    faults = sum(len(s.faults) for s in r.report.shots)
    print(f"wrote {r.path}: {r.frames} frames, {len(r.report.shots)} shots, {faults} faults highlighted")
    return 0
