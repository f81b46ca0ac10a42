"""Corrections become test data: a corrected session is written as its pose track (`coach.posetrack/1`) plus
`coach.labels/1` labels — the format of ../shared/realpose — and `coach eval DIR` scores the current tracker on
such a folder with the real-footage benchmark's own figures (coach/evaluate.py). A club that corrects its
sessions builds its own benchmark.

Every shot of an exported session is labelled with the marks the session now has: the coach, in correcting it,
has looked at all of them. A session nobody corrected carries the machine's marks, which are no labels; it is
exported only when the coach says it was reviewed (`reviewed=True`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from .errors import CoachError
from .evaluate import ClipScore, Summary, analyse_clip, contradicted_faults, labelled_clips, score_clip, summarise
from .store.records import CorrectionRecord, StoredSession, StoredShot

LABELS_SCHEMA = "coach.labels/1"
# How far a tracker's mark may be from the coach's and still count (frames), as the hand labels give them.
TOLERANCE_FRAMES = {"raise_start": 4, "draw_start": 5, "anchor_frame": 5, "release_frame": 1}


@dataclass(slots=True, frozen=True)
class Exported:
    session_id: int
    name: str
    labels: Path
    track: Path
    shots: int


def clip_name(session: StoredSession, archer: str) -> str:
    """A file name for the session's clip: session id, archer and video name (any script; no separators)."""
    stem = Path(str(session.source or "")).name
    for suffix in (".json", ".gz"):
        stem = stem.removesuffix(suffix)
    stem = stem.removesuffix(".pose")
    raw = f"session{session.id}-{archer}-{Path(stem).stem or 'video'}"
    return re.sub(r"[^\w.\-]+", "_", raw, flags=re.UNICODE)[:120]


def session_labels(
    session: StoredSession, shots: list[StoredShot], corrections: list[CorrectionRecord], track, by: str
) -> dict:
    """The `coach.labels/1` document of a session: its shots' marks, where each came from, its let-downs."""
    corrected_by = sorted({c.by for c in corrections})
    out_shots = []
    for s in (stored.result for stored in shots):
        if s.release_frame is None:
            continue
        out_shots.append(
            {
                "raise_start": s.raise_start_frame,
                "draw_start": s.draw_start_frame,
                "anchor_frame": s.anchor_frame,
                "release_frame": s.release_frame,
                "tolerance_frames": dict(TOLERANCE_FRAMES),
                "corrected": bool(s.corrected),
            }
        )
    let_downs = [
        {"anchor_frame": (c.before or {}).get("anchor_frame"), "end_frame": (c.before or {}).get("end_frame")}
        for c in corrections
        if c.action == "let_down"
    ]
    return {
        "schema": LABELS_SCHEMA,
        "pose_track": "",  # set by the writer
        "fps": track.fps,
        "frames": len(track.frames),
        "handedness": session.handedness or "right",
        "view": session.view or "",
        "n_shots": len(out_shots),
        "shots": out_shots,
        "let_downs": let_downs,
        "observations": [],
        "note": (
            f"exported from session {session.id} of a coach store; marks corrected by "
            f"{', '.join(corrected_by) or by} ({len(corrections)} correction(s)), the other marks the machine's as "
            "the coach reviewed them; frame numbers are 0-based indices of the decoded video, the same as the pose "
            "track's frames"
        ),
    }


def export_sessions(
    store, sids: list[int], out: str | Path, *, reviewed: bool = False, force: bool = False, by: str = "coach"
) -> list[Exported]:
    """Write each session as NAME.pose.json + NAME.labels.json in `out`. Every session is checked before a
    file is written: one line for a session that does not exist, has no kept track, or was never corrected."""
    import json

    from .pose_frame import save_posetrack

    out = Path(out)
    todo = []
    for sid in sids:
        session = store.session(sid)
        corrections = store.corrections(sid)
        if not corrections and not reviewed:
            raise CoachError(
                None,
                f"session {sid} has no corrections: its marks are the machine's, not labels (correct it, or give "
                "--reviewed if a coach checked every shot)",
            )
        track = store.pose_track(sid)
        if track is None:
            raise CoachError(None, f"session {sid} has no kept pose track (analysed before tracks were kept)")
        archer = store.archer_by_id(session.archer_id).name
        todo.append((session, corrections, track, clip_name(session, archer)))
    if out.exists() and not out.is_dir():
        raise CoachError(out, "is not a folder")
    out.mkdir(parents=True, exist_ok=True)
    done = []
    for session, corrections, track, name in todo:
        labels_path, track_path = out / f"{name}.labels.json", out / f"{name}.pose.json"
        for p in (labels_path, track_path):
            if p.exists() and not force:
                raise CoachError(p, "exists (give --force to overwrite)")
        shots = store.shots(session.id)
        doc = session_labels(session, shots, corrections, track, by)
        doc["pose_track"] = track_path.name
        save_posetrack(track, track_path)
        labels_path.write_text(json.dumps(doc, ensure_ascii=False, indent=1), encoding="utf-8")
        done.append(Exported(session.id, name, labels_path, track_path, doc["n_shots"]))
    return done


def evaluate_folder(
    folder: str | Path, *, sound: bool = True, observed: dict | None = None
) -> tuple[list[str], list[ClipScore], Summary]:
    """Score the current analysis on every labelled clip of `folder`: one line per clip (with its notes), as
    benchmarks/real_footage.py prints them, the scores, and the summary. `observed`: per clip, the rules its
    observations show passing (tests/support/realpose_observed.py), for the contradicted-faults figure."""
    folder = Path(folder)
    if not folder.is_dir():
        raise CoachError(folder, "is not a folder")
    observed = observed or {}
    try:
        clips = labelled_clips(folder)
    except (ValueError, KeyError, TypeError) as e:
        raise CoachError(folder, f"holds a labels file that is not coach.labels/1 ({type(e).__name__}: {e})") from None
    if not clips:
        raise CoachError(folder, "holds no *.labels.json (export some with `coach labels export`)")
    scores, lines = [], []
    for clip in clips:
        if not clip.track.is_file():
            raise CoachError(clip.track, f"is missing (named by {clip.name}.labels.json)")
        score = score_clip(clip, analyse_clip(clip, sound=sound))
        scores.append(score)
        bad = contradicted_faults(score, observed.get(clip.name, {}))
        lines.append(score.line() + (f"; contradicted by the footage: {bad}" if bad else ""))
        lines += [f"    note: {n}" for n in score.notes]
    summary = summarise(scores, observed)
    lines.append("real footage: " + summary.line())
    return lines, scores, summary
