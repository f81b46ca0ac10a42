"""Recording an analysis for an archer into the session store, as it goes.

`SessionRecorder` is an `Analyzer` shot listener that commits each completed shot (its findings, per-frame metric
series and key-frame thumbnails) the moment it completes; `finish(report)` ends the session. `DeferredRecorder`
(`coach analyze --archer`) writes nothing until the input has proved readable."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Protocol

from posture_rules.pack import Profile, parse_handedness

from .errors import CoachError
from .kept_track import PoseKeeper
from .results import CompletedShot, SessionReport
from .store import Archer, KeyFrame, Store, content_hash, default_db_path, normalize_name, schema
from .store.media import VideoFrameGrabber, encode_thumbnail


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

    def on_shot(self, done: CompletedShot) -> None:
        if not self._media_set:
            self.store.set_session_media(self.sid, done.fps, done.width, done.height)
            self._media_set = True
        self.store.record_shot(self.sid, done.result, series=done.series, key_frames=self._key_frames(done))
        self.shots_recorded += 1

    def _key_frames(self, done: CompletedShot) -> list[KeyFrame]:
        if self.grabber is None or not done.key_frames:
            return []
        try:
            images = self.grabber.grab(list(done.key_frames.values()))
        except Exception:  # a key frame is a nicety; never lose the shot for it
            return []
        out = []
        for kind, i in done.key_frames.items():
            img = images.get(i)
            if img is None:
                continue
            jpeg, scale = encode_thumbnail(img, done.width)
            out.append(KeyFrame(kind, i, scale, jpeg, done.landmarks.get(i)))
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


# ---- one way to record an analysis for an archer --------------------------------------------------------
class Recorder(Protocol):
    """What every entry point records through (`open_recording`): a shot listener and a pose listener (the kept
    track), then `finish(report)` at the end of the analysis, and `close()` always. `sid` is the session id once
    something has been written."""

    @property
    def sid(self) -> int | None: ...

    def on_shot(self, done: CompletedShot) -> None: ...

    def on_pose(self, pf) -> None: ...

    def finish(self, report: SessionReport) -> None: ...

    def close(self) -> None: ...


@dataclass(frozen=True, slots=True)
class ProfileChoice:
    """The profile fields given for this recording (None: not given). Given fields are saved to the archer when
    the recording first writes; the rest come from the archer's saved profile (`resolve_profile`)."""

    handedness: str | None = None
    draw_style: str | None = None
    tolerance: str | None = None

    @classmethod
    def from_args(cls, args) -> ProfileChoice:
        """The command line's profile flags (`coach.cli.common.add_profile_args`) that differ from the defaults."""
        hand = getattr(args, "handedness", None)
        draw = getattr(args, "draw_style", None)
        tol = getattr(args, "tolerance", None)
        return cls(
            handedness=parse_handedness(hand),
            draw_style=None if draw in (None, "mediterranean") else draw,
            tolerance=None if tol in (None, "club") else tol,
        )

    def given(self) -> dict[str, str]:
        return {k: v for k in ("handedness", "draw_style", "tolerance") if (v := getattr(self, k)) is not None}


def resolve_profile(saved: Archer | None, choice: ProfileChoice) -> Profile:
    """The one rule for the profile an analysis runs with: the archer's saved profile (a new archer: the
    defaults) with the fields given for this recording in its place."""
    base = saved.profile() if saved is not None else Profile()
    return replace(base, **choice.given())


def ensure_archer(store: Store, name: str, choice: ProfileChoice = ProfileChoice()) -> tuple[Archer, Profile]:
    """On an open, writable store (batch runs): the archer, created if new, with the given fields saved, and the
    profile to analyse with (`resolve_profile`)."""
    archer = store.ensure_archer(name, **choice.given())
    return archer, resolve_profile(archer, ProfileChoice())


@dataclass(frozen=True, slots=True)
class ArcherRecording:
    """An archer whose analyses will be recorded into the store at `db`, checked up front (`open_archer`)."""

    db: Path
    name: str
    choice: ProfileChoice
    profile: Profile

    def recorder(
        self,
        source: str,
        pack,
        *,
        grabber=None,
        chash: str | None = None,
        on_start: Callable[[int], None] | None = None,
    ) -> DeferredRecorder:
        """A recorder for one session of `source`; it writes nothing until there is something to keep."""
        return DeferredRecorder(self, source, pack, grabber=grabber, chash=chash, on_start=on_start)


def open_archer(db: str | os.PathLike | None, name: str, choice: ProfileChoice = ProfileChoice()) -> ArcherRecording:
    """Check the store and read the archer's saved profile now, read-only, so a damaged or read-only store is
    reported before a long analysis (or before the camera opens) rather than after it."""
    path = default_db_path(db)
    saved = None
    if path.exists() and not schema.writable(path):  # read-only media: say so before the analysis
        raise CoachError(path, "is read-only (read-only media or permissions); nothing can be recorded")
    if path.exists() and path.stat().st_size > 0:
        with Store.open(path, create=False, readonly=True) as store:
            saved = store.archer(name)
    name = normalize_name(name)  # an empty name fails now, not after the analysis
    return ArcherRecording(path, name, choice, resolve_profile(saved, choice))


def open_recording(
    db: str | os.PathLike | None,
    archer: str,
    source: str,
    pack,
    choice: ProfileChoice = ProfileChoice(),
    **recorder_options,
) -> tuple[Recorder, Profile]:
    """Open a recording of `source` for `archer`: returns the recorder (a shot listener) and the profile to
    analyse with. Every entry point that records goes through here (or `open_archer` when it records several
    sessions, as live coaching does)."""
    who = open_archer(db, archer, choice)
    return who.recorder(source, pack, **recorder_options), who.profile


class DeferredRecorder:
    """A `SessionRecorder` that starts on demand. Nothing is written — not the archer, not the session — until the
    input has proved readable: the first shot, or a finished analysis that saw a person. An empty, text or
    audio-only file, or a video with nobody in it, leaves the store byte-identical. The store connection is
    opened where the first shot arrives (SQLite connections belong to one thread: live analysis threads)."""

    def __init__(self, who: ArcherRecording, source: str, pack, *, grabber=None, chash=None, on_start=None):
        self.who = who
        self.source = source
        self.pack = pack
        self.grabber = grabber
        self.chash = chash
        self._on_start = on_start  # told the session id when the session is first written
        self.rec: SessionRecorder | None = None
        self.keeper = PoseKeeper()  # the poses, kept from the first frame; written with the session
        self.on_pose = self.keeper.push

    @property
    def profile(self) -> Profile:
        return self.who.profile

    @property
    def sid(self) -> int | None:
        return self.rec.sid if self.rec else None

    @property
    def archer(self) -> Archer | None:
        return self.rec.archer if self.rec else None

    @property
    def store(self) -> Store | None:
        return self.rec.store if self.rec else None

    def _start(self) -> SessionRecorder:
        who = self.who
        store = Store.open(who.db)
        try:
            archer = store.ensure_archer(who.name, **who.choice.given())
            self.rec = SessionRecorder(
                store,
                archer,
                self.source,
                self.pack,
                who.profile,
                grabber=self.grabber,
                chash=self.chash,
                keeper=self.keeper,
            )
        except sqlite3.DatabaseError as e:
            store.close()
            raise CoachError(store.path, f"database error ({e})") from None
        except BaseException:
            store.close()
            raise
        if self._on_start is not None:
            self._on_start(self.rec.sid)
        return self.rec

    def on_shot(self, done: CompletedShot) -> None:
        (self.rec or self._start()).on_shot(done)

    def finish(self, report: SessionReport) -> None:
        if self.rec is None and (report.frame_count == 0 or report.frames_with_person == 0):
            return  # nothing analysable: the caller says so, and the store stays as it was
        (self.rec or self._start()).finish(report)

    def close(self) -> None:
        if self.rec is not None:
            self.rec.close()
            self.rec.store.close()
