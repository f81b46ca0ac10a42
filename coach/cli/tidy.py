"""`coach archers | delete | move`: keep the store tidy — list, rename and merge archers, delete a session or move
it to another archer. Deleting asks first on a terminal; elsewhere it needs --yes."""

from __future__ import annotations

import argparse
import sys

from ..errors import CoachError
from .common import add_db_arg, open_store, print_safe


def cmd_archers(args) -> int:
    from ..store.tidy import archer_list, merge_archers, rename_archer

    if args.action == "list":
        with open_store(args.db, readonly=True) as store:
            archers = archer_list(store)
        for a in archers:
            print_safe(f"{a.name}  ({a.sessions} sessions)")
        return 0
    if len(args.names) != 2:
        raise CoachError(None, f"`coach archers {args.action}` takes two names: " + _USAGE[args.action])
    with open_store(args.db) as store:
        if args.action == "rename":
            new = rename_archer(store, *args.names)
            print_safe(f"archer {args.names[0]} is now {new}")
        else:
            done = merge_archers(store, *args.names)
            print_safe(
                f"{len(done.sessions_moved)} session(s) of {done.removed} moved to {done.into}; {done.removed} removed"
            )
    return 0


_USAGE = {"rename": "OLD NEW", "merge": "FROM INTO (FROM's sessions go to INTO, and FROM is removed)"}


def _confirm(question: str, yes: bool) -> bool:
    if yes:
        return True
    if not sys.stdin.isatty():
        raise CoachError(None, "deleting needs --yes when there is no terminal to ask on")
    return input(f"{question} [y/N] ").strip().lower() in ("y", "yes")


def cmd_delete(args) -> int:
    from ..store import default_db_path
    from ..store.media import annotated_video, media_dir
    from ..store.tidy import session_brief

    with open_store(args.db) as store:
        s = session_brief(store, _session_id(args.session))
        question = f"Delete session {s.id} ({s.archer}, {s.shots} shots, {s.source}) and everything recorded in it?"
        if not _confirm(question, args.yes):
            print_safe("nothing deleted")
            return 1
        store.delete_session(s.id)
    # its annotated video goes too: a later session given the same id must not show it
    annotated_video(media_dir(default_db_path(args.db).resolve()), s.id).unlink(missing_ok=True)
    print_safe(f"session {s.id} deleted")
    return 0


def cmd_move(args) -> int:
    from ..store.tidy import move_session

    with open_store(args.db) as store:
        move_session(store, _session_id(args.session), args.to)
    print_safe(f"session {args.session} moved to {args.to}")
    return 0


def _session_id(sid: int) -> int:
    if not 0 < sid < 2**63:
        raise CoachError(None, f"there is no session {sid} (see `coach sessions`)")
    return sid


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("archers", help="list, rename or merge archers")
    p.add_argument("action", choices=("list", "rename", "merge"))
    p.add_argument("names", nargs="*", metavar="NAME", help="rename OLD NEW | merge FROM INTO")
    add_db_arg(p)
    p.set_defaults(func=cmd_archers)

    p = sub.add_parser("delete", help="delete a recorded session and everything in it")
    p.add_argument("session", type=int, metavar="SESSION", help="session id (see `coach sessions`)")
    p.add_argument("--yes", action="store_true", help="do not ask")
    add_db_arg(p)
    p.set_defaults(func=cmd_delete)

    p = sub.add_parser("move", help="move a recorded session to another archer")
    p.add_argument("session", type=int, metavar="SESSION")
    p.add_argument("--to", required=True, metavar="ARCHER", help="an existing archer's name")
    add_db_arg(p)
    p.set_defaults(func=cmd_move)
