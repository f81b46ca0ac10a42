"""Keeping the store tidy: rename an archer, merge two archers, move a session to another archer.

Each change is one transaction and touches only what it names: a session moved keeps its shots, findings, notes,
corrections and kept pose track (they hang off the session, not the archer), so the trends follow it. A change
that would put the same video twice under one archer (sessions are unique per archer and video content) is
refused in one line that names the sessions, before anything is written. Deleting a session is
`Store.delete_session`."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from ..errors import CoachError
from .records import normalize_name
from .repository import Store


class TidyRefused(CoachError):
    """A tidy-up refused before anything was written. `kind` and `fields` let a page say it in its own language
    (the dashboard's `tidy_err_<kind>` labels); the message is the command line's."""

    def __init__(self, kind: str, problem: str, **fields: object):
        super().__init__(None, problem)
        self.kind = kind
        self.fields = fields


@dataclass(frozen=True, slots=True)
class ArcherEntry:
    """An archer as the tidy-up lists them: name and how many sessions they have."""

    name: str
    sessions: int


@dataclass(frozen=True, slots=True)
class SessionBrief:
    """Enough of a session to ask "delete this one?": whose it is, which video, when, how many shots."""

    id: int
    archer: str
    source: str
    started_at: str
    shots: int


@dataclass(frozen=True, slots=True)
class MergeResult:
    """What `merge_archers` did: the archer kept, the one removed and the sessions that moved."""

    into: str
    removed: str
    sessions_moved: tuple[int, ...]


def _archer_id(c: sqlite3.Connection, name: str) -> int:
    row = c.execute("SELECT id FROM archers WHERE name = ?", (normalize_name(name),)).fetchone()
    if row is None:
        raise TidyRefused(
            "no_archer", f"there is no archer {normalize_name(name)!r} (see `coach archers list`)", name=name
        )
    return int(row[0])


def _session_archer(c: sqlite3.Connection, sid: int) -> int:
    row = c.execute("SELECT archer_id FROM sessions WHERE id = ?", (sid,)).fetchone() if 0 < sid < 2**63 else None
    if row is None:
        raise TidyRefused("no_session", f"there is no session {sid} (see `coach sessions`)", id=sid)
    return int(row[0])


def _same_video(c: sqlite3.Connection, sids: list[int], archer_id: int) -> list[tuple[int, int]]:
    """(moving session, the target archer's session of the same video) pairs: what a move would duplicate."""
    out = []
    for sid in sids:
        row = c.execute(
            "SELECT t.id FROM sessions s JOIN sessions t ON t.content_hash = s.content_hash "
            "WHERE s.id = ? AND t.archer_id = ? AND t.id != s.id",
            (sid, archer_id),
        ).fetchone()
        if row is not None:
            out.append((sid, int(row[0])))
    return out


def _refuse_duplicates(pairs: list[tuple[int, int]], target: str) -> None:
    if pairs:
        which = ", ".join(f"session {a} (the video of {target}'s session {b})" for a, b in pairs)
        sessions = ", ".join(str(a) for a, _ in pairs)
        problem = f"{target} already has the same video: {which}; delete one of each pair first"
        raise TidyRefused("same_video", problem, archer=target, sessions=sessions)


def archer_list(store: Store) -> list[ArcherEntry]:
    """Every archer, by name, with their number of sessions (archers with none included)."""
    rows = store.conn.execute(
        "SELECT a.name, COUNT(s.id) FROM archers a LEFT JOIN sessions s ON s.archer_id = a.id "
        "GROUP BY a.id ORDER BY a.name"
    )
    return [ArcherEntry(str(name), int(n)) for name, n in rows]


def session_brief(store: Store, sid: int) -> SessionBrief:
    c = store.conn
    _session_archer(c, sid)
    row = c.execute(
        "SELECT s.id, a.name, s.source, s.started_at, (SELECT COUNT(*) FROM shots WHERE session_id = s.id) "
        "FROM sessions s JOIN archers a ON a.id = s.archer_id WHERE s.id = ?",
        (sid,),
    ).fetchone()
    return SessionBrief(int(row[0]), str(row[1]), str(row[2]), str(row[3]), int(row[4]))


def rename_archer(store: Store, old: str, new: str) -> str:
    """Give an archer a new name; the name is normalised as every archer name is. Returns the new name."""
    new_name = normalize_name(new)
    if not new_name:
        raise TidyRefused("empty_name", "an archer's name cannot be empty")
    with store.transaction() as c:
        aid = _archer_id(c, old)
        clash = c.execute("SELECT id FROM archers WHERE name = ?", (new_name,)).fetchone()
        if clash is not None and int(clash[0]) != aid:
            raise TidyRefused(
                "name_taken", f"there is already an archer {new_name!r}: merge the two instead", name=new_name
            )
        c.execute("UPDATE archers SET name = ? WHERE id = ?", (new_name, aid))
    return new_name


def move_session(store: Store, sid: int, archer: str) -> None:
    """Move a session (with everything recorded in it) to another existing archer."""
    with store.transaction() as c:
        _session_archer(c, sid)
        target = _archer_id(c, archer)
        _refuse_duplicates(_same_video(c, [sid], target), normalize_name(archer))
        c.execute("UPDATE sessions SET archer_id = ? WHERE id = ?", (target, sid))


def merge_archers(store: Store, source: str, into: str) -> MergeResult:
    """Move every session of `source` to `into` and remove `source`. `into` keeps its own profile (handedness,
    draw style, tolerance, overrides): the merged sessions keep the profile they were judged with."""
    with store.transaction() as c:
        src, dst = _archer_id(c, source), _archer_id(c, into)
        if src == dst:
            raise TidyRefused(
                "same_archer", f"{normalize_name(source)!r} and {normalize_name(into)!r} are the same archer"
            )
        sids = [int(r[0]) for r in c.execute("SELECT id FROM sessions WHERE archer_id = ? ORDER BY id", (src,))]
        _refuse_duplicates(_same_video(c, sids, dst), normalize_name(into))
        c.execute("UPDATE sessions SET archer_id = ? WHERE archer_id = ?", (dst, src))
        c.execute("DELETE FROM archers WHERE id = ?", (src,))
    return MergeResult(normalize_name(into), normalize_name(source), tuple(sids))
