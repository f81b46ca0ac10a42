"""`coach correct SESSION …` (move a shot's marks, delete a false shot, add a missed one, mark a let-down),
`coach labels export SESSION... --out DIR` and `coach eval DIR`."""

from __future__ import annotations

import argparse

from ..errors import CoachError
from .common import add_db_arg, open_store, print_safe

MARK_FLAGS = (("raise_start", "--raise-start"), ("draw_start", "--draw-start"), ("anchor", "--anchor"))


def correction_from_args(args):
    """The Correction the flags describe (one line for flags that do not make one)."""
    from ..corrections import ADD, DELETE, LET_DOWN, MOVE, Correction

    if not 0 < args.session < 2**63:
        raise CoachError(None, f"there is no session {args.session} (see `coach sessions`)")
    marks = {m: getattr(args, m) for m, _ in MARK_FLAGS if getattr(args, m) is not None}
    if args.release is not None:
        marks["release"] = args.release
    action = ADD if args.add_shot else DELETE if args.delete_shot else LET_DOWN if args.let_down else MOVE
    if action == ADD:
        if args.shot is not None:
            raise CoachError(None, "--add-shot takes no --shot (the new shot is placed by its release)")
        if args.release is None:
            raise CoachError(None, "--add-shot needs --release FRAME")
        shot = None
    else:
        if args.shot is None:
            raise CoachError(None, "give --shot N (1-based; see `coach show SESSION`), or --add-shot --release FRAME")
        shot = args.shot - 1
    return Correction(args.session, shot, action, marks, args.by)


def cmd_correct(args) -> int:
    from ..corrections import apply_correction

    c = correction_from_args(args)
    with open_store(args.db) as store:
        store.session(c.session_id)  # exists?
        r = apply_correction(store, c)
        names = {rule.id: f"{rule.name_zh} {rule.name_en}" for rule in _pack_rules(store, c.session_id)}
    moved = ", ".join(
        f"{m.mark.replace('_', ' ')} {'—' if m.before is None else m.before} → {'—' if m.after is None else m.after}"
        for m in r.changes
    )
    what = {
        "move": "marks moved",
        "delete": "shot deleted",
        "add": "shot added",
        "let_down": "marked a let-down (not a shot)",
    }[r.action]
    shot_no = (c.shot + 1) if c.shot is not None else (r.shot.index + 1 if r.shot else "?")
    print_safe(
        f"session {c.session_id}, shot {shot_no}: {what} ({moved}); corrected by 校正 {c.by}; "
        f"correction {r.correction_id}, re-judged in {r.elapsed_s:.2f} s"
    )
    if r.shot is not None:
        s = r.shot
        print_safe(f"  now shot {s.index + 1}: " + _verdicts(s.findings, names))
    print_safe(f"  session ({len(r.shots)} shots): " + _verdicts(r.consistency, names))
    return 0


def _pack_rules(store, sid: int):
    from ..report.data import _pack_for

    return _pack_for(store.session(sid)).rules


def _verdicts(findings, names: dict[str, str]) -> str:
    faults = [f"{names.get(f.rule, f.rule)} ({f.rule})" for f in findings if f.verdict == "fault"]
    passed = sum(f.verdict == "pass" for f in findings)
    unjudged = sum(f.verdict == "not_assessable" for f in findings)
    return (
        f"{len(faults)} fault(s) 失誤" + (f": {', '.join(faults)}" if faults else "") + f"; {passed} passed 通過, "
        f"{unjudged} not judged 未判斷"
    )


def cmd_labels_export(args) -> int:
    from ..labels import export_sessions

    sids = []
    for sid in args.sessions:
        if not 0 < sid < 2**63:
            raise CoachError(None, f"there is no session {sid} (see `coach sessions`)")
        sids.append(sid)
    with open_store(args.db, readonly=True) as store:
        done = export_sessions(store, sids, args.out, reviewed=args.reviewed, force=args.force)
    for e in done:
        print_safe(f"wrote {e.labels} and {e.track.name}: session {e.session_id}, {e.shots} labelled shot(s)")
    return 0


def cmd_eval(args) -> int:
    from ..labels import evaluate_folder

    lines, _, _ = evaluate_folder(args.folder, sound=not args.no_sound)
    for line in lines:
        print_safe(line)
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "correct",
        help="correct a shot's phase marks (or delete, add, let down a shot); re-judged from the kept pose track",
    )
    p.add_argument("session", type=int, metavar="SESSION", help="session id (see `coach sessions`)")
    p.add_argument("--shot", type=int, metavar="N", help="shot number (1-based)")
    for mark, flag in MARK_FLAGS:
        p.add_argument(flag, dest=mark, type=int, metavar="FRAME", help=f"move the {mark.replace('_', ' ')} here")
    p.add_argument("--release", type=int, metavar="FRAME", help="move the release here (or add a shot released here)")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--delete-shot", action="store_true", help="the shot is not a shot: remove it")
    g.add_argument("--add-shot", action="store_true", help="add a shot the machine missed, by its --release frame")
    g.add_argument("--let-down", action="store_true", help="the archer came down without shooting: not a shot")
    p.add_argument("--by", metavar="NAME", default="coach", help="who corrects (shown as 'corrected by NAME')")
    add_db_arg(p)
    p.set_defaults(func=cmd_correct)

    p = sub.add_parser("labels", help="corrected sessions as labelled pose tracks (coach.labels/1)")
    lsub = p.add_subparsers(dest="labels_command", metavar="COMMAND", required=True)
    e = lsub.add_parser("export", help="write each session as NAME.pose.json + NAME.labels.json")
    e.add_argument("sessions", type=int, nargs="+", metavar="SESSION")
    e.add_argument("--out", required=True, metavar="DIR")
    e.add_argument("--reviewed", action="store_true", help="also sessions with no correction (a coach checked them)")
    e.add_argument("--force", action="store_true", help="overwrite files already there")
    add_db_arg(e)
    e.set_defaults(func=cmd_labels_export)

    p = sub.add_parser("eval", help="score the current analysis on a folder of labelled pose tracks")
    p.add_argument("folder", metavar="DIR")
    p.add_argument("--no-sound", action="store_true", help="ignore the clips' sound envelopes")
    p.set_defaults(func=cmd_eval)
