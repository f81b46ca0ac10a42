"""`coach analyze`: analyse a recorded video (or a saved pose track), optionally recording it for an archer."""

from __future__ import annotations

import argparse
import json
import sys
from contextlib import ExitStack
from pathlib import Path

from ..errors import CoachError
from .common import DB_HELP, add_profile_args, profile_from_args, protected_paths


def register(sub: argparse._SubParsersAction) -> None:
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
    a.add_argument("--db", metavar="PATH", help=DB_HELP)
    a.add_argument("--force", action="store_true", help="overwrite existing --json / --save-pose files")
    add_profile_args(a)
    a.set_defaults(func=cmd_analyze)


def cmd_analyze(args) -> int:
    from posture_rules.pack import load_pack

    from ..pipeline import analyze_track, analyze_video, require_person, track_sound
    from ..pose_frame import load_posetrack
    from ..report.output import atomic_path, prepare_output, write_output
    from ..safe_io import printable, terminal_safe
    from ..summary import format_report
    from ..terminal import progress_for

    pack = load_pack(args.rules)
    profile = profile_from_args(args)
    source = args.pose_track or args.video
    if not source:
        raise CoachError(None, "give a video file, or --pose-track FILE")
    # Outputs are checked before the analysis (a refusal costs nothing) and written through a temporary
    # file renamed into place, so a full disk or a kill never leaves half a file where the old one was.
    protect = protected_paths(args, source)
    if args.json:
        prepare_output(args.json, args.force, protect)
    if args.save_pose:
        also = {Path(args.json): "the --json output"} if args.json else {}
        prepare_output(args.save_pose, args.force, {**protect, **also})
    recorder = None
    if args.archer:  # record into the session store as the analysis goes (coach/recording.py)
        from ..recording import ProfileChoice, open_recording
        from ..safe_io import require_regular_file

        if "://" not in str(source):
            require_regular_file(source, "video or pose-track file")
        # profile flags given here are saved to the archer; otherwise the archer's saved profile is used
        recorder, profile = open_recording(args.db, args.archer, source, pack, ProfileChoice.from_args(args))
    listeners = [recorder.on_shot] if recorder else []
    poses = [recorder.on_pose] if recorder else []  # the session's pose track is kept with it
    try:
        if args.pose_track:
            track = load_posetrack(args.pose_track)
            sound = track_sound(args.pose_track, track.fps) if args.audio else None  # NAME.audio.json beside it
            report = analyze_track(
                track, pack=pack, profile=profile, on_shot=listeners, on_pose=poses, release_refiner=sound
            )
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
                        on_pose=poses,
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
