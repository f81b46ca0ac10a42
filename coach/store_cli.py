"""`coach sessions | show | report | render | annotate`, and `coach analyze --archer NAME [--db PATH]`'s recorder."""

from __future__ import annotations

import argparse
import sqlite3
import sys
from contextlib import contextmanager

from .errors import CoachError
from .safe_io import terminal_safe


@contextmanager
def _db(path: str | None, create: bool = False, readonly: bool = False):
    from .store import Store, default_db_path

    store = Store.open(path, create=create, readonly=readonly)
    try:
        yield store
    except sqlite3.DatabaseError as e:
        raise CoachError(default_db_path(path), f"database error ({e})") from None
    finally:
        store.close()


class DeferredRecorder:
    """`coach analyze --archer`'s recorder. Nothing is written — not the archer, not the session — until the
    input has proved readable: the first shot, or a finished analysis that saw a person. An empty, text or
    audio-only file, or a video with nobody in it, leaves the store byte-identical.

    The store is checked (and the archer's saved profile read) up front, read-only, so a damaged store is
    reported before a long analysis rather than after it."""

    def __init__(self, args, pack, profile, source: str):
        from dataclasses import replace

        from .store import Store, default_db_path

        self.db = default_db_path(args.db)
        self.pack = pack
        self.source = source
        self.fields = {
            "handedness": profile.handedness,
            "draw_style": args.draw_style if args.draw_style != "mediterranean" else None,
            "tolerance": args.tolerance if args.tolerance != "club" else None,
        }
        self.name = args.archer
        saved = None
        from .store import _writable

        if self.db.exists() and not _writable(self.db):  # read-only media: say so before the analysis
            raise CoachError(self.db, "is read-only (read-only media or permissions); nothing can be recorded")
        if self.db.exists() and self.db.stat().st_size > 0:
            with Store.open(self.db, create=False, readonly=True) as store:
                saved = store.archer(args.archer)
        else:
            from .store import normalize_name

            normalize_name(args.archer)  # an empty name fails now, not after the analysis
        base = saved.profile() if saved is not None else type(profile)()
        given = {k: v for k, v in self.fields.items() if v is not None}
        self.profile = replace(base, **given)
        self.rec = None
        from .kept_track import PoseKeeper

        self.keeper = PoseKeeper()  # the poses, kept from the first frame; written with the session
        self.on_pose = self.keeper.push

    @property
    def sid(self):
        return self.rec.sid if self.rec else None

    @property
    def archer(self):
        return self.rec.archer if self.rec else None

    @property
    def store(self):
        return self.rec.store if self.rec else None

    def _start(self):
        from .store import SessionRecorder, Store

        store = Store.open(self.db)
        try:
            archer = store.ensure_archer(self.name, **self.fields)
            self.rec = SessionRecorder(store, archer, self.source, self.pack, self.profile, keeper=self.keeper)
        except sqlite3.DatabaseError as e:
            store.close()
            raise CoachError(store.path, f"database error ({e})") from None
        except BaseException:
            store.close()
            raise
        return self.rec

    def on_shot(self, shot, analyzer) -> None:
        (self.rec or self._start()).on_shot(shot, analyzer)

    def finish(self, report) -> None:
        if self.rec is None and (report.frame_count == 0 or report.frames_with_person == 0):
            return  # nothing analysable: require_person says so, and the store stays as it was
        (self.rec or self._start()).finish(report)

    def close(self) -> None:
        if self.rec is not None:
            self.rec.close()
            self.rec.store.close()


def start_recording(args, pack, profile, source: str):
    """For `coach analyze --archer`: check the store and the source, and read the archer's profile (profile
    flags given on the command line are saved to the archer; otherwise the archer's saved profile is used).
    Returns (recorder, the profile to analyse with); the recorder writes only once there is something to keep."""
    from .safe_io import require_regular_file

    if "://" not in str(source):
        require_regular_file(source, "video or pose-track file")
    rec = DeferredRecorder(args, pack, profile, source)
    return rec, rec.profile


def _report_from_json(d: dict):
    from .results import SessionReport, ShotResult, finding_from_json

    shots = [
        ShotResult(
            index=s["index"],
            raise_start_frame=s.get("raise_start_frame"),
            draw_start_frame=s.get("draw_start_frame"),
            anchor_frame=s.get("anchor_frame"),
            release_frame=s.get("release_frame"),
            end_frame=s.get("end_frame"),
            fps=d.get("fps") or 30.0,
            times_s=s.get("phase_times_s") or {},
            findings=[finding_from_json(f) for f in s.get("findings", [])],
            measures=s.get("measures") or {},
            complete=s.get("complete", True),
            release_source=s.get("release_source", "pose"),
            flight_time_s=s.get("flight_time_s"),
            hand_stayed=s.get("hand_stayed", False),
            release_confidence=s.get("release_confidence", 1.0),
            release_evidence=s.get("release_evidence") or [],
            marks_confidence=s.get("marks_confidence") or {},
            corrected=s.get("corrected"),
        )
        for s in d.get("shots", [])
    ]
    cons = d.get("consistency") or {}
    return SessionReport(
        source=d.get("source", ""),
        fps=d.get("fps") or 30.0,
        frame_count=d.get("frame_count") or 0,
        width=d.get("width") or 0,
        height=d.get("height") or 0,
        handedness=d.get("handedness") or "unknown",
        handedness_source=d.get("handedness_source", "unknown"),
        view=d.get("view") or "unknown",
        view_confidence=d.get("view_confidence") or 0.0,
        rule_pack=d.get("rule_pack") or {"id": "?", "version": "?"},
        profile=d.get("profile") or {},
        shots=shots,
        consistency=[finding_from_json(f) for f in cons.get("findings", [])],
        consistency_measures=cons.get("measures") or {},
        frames_with_person=d.get("frames_with_person", 0),
        notes=list(d.get("notes") or []),
        complete=d.get("complete", True),
    )


def _session_id(sid: int) -> int:
    """SQLite integers are 64-bit; a larger id is simply not there (and must not overflow into a traceback)."""
    if not 0 < sid < 2**63:
        raise CoachError(None, f"there is no session {sid} (see `coach sessions`)")
    return sid


def _print(text: str) -> None:
    """Stored names, sources and comments are anyone's text: never raw escape sequences on the terminal."""
    print(terminal_safe(text))


def cmd_sessions(args) -> int:
    with _db(args.db, readonly=True) as store:
        rows = store.sessions(args.archer)
    if not rows:
        _print("no sessions" + (f" for {args.archer}" if args.archer else ""))
        return 0
    _print(f"{'id':>4}  {'archer':16} {'started (UTC)':25} {'shots':>5} {'faults':>6}  status      source")
    for r in rows:
        status = "complete" if r["complete"] else "INCOMPLETE"
        _print(
            f"{r['id']:>4}  {r['archer'][:16]:16} {r['started_at']:25} {r['shots']:>5} {r['faults']:>6}  "
            f"{status:11} {r['source']}"
        )
    return 0


def cmd_show(args) -> int:
    from .report.data import gather
    from .report.tabular import report_json
    from .summary import format_report

    with _db(args.db, readonly=True) as store:
        d = gather(store, _session_id(args.session))
    s = d.session
    _print(
        f"Session {s['id']} · {d.archer.name} · {s['started_at']} → {s['finished_at'] or '—'} · "
        + ("complete" if s["complete"] else f"INCOMPLETE ({len(d.shots)} completed shots recorded)")
    )
    _print(format_report(_report_from_json(report_json(d)), d.pack))
    if d.annotations:
        _print("\nCoach's notes:")
        for a in d.annotations:
            where = " ".join(
                p for p in (f"shot {a['shot'] + 1}" if a["shot"] is not None else "", a["rule"] or "") if p
            )
            _print(f"  {a['created_at']} {a['author']}: {a['action']} {where} {a['comment'] or ''}".rstrip())
    return 0


def cmd_report(args) -> int:
    from .report import write_report

    with _db(args.db, readonly=True) as store:
        path = write_report(store, _session_id(args.session), args.format, args.out, force=args.force)
    print(f"wrote {path}")
    return 0


def cmd_annotate(args) -> int:
    action = "accept" if args.accept else "dismiss" if args.dismiss else "comment"
    if action == "comment" and not args.comment:
        raise CoachError(None, "give --accept, --dismiss or --comment TEXT")
    with _db(args.db) as store:
        shot = args.shot - 1 if args.shot is not None else None
        aid = store.annotate(
            _session_id(args.session), action, shot=shot, rule=args.rule, comment=args.comment or "", author=args.by
        )
    print(f"annotation {aid} added to session {args.session}")
    return 0


def cmd_render(args) -> int:
    from posture_rules.pack import load_pack

    from .cli import _profile
    from .render import render_video

    def progress(stage: str, i: int, n: int | None) -> None:
        if sys.stderr.isatty() and i % 30 == 0:
            print(f"\r{stage} {i}/{n or '?'}", end="", file=sys.stderr, flush=True)

    from .cli import _protected

    r = render_video(
        args.video,
        args.out,
        pack=load_pack(args.rules),
        profile=_profile(args),
        model=args.model,
        force=args.force,
        progress=progress,
        protect=_protected(args, None),
    )
    if sys.stderr.isatty():
        print(file=sys.stderr)
    faults = sum(len(s.faults) for s in r.report.shots)
    print(f"wrote {r.path}: {r.frames} frames, {len(r.report.shots)} shots, {faults} faults highlighted")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    from .cli import _common

    def db(p):
        p.add_argument("--db", metavar="PATH", help="session store (default: $COACH_DB, else ./coach.db)")

    p = sub.add_parser("sessions", help="list the recorded sessions")
    p.add_argument("--archer", metavar="NAME", help="only this archer's")
    db(p)
    p.set_defaults(func=cmd_sessions)

    p = sub.add_parser("show", help="print one recorded session")
    p.add_argument("session", type=int, metavar="SESSION", help="session id (see `coach sessions`)")
    db(p)
    p.set_defaults(func=cmd_show)

    p = sub.add_parser("report", help="write a coach report of a recorded session")
    p.add_argument("session", type=int, metavar="SESSION", help="session id (see `coach sessions`)")
    p.add_argument("--format", choices=("html", "pdf", "csv", "json"), default="html")
    p.add_argument("--out", metavar="PATH", help="output file (default: ARCHER-sessionN.FORMAT here)")
    p.add_argument("--force", action="store_true", help="overwrite an existing file")
    db(p)
    p.set_defaults(func=cmd_report)

    p = sub.add_parser("annotate", help="a coach's verdict or comment on a session, shot or finding")
    p.add_argument("session", type=int, metavar="SESSION")
    p.add_argument("--shot", type=int, metavar="N", help="shot number (1-based)")
    p.add_argument("--rule", metavar="RULE", help="rule id of the finding")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--accept", action="store_true", help="the coach agrees with the finding")
    g.add_argument("--dismiss", action="store_true", help="the coach rejects the finding")
    p.add_argument("--comment", metavar="TEXT", help="free text")
    p.add_argument("--by", metavar="WHO", default="coach", help="who says so")
    db(p)
    p.set_defaults(func=cmd_annotate)

    p = sub.add_parser("render", help="write the video with skeleton, phase and faults drawn on it (H.264)")
    p.add_argument("video", help="video file")
    p.add_argument("--out", required=True, metavar="OUT.mp4")
    p.add_argument("--force", action="store_true", help="overwrite an existing file")
    p.add_argument("--model", metavar="FILE.task", help="MediaPipe Tasks pose model (default: bundled full model)")
    _common(p)
    p.set_defaults(func=cmd_render)
