"""The review page's correction panel: for the chosen shot, set its raise, draw start, anchor or release to the
current frame, delete it, mark it a let-down, or add a missed shot with its release at the current frame; a
"by" name; Save re-judges from the kept pose track (coach/corrections.py) and shows the new verdicts.

The current frame is `st.session_state["review_frame"]` (an int) when the review page's frame-accurate player
sets it; the panel's number input follows it and can also be typed into. The review page calls
`correction_panel(settings, sid, rd)` once, and `corrected_note(shot)` where it shows a shot.
"""

from __future__ import annotations

import streamlit as st

from coach.corrections import ADD, DELETE, LET_DOWN, MARKS, MOVE, Correction, apply_correction
from coach.dashboard import ui
from coach.dashboard.data import rule_name
from coach.errors import CoachError
from coach.report.data import local_time

FRAME_KEY = "review_frame"  # the player's current frame (int), when there is a player
NEW = -1  # the "add a missed shot" choice


def corrected_note(shot: dict) -> str | None:
    """ "corrected by NAME" (or "added by NAME") for a shot a coach corrected; None for the machine's own."""
    c = shot.get("corrected")
    if not c:
        return None
    return ui.tr("added_by" if c.get("action") == ADD else "corrected_by", by=c.get("by") or "coach")


def _pending(sid: int, shot: int) -> dict:
    """The correction being put together for this session: {"shot", "action", "marks"}; a new shot choice
    starts afresh."""
    key = f"corr_pending.{sid}"
    p = st.session_state.get(key)
    if not isinstance(p, dict) or p.get("shot") != shot:
        p = {"shot": shot, "action": None, "marks": {}}
        st.session_state[key] = p
    return p


def _frame_input(sid: int, shot: int, default: int, n_frames: int) -> int:
    """The current frame: the player's when it moved, else what was typed, else the shot's release."""
    key, seen = f"corr_frame.{sid}", f"corr_frame_seen.{sid}"
    played = st.session_state.get(FRAME_KEY)
    if isinstance(played, int) and played != st.session_state.get(seen):
        st.session_state[seen] = played
        st.session_state[key] = played
    elif st.session_state.get(f"corr_frame_shot.{sid}") != shot:
        st.session_state[key] = played if isinstance(played, int) else default
    st.session_state[f"corr_frame_shot.{sid}"] = shot
    st.session_state[key] = min(max(int(st.session_state.get(key, default)), 0), max(n_frames - 1, 0))
    return int(st.number_input(ui.tr("corr_frame"), 0, max(n_frames - 1, 0), step=1, key=key))


def _set_mark(sid: int, mark: str, frame: int) -> None:
    p = st.session_state[f"corr_pending.{sid}"]
    if p.get("action") not in (MOVE, ADD):
        p["action"] = MOVE
    p["marks"][mark] = frame


def _set_action(sid: int, action: str, frame: int | None = None) -> None:
    p = st.session_state[f"corr_pending.{sid}"]
    p["action"] = action
    p["marks"] = {"release": frame} if action == ADD else {}


def _clear(sid: int) -> None:
    st.session_state.pop(f"corr_pending.{sid}", None)


def _marks_table(shot: dict | None, pending: dict) -> None:
    rows = []
    for m in MARKS:
        now = shot.get(f"{m}_frame") if shot else None
        rows.append(
            {
                ui.tr("corr_mark"): ui.tr(f"mark_{m}"),
                ui.tr("corr_machine"): "—" if now is None else str(now),
                ui.tr("corr_pending"): str(pending["marks"][m]) if m in pending["marks"] else "",
            }
        )
    st.dataframe(rows, hide_index=True, width="stretch")


def _describe(pending: dict, shot_no: int) -> str:
    a = pending.get("action")
    if a == DELETE:
        return ui.tr("corr_will_delete", n=shot_no)
    if a == LET_DOWN:
        return ui.tr("corr_will_let_down", n=shot_no)
    if a == ADD:
        return ui.tr("corr_will_add", frame=pending["marks"].get("release"))
    return "" if a == MOVE else ui.tr("corr_nothing")


@st.cache_resource(max_entries=2, show_spinner=False)
def _session_track(db: str, sid: int, finished_at: str | None):
    """The session's kept track, decoded once for the saves that follow (a re-analysis changes finished_at)."""
    from coach.corrections import session_track
    from coach.store import Store

    with Store.open(db) as store:
        return session_track(store, sid)


def _save(settings, sid: int, pending: dict, by: str) -> None:
    shot = None if pending["shot"] == NEW else pending["shot"]
    c = Correction(sid, shot, pending["action"], dict(pending["marks"]), by.strip() or "coach")
    try:
        with settings.store() as store:
            track = _session_track(str(settings.db), sid, store.session(sid).finished_at)
            r = apply_correction(store, c, track)
    except CoachError as e:
        st.session_state[f"corr_error.{sid}"] = str(e)
        return
    st.session_state.pop(f"corr_error.{sid}", None)
    st.session_state[f"corr_result.{sid}"] = {
        "by": c.by,
        "secs": r.elapsed_s,
        "shot": None if r.shot is None else r.shot.index,
        "faults": [] if r.shot is None else [f.rule for f in r.shot.faults],
    }
    if r.shot is not None:
        st.session_state[f"corr_shot.{sid}"] = r.shot.index  # the shot stays chosen where it now is
    _clear(sid)


def _result(sid: int, pack, lang: str) -> None:
    err = st.session_state.pop(f"corr_error.{sid}", None)
    if err:
        st.error(ui.esc(err))
    res = st.session_state.get(f"corr_result.{sid}")
    if not res:
        return
    if res["shot"] is None:
        st.success(ui.tr("corr_removed", by=ui.esc(res["by"])))
        return
    st.success(ui.tr("corr_done", by=ui.esc(res["by"]), secs=res["secs"], faults=len(res["faults"])))
    for rid in res["faults"]:
        st.markdown(f"- {ui.tr('shot', n=res['shot'] + 1)} · {rule_name(pack, rid, lang)} · {ui.tr('v_fault')}")


def correction_panel(settings, sid: int, rd, lang: str | None = None) -> None:
    lang = lang or ui.lang()
    st.subheader(ui.tr("corr_title"))
    with settings.store() as store:
        has_track = store.has_pose_track(sid)
        history = store.corrections(sid) if has_track else []
    if not has_track:
        st.caption(ui.tr("corr_no_track"))
        return
    st.caption(ui.tr("corr_intro"))
    shots = [sv.data for sv in rd.shots]
    n_frames = int(rd.session.frame_count or 0) or max((s.get("end_frame") or 0 for s in shots), default=0) + 1
    options = [*range(len(shots)), NEW]

    def label(k: int) -> str:
        if k == NEW:
            return ui.tr("corr_new_shot")
        note = corrected_note(shots[k])
        return ui.tr("shot", n=k + 1) + (f" · {note}" if note else "")

    k = ui.choice(ui.tr("corr_shot"), options, f"corr_shot.{sid}", label, default=options[0])
    shot = shots[k] if k != NEW else None
    pending = _pending(sid, k)
    frame = _frame_input(sid, k, (shot or {}).get("release_frame") or 0, n_frames)
    _marks_table(shot, pending)
    cols = st.columns(len(MARKS))
    for col, m in zip(cols, MARKS):
        # an added shot is placed by its release first; its other marks may then be set too
        off = k == NEW and (m == "release" or pending.get("action") != ADD)
        col.button(
            ui.tr("corr_set", mark=ui.tr(f"mark_{m}")),
            key=f"corr_set_{m}.{sid}",
            on_click=_set_mark,
            args=(sid, m, frame),
            disabled=off,
            width="stretch",
        )
    a, b, c = st.columns(3)
    a.button(
        ui.tr("corr_delete"), key=f"corr_delete.{sid}", on_click=_set_action, args=(sid, DELETE), disabled=k == NEW
    )
    b.button(
        ui.tr("corr_let_down"),
        key=f"corr_let_down.{sid}",
        on_click=_set_action,
        args=(sid, LET_DOWN),
        disabled=k == NEW,
    )
    c.button(ui.tr("corr_add"), key=f"corr_add.{sid}", on_click=_set_action, args=(sid, ADD, frame), disabled=k != NEW)
    by = st.text_input(ui.tr("corr_by"), key="corr_by", max_chars=80)
    what = _describe(pending, k + 1)
    if what:
        st.caption(what)
    left, right = st.columns(2)
    if left.button(ui.tr("corr_save"), key=f"corr_save.{sid}", type="primary", disabled=not pending.get("action")):
        _save(settings, sid, pending, by)
        st.rerun()
    right.button(ui.tr("corr_clear"), key=f"corr_clear.{sid}", on_click=_clear, args=(sid,))
    _result(sid, rd.pack, lang)
    if history:
        st.markdown(f"**{ui.tr('corr_history')}**")
        for h in reversed(history):
            marks = ", ".join(
                f"{ui.tr('mark_' + m['mark'])} {'—' if m['before'] is None else m['before']} → "
                f"{'—' if m['after'] is None else m['after']}"
                for m in h.marks
            )
            where = ui.tr("shot", n=(h.shot if h.shot is not None else h.old_shot or 0) + 1)
            st.markdown(
                f"- {local_time(h.at)} · {where} · {ui.tr('corr_act_' + h.action)} · {ui.esc(marks)} · "
                f"{ui.tr('corrected_by', by=ui.esc(h.by))}"
            )
