"""The session store: one SQLite file (WAL) that keeps every archer, session, shot and finding, the compact
per-frame metric series of each shot, key-frame thumbnails and the coach's annotations.

Written as the analysis goes: `SessionRecorder.on_shot` is an `Analyzer` listener that commits each shot in
one transaction the moment it completes, so a process killed mid-video leaves every completed shot behind and
the session marked incomplete. Analysing the same file again for the same archer (same content hash) reuses
that session row — shots are replaced by index — so it is never duplicated, and the coach's annotations on it
survive.

Schema changes are ordered migration functions keyed by `PRAGMA user_version`; an older file is upgraded in
place. A file that is not SQLite, or is SQLite but not ours and not empty, is refused with a one-line
`CoachError` and left byte-identical (it is only ever opened read-only until it has been recognised).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import sqlite3
import unicodedata
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from .errors import CoachError
from .results import Finding, SessionReport, ShotResult
from .store_corrections import CorrectionsMixin, _m3_kept_tracks_corrections

APPLICATION_ID = 0x5348454A  # "SHEJ": marks the file as a 射經 Coach store
SQLITE_MAGIC = b"SQLite format 3\x00"
DEFAULT_DB = "coach.db"
KEY_FRAME_KINDS = ("full_draw", "release")
JPEG_QUALITY = 85
THUMB_MAX_SIDE = 720  # key frames are stored at most this wide/high


def default_db_path(explicit: str | os.PathLike | None = None) -> Path:
    """`--db`, else $COACH_DB, else ./coach.db."""
    return Path(explicit or os.environ.get("COACH_DB") or DEFAULT_DB)


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def normalize_name(name: str) -> str:
    """Archer names in any script; NFC so the same name typed two ways is one archer."""
    n = unicodedata.normalize("NFC", name).strip()
    if not n:
        raise CoachError(None, "the archer's name is empty")
    return n


def content_hash(path: str | os.PathLike, chunk: int = 1 << 20) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while b := f.read(chunk):
            h.update(b)
    return "sha256:" + h.hexdigest()


# ---- migrations -----------------------------------------------------------------------------------------
def _run(c: sqlite3.Connection, script: str) -> None:
    """Statements one by one (executescript would commit the migration's transaction half-way)."""
    for stmt in script.split(";"):
        if stmt.strip():
            c.execute(stmt)


def _m1_base(c: sqlite3.Connection) -> None:
    """v1: archers, sessions, shots, findings, annotations."""
    _run(
        c,
        """
        CREATE TABLE archers (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            handedness TEXT,
            created_at TEXT NOT NULL
        );
        CREATE TABLE sessions (
            id INTEGER PRIMARY KEY,
            archer_id INTEGER NOT NULL REFERENCES archers(id),
            source TEXT NOT NULL,
            content_hash TEXT NOT NULL,
            pack_id TEXT, pack_version TEXT,
            fps REAL, view TEXT, handedness TEXT,
            started_at TEXT NOT NULL, finished_at TEXT,
            complete INTEGER NOT NULL DEFAULT 0,
            report_json TEXT,
            UNIQUE (archer_id, content_hash)
        );
        CREATE TABLE shots (
            id INTEGER PRIMARY KEY,
            session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
            idx INTEGER NOT NULL,
            raise_start_frame INTEGER, draw_start_frame INTEGER, anchor_frame INTEGER,
            release_frame INTEGER, end_frame INTEGER,
            complete INTEGER NOT NULL DEFAULT 1,
            shot_json TEXT NOT NULL,
            UNIQUE (session_id, idx)
        );
        CREATE TABLE findings (
            id INTEGER PRIMARY KEY,
            session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
            shot_id INTEGER REFERENCES shots(id) ON DELETE CASCADE,
            rule TEXT NOT NULL, verdict TEXT NOT NULL, value REAL,
            threshold_json TEXT, start_frame INTEGER, end_frame INTEGER, unit TEXT, reason TEXT
        );
        CREATE INDEX findings_session ON findings(session_id, shot_id);
        CREATE TABLE annotations (
            id INTEGER PRIMARY KEY,
            session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
            shot_idx INTEGER, rule TEXT,
            action TEXT NOT NULL,
            comment TEXT, author TEXT, created_at TEXT NOT NULL
        );
        """,
    )


def _m2_profiles_series_keyframes(c: sqlite3.Connection) -> None:
    """v2: archer profiles, session frame size and counts, per-shot metric series and key-frame thumbnails."""
    _run(
        c,
        """
        ALTER TABLE archers ADD COLUMN draw_style TEXT NOT NULL DEFAULT 'mediterranean';
        ALTER TABLE archers ADD COLUMN tolerance TEXT NOT NULL DEFAULT 'club';
        ALTER TABLE archers ADD COLUMN overrides_json TEXT NOT NULL DEFAULT '{}';
        ALTER TABLE sessions ADD COLUMN width INTEGER;
        ALTER TABLE sessions ADD COLUMN height INTEGER;
        ALTER TABLE sessions ADD COLUMN frame_count INTEGER;
        ALTER TABLE sessions ADD COLUMN profile_json TEXT;
        CREATE TABLE series (
            shot_id INTEGER PRIMARY KEY REFERENCES shots(id) ON DELETE CASCADE,
            start_frame INTEGER NOT NULL,
            n_frames INTEGER NOT NULL,
            meta_json TEXT NOT NULL,   -- {"names": [...], "offsets": {name: baseline}}
            data BLOB NOT NULL         -- float32, shape (len(names), n_frames), NaN = not measurable
        );
        CREATE TABLE key_frames (
            id INTEGER PRIMARY KEY,
            shot_id INTEGER NOT NULL REFERENCES shots(id) ON DELETE CASCADE,
            kind TEXT NOT NULL,
            frame INTEGER NOT NULL,
            scale REAL NOT NULL,       -- thumbnail pixels per source pixel
            jpeg BLOB NOT NULL,        -- the plain frame (overlays are drawn when a report is made)
            landmarks BLOB,            -- float32 (33, 3): x, y in source pixels, visibility
            UNIQUE (shot_id, kind)
        );
        CREATE INDEX sessions_archer ON sessions(archer_id, started_at);
        """,
    )


MIGRATIONS: tuple[Callable[[sqlite3.Connection], None], ...] = (
    _m1_base,
    _m2_profiles_series_keyframes,
    _m3_kept_tracks_corrections,
)
SCHEMA_VERSION = len(MIGRATIONS)


# ---- records handed out ---------------------------------------------------------------------------------
@dataclass(slots=True)
class Archer:
    id: int
    name: str
    handedness: str | None
    draw_style: str
    tolerance: str
    overrides: dict

    def profile(self):
        from types import MappingProxyType

        from posture_rules.pack import Profile

        return Profile(
            handedness=self.handedness,
            draw_style=self.draw_style,
            tolerance=self.tolerance,
            overrides=MappingProxyType({k: dict(v) for k, v in self.overrides.items()}),
        )

    def to_json(self) -> dict:
        return {
            "name": self.name,
            "handedness": self.handedness or "auto",
            "draw_style": self.draw_style,
            "tolerance": self.tolerance,
            "overrides": self.overrides,
        }


@dataclass(slots=True)
class KeyFrame:
    kind: str
    frame: int
    scale: float
    jpeg: bytes
    landmarks: np.ndarray | None  # (33, 3) x, y (source pixels), visibility


@dataclass(slots=True)
class Series:
    start_frame: int
    names: list[str]
    offsets: dict[str, float]
    data: np.ndarray  # (len(names), n_frames) float32

    def frames(self) -> np.ndarray:
        return np.arange(self.start_frame, self.start_frame + self.data.shape[1])


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


# ---- the store ------------------------------------------------------------------------------------------
class Store(CorrectionsMixin):
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
            _check_foreign(p)
            if readonly or not _writable(p):
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
            conn = _connect_ro(p)
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
    @_damage_is_one_line
    def archer(self, name: str) -> Archer | None:
        row = self.conn.execute(
            "SELECT id, name, handedness, draw_style, tolerance, overrides_json FROM archers WHERE name = ?",
            (normalize_name(name),),
        ).fetchone()
        return _archer(row) if row else None

    @_damage_is_one_line
    def archer_by_id(self, archer_id: int) -> Archer:
        row = self.conn.execute(
            "SELECT id, name, handedness, draw_style, tolerance, overrides_json FROM archers WHERE id = ?",
            (archer_id,),
        ).fetchone()
        return _archer(row)

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
            _insert_findings(c, sid, shot_id, shot.findings)
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
            _insert_findings(c, sid, None, report.consistency)
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

    @_damage_is_one_line
    def sessions(self, archer: str | None = None) -> list[dict]:
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
        keys = (
            "id",
            "archer",
            "source",
            "started_at",
            "finished_at",
            "complete",
            "view",
            "handedness",
            "pack_id",
            "pack_version",
            "content_hash",
            "shots",
            "faults",
        )
        return [dict(zip(keys, r)) for r in self.conn.execute(q, args)]

    @_damage_is_one_line
    def session(self, sid: int) -> dict:
        row = self.conn.execute(
            "SELECT id, archer_id, source, content_hash, pack_id, pack_version, fps, width, height, frame_count, "
            "view, handedness, started_at, finished_at, complete, report_json, profile_json FROM sessions WHERE id = ?",
            (sid,),
        ).fetchone()
        if row is None:
            raise CoachError(self.path, f"has no session {sid} (see `coach sessions`)")
        keys = (
            "id",
            "archer_id",
            "source",
            "content_hash",
            "pack_id",
            "pack_version",
            "fps",
            "width",
            "height",
            "frame_count",
            "view",
            "handedness",
            "started_at",
            "finished_at",
            "complete",
            "report_json",
            "profile_json",
        )
        d = dict(zip(keys, row))
        d["complete"] = bool(d["complete"])
        d["report"] = json.loads(d.pop("report_json")) if d["report_json"] else None
        d["profile"] = json.loads(d.pop("profile_json")) if d["profile_json"] else {}
        return d

    @_damage_is_one_line
    def shots(self, sid: int) -> list[dict]:
        """Stored shots (coach.session/1 shot JSON each, plus the row id)."""
        out = []
        for shot_id, js in self.conn.execute(
            "SELECT id, shot_json FROM shots WHERE session_id = ? ORDER BY idx", (sid,)
        ):
            d = json.loads(js)
            d["_id"] = shot_id
            out.append(d)
        return out

    @_damage_is_one_line
    def findings(self, sid: int) -> list[dict]:
        rows = self.conn.execute(
            "SELECT f.id, sh.idx, f.rule, f.verdict, f.value, f.threshold_json, f.start_frame, f.end_frame, f.unit, "
            "f.reason FROM findings f LEFT JOIN shots sh ON sh.id = f.shot_id WHERE f.session_id = ? "
            "ORDER BY sh.idx IS NULL, sh.idx, f.id",
            (sid,),
        )
        keys = ("id", "shot", "rule", "verdict", "value", "threshold", "start_frame", "end_frame", "unit", "reason")
        out = []
        for r in rows:
            d = dict(zip(keys, r))
            d["threshold"] = json.loads(d["threshold"] or "{}")
            out.append(d)
        return out

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
    def trend_rows(self, archer_id: int, up_to: int | None = None) -> list[dict]:
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
            out.append(
                {
                    "id": sid,
                    "started_at": started,
                    "complete": bool(complete),
                    "shots": len(shots),
                    "rules": rules,
                    "measures": {k: float(np.mean(v)) for k, v in measures.items()},
                }
            )
            if up_to is not None and sid == up_to:
                break
        return out

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

    @_damage_is_one_line
    def annotations(self, sid: int) -> list[dict]:
        keys = ("id", "shot", "rule", "action", "comment", "author", "created_at")
        return [
            dict(zip(keys, r))
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


def _insert_findings(c: sqlite3.Connection, sid: int, shot_id: int | None, findings: list[Finding]) -> None:
    c.executemany(
        "INSERT INTO findings (session_id, shot_id, rule, verdict, value, threshold_json, start_frame, end_frame, "
        "unit, reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (
                sid,
                shot_id,
                f.rule,
                f.verdict,
                f.to_json()["value"],
                json.dumps(f.to_json()["threshold"]),
                f.start_frame,
                f.end_frame,
                f.unit,
                f.reason,
            )
            for f in findings
        ],
    )


def _check_foreign(p: Path) -> None:
    """Refuse, without writing a byte, a file that is not SQLite or is someone else's SQLite database."""
    try:
        with open(p, "rb") as f:
            head = f.read(100)
    except OSError as e:
        raise CoachError(p, f"cannot be read ({e.strerror or e.__class__.__name__})") from None
    if not head.startswith(SQLITE_MAGIC) or len(head) < 100:
        raise CoachError(p, "is not a coach database (not an SQLite file); give another --db path")
    # Ask SQLite itself, read-only: in WAL mode the header in the main file can be stale (user_version and
    # application_id live in the -wal file until a checkpoint, e.g. after a killed analysis). quick_check
    # catches a damaged file before anything is written into it (writing would spread the damage); it reads
    # the whole file, so a file this process has checked is not checked again until it changes on disk (the
    # dashboard opens the store on every script run).
    try:
        st = p.stat()
        key = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
        ro = _connect_ro(p)
        try:
            app_id = ro.execute("PRAGMA application_id").fetchone()[0]
            user_version = ro.execute("PRAGMA user_version").fetchone()[0]
            n = ro.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()[0]
            check = ["ok"] if key in _CHECKED else [r[0] for r in ro.execute("PRAGMA quick_check(3)")]
            tables = {r[0] for r in ro.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        finally:
            ro.close()
    except sqlite3.DatabaseError as e:
        raise CoachError(p, f"is a corrupt SQLite file ({e}); give another --db path") from None
    if check != ["ok"]:
        raise CoachError(p, f"is damaged (integrity check: {check[0][:80]}); give another --db path")
    _CHECKED.add(key)
    if app_id == APPLICATION_ID and user_version >= 1:
        missing = sorted(set(EXPECTED_TABLES[: 5 if user_version == 1 else None]) - tables)
        if missing:
            raise CoachError(p, f"is damaged (table {missing[0]!r} is missing); give another --db path")
    if app_id == APPLICATION_ID:
        if user_version > SCHEMA_VERSION:
            raise CoachError(
                p, f"was written by a newer coach (schema {user_version}; this one knows {SCHEMA_VERSION})"
            )
        return
    if app_id != 0 or user_version != 0:
        raise CoachError(p, "is an SQLite database of another program, not a coach database; give another --db path")
    if n:
        raise CoachError(p, "is an SQLite database without the coach schema (not empty); give another --db path")


_CHECKED: set[tuple] = set()  # (device, inode, size, mtime) of store files that passed quick_check
EXPECTED_TABLES = ("archers", "sessions", "shots", "findings", "annotations", "series", "key_frames")


def _writable(p: Path) -> bool:
    """Can SQLite write here: the file, and the folder for its -wal/-shm files."""
    return os.access(p, os.W_OK) and os.access(p.parent, os.W_OK)


def _connect_ro(p: Path) -> sqlite3.Connection:
    uri = p.resolve().as_uri()
    try:
        conn = sqlite3.connect(uri + "?mode=ro", uri=True, timeout=30.0)
        conn.execute("PRAGMA schema_version").fetchone()  # forces the open (and the -shm) now
        return conn
    except sqlite3.OperationalError:
        if _writable(p):
            raise
    # read-only media: SQLite cannot create the -shm, and nobody else can write the file either
    return sqlite3.connect(uri + "?immutable=1", uri=True, timeout=30.0)


# ---- recording an analysis as it goes -------------------------------------------------------------------
class VideoFrameGrabber:
    """Key-frame images for the recorder, read from the same file by a second, forward-only reader.

    The analyzer's listener has no images, and keeping every frame would cost memory; this reader decodes
    ahead only when a shot completes, up to that shot's key frames (shots complete in order), so there is no
    per-frame database or file work. Frame i here is frame i of `FrameSource` (both count decoded frames)."""

    def __init__(self, path: str | os.PathLike):
        self.path = str(path)
        self._cap = None
        self._next = 0

    def _open(self) -> None:
        import cv2

        if self._cap is not None:
            self._cap.release()
        self._cap = cv2.VideoCapture(self.path)
        self._cap.set(cv2.CAP_PROP_ORIENTATION_AUTO, 1)
        self._next = 0

    def grab(self, indices: list[int]) -> dict[int, np.ndarray]:
        out: dict[int, np.ndarray] = {}
        for i in sorted(set(indices)):
            if self._cap is None or i < self._next:
                self._open()
            while self._next < i:
                if not self._cap.grab():
                    return out
                self._next += 1
            ok, img = self._cap.read()
            self._next += 1
            if not ok or img is None:
                return out
            out[i] = img
        return out

    def close(self) -> None:
        if self._cap is not None:
            self._cap.release()
            self._cap = None


class RingFrameGrabber:
    """For live sources: keep the last `size` frames, downscaled, and hand out the ones a shot asks for."""

    def __init__(self, size: int = 600, max_side: int = THUMB_MAX_SIDE):
        from collections import deque

        self._ring: deque[tuple[int, np.ndarray]] = deque(maxlen=size)
        self.max_side = max_side
        self.scale = 1.0

    def offer(self, index: int, image: np.ndarray) -> None:
        small, self.scale = _downscale(image, self.max_side)
        self._ring.append((index, small if small is not image else image.copy()))

    def grab(self, indices: list[int]) -> dict[int, np.ndarray]:
        want = set(indices)
        return {i: img for i, img in self._ring if i in want}

    def close(self) -> None:
        self._ring.clear()


def _downscale(image: np.ndarray, max_side: int) -> tuple[np.ndarray, float]:
    import cv2

    h, w = image.shape[:2]
    s = min(1.0, max_side / max(h, w))
    if s >= 1.0:
        return image, 1.0
    return cv2.resize(image, (round(w * s), round(h * s)), interpolation=cv2.INTER_AREA), s


def encode_thumbnail(image: np.ndarray, source_width: int) -> tuple[bytes, float]:
    """JPEG of the frame at most THUMB_MAX_SIDE; returns (bytes, thumbnail pixels per source pixel)."""
    import cv2

    small, _ = _downscale(image, THUMB_MAX_SIDE)
    ok, buf = cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
    if not ok:
        raise RuntimeError("JPEG encoding failed")
    return buf.tobytes(), small.shape[1] / max(source_width, 1)


def key_frame_indices(shot: ShotResult) -> dict[str, int]:
    """Full draw: the middle of the hold (anchor → release); release: the release frame."""
    out: dict[str, int] = {}
    if shot.anchor_frame is not None:
        end = shot.release_frame if shot.release_frame is not None else shot.end_frame
        out["full_draw"] = (shot.anchor_frame + end) // 2 if end is not None else shot.anchor_frame
    if shot.release_frame is not None:
        out["release"] = shot.release_frame
    return out


class SessionRecorder:
    """Records one analysis into the store: `on_shot` is an Analyzer listener, `finish(report)` ends it.

    Use as `rec = SessionRecorder(store, "王小明", "clip.mp4", pack, profile)`, pass `on_shot=[rec.on_shot]`
    to `analyze_video`, then `rec.finish(report)`. Until `finish` the session is marked incomplete."""

    def __init__(
        self,
        store: Store,
        archer: Archer | str,
        source: str | os.PathLike,
        pack,
        profile,
        *,
        grabber=None,
        chash: str | None = None,
        keeper=None,
    ):
        from .kept_track import PoseKeeper

        self.store = store
        # Every frame's pose (`on_pose`, an Analyzer pose listener), kept with the session when it finishes, so
        # a coach's correction is re-judged without the model (coach/corrections.py).
        self.keeper = keeper if keeper is not None else PoseKeeper()
        self.on_pose = self.keeper.push
        self.archer = archer if isinstance(archer, Archer) else store.ensure_archer(archer)
        self.source = str(source)
        src_path = Path(source)
        self.chash = chash or (content_hash(src_path) if src_path.is_file() else f"source:{self.source}")
        if grabber is None and src_path.is_file() and src_path.suffix.lower() != ".json":
            grabber = VideoFrameGrabber(src_path)
        self.grabber = grabber
        self.sid = store.begin_session(self.archer, self.source, self.chash, pack, profile.to_json())
        self._media_set = False
        self.shots_recorded = 0

    def on_shot(self, shot: ShotResult, analyzer) -> None:
        if not self._media_set:
            self.store.set_session_media(self.sid, analyzer.fps, analyzer.width, analyzer.height)
            self._media_set = True
        self.store.record_shot(
            self.sid, shot, series=shot_series(analyzer, shot), key_frames=self._key_frames(analyzer, shot)
        )
        self.shots_recorded += 1

    def _key_frames(self, analyzer, shot: ShotResult) -> list[KeyFrame]:
        if self.grabber is None:
            return []
        want = key_frame_indices(shot)
        try:
            images = self.grabber.grab(list(want.values()))
        except Exception:  # a key frame is a nicety; never lose the shot for it
            return []
        samples = {s.body.index: s for s in analyzer.engine.samples_between(min(want.values()), max(want.values()))}
        out = []
        for kind, i in want.items():
            img = images.get(i)
            if img is None:
                continue
            jpeg, scale = encode_thumbnail(img, analyzer.width)
            s = samples.get(i)
            lm = None
            if s is not None:
                lm = np.column_stack([np.asarray(s.body.xy, dtype=np.float32), np.asarray(s.body.vis, np.float32)])
            out.append(KeyFrame(kind, i, scale, jpeg, lm))
        return out

    def finish(self, report: SessionReport) -> None:
        self.store.finish_session(self.sid, report)
        if self.keeper.n:
            blob = self.keeper.encode(report.fps, report.width, report.height, report.source)
            self.store.keep_pose_track(self.sid, blob)
        self.close()

    def close(self) -> None:
        if self.grabber is not None:
            self.grabber.close()


def shot_series(analyzer, shot: ShotResult) -> Series | None:
    """The frame metrics of the shot's rules over the shot (raise start → end), float32, one row per metric."""
    engine = analyzer.engine
    names = list(getattr(engine, "frame_metrics", ()))
    lo = next((f for f in (shot.raise_start_frame, shot.draw_start_frame, shot.anchor_frame) if f is not None), None)
    hi = shot.end_frame if shot.end_frame is not None else shot.release_frame
    if not names or lo is None or hi is None:
        return None
    samples = engine.samples_between(lo, hi)
    if not samples:
        return None
    start = samples[0].body.index
    n = samples[-1].body.index - start + 1
    data = np.full((len(names), n), np.nan, dtype=np.float32)
    for s in samples:
        j = s.body.index - start
        for k, m in enumerate(names):
            data[k, j] = s.values.get(m, np.nan)
    offsets = {}
    for m, q in getattr(engine, "_baseline", {}).items():
        if q:
            offsets[m] = float(np.median(q))
    return Series(start, names, offsets, data)
