"""What a coach store file is: its schema (ordered migrations keyed by `PRAGMA user_version`), where it lives,
and the checks that refuse — without writing a byte — a file that is not SQLite, is someone else's database, is
damaged, or sits where nothing can be written."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from pathlib import Path

from ..errors import CoachError

APPLICATION_ID = 0x5348454A  # "SHEJ": marks the file as a 射經 Coach store
SQLITE_MAGIC = b"SQLite format 3\x00"
DEFAULT_DB = "coach.db"


def default_db_path(explicit: str | os.PathLike | None = None) -> Path:
    """`--db`, else $COACH_DB, else ./coach.db."""
    return Path(explicit or os.environ.get("COACH_DB") or DEFAULT_DB)


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


def _m3_kept_tracks_corrections(c: sqlite3.Connection) -> None:
    """v3: each session's kept pose track, and the corrections coaches made. Sessions analysed before have no
    track and cannot be corrected (they say so); everything else in them is unchanged."""
    _run(
        c,
        """
        CREATE TABLE pose_tracks (
            session_id INTEGER PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
            codec TEXT NOT NULL,
            frames INTEGER NOT NULL,
            data BLOB NOT NULL          -- coach/kept_track.py
        );
        CREATE TABLE corrections (
            id INTEGER PRIMARY KEY,
            session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
            shot_idx INTEGER,           -- the shot's index after the correction (NULL: removed)
            old_shot_idx INTEGER,       -- and before it (NULL: added)
            action TEXT NOT NULL,       -- move, delete, add, let_down
            marks_json TEXT NOT NULL,   -- [{"mark", "before", "after"}]
            before_json TEXT,           -- the shot as it was, findings and the coach's notes on it included
            author TEXT NOT NULL,
            created_at TEXT NOT NULL
        );
        CREATE INDEX corrections_session ON corrections(session_id, id);
        """,
    )


MIGRATIONS: tuple[Callable[[sqlite3.Connection], None], ...] = (
    _m1_base,
    _m2_profiles_series_keyframes,
    _m3_kept_tracks_corrections,
)
SCHEMA_VERSION = len(MIGRATIONS)


# ---- recognising a store file ------------------------------------------------------------------------
def check_foreign(p: Path) -> None:
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
        ro = connect_ro(p)
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


def writable(p: Path) -> bool:
    """Can SQLite write here: the file, and the folder for its -wal/-shm files."""
    return os.access(p, os.W_OK) and os.access(p.parent, os.W_OK)


def connect_ro(p: Path) -> sqlite3.Connection:
    uri = p.resolve().as_uri()
    try:
        conn = sqlite3.connect(uri + "?mode=ro", uri=True, timeout=30.0)
        conn.execute("PRAGMA schema_version").fetchone()  # forces the open (and the -shm) now
        return conn
    except sqlite3.OperationalError:
        if writable(p):
            raise
    # read-only media: SQLite cannot create the -shm, and nobody else can write the file either
    return sqlite3.connect(uri + "?immutable=1", uri=True, timeout=30.0)
