"""The session store's repository: one SQLite file (WAL) that keeps every archer, session, shot and finding, the
compact per-frame metric series of each shot, key-frame thumbnails and the coach's annotations.

Written as the analysis goes (`coach/recording.py`): each shot is committed in one transaction the moment it
completes, so a process killed mid-video leaves every completed shot behind and the session marked incomplete.
Analysing the same file again for the same archer (same content hash) reuses that session row — shots are
replaced by index — so it is never duplicated, and the coach's annotations on it survive.

`Store` holds the one connection and the transaction rule, and writes; its reads are `reads.py`'s (typed
records, one damaged-data rule), the corrections' `corrections.py`'s, the schema and the file checks `schema.py`'s.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from ..errors import CoachError
from ..results import SessionReport, ShotResult
from . import schema
from .corrections import CorrectionsMixin
from .reads import ReadsMixin
from .records import Archer, KeyFrame, Series, normalize_name
from .rows import insert_findings
from .schema import APPLICATION_ID, MIGRATIONS, SCHEMA_VERSION, default_db_path


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def content_hash(path: str | os.PathLike, chunk: int = 1 << 20) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while b := f.read(chunk):
            h.update(b)
    return "sha256:" + h.hexdigest()


# ---- the store ------------------------------------------------------------------------------------------
class Store(ReadsMixin, CorrectionsMixin):
    """Open with `Store.open(path)`; use as a context manager or call close()."""

    def __init__(self, conn: sqlite3.Connection, path: Path):
        self.conn = conn
        self.path = path
        self.readonly = False

    # -- opening --
    @classmethod
    def open(cls, path: str | os.PathLike | None = None, *, create: bool = True, readonly: bool = False) -> Store:
        """`readonly`: for commands that only read (sessions, show, report); such a store may sit on read-only
        media. A store that fails its integrity check is refused before anything is written to it."""
        p = default_db_path(path)
        if p.is_dir():
            raise CoachError(p, "is a folder, not a coach database file")
        exists = p.exists() and p.stat().st_size > 0
        if exists:
            schema.check_foreign(p)
            if readonly or not schema.writable(p):
                return cls._open_readonly(p, readonly)
        elif not create or readonly:
            raise CoachError(p, "no such coach database (run `coach analyze VIDEO --archer NAME` first)")
        else:
            try:
                p.parent.mkdir(parents=True, exist_ok=True)
            except OSError as e:
                raise CoachError(p.parent, f"cannot create the folder ({e.strerror or type(e).__name__})") from None
        try:
            conn = sqlite3.connect(str(p), isolation_level=None, timeout=30.0)
            conn.execute("PRAGMA busy_timeout = 30000")
            conn.execute("PRAGMA foreign_keys = ON")
            mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if mode.lower() != "wal":  # e.g. a file system without shared memory; still correct, less concurrent
                conn.execute("PRAGMA journal_mode = DELETE")
            conn.execute("PRAGMA synchronous = NORMAL")
            store = cls(conn, p)
            store._migrate()
        except sqlite3.DatabaseError as e:
            raise CoachError(p, f"cannot be used as a coach database ({e})") from None
        return store

    @classmethod
    def _open_readonly(cls, p: Path, asked: bool) -> Store:
        """Read without writing a byte. On read-only media SQLite cannot make the WAL index (-shm), so the
        file is opened as immutable there: nobody can change it while we read."""
        try:
            conn = schema.connect_ro(p)
            version = conn.execute("PRAGMA user_version").fetchone()[0]
        except sqlite3.DatabaseError as e:
            raise CoachError(p, f"cannot be read ({e})") from None
        if version != SCHEMA_VERSION:
            conn.close()
            why = "is read-only" if not asked else "is opened read-only"
            raise CoachError(p, f"{why} and has schema {version}; open it writable once to upgrade it")
        store = cls(conn, p)
        store.readonly = True
        return store

    def _migrate(self) -> None:
        c = self.conn
        version = c.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise CoachError(
                self.path, f"was written by a newer coach (schema {version}; this one knows {SCHEMA_VERSION})"
            )
        if version == SCHEMA_VERSION:
            return
        c.execute("BEGIN IMMEDIATE")
        try:
            version = c.execute("PRAGMA user_version").fetchone()[0]  # another process may have migrated
            for i in range(version, SCHEMA_VERSION):
                MIGRATIONS[i](c)
            c.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            c.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            c.execute("COMMIT")
        except BaseException:
            c.execute("ROLLBACK")
            raise

    @property
    def schema_version(self) -> int:
        return self.conn.execute("PRAGMA user_version").fetchone()[0]

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        if self.readonly:
            raise CoachError(self.path, "is read-only (read-only media or permissions); nothing can be recorded")
        c = self.conn
        c.execute("BEGIN IMMEDIATE")
        try:
            yield c
        except BaseException:
            c.execute("ROLLBACK")
            raise
        c.execute("COMMIT")

    # -- archers --
    def ensure_archer(
        self,
        name: str,
        *,
        handedness: str | None = None,
        draw_style: str | None = None,
        tolerance: str | None = None,
        overrides: dict | None = None,
    ) -> Archer:
        """Create the archer, or update the given profile fields of an existing one."""
        name = normalize_name(name)
        with self.transaction() as c:
            row = c.execute("SELECT id FROM archers WHERE name = ?", (name,)).fetchone()
            if row is None:
                c.execute(
                    "INSERT INTO archers (name, handedness, draw_style, tolerance, overrides_json, created_at) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    (
                        name,
                        handedness,
                        draw_style or "mediterranean",
                        tolerance or "club",
                        json.dumps(overrides or {}, ensure_ascii=False),
                        now_iso(),
                    ),
                )
            else:
                for col, v in (("handedness", handedness), ("draw_style", draw_style), ("tolerance", tolerance)):
                    if v is not None:
                        c.execute(f"UPDATE archers SET {col} = ? WHERE id = ?", (v, row[0]))
                if overrides is not None:
                    c.execute(
                        "UPDATE archers SET overrides_json = ? WHERE id = ?",
                        (json.dumps(overrides, ensure_ascii=False), row[0]),
                    )
        return self.archer(name)

    # -- sessions --
    def begin_session(self, archer: Archer, source: str, chash: str, pack, profile_json: dict) -> int:
        """The session row for (archer, content hash): reused if it exists (and marked incomplete until the new
        analysis finishes), created otherwise. Shots of an older rule pack version are dropped."""
        with self.transaction() as c:
            row = c.execute(
                "SELECT id, pack_id, pack_version FROM sessions WHERE archer_id = ? AND content_hash = ?",
                (archer.id, chash),
            ).fetchone()
            if row is None:
                cur = c.execute(
                    "INSERT INTO sessions (archer_id, source, content_hash, pack_id, pack_version, started_at, "
                    "complete, profile_json) VALUES (?, ?, ?, ?, ?, ?, 0, ?)",
                    (archer.id, source, chash, pack.id, pack.version, now_iso(), json.dumps(profile_json)),
                )
                return int(cur.lastrowid)
            sid = int(row[0])
            if (row[1], row[2]) != (pack.id, pack.version):
                c.execute("DELETE FROM shots WHERE session_id = ?", (sid,))
                c.execute("DELETE FROM findings WHERE session_id = ?", (sid,))
            c.execute(
                "UPDATE sessions SET source = ?, pack_id = ?, pack_version = ?, started_at = ?, finished_at = NULL, "
                "complete = 0, profile_json = ? WHERE id = ?",
                (source, pack.id, pack.version, now_iso(), json.dumps(profile_json), sid),
            )
            return sid

    def delete_session(self, sid: int) -> None:
        """Remove a session with its shots, findings, series, key frames and annotations."""
        with self.transaction() as c:
            c.execute("DELETE FROM findings WHERE session_id = ?", (sid,))
            c.execute("DELETE FROM shots WHERE session_id = ?", (sid,))
            c.execute("DELETE FROM annotations WHERE session_id = ?", (sid,))
            c.execute("DELETE FROM sessions WHERE id = ?", (sid,))

    def completed_session(self, archer_id: int, chash: str, pack) -> int | None:
        """The session id if this archer's file (by content hash) was analysed to the end with this rule pack
        version — what a batch run may skip."""
        row = self.conn.execute(
            "SELECT id FROM sessions WHERE archer_id = ? AND content_hash = ? AND complete = 1 "
            "AND pack_id = ? AND pack_version = ?",
            (archer_id, chash, pack.id, pack.version),
        ).fetchone()
        return int(row[0]) if row else None

    def set_session_media(self, sid: int, fps: float, width: int, height: int) -> None:
        with self.transaction() as c:
            c.execute("UPDATE sessions SET fps = ?, width = ?, height = ? WHERE id = ?", (fps, width, height, sid))

    def record_shot(
        self,
        sid: int,
        shot: ShotResult,
        *,
        series: Series | None = None,
        key_frames: list[KeyFrame] = (),
    ) -> None:
        """One transaction: the shot, its findings, its metric series and key frames (replacing any earlier
        version of the same shot index in this session)."""
        with self.transaction() as c:
            c.execute("DELETE FROM shots WHERE session_id = ? AND idx = ?", (sid, shot.index))
            cur = c.execute(
                "INSERT INTO shots (session_id, idx, raise_start_frame, draw_start_frame, anchor_frame, "
                "release_frame, end_frame, complete, shot_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    sid,
                    shot.index,
                    shot.raise_start_frame,
                    shot.draw_start_frame,
                    shot.anchor_frame,
                    shot.release_frame,
                    shot.end_frame,
                    int(shot.complete),
                    json.dumps(shot.to_json(), ensure_ascii=False),
                ),
            )
            shot_id = int(cur.lastrowid)
            insert_findings(c, sid, shot_id, shot.findings)
            if series is not None:
                c.execute(
                    "INSERT INTO series (shot_id, start_frame, n_frames, meta_json, data) VALUES (?, ?, ?, ?, ?)",
                    (
                        shot_id,
                        series.start_frame,
                        int(series.data.shape[1]),
                        json.dumps({"names": series.names, "offsets": series.offsets}),
                        np.ascontiguousarray(series.data, dtype=np.float32).tobytes(),
                    ),
                )
            for kf in key_frames:
                lm = None if kf.landmarks is None else np.asarray(kf.landmarks, dtype=np.float32).tobytes()
                c.execute(
                    "INSERT INTO key_frames (shot_id, kind, frame, scale, jpeg, landmarks) VALUES (?, ?, ?, ?, ?, ?)",
                    (shot_id, kf.kind, kf.frame, kf.scale, kf.jpeg, lm),
                )

    def finish_session(self, sid: int, report: SessionReport) -> None:
        """Mark complete, keep the report, drop shots beyond the new count, store the session findings."""
        with self.transaction() as c:
            c.execute("DELETE FROM shots WHERE session_id = ? AND idx >= ?", (sid, len(report.shots)))
            c.execute("DELETE FROM findings WHERE session_id = ? AND shot_id IS NULL", (sid,))
            insert_findings(c, sid, None, report.consistency)
            c.execute(
                "UPDATE sessions SET fps = ?, width = ?, height = ?, frame_count = ?, view = ?, handedness = ?, "
                "finished_at = ?, complete = ?, report_json = ? WHERE id = ?",
                (
                    report.fps,
                    report.width,
                    report.height,
                    report.frame_count,
                    report.view,
                    report.handedness,
                    now_iso(),
                    int(report.complete),
                    json.dumps(report.to_json(), ensure_ascii=False),
                    sid,
                ),
            )

    # -- annotations --
    def annotate(
        self,
        sid: int,
        action: str,
        *,
        shot: int | None = None,
        rule: str | None = None,
        comment: str = "",
        author: str = "",
    ) -> int:
        if action not in ("accept", "dismiss", "comment"):
            raise CoachError(None, f"annotation must be accept, dismiss or comment, not {action!r}")
        self.session(sid)  # exists?
        with self.transaction() as c:
            cur = c.execute(
                "INSERT INTO annotations (session_id, shot_idx, rule, action, comment, author, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (sid, shot, rule, action, comment, author, now_iso()),
            )
            return int(cur.lastrowid)
