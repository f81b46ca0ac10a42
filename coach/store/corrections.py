"""The store's part of corrections: the pose track kept with each session and the record of what coaches
corrected (schema v3, `schema._m3_kept_tracks_corrections`). Mixed into `Store`; all SQL of corrections is here.

Why the track is kept in the store rather than beside the media: it belongs to the session row (deleted with
it, by cascade), it travels with the one file a club backs up or copies, it is there when the store is read
from read-only media or the media folder has moved, and it is written in the same transaction as the rest
of the session. It costs ~250 bytes a frame (coach/kept_track.py): 14 MB for a 30-minute session.
"""

from __future__ import annotations

import json
import sqlite3

import numpy as np

from ..errors import CoachError
from ..kept_track import KeptTrackError, decode, header
from .records import CorrectionRecord
from .rows import insert_findings


class CorrectionsMixin:
    """Store methods for kept tracks and corrections (`self.conn`, `self.transaction()`, `self.path`)."""

    # -- kept pose tracks --
    def keep_pose_track(self, sid: int, blob: bytes) -> None:
        """Keep (or replace) the session's pose track, `coach.keptpose/1` bytes."""
        h = header(blob)
        with self.transaction() as c:
            c.execute(
                "INSERT OR REPLACE INTO pose_tracks (session_id, codec, frames, data) VALUES (?, ?, ?, ?)",
                (sid, h["codec"], int(h["frames"]), sqlite3.Binary(blob)),
            )

    def has_pose_track(self, sid: int) -> bool:
        return self.conn.execute("SELECT 1 FROM pose_tracks WHERE session_id = ?", (sid,)).fetchone() is not None

    def pose_track_sessions(self) -> set[int]:
        return {r[0] for r in self.conn.execute("SELECT session_id FROM pose_tracks")}

    def pose_track(self, sid: int):
        """The session's kept PoseTrack, or None when it has none."""
        row = self.conn.execute("SELECT data FROM pose_tracks WHERE session_id = ?", (sid,)).fetchone()
        if row is None:
            return None
        try:
            return decode(bytes(row[0]))
        except KeptTrackError as e:
            raise CoachError(self.path, f"holds a damaged pose track for session {sid} ({e})") from None

    def add_key_frames(self, shot_id: int, key_frames) -> None:
        """Key frames for a shot whose marks moved (replacing any of the same kind)."""
        with self.transaction() as c:
            for kf in key_frames:
                lm = None if kf.landmarks is None else np.asarray(kf.landmarks, dtype=np.float32).tobytes()
                c.execute(
                    "INSERT OR REPLACE INTO key_frames (shot_id, kind, frame, scale, jpeg, landmarks) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    (shot_id, kf.kind, kf.frame, kf.scale, kf.jpeg, lm),
                )

    # -- corrections --
    def corrections(self, sid: int) -> list[CorrectionRecord]:
        """The session's corrections, oldest first."""
        out = []
        for cid, shot, old_shot, action, marks, before, by, at in self.conn.execute(
            "SELECT id, shot_idx, old_shot_idx, action, marks_json, before_json, author, created_at "
            "FROM corrections WHERE session_id = ? ORDER BY id",
            (sid,),
        ):
            try:
                marks, before = json.loads(marks), json.loads(before) if before else None
            except ValueError:
                raise CoachError(self.path, f"holds a damaged correction of session {sid}") from None
            out.append(CorrectionRecord(cid, shot, old_shot, action, marks, before, by, at))
        return out

    def record_correction(self, plan) -> int:
        """Write a `corrections.CorrectionPlan` in one transaction: the session's shots renumbered in time
        order (the coach's notes follow their shot), the re-judged shot's findings and series replaced, a
        removed shot's rows dropped (its JSON and notes kept in the record), the consistency findings and
        the report updated, and the correction recorded. Nothing else in the store changes."""
        sid = plan.session_id
        keep = {p.old_index for p in plan.shots if p.old_index is not None}
        before = dict(plan.before) if plan.before is not None else None
        with self.transaction() as c:
            rows = dict(c.execute("SELECT idx, id FROM shots WHERE session_id = ?", (sid,)).fetchall())
            for idx, shot_id in rows.items():
                if idx in keep:
                    continue
                notes = c.execute(
                    "SELECT rule, action, comment, author, created_at FROM annotations WHERE session_id = ? "
                    "AND shot_idx = ? ORDER BY id",
                    (sid, idx),
                ).fetchall()
                if before is not None and notes:
                    keys = ("rule", "action", "comment", "author", "created_at")
                    before["annotations"] = [dict(zip(keys, n)) for n in notes]
                c.execute("DELETE FROM annotations WHERE session_id = ? AND shot_idx = ?", (sid, idx))
                c.execute("DELETE FROM findings WHERE shot_id = ?", (shot_id,))
                c.execute("DELETE FROM shots WHERE id = ?", (shot_id,))
            # Renumber through negative indices: (session, idx) is unique at every step.
            c.execute("UPDATE shots SET idx = -1 - idx WHERE session_id = ?", (sid,))
            c.execute(
                "UPDATE annotations SET shot_idx = -1 - shot_idx WHERE session_id = ? AND shot_idx IS NOT NULL",
                (sid,),
            )
            for i, p in enumerate(plan.shots):
                s = p.result
                cols = (s.raise_start_frame, s.draw_start_frame, s.anchor_frame, s.release_frame, s.end_frame)
                js = json.dumps(s.to_json(), ensure_ascii=False)
                if p.old_index is None:
                    cur = c.execute(
                        "INSERT INTO shots (session_id, idx, raise_start_frame, draw_start_frame, anchor_frame, "
                        "release_frame, end_frame, complete, shot_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        (sid, i, *cols, int(s.complete), js),
                    )
                    shot_id = int(cur.lastrowid)
                else:
                    shot_id = rows[p.old_index]
                    c.execute(
                        "UPDATE shots SET idx = ?, raise_start_frame = ?, draw_start_frame = ?, anchor_frame = ?, "
                        "release_frame = ?, end_frame = ?, shot_json = ? WHERE id = ?",
                        (i, *cols, js, shot_id),
                    )
                    c.execute(
                        "UPDATE annotations SET shot_idx = ? WHERE session_id = ? AND shot_idx = ?",
                        (i, sid, -1 - p.old_index),
                    )
                if p.series is None and p.old_index is not None:
                    continue
                # re-judged: its findings, series and the key frames that no longer sit on its marks
                c.execute("DELETE FROM findings WHERE shot_id = ?", (shot_id,))
                insert_findings(c, sid, shot_id, s.findings)
                c.execute("DELETE FROM series WHERE shot_id = ?", (shot_id,))
                if p.series is not None:
                    c.execute(
                        "INSERT INTO series (shot_id, start_frame, n_frames, meta_json, data) VALUES (?, ?, ?, ?, ?)",
                        (
                            shot_id,
                            p.series.start_frame,
                            int(p.series.data.shape[1]),
                            json.dumps({"names": p.series.names, "offsets": p.series.offsets}),
                            np.ascontiguousarray(p.series.data, dtype=np.float32).tobytes(),
                        ),
                    )
                for kind, frame in p.key_frames.items():
                    c.execute(
                        "DELETE FROM key_frames WHERE shot_id = ? AND kind = ? AND frame != ?", (shot_id, kind, frame)
                    )
            c.execute("DELETE FROM findings WHERE session_id = ? AND shot_id IS NULL", (sid,))
            insert_findings(c, sid, None, plan.consistency)
            c.execute(
                "UPDATE sessions SET report_json = ? WHERE id = ?", (json.dumps(plan.report, ensure_ascii=False), sid)
            )
            cur = c.execute(
                "INSERT INTO corrections (session_id, shot_idx, old_shot_idx, action, marks_json, before_json, author, "
                "created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    sid,
                    plan.shot,
                    plan.old_shot,
                    plan.action,
                    json.dumps([{"mark": m.mark, "before": m.before, "after": m.after} for m in plan.changes]),
                    json.dumps(before, ensure_ascii=False) if before is not None else None,
                    plan.by,
                    plan.at,
                ),
            )
            return int(cur.lastrowid)
