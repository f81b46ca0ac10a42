"""The store's reads: every one returns typed records (`records.py`), one per thing read, and a stored JSON field
or blob that no longer parses is one line naming the store (`_damage_is_one_line`). Mixed into `Store`, which
holds the connection; the writes are `repository.py`'s."""

from __future__ import annotations

import functools
import json
import sqlite3

import numpy as np

from ..errors import CoachError
from ..results import ShotResult
from .records import (
    Annotation,
    Archer,
    KeyFrame,
    Series,
    SessionSummary,
    StoredFinding,
    StoredSession,
    StoredShot,
    TrendRow,
    normalize_name,
)


def _damage_is_one_line(read):
    """A stored JSON field or blob that no longer parses (a damaged or hand-edited file) is one line naming
    the store, for the CLI and every dashboard page alike, not a traceback from json or numpy."""

    @functools.wraps(read)
    def wrapper(self, *args, **kwargs):
        try:
            return read(self, *args, **kwargs)
        except (ValueError, TypeError, KeyError, IndexError, sqlite3.DatabaseError) as e:
            raise CoachError(self.path, f"holds damaged data ({read.__name__}: {type(e).__name__})") from None

    return wrapper


class ReadsMixin:
    """Store methods that read (`self.conn`, `self.path`)."""

    @_damage_is_one_line
    def archer(self, name: str) -> Archer | None:
        row = self.conn.execute(
            "SELECT id, name, handedness, draw_style, tolerance, overrides_json FROM archers WHERE name = ?",
            (normalize_name(name),),
        ).fetchone()
        return _archer(row) if row else None

    @_damage_is_one_line
    def archer_names(self) -> list[str]:
        """Every archer in the store, sessions or not."""
        return [n for (n,) in self.conn.execute("SELECT name FROM archers ORDER BY name")]

    @_damage_is_one_line
    def archer_by_id(self, archer_id: int) -> Archer:
        row = self.conn.execute(
            "SELECT id, name, handedness, draw_style, tolerance, overrides_json FROM archers WHERE id = ?",
            (archer_id,),
        ).fetchone()
        return _archer(row)

    # -- sessions and shots --
    @_damage_is_one_line
    def sessions(self, archer: str | None = None) -> list[SessionSummary]:
        q = (
            "SELECT s.id, a.name, s.source, s.started_at, s.finished_at, s.complete, s.view, s.handedness, "
            "s.pack_id, s.pack_version, s.content_hash, "
            "(SELECT COUNT(*) FROM shots WHERE session_id = s.id), "
            "(SELECT COUNT(*) FROM findings f LEFT JOIN shots sh ON sh.id = f.shot_id "
            f"WHERE f.session_id = s.id AND f.verdict = 'fault' AND NOT {DISMISSED}) "
            "FROM sessions s JOIN archers a ON a.id = s.archer_id"
        )
        args: tuple = ()
        if archer is not None:
            q += " WHERE a.name = ?"
            args = (normalize_name(archer),)
        q += " ORDER BY s.started_at, s.id"
        return [
            SessionSummary(sid, name, src, started, finished, bool(complete), *rest)
            for sid, name, src, started, finished, complete, *rest in self.conn.execute(q, args)
        ]

    @_damage_is_one_line
    def session(self, sid: int) -> StoredSession:
        row = self.conn.execute(
            "SELECT id, archer_id, source, content_hash, pack_id, pack_version, fps, width, height, frame_count, "
            "view, handedness, started_at, finished_at, complete, report_json, profile_json FROM sessions WHERE id = ?",
            (sid,),
        ).fetchone()
        if row is None:
            raise CoachError(self.path, f"has no session {sid} (see `coach sessions`)")
        *cols, complete, report_json, profile_json = row
        return StoredSession(
            *cols,
            complete=bool(complete),
            report=json.loads(report_json) if report_json else None,
            profile=json.loads(profile_json) if profile_json else {},
        )

    @_damage_is_one_line
    def shots(self, sid: int) -> list[StoredShot]:
        """The session's stored shots, in order (each its row id, the shot as judged and its stored JSON)."""
        out = []
        for shot_id, js, fps in self.conn.execute(
            "SELECT sh.id, sh.shot_json, s.fps FROM shots sh JOIN sessions s ON s.id = sh.session_id "
            "WHERE sh.session_id = ? ORDER BY sh.idx",
            (sid,),
        ):
            d = json.loads(js)
            out.append(StoredShot(shot_id, ShotResult.from_json(d, float(fps or 30.0)), d))
        return out

    @_damage_is_one_line
    def shot_count(self, sid: int) -> int:
        return int(self.conn.execute("SELECT COUNT(*) FROM shots WHERE session_id = ?", (sid,)).fetchone()[0])

    @_damage_is_one_line
    def fault_counts(self, sid: int) -> dict[str, int]:
        """Fault findings per rule in the session, as the machine judged them (dismissals not applied)."""
        return dict(
            self.conn.execute(
                "SELECT rule, COUNT(*) FROM findings WHERE session_id = ? AND verdict = 'fault' GROUP BY rule", (sid,)
            )
        )

    @_damage_is_one_line
    def findings(self, sid: int) -> list[StoredFinding]:
        """The session's findings, by shot (the session's own last), as the machine judged them."""
        rows = self.conn.execute(
            "SELECT f.id, sh.idx, f.rule, f.verdict, f.value, f.threshold_json, f.start_frame, f.end_frame, f.unit, "
            "f.reason FROM findings f LEFT JOIN shots sh ON sh.id = f.shot_id WHERE f.session_id = ? "
            "ORDER BY sh.idx IS NULL, sh.idx, f.id",
            (sid,),
        )
        return [
            StoredFinding(fid, shot, rule, verdict, value, json.loads(threshold or "{}"), *rest)
            for fid, shot, rule, verdict, value, threshold, *rest in rows
        ]

    @_damage_is_one_line
    def series(self, shot_id: int) -> Series | None:
        row = self.conn.execute(
            "SELECT start_frame, n_frames, meta_json, data FROM series WHERE shot_id = ?", (shot_id,)
        ).fetchone()
        if row is None:
            return None
        meta = json.loads(row[2])
        data = np.frombuffer(row[3], dtype=np.float32).reshape(len(meta["names"]), row[1])
        return Series(row[0], meta["names"], meta.get("offsets", {}), data)

    @_damage_is_one_line
    def key_frames(self, shot_id: int) -> list[KeyFrame]:
        out = []
        for kind, frame, scale, jpeg, lm in self.conn.execute(
            "SELECT kind, frame, scale, jpeg, landmarks FROM key_frames WHERE shot_id = ? ORDER BY frame", (shot_id,)
        ):
            arr = None if lm is None else np.frombuffer(lm, dtype=np.float32).reshape(-1, 3)
            out.append(KeyFrame(kind, frame, scale, bytes(jpeg), arr))
        return out

    @_damage_is_one_line
    def trend_rows(self, archer_id: int, up_to: int | None = None) -> list[TrendRow]:
        """Per session of the archer (oldest first, up to session `up_to`): shot count, per-rule fault and
        assessed counts, and the mean of each shot measure — the raw material of the trend charts."""
        sessions = self.conn.execute(
            "SELECT id, started_at, complete FROM sessions WHERE archer_id = ? ORDER BY started_at, id", (archer_id,)
        ).fetchall()
        out = []
        for sid, started, complete in sessions:
            shots = [
                json.loads(js)
                for (js,) in self.conn.execute("SELECT shot_json FROM shots WHERE session_id = ? ORDER BY idx", (sid,))
            ]
            rules: dict[str, dict[str, int]] = {}
            for r, verdict, n in self.conn.execute(
                f"SELECT f.rule, CASE WHEN f.verdict = 'fault' AND {DISMISSED} THEN 'dismissed' ELSE f.verdict END "
                "AS v, COUNT(*) FROM findings f JOIN shots sh ON sh.id = f.shot_id WHERE f.session_id = ? "
                "GROUP BY f.rule, v",
                (sid,),
            ):
                rules.setdefault(r, {"fault": 0, "pass": 0, "not_assessable": 0, "dismissed": 0})[verdict] = n
            measures: dict[str, list[float]] = {}
            for sh in shots:
                for k, v in (sh.get("measures") or {}).items():
                    if v is not None:
                        measures.setdefault(k, []).append(float(v))
            means = {k: float(np.mean(v)) for k, v in measures.items()}
            out.append(TrendRow(sid, started, bool(complete), len(shots), rules, means))
            if up_to is not None and sid == up_to:
                break
        return out

    # -- annotations --
    @_damage_is_one_line
    def annotations(self, sid: int) -> list[Annotation]:
        return [
            Annotation(*r)
            for r in self.conn.execute(
                "SELECT id, shot_idx, rule, action, comment, author, created_at FROM annotations "
                "WHERE session_id = ? ORDER BY created_at, id",
                (sid,),
            )
        ]


# A finding (alias f, its shot sh) whose coach's last accept/dismiss is a dismissal: the coach says the machine
# was wrong, so it is left out of fault counts and trends (the finding itself, the machine's verdict, is kept).
DISMISSED = (
    "EXISTS (SELECT 1 FROM annotations an WHERE an.action = 'dismiss' AND an.id = (SELECT MAX(b.id) FROM "
    "annotations b WHERE b.session_id = f.session_id AND b.shot_idx IS sh.idx AND b.rule = f.rule "
    "AND b.action IN ('accept', 'dismiss')))"
)


def _archer(row) -> Archer:
    return Archer(row[0], row[1], row[2], row[3], row[4], json.loads(row[5] or "{}"))
