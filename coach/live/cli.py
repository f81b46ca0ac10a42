"""`coach live`: coach from a camera (or a file fed at its real frame rate) while the archer shoots."""

from __future__ import annotations

import argparse
import json
import os
import sys


def register(sub) -> None:
    p = sub.add_parser(
        "live",
        help="live coaching from a camera (or a video fed as a camera)",
        description="Live coaching: the camera's frames through the same analysis as recorded video; faults "
        "shown (and announced) the moment they are confirmed, a summary and instant replay after each shot.",
    )
    p.add_argument("--source", default="0", help="camera index, video file (fed at its real frame rate) or URL")
    p.add_argument("--no-window", action="store_true", help="headless: print each shot as it completes")
    p.add_argument("--fullscreen", action="store_true", help="open the window full screen (read from the line)")
    p.add_argument("--lang", choices=("zh", "en"), default="zh", help="language of cues shown and spoken")
    p.add_argument("--sound", dest="sound", action="store_true", default=None, help="tone per confirmed fault")
    p.add_argument("--no-sound", dest="sound", action="store_false", help="no tones or speech")
    p.add_argument("--speech", dest="speech", action="store_true", default=None, help="speak each fault's cue")
    p.add_argument("--no-speech", dest="speech", action="store_false")
    p.add_argument("--archer", metavar="NAME", help="record each shot for this archer in the session store")
    p.add_argument("--db", metavar="PATH", help="session store (default: $COACH_DB, else ./coach.db)")
    p.add_argument("--json", metavar="OUT", help="write the session report(s) as JSON when done")
    p.add_argument("--force", action="store_true", help="overwrite an existing --json file")
    p.add_argument("--check", action="store_true", help="check the camera set-up (framing, view, distance, light)")
    p.add_argument("--check-seconds", type=float, default=2.0, help=argparse.SUPPRESS)
    p.add_argument("--model", metavar="FILE.task", help="MediaPipe Tasks pose model (default: bundled full model)")
    p.add_argument(
        "--no-drop",
        action="store_true",
        help="a video file: wait for the analysis instead of dropping frames (real rate while it keeps up, "
        "slower when it does not; every frame analysed)",
    )
    p.add_argument("--max-seconds", type=float, default=None, help="stop after this long (scripts, demos)")
    p.add_argument("--retries", type=int, default=3, help="reopen a lost camera this many times (default 3)")
    from ..cli.common import add_profile_args

    add_profile_args(p)
    p.set_defaults(func=cmd_live)


def _protected(args) -> dict:
    from ..cli.common import protected_paths

    return protected_paths(args, args.source if not str(args.source).strip().isdigit() else None)


def _has_display() -> bool:
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")) or sys.platform in ("win32", "darwin")


def cmd_live(args) -> int:
    """Every line in Chinese and English, --lang's first (coach/live/words.py, and the feeder's status lines and
    a source's errors worded by coach/wording): an error that ends the run too, raised again in both."""
    from ..errors import CoachError
    from ..wording.machine import error_both

    try:
        return _live(args)
    except CoachError as e:  # printed by coach/cli as one line: "coach: error: …"
        raise CoachError(None, error_both(str(e), args.lang)) from None


def _live(args) -> int:
    from posture_rules.pack import load_pack

    from ..capture import parse_source
    from ..cli.common import profile_from_args
    from .printer import ShotPrinter
    from .session import LiveSession, open_source
    from .words import both

    pack = load_pack(args.rules)
    profile = profile_from_args(args)
    spec = parse_source(args.source)
    if args.json:  # refused now, not after the session has been coached
        from ..report.output import prepare_output

        prepare_output(args.json, args.force, _protected(args))
    if args.check:
        from ..quiet import native_stderr_silenced
        from .check import check_source, format_check

        with native_stderr_silenced():  # the model's loading chatter (TFLite, absl) is not for the archer
            result = check_source(spec, seconds=args.check_seconds, pack=profile.apply(pack), model=args.model)
        print(format_check(result, lang=args.lang))
        return 0 if result.ok else 1

    live_source = isinstance(spec, int) or "://" in str(spec)
    if args.no_drop and live_source:  # a camera does not wait: refused before it opens
        from ..errors import CoachError

        raise CoachError(str(spec), "--no-drop needs a video file: a camera or stream cannot wait for the analysis")
    window = not args.no_window and _has_display()
    if not args.no_window and not window:
        print(f"coach live: {both('no_display', args.lang)}", file=sys.stderr)
    # Sound is on by default only where someone is watching a window; tests and scripts stay silent.
    sound = window if args.sound is None else args.sound
    speech = sound if args.speech is None else (args.speech and sound is not False)

    db_path = None
    recorder_factory = None
    if args.archer:
        db_path, profile, recorder_factory = _recording(args, pack, spec)
    applied = profile.apply(pack)
    printer = ShotPrinter(applied, args.lang)
    from ..wording.machine import status_both

    # the feeder's and this command's status lines, written in English: both languages, --lang's first
    status = lambda msg: print(f"coach live: {status_both(msg, args.lang)}", file=sys.stderr, flush=True)  # noqa: E731

    from .feedback import Announcer

    announcer = Announcer(applied, lang=args.lang, sound=sound, speech=speech)
    session = LiveSession(
        open_source(spec),
        pack=pack,
        profile=profile,
        model=args.model,
        no_drop=args.no_drop,
        keep_frames=window or recorder_factory is not None,
        on_shot=[printer.on_shot],
        on_fault=[announcer.on_fault] if (sound or speech) else [],
        on_session=[printer.on_session],
        on_status=status,
        recorder_factory=recorder_factory,
        retries=args.retries,
    )
    try:
        session.start()
        status(f"watching {session.source_name} ({session.width}×{session.height}); q or Ctrl-C to stop")
        if window:
            from .view import run_window

            run_window(session, applied, lang=args.lang, max_seconds=args.max_seconds, fullscreen=args.fullscreen)
        else:
            _wait_headless(session, args.max_seconds)
        reports = session.wait()
    except KeyboardInterrupt:
        print(f"coach live: {both('stopping', args.lang)}", file=sys.stderr, flush=True)
        session.stop()
        reports = session.wait()
    finally:
        announcer.close()
    if args.json:
        from ..report.output import write_output

        doc = [r.to_json() for r in reports]
        text = json.dumps(doc[0] if len(doc) == 1 else doc, ensure_ascii=False, indent=1)
        write_output(args.json, text, args.force, _protected(args))
    if db_path is not None:
        n = sum(len(r.shots) for r in reports)
        print(both("recorded", args.lang, n=n, archer=args.archer, db=db_path))
    else:
        print(both("not_saved", args.lang))
    return 0


def _wait_headless(session, max_seconds: float | None) -> None:
    import time

    t_end = None if max_seconds is None else time.monotonic() + max_seconds
    while session.running:
        session._thread.join(0.2)
        if t_end is not None and time.monotonic() >= t_end:
            session.stop()
            t_end = None


def _recording(args, pack, spec):
    """Check the store and read the archer now, read-only (a bad --db fails before the camera opens), and say
    how each live session records: every shot committed the moment it completes. Nothing is written — not
    the archer, not a session — until there is a shot (or a finished session that saw a person), so a source
    that cannot be read leaves the store as it was. SQLite connections belong to one thread, so each session
    opens its own in the analysis thread that calls the factory."""
    from ..recording import ProfileChoice, open_archer
    from ..store import now_iso

    who = open_archer(args.db, args.archer, ProfileChoice.from_args(args))
    started = now_iso()

    def factory(n: int, ring):
        # A live session is never the same content twice: key it by source, start time and session number.
        return who.recorder(str(spec), pack, grabber=ring, chash=f"live:{spec}:{started}:{n}")

    return who.db, who.profile, factory
