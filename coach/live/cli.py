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
    from posture_rules.pack import load_pack

    from ..capture import parse_source
    from ..cli.common import profile_from_args
    from .printer import ShotPrinter
    from .session import LiveSession, open_source

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

    window = not args.no_window and _has_display()
    if not args.no_window and not window:
        print("coach live: no display; running headless (--no-window)", file=sys.stderr)
    live_source = isinstance(spec, int) or "://" in str(spec)
    # Sound is on by default only where someone is watching a window; tests and scripts stay silent.
    sound = window if args.sound is None else args.sound
    speech = sound if args.speech is None else (args.speech and sound is not False)

    db_path = None
    recorder_factory = None
    if args.archer:
        db_path, profile, recorder_factory = _recording(args, pack, profile, spec)
    applied = profile.apply(pack)
    printer = ShotPrinter(applied, args.lang)
    status = lambda msg: print(f"coach live: {msg}", file=sys.stderr, flush=True)  # noqa: E731

    from .feedback import Announcer

    announcer = Announcer(applied, lang=args.lang, sound=sound, speech=speech)
    session = LiveSession(
        open_source(spec),
        pack=pack,
        profile=profile,
        model=args.model,
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
        if live_source:
            status(f"watching {session.source_name} ({session.width}×{session.height}); q or Ctrl-C to stop")
        if window:
            from .view import run_window

            run_window(session, applied, lang=args.lang, max_seconds=args.max_seconds, fullscreen=args.fullscreen)
        else:
            _wait_headless(session, args.max_seconds)
        reports = session.wait()
    except KeyboardInterrupt:
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
        print(f"recorded {sum(len(r.shots) for r in reports)} shot(s) for {args.archer} in {db_path}")
    else:
        print(NOT_SAVED)
    return 0


NOT_SAVED = "not saved: no --archer given, so these shots were not recorded (coach live --archer NAME keeps them)"


def _wait_headless(session, max_seconds: float | None) -> None:
    import time

    t_end = None if max_seconds is None else time.monotonic() + max_seconds
    while session.running:
        session._thread.join(0.2)
        if t_end is not None and time.monotonic() >= t_end:
            session.stop()
            t_end = None


def _recording(args, pack, profile, spec):
    """Check the store and read the archer now, read-only (a bad --db fails before the camera opens), and say
    how each live session records: every shot committed the moment it completes. Nothing is written — not
    the archer, not a session — until there is a shot (or a finished session that saw a person), so a source
    that cannot be read leaves the store as it was. SQLite connections belong to one thread, so each session
    opens its own in the analysis thread that calls the factory."""
    from ..store import Store, default_db_path, normalize_name, now_iso, schema

    path = default_db_path(args.db)
    name = normalize_name(args.archer)
    archer = None
    if path.exists() and path.stat().st_size > 0:
        if not schema.writable(path):
            from ..errors import CoachError

            raise CoachError(path, "is read-only (read-only media or permissions); nothing can be recorded")
        with Store.open(path, readonly=True) as store:
            archer = store.archer(name)
    if args.handedness == "auto" and archer is not None and archer.handedness:
        profile = archer.profile()  # the archer's saved profile, unless the command line says otherwise
    started = now_iso()

    def factory(n: int, ring):
        # A live session is never the same content twice: key it by source, start time and session number.
        return LiveRecorder(path, name, str(spec), pack, profile, ring, f"live:{spec}:{started}:{n}")

    return path, profile, factory


class LiveRecorder:
    """A store.SessionRecorder with its own connection, opened and used in the analysis thread — at the first
    shot, or at a finish that saw a person, never for nothing."""

    def __init__(self, path, archer, source, pack, profile, ring, chash, on_start=None):
        self._args = (path, archer, source, pack, profile, ring, chash)
        self._on_start = on_start  # told the session id when the session is first written
        self.store = self.rec = None
        self.sid = None

    def _start(self):
        from ..recording import SessionRecorder
        from ..store import Store

        path, archer, source, pack, profile, ring, chash = self._args
        self.store = Store.open(path)
        self.rec = SessionRecorder(self.store, archer, source, pack, profile, grabber=ring, chash=chash)
        self.sid = self.rec.sid
        if self._on_start is not None:
            self._on_start(self.sid)
        return self.rec

    def on_shot(self, shot, analyzer) -> None:
        (self.rec or self._start()).on_shot(shot, analyzer)

    def finish(self, report) -> None:
        if self.rec is None and not report.frames_with_person:
            return
        (self.rec or self._start()).finish(report)

    def close(self) -> None:
        if self.rec is not None:
            self.rec.close()
        try:
            if self.store is not None:
                self.store.close()
        except Exception:
            pass
