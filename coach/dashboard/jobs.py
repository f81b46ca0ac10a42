"""Analyses for the dashboard, run in one worker thread so the page stays responsive.

A page submits a job and keeps only its id; the worker writes progress and the outcome into the `Job` under
its lock, and the page reads a `snapshot()` on each run. Nothing here touches `st.session_state`.

One pass over the video does everything: pose → `Analyzer` (each completed shot committed to the store by
`SessionRecorder` as it completes) while the per-frame poses are kept, then the annotated H.264 video is drawn
from them (no second pose run).
"""

from __future__ import annotations

import hashlib
import itertools
import re
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path

from posture_rules.pack import load_pack

from ..capture import FrameSource
from ..errors import CoachError
from ..overlay import PoseView
from ..pipeline import require_person
from ..recording import SessionRecorder
from ..render import analyze_with_poses, draw_video
from ..results import SessionReport
from ..safe_io import os_problem
from .settings import DEMO_ARCHER, Settings

MB = 1 << 20
QUEUED, ANALYSE, RENDER, DONE, FAILED = "queued", "analyse", "render", "done", "error"


# ---- uploads ----------------------------------------------------------------------------------------------
def _safe_name(name: str) -> str:
    stem = Path(name).name or "upload"
    return re.sub(r"[^\w.\-]+", "_", stem, flags=re.UNICODE)[-80:] or "upload"


def save_upload(data: bytes, name: str, settings: Settings) -> Path:
    """Keep an uploaded video under the media folder and check that it can be decoded.

    Raises `CoachError` naming the uploaded file (not the stored copy) and the problem: empty, not a video,
    no decodable frames. A file that fails is not kept."""
    shown = Path(name).name or "upload"
    if not data:
        raise CoachError(shown, "is empty (0 bytes)")
    # The browser's limit (server.maxUploadSize) is the client's to ignore; the server enforces its own.
    if len(data) > settings.upload_max_mb * MB:
        raise CoachError(shown, f"is larger than the {settings.upload_max_mb} MB upload limit")
    digest = hashlib.sha256(data).hexdigest()[:12]
    dest = settings.uploads / f"{digest}-{_safe_name(shown)}"
    tmp = dest.with_name(f".{dest.name}.part")
    try:
        settings.uploads.mkdir(parents=True, exist_ok=True)
        prune_uploads(settings, room=len(data))
        if not dest.exists():
            tmp.write_bytes(data)
            tmp.replace(dest)
    except OSError as e:  # a full disk: one line, and no partial file left
        tmp.unlink(missing_ok=True)
        raise CoachError(shown, f"cannot be kept on the server ({os_problem(e)})") from None
    try:
        FrameSource(dest).close()
    except CoachError as e:
        dest.unlink(missing_ok=True)
        raise CoachError(shown, e.problem) from None
    return dest


def prune_uploads(settings: Settings, room: int = 0) -> list[Path]:
    """Uploads are kept under a total cap: the oldest are deleted until `room` more bytes fit."""
    if not settings.uploads.is_dir():
        return []
    files = sorted(
        (p for p in settings.uploads.iterdir() if p.is_file() and not p.name.startswith(".")),
        key=lambda p: p.stat().st_mtime,
    )
    total = sum(p.stat().st_size for p in files) + room
    gone = []
    while files and total > settings.uploads_cap_mb * MB:
        p = files.pop(0)
        total -= p.stat().st_size
        p.unlink(missing_ok=True)
        gone.append(p)
    return gone


def discard_upload(settings: Settings, video: Path) -> None:
    """After its analysis an upload is deleted unless the user asked to keep it (the session, its key frames
    and the annotated video are in the store and the media folder already)."""
    if video.parent.resolve() == settings.uploads.resolve():
        video.unlink(missing_ok=True)


# ---- jobs -------------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class ArcherSpec:
    """Who is shooting: an existing archer by name, or a new one with a profile (`new=True`)."""

    name: str
    new: bool = False
    handedness: str | None = None
    draw_style: str = "mediterranean"
    tolerance: str = "club"


@dataclass(frozen=True, slots=True)
class JobState:
    id: str
    video: str  # the name shown to the user
    archer: str
    stage: str = QUEUED
    done: int = 0
    total: int | None = None
    sid: int | None = None
    shots: int = 0
    error: str | None = None
    started: float = 0.0
    finished: float | None = None

    @property
    def is_over(self) -> bool:
        return self.stage in (DONE, FAILED)

    @property
    def fraction(self) -> float:
        if self.stage == DONE:
            return 1.0
        if not self.total:
            return 0.0
        part = min(self.done / self.total, 1.0)
        # analysing is most of the work; drawing the video the rest
        return 0.85 * part if self.stage == ANALYSE else 0.85 + 0.15 * part if self.stage == RENDER else 0.0


class Job:
    def __init__(self, state: JobState):
        self._lock = threading.Lock()
        self._state = state

    def snapshot(self) -> JobState:
        with self._lock:
            return self._state

    def update(self, **kw) -> None:
        with self._lock:
            self._state = replace(self._state, **kw)


class JobManager:
    """One worker thread (2 cores: one analysis at a time); jobs queue behind it."""

    def __init__(self):
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="coach-analysis")
        self._jobs: dict[str, Job] = {}
        self._demo: dict[str, str] = {}  # db path -> demo job id
        self._lock = threading.Lock()
        self._ids = itertools.count(1)

    def submit(
        self, settings: Settings, video: Path, archer: ArcherSpec, shown_name: str | None = None, keep: bool = True
    ) -> Job:
        """`keep=False`: an upload is deleted once analysed (coach/dashboard/jobs.py discard_upload)."""
        with self._lock:
            jid = f"job{next(self._ids)}"
            job = Job(JobState(jid, shown_name or Path(video).name, archer.name, started=time.time()))
            self._jobs[jid] = job
        self._pool.submit(_run_job, job, settings, Path(video), archer, keep)
        return job

    def get(self, job_id: str | None) -> Job | None:
        with self._lock:
            return self._jobs.get(job_id) if job_id else None

    def ensure_demo(self, settings: Settings) -> Job | None:
        """On first start (an empty store), analyse the demo sample once so a newcomer sees a real session."""
        key = str(settings.db)
        with self._lock:
            jid = self._demo.get(key)
        if jid is not None:
            return self.get(jid)
        clip = settings.demo_clip()
        if clip is None:
            return None
        with settings.store() as store:
            if store.sessions():
                return None
        with self._lock:
            if key in self._demo:  # another script run got here first
                return self._jobs.get(self._demo[key])
            self._demo[key] = "pending"
        job = self.submit(settings, clip, ArcherSpec(DEMO_ARCHER, new=True))
        with self._lock:
            self._demo[key] = job.snapshot().id
        return job

    def in_progress(self) -> dict[int, float]:
        """Session id → fraction done, for every analysis still running whose session is already stored."""
        with self._lock:
            jobs = list(self._jobs.values())
        snaps = [j.snapshot() for j in jobs]
        return {s.sid: s.fraction for s in snaps if s.sid is not None and not s.is_over}

    def demo_job(self, settings: Settings) -> Job | None:
        with self._lock:
            return self._jobs.get(self._demo.get(str(settings.db), ""))


JOBS = JobManager()


def _run_job(job: Job, settings: Settings, video: Path, archer: ArcherSpec, keep: bool = True) -> None:
    def progress(stage: str, done: int, total: int | None) -> None:
        job.update(stage=stage, done=done, total=total)

    try:
        sid, report = analyze_into_store(
            settings,
            video,
            archer,
            progress=progress,
            shown_name=job.snapshot().video,
            on_session=lambda sid: job.update(sid=sid),
        )
        job.update(stage=DONE, sid=sid, shots=len(report.shots), finished=time.time())
    except CoachError as e:
        job.update(stage=FAILED, error=str(e), finished=time.time())
    except Exception as e:  # never a traceback on the page: one line, and the log has the rest
        import logging

        logging.getLogger(__name__).exception("analysis of %s failed", video)
        job.update(stage=FAILED, error=f"{job.snapshot().video}: {e.__class__.__name__}: {e}", finished=time.time())
    finally:
        if not keep:
            discard_upload(settings, video)


# ---- the analysis ---------------------------------------------------------------------------------------
def analyze_into_store(
    settings: Settings,
    video: Path,
    archer: ArcherSpec,
    *,
    progress=None,
    shown_name: str | None = None,
    on_session=None,
) -> tuple[int, SessionReport]:
    """Analyse `video` for `archer` into the store and draw its annotated video; returns (session id, report)."""
    shown = shown_name or Path(video).name
    pack = load_pack()
    try:
        FrameSource(video).close()  # a video that cannot be read creates no archer and no session
    except CoachError as e:
        raise CoachError(shown, e.problem) from None
    with settings.store() as store:
        if archer.new or store.archer(archer.name) is None:
            rec_archer = store.ensure_archer(
                archer.name, handedness=archer.handedness, draw_style=archer.draw_style, tolerance=archer.tolerance
            )
        else:
            rec_archer = store.archer(archer.name)
        profile = rec_archer.profile()
        recorder = SessionRecorder(store, rec_archer, video, pack, profile)
        if on_session is not None:  # the review can now say "analysing…" for this session, not "incomplete"
            on_session(recorder.sid)
        try:
            report, poses = analyze_with_poses(
                video,
                pack=pack,
                profile=profile,
                on_shot=[recorder.on_shot],
                progress=progress,
                on_pose=[recorder.on_pose],
            )
            try:
                require_person(report, shown)
            except CoachError:
                recorder.close()
                _drop_session(store, recorder.sid)
                raise
            recorder.finish(report)
        finally:
            recorder.close()
        sid = recorder.sid
    try:
        draw_annotated(video, settings.annotated_video(sid), report, poses, progress=progress)
    except Exception:  # the session is stored; the review falls back to the plain video
        import logging

        logging.getLogger(__name__).exception("drawing the annotated video of session %s failed", sid)
    return sid, report


def _drop_session(store, sid: int) -> None:
    drop = getattr(store, "delete_session", None)
    if drop is not None:
        drop(sid)


def draw_annotated(video: Path, out: Path, report: SessionReport, poses: dict[int, PoseView], *, progress=None) -> Path:
    """The video with skeleton, phase and faults drawn (H.264, same frame count), written atomically."""
    pack = load_pack(report.rule_pack.get("path") or None)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.stem}.part.mp4")
    try:
        draw_video(video, tmp, report, poses, pack, progress=progress, crf=26, preset="veryfast")
        tmp.replace(out)
    finally:  # a full disk must not leave the partial file behind (the caller logs and carries on)
        tmp.unlink(missing_ok=True)
    return out
