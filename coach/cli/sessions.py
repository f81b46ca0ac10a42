"""`coach sessions | show | report | annotate`: read and annotate the recorded sessions in the store."""

from __future__ import annotations

import argparse

from ..errors import CoachError
from .common import add_db_arg, open_store, print_safe


def _session_id(sid: int) -> int:
    """SQLite integers are 64-bit; a larger id is simply not there (and must not overflow into a traceback)."""
    if not 0 < sid < 2**63:
        raise CoachError(None, f"there is no session {sid} (see `coach sessions`)")
    return sid


def cmd_sessions(args) -> int:
    with open_store(args.db, readonly=True) as store:
        rows = store.sessions(args.archer)
    if not rows:
        print_safe("no sessions" + (f" for {args.archer}" if args.archer else ""))
        return 0
    print_safe(f"{'id':>4}  {'archer':16} {'started (UTC)':25} {'shots':>5} {'faults':>6}  status      source")
    for r in rows:
        status = "complete" if r.complete else "INCOMPLETE"
        print_safe(
            f"{r.id:>4}  {r.archer[:16]:16} {r.started_at:25} {r.shots:>5} {r.faults:>6}  {status:11} {r.source}"
        )
    return 0


def cmd_show(args) -> int:
    from ..report.data import gather
    from ..report.tabular import report_json
    from ..results import SessionReport
    from ..summary import format_report

    with open_store(args.db, readonly=True) as store:
        d = gather(store, _session_id(args.session))
    s = d.session
    print_safe(
        f"Session {s.id} · {d.archer.name} · {s.started_at} → {s.finished_at or '—'} · "
        + ("complete" if s.complete else f"INCOMPLETE ({len(d.shots)} completed shots recorded)")
    )
    print_safe(format_report(SessionReport.from_json(report_json(d)), d.pack))
    if d.annotations:
        print_safe("\nCoach's notes:")
        for a in d.annotations:
            where = " ".join(p for p in (f"shot {a.shot + 1}" if a.shot is not None else "", a.rule or "") if p)
            print_safe(f"  {a.created_at} {a.author}: {a.action} {where} {a.comment or ''}".rstrip())
    return 0


def cmd_report(args) -> int:
    from ..report import write_report

    with open_store(args.db, readonly=True) as store:
        path = write_report(store, _session_id(args.session), args.format, args.out, force=args.force)
    print(f"wrote {path}")
    return 0


def cmd_annotate(args) -> int:
    action = "accept" if args.accept else "dismiss" if args.dismiss else "comment"
    if action == "comment" and not args.comment:
        raise CoachError(None, "give --accept, --dismiss or --comment TEXT")
    with open_store(args.db) as store:
        shot = args.shot - 1 if args.shot is not None else None
        aid = store.annotate(
            _session_id(args.session), action, shot=shot, rule=args.rule, comment=args.comment or "", author=args.by
        )
    print(f"annotation {aid} added to session {args.session}")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("sessions", help="list the recorded sessions")
    p.add_argument("--archer", metavar="NAME", help="only this archer's")
    add_db_arg(p)
    p.set_defaults(func=cmd_sessions)

    p = sub.add_parser("show", help="print one recorded session")
    p.add_argument("session", type=int, metavar="SESSION", help="session id (see `coach sessions`)")
    add_db_arg(p)
    p.set_defaults(func=cmd_show)

    p = sub.add_parser("report", help="write a coach report of a recorded session")
    p.add_argument("session", type=int, metavar="SESSION", help="session id (see `coach sessions`)")
    p.add_argument("--format", choices=("html", "pdf", "csv", "json"), default="html")
    p.add_argument("--out", metavar="PATH", help="output file (default: ARCHER-sessionN.FORMAT here)")
    p.add_argument("--force", action="store_true", help="overwrite an existing file")
    add_db_arg(p)
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
    add_db_arg(p)
    p.set_defaults(func=cmd_annotate)
