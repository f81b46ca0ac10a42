"""The coach corrects the machine: move a shot's phase marks, delete a false shot, add a missed one by its
release, or mark a shot a let-down; the session is re-judged from its kept pose track (coach/rejudge.py), with
no model run, and the correction is recorded (who, when, each mark before and after).

    apply_correction(store, Correction(session_id, shot, action, marks, by)) -> CorrectionResult

`plan_correction` is the pure part: a session's stored shots and its track in, the session's new shots,
consistency findings and report out. Shots are numbered in time order afterwards (an added shot takes its
place; the coach's notes follow their shot). A corrected shot carries `corrected` = {by, at, action, marks
set, the machine's marks}, so its findings — judged on the coach's marks — are never taken for the machine's;
the machine's own shot is kept whole in the correction's record. Only sessions analysed since the pose track
has been kept can be corrected; older ones say so in one line.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone

from .errors import CoachError
from .keyframes_again import key_frames_again
from .rejudge import (
    MARKS,
    MarkError,
    Marks,
    SessionTrack,
    find_marks,
    follow_end,
    judge_marks,
    judge_session,
)
from .results import Finding, Series, ShotResult, _num
from .session_notes import LET_DOWN_NOTES
from .store.records import StoredSession, StoredShot

MOVE, DELETE, ADD, LET_DOWN = "move", "delete", "add", "let_down"
ACTIONS = (MOVE, DELETE, ADD, LET_DOWN)


@dataclass(slots=True, frozen=True)
class Correction:
    """What a coach did to a session: `shot` is the 0-based shot index (None when adding a shot); `marks`
    maps mark names (rejudge.MARKS: raise_start, draw_start, anchor, release) to frame indices."""

    session_id: int
    shot: int | None
    action: str
    marks: Mapping[str, int] = field(default_factory=dict)
    by: str = "coach"


@dataclass(slots=True, frozen=True)
class MarkChange:
    mark: str
    before: int | None
    after: int | None


@dataclass(slots=True)
class ShotPlan:
    """One shot of the session after a correction."""

    result: ShotResult  # its index is its place in the session from now on
    old_index: int | None  # the stored shot it was (None: added)
    series: Series | None = None  # set when re-judged: its new per-frame metrics
    key_frames: dict[str, int] = field(default_factory=dict)  # where its key frames sit now (re-judged shots)
    poses: dict = field(default_factory=dict)  # frame -> smoothed Body of a re-judged shot (key-frame skeletons)


@dataclass(slots=True)
class CorrectionPlan:
    """Everything the store writes for one correction, in one transaction."""

    session_id: int
    action: str
    shot: int | None  # the corrected shot's index afterwards (None: it is gone)
    old_shot: int | None  # its index before (None: added)
    shots: list[ShotPlan]
    consistency: list[Finding]
    consistency_measures: dict[str, float]
    report: dict  # the session's coach.session/1 report, updated
    changes: list[MarkChange]
    before: dict | None  # the machine's (or the last) shot JSON it replaces or removes
    by: str
    at: str


@dataclass(slots=True)
class CorrectionResult:
    """What `apply_correction` hands back: the re-judged shot (None when deleted or let down), the session's
    consistency findings, the marks before and after, and the recorded correction's id."""

    correction_id: int
    session_id: int
    action: str
    shot: ShotResult | None
    shots: list[ShotResult]  # the session's shots after the correction, in order
    consistency: list[Finding]
    changes: list[MarkChange]
    elapsed_s: float


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _shot_marks(s: ShotResult) -> Marks:
    return Marks(s.raise_start_frame, s.draw_start_frame, s.anchor_frame, s.release_frame, s.end_frame)


def _check(c: Correction, shots: list[ShotResult]) -> None:
    if c.action not in ACTIONS:
        raise CoachError(None, f"a correction is {', '.join(ACTIONS)}, not {c.action!r}")
    bad = sorted(set(c.marks) - set(MARKS))
    if bad:
        raise CoachError(None, f"unknown mark {bad[0]!r} (marks: {', '.join(MARKS)})")
    if c.action == ADD:
        if "release" not in c.marks:
            raise CoachError(None, "a shot is added by its release frame (--release FRAME)")
        return
    if c.shot is None or not 0 <= c.shot < len(shots):
        n = len(shots)
        have = f"shots 1–{n}" if n else "no shots"
        raise CoachError(None, f"session {c.session_id} has no shot {0 if c.shot is None else c.shot + 1} ({have})")
    if c.action == MOVE and not c.marks:
        raise CoachError(None, "give the marks to move (--raise-start, --draw-start, --anchor, --release)")
    if c.action in (DELETE, LET_DOWN) and c.marks:
        raise CoachError(None, f"{c.action.replace('_', '-')} takes no marks")


def plan_correction(
    session: StoredSession, stored: list[StoredShot], st: SessionTrack, c: Correction, at: str | None = None
) -> CorrectionPlan:
    """The session after the correction (pure: nothing is written). `session`: the store's session record
    (with its report), `stored`: its shots, `st`: its kept track (whose frame rate the shots are re-read at;
    the plan renumbers its own copies, never the records')."""
    fps = st.fps
    shots = [ShotResult.from_json(s.to_json(), fps) for s in stored]
    _check(c, shots)
    at = at or _now()
    by = c.by.strip() or "coach"
    report = dict(session.report or {})
    notes = list(report.get("notes") or [])
    try:
        out, target, before, changes = ACTION_PLANS[c.action](st, shots, c, by, at, notes)
    except MarkError as e:
        raise CoachError(None, f"session {c.session_id}: {e}") from None
    from .results import key_frame_indices

    for p in out:
        if p.series is not None or p.old_index is None:
            p.key_frames = key_frame_indices(p.result)
    out.sort(key=lambda p: (p.result.release_frame if p.result.release_frame is not None else p.result.anchor_frame))
    new_index = None
    for i, p in enumerate(out):
        p.result.index = i
        if p is target:
            new_index = i
    consistency, measures = judge_session(st, [p.result for p in out])
    report["shots"] = [p.result.to_json() for p in out]
    report["consistency"] = {
        "measures": {k: _num(v, 4) for k, v in measures.items()},
        "findings": [f.to_json() for f in consistency],
    }
    report["notes"] = [n for n in notes if n != "no shots found"] + ([] if out else ["no shots found"])
    return CorrectionPlan(
        session_id=c.session_id,
        action=c.action,
        shot=new_index,
        old_shot=c.shot if c.action != ADD else None,
        shots=out,
        consistency=consistency,
        consistency_measures=measures,
        report=report,
        changes=changes,
        before=before,
        by=by,
        at=at,
    )


def _kept(shots: list[ShotResult], skip: int | None) -> list[ShotPlan]:
    return [ShotPlan(s, s.index) for s in shots if s.index != skip]


def _corrected(s: ShotResult, action: str, by: str, at: str, set_marks, machine: Marks) -> dict:
    """The shot's correction note; a shot corrected twice keeps the machine's marks of the first time."""
    first = (s.corrected or {}).get("machine") if s.corrected else None
    marks = sorted(set((s.corrected or {}).get("marks", [])) | set(set_marks), key=MARKS.index)
    return {"by": by, "at": at, "action": action, "marks": marks, "machine": first or machine.as_dict()}


def _with_now(corrected: dict, marks: Marks) -> dict:
    return {**corrected, "now": {k: getattr(marks, k) for k in MARKS}}


def _plan_move(st, shots, c, by, at, notes):
    old = shots[c.shot]
    m0 = _shot_marks(old)
    want = {**{k: v for k, v in m0.as_dict().items() if k in MARKS}, **c.marks}
    end = m0.end
    if want["release"] is not None and m0.release is not None and want["release"] != m0.release:
        end = want["release"] + (m0.end - m0.release)  # the follow-through moves with its release
    nxt = [s.raise_start_frame for s in shots if s.raise_start_frame is not None and s.raise_start_frame > m0.end]
    end = min(end, (min(nxt) - 1) if nxt else st.n_frames - 1, st.n_frames - 1)
    marks = Marks(want["raise_start"], want["draw_start"], want["anchor"], want["release"], max(end, want["release"]))
    conf = dict(old.marks_confidence)
    conf.update({k: 1.0 for k in c.marks if k in ("draw_start", "anchor")})
    rel_conf = 1.0 if "release" in c.marks else old.release_confidence
    j = judge_marks(st, marks, old.index, marks_confidence=conf, release_confidence=rel_conf, like=old)
    j.shot.corrected = _with_now(_corrected(old, MOVE, by, at, c.marks, m0), marks)
    changes = [MarkChange(k, getattr(m0, k), getattr(marks, k)) for k in MARKS if getattr(m0, k) != getattr(marks, k)]
    target = ShotPlan(j.shot, old.index, j.series, poses=j.bodies)
    return [*_kept(shots, old.index), target], target, old.to_json(), changes


def _plan_delete(st, shots, c, by, at, notes):
    old = shots[c.shot]
    notes.append(
        f"frames {old.raise_start_frame}–{old.end_frame}: shot {old.index + 1} removed by {by} (not a shot); "
        "its findings are kept in the correction's record"
    )
    changes = [MarkChange(k, getattr(_shot_marks(old), k), None) for k in MARKS]
    return _kept(shots, old.index), None, old.to_json(), changes


def _plan_let_down(st, shots, c, by, at, notes):
    old = shots[c.shot]
    t = st.t
    notes.append(
        LET_DOWN_NOTES["let_down"].format(
            a=old.anchor_frame, b=old.end_frame, ta=t(old.anchor_frame) or 0.0, tb=t(old.end_frame) or 0.0
        )
        + f" (marked by {by})"
    )
    changes = [MarkChange("release", old.release_frame, None)]
    return _kept(shots, old.index), None, old.to_json(), changes


def _plan_add(st, shots, c, by, at, notes):
    rel = c.marks["release"]
    for s in shots:
        lo = s.raise_start_frame if s.raise_start_frame is not None else s.anchor_frame
        if lo is not None and s.end_frame is not None and lo <= rel <= s.end_frame:
            raise MarkError(
                f"release frame {rel} is inside shot {s.index + 1} (frames {lo}–{s.end_frame}); move its marks instead"
            )
    floor = max((s.end_frame for s in shots if s.end_frame is not None and s.end_frame < rel), default=-1)
    ceiling = min(
        (s.raise_start_frame - 1 for s in shots if s.raise_start_frame is not None and s.raise_start_frame > rel),
        default=st.n_frames - 1,
    )
    if {"raise_start", "draw_start", "anchor"} <= set(c.marks):  # all placed by the coach: no look-back
        m = c.marks
        found, conf = Marks(m["raise_start"], m["draw_start"], m["anchor"], rel, follow_end(st, rel, ceiling)), {}
    else:
        found, conf = find_marks(st, rel, floor, ceiling)
    want = {**{k: v for k, v in found.as_dict().items() if k in MARKS}, **c.marks}
    marks = Marks(want["raise_start"], want["draw_start"], want["anchor"], rel, max(found.end, rel))
    conf.update({k: 1.0 for k in c.marks if k in ("draw_start", "anchor")})
    j = judge_marks(st, marks, len(shots), marks_confidence=conf, release_confidence=1.0)
    j.shot.release_source = "coach"
    j.shot.corrected = {
        "by": by,
        "at": at,
        "action": ADD,
        "marks": sorted(c.marks, key=MARKS.index),
        "machine": None,
        "found": {k: getattr(found, k) for k in MARKS if k not in c.marks},
        "now": {k: getattr(marks, k) for k in MARKS},
    }
    changes = [MarkChange(k, None, getattr(marks, k)) for k in MARKS]
    target = ShotPlan(j.shot, None, j.series, poses=j.bodies)
    return [*_kept(shots, None), target], target, None, changes


PlanFn = Callable[..., tuple[list[ShotPlan], "ShotPlan | None", "dict | None", list[MarkChange]]]
ACTION_PLANS: dict[str, PlanFn] = {MOVE: _plan_move, DELETE: _plan_delete, ADD: _plan_add, LET_DOWN: _plan_let_down}


# ---- against the store ------------------------------------------------------------------------------------
def session_track(store, sid: int) -> SessionTrack:
    """The session's kept track, ready to judge on; one line when it has none (analysed before tracks were
    kept, or a live session)."""
    from .report.data import _pack_for

    session = store.session(sid)
    track = store.pose_track(sid)
    if track is None:
        raise CoachError(
            None,
            f"session {sid} has no kept pose track (analysed before tracks were kept): analyse its video again to "
            "correct it",
        )
    return SessionTrack(track, session.handedness or "right", session.view or "face-on", _pack_for(session))


def apply_correction(store, correction: Correction, st: SessionTrack | None = None) -> CorrectionResult:
    """Re-judge and record one correction; returns the re-judged shot and the session's consistency. `st`:
    the session's track when the caller already holds it (the dashboard keeps it between saves)."""
    t0 = time.perf_counter()
    sid = correction.session_id
    session = store.session(sid)
    st = st or session_track(store, sid)
    plan = plan_correction(session, store.shots(sid), st, correction)
    cid = store.record_correction(plan)
    key_frames_again(store, session, plan, lambda f: None if st.t(f) is None else st.t(f) * 1000.0)
    shots = [p.result for p in plan.shots]
    return CorrectionResult(
        correction_id=cid,
        session_id=sid,
        action=plan.action,
        shot=shots[plan.shot] if plan.shot is not None else None,
        shots=shots,
        consistency=plan.consistency,
        changes=plan.changes,
        elapsed_s=time.perf_counter() - t0,
    )
