"""Recording an analysis for an archer into the session store, as it goes.

`SessionRecorder` is an `Analyzer` shot listener that commits each completed shot (its findings, per-frame metric
series and key-frame thumbnails) the moment it completes; `finish(report)` ends the session. `DeferredRecorder`
(`coach analyze --archer`) writes nothing until the input has proved readable."""

from __future__ import annotations

import os
import sqlite3
from dataclasses import replace
from pathlib import Path

import numpy as np

from .errors import CoachError
from .kept_track import PoseKeeper
from .results import SessionReport, ShotResult
from .store import Archer, KeyFrame, Series, Store, content_hash, default_db_path, normalize_name, schema
from .store.media import VideoFrameGrabber, encode_thumbnail


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
        keeper: PoseKeeper | None = None,
    ):
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


class DeferredRecorder:
    """`coach analyze --archer`'s recorder. Nothing is written — not the archer, not the session — until the
    input has proved readable: the first shot, or a finished analysis that saw a person. An empty, text or
    audio-only file, or a video with nobody in it, leaves the store byte-identical.

    The store is checked (and the archer's saved profile read) up front, read-only, so a damaged store is
    reported before a long analysis rather than after it."""

    def __init__(self, args, pack, profile, source: str):
        self.db = default_db_path(args.db)
        self.pack = pack
        self.source = source
        self.fields = {
            "handedness": profile.handedness,
            "draw_style": args.draw_style if args.draw_style != "mediterranean" else None,
            "tolerance": args.tolerance if args.tolerance != "club" else None,
        }
        self.name = args.archer
        saved = None
        if self.db.exists() and not schema.writable(self.db):  # read-only media: say so before the analysis
            raise CoachError(self.db, "is read-only (read-only media or permissions); nothing can be recorded")
        if self.db.exists() and self.db.stat().st_size > 0:
            with Store.open(self.db, create=False, readonly=True) as store:
                saved = store.archer(args.archer)
        else:
            normalize_name(args.archer)  # an empty name fails now, not after the analysis
        base = saved.profile() if saved is not None else type(profile)()
        given = {k: v for k, v in self.fields.items() if v is not None}
        self.profile = replace(base, **given)
        self.rec = None
        self.keeper = PoseKeeper()  # the poses, kept from the first frame; written with the session
        self.on_pose = self.keeper.push

    @property
    def sid(self):
        return self.rec.sid if self.rec else None

    @property
    def archer(self):
        return self.rec.archer if self.rec else None

    @property
    def store(self):
        return self.rec.store if self.rec else None

    def _start(self):
        store = Store.open(self.db)
        try:
            archer = store.ensure_archer(self.name, **self.fields)
            self.rec = SessionRecorder(store, archer, self.source, self.pack, self.profile, keeper=self.keeper)
        except sqlite3.DatabaseError as e:
            store.close()
            raise CoachError(store.path, f"database error ({e})") from None
        except BaseException:
            store.close()
            raise
        return self.rec

    def on_shot(self, shot, analyzer) -> None:
        (self.rec or self._start()).on_shot(shot, analyzer)

    def finish(self, report) -> None:
        if self.rec is None and (report.frame_count == 0 or report.frames_with_person == 0):
            return  # nothing analysable: require_person says so, and the store stays as it was
        (self.rec or self._start()).finish(report)

    def close(self) -> None:
        if self.rec is not None:
            self.rec.close()
            self.rec.store.close()


def start_recording(args, pack, profile, source: str):
    """For `coach analyze --archer`: check the store and the source, and read the archer's profile (profile
    flags given on the command line are saved to the archer; otherwise the archer's saved profile is used).
    Returns (recorder, the profile to analyse with); the recorder writes only once there is something to keep."""
    from .safe_io import require_regular_file

    if "://" not in str(source):
        require_regular_file(source, "video or pose-track file")
    rec = DeferredRecorder(args, pack, profile, source)
    return rec, rec.profile
