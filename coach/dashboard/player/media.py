"""Which video the player shows for a session, and how the browser gets it.

The annotated video (skeleton, phase and faults drawn in) is preferred; the original is the fallback, and the
alternative when the coach turns the skeleton off. An annotated video older than the session's latest analysis
shows the old faults, so it is not used (`annotated_is_stale`)."""

from __future__ import annotations

import functools
import mimetypes
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from ...store.records import StoredSession
from ..settings import VIDEO_SUFFIXES


@dataclass(frozen=True, slots=True)
class SessionVideos:
    annotated: Path | None  # with the skeleton drawn, current with the session's analysis
    plain: Path | None  # the original video, where it is still on disk
    stale: bool  # an annotated video exists but predates the latest analysis

    @property
    def best(self) -> Path | None:
        return self.annotated or self.plain


def annotated_is_stale(video: Path, session: StoredSession) -> bool:
    """The annotated video was drawn before the session's latest analysis (a re-analysis outside the dashboard,
    e.g. `coach analyze --db`, keeps the session id but draws no video): its faults would be the old ones."""
    finished = session.finished_at
    if not finished:
        return False
    try:
        done = datetime.fromisoformat(finished).timestamp()
    except ValueError:
        return False
    return video.stat().st_mtime < done - 1.0


def session_videos(settings, sid: int, session: StoredSession) -> SessionVideos:
    annotated = settings.annotated_video(sid)
    stale = annotated.is_file() and annotated_is_stale(annotated, session)
    src = Path(session.source or "")
    plain = src if src.suffix.lower() in VIDEO_SUFFIXES and src.is_file() else None
    return SessionVideos(annotated if annotated.is_file() and not stale else None, plain, stale)


@functools.lru_cache(maxsize=64)
def _frame_count(path: str, mtime: float) -> int:
    import cv2

    cap = cv2.VideoCapture(path)
    try:
        return max(1, int(cap.get(cv2.CAP_PROP_FRAME_COUNT) or 1))
    finally:
        cap.release()


def video_frame_count(video: Path, stored: int | None = None) -> int:
    """The session's stored frame count, else the video header's (a session still being analysed has none)."""
    if stored:
        return int(stored)
    return _frame_count(str(video), video.stat().st_mtime)


def media_url(path: str | Path, slot: str) -> str:
    """A URL the browser can fetch (and seek in) for a video file: Streamlit's media file manager, which serves
    HTTP range requests, as for st.video. `slot` names the file's place on the page: a run that does not add it
    again lets it go."""
    from streamlit import runtime

    if not runtime.exists():
        return ""
    mime = mimetypes.guess_type(str(path))[0] or "video/mp4"
    return runtime.get_instance().media_file_mgr.add(str(path), mime, f"coach_player.{slot}")
