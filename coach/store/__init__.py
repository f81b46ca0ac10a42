"""The session store: one SQLite file (WAL) that keeps every archer, session, shot and finding, the compact
per-frame metric series of each shot, key-frame thumbnails and the coach's annotations.

- `schema.py`: what a store file is — ordered migrations keyed by `PRAGMA user_version` (an older file is
  upgraded in place), and the checks that refuse a file that is not SQLite, or is SQLite but not ours and not
  empty, with a one-line `CoachError`, leaving it byte-identical (opened read-only until recognised).
- `records.py`: the typed records handed out and taken in — every read returns records (a session, a shot with
  its row id, a finding, a note, a correction, a trend row), never JSON with ids injected into it.
- `reads.py`: every read of `Store`, each into its records; damaged data is one line naming the store.
- `repository.py`: `Store`: opening, the one connection and its transactions, and the writes.
- `corrections.py`: kept pose tracks and the corrections record; `tidy.py`: rename, merge, move.
- `media.py`: key-frame grabbers and JPEG thumbnails; where the annotated videos live beside the store.

Recording an analysis as it goes (the shot listener) is `coach/recording.py`.
"""

from .media import JPEG_QUALITY, KEY_FRAME_KINDS, THUMB_MAX_SIDE, RingFrameGrabber, VideoFrameGrabber, encode_thumbnail
from .reads import DISMISSED
from .records import (
    Annotation,
    Archer,
    CorrectionRecord,
    KeyFrame,
    Series,
    SessionSummary,
    StoredFinding,
    StoredSession,
    StoredShot,
    TrendRow,
    normalize_name,
)
from .repository import Store, content_hash, now_iso
from .schema import APPLICATION_ID, DEFAULT_DB, MIGRATIONS, SCHEMA_VERSION, default_db_path

__all__ = [
    "APPLICATION_ID",
    "DEFAULT_DB",
    "DISMISSED",
    "JPEG_QUALITY",
    "KEY_FRAME_KINDS",
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "THUMB_MAX_SIDE",
    "TrendRow",
    "Annotation",
    "Archer",
    "CorrectionRecord",
    "KeyFrame",
    "RingFrameGrabber",
    "Series",
    "SessionSummary",
    "Store",
    "StoredFinding",
    "StoredSession",
    "StoredShot",
    "VideoFrameGrabber",
    "content_hash",
    "default_db_path",
    "encode_thumbnail",
    "normalize_name",
    "now_iso",
]
