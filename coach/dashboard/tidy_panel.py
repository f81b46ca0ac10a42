"""Keeping the store tidy from the dashboard: on the review page, move the session to another archer or delete
it; on the trends page, rename the archer or merge them into another. Every destructive step asks for a tick
first, and a refusal (the same video twice under one archer, a name taken) is one line. The work itself is in
`coach/store/tidy.py`, shared with `coach archers | delete | move`."""

from __future__ import annotations

import streamlit as st

from coach.dashboard import ui
from coach.store.tidy import TidyRefused, archer_list, merge_archers, move_session, rename_archer, session_brief

DONE_KEY = "tidy_done"  # the last change's message, shown once after the rerun it causes
SHOW_ARCHER_KEY = "tidy_show_archer"  # the archer the trends page shows after a rename or merge


def _done(message: str, show_archer: str | None = None) -> None:
    st.session_state[DONE_KEY] = message
    if show_archer is not None:  # a widget's value can only be set before it is drawn: on the rerun
        st.session_state[SHOW_ARCHER_KEY] = show_archer
    st.rerun()


def archer_after_change(widget_key: str) -> None:
    """Before the trends page draws its archer picker: show the archer a rename or merge just left."""
    name = st.session_state.pop(SHOW_ARCHER_KEY, None)
    if name is not None:
        st.session_state[widget_key] = name


def refused(e: TidyRefused) -> None:
    st.error(ui.tr(f"tidy_err_{e.kind}", **e.fields), icon=":material/block:")


def show_done() -> None:
    """The message of a change just made (the page reran to show its result)."""
    message = st.session_state.pop(DONE_KEY, None)
    if message:
        st.success(message, icon=":material/check:")


def session_tidy_panel(settings, sid: int) -> None:
    """Move this session to another archer, or delete it (with its annotated video)."""
    with settings.store() as store:
        brief = session_brief(store, sid)
        others = [a.name for a in archer_list(store) if a.name != brief.archer]
    with st.expander(ui.tr("tidy_session_title")):
        if others:
            to = st.selectbox(ui.tr("tidy_move_to"), others, key=f"tidy_move.{sid}")
            if st.button(ui.tr("tidy_move"), key=f"tidy_move_btn.{sid}"):
                try:
                    with settings.store() as store:
                        move_session(store, sid, to)
                except TidyRefused as e:
                    refused(e)
                else:
                    _done(ui.tr("tidy_moved", id=sid, archer=to))
        sure = st.checkbox(
            ui.tr("tidy_delete_sure", id=sid, archer=brief.archer, shots=brief.shots), key=f"tidy_del_ok.{sid}"
        )
        if st.button(ui.tr("tidy_delete"), key=f"tidy_del.{sid}", disabled=not sure, type="primary"):
            with settings.store() as store:
                store.delete_session(sid)
            settings.annotated_video(sid).unlink(missing_ok=True)  # a later session given this id must not show it
            st.session_state.pop("review_session", None)
            _done(ui.tr("tidy_deleted", id=sid))


def archer_tidy_panel(settings, name: str) -> None:
    """Rename this archer, or merge them into another (their sessions move; they are removed)."""
    with settings.store() as store:
        others = [a.name for a in archer_list(store) if a.name != name]
    with st.expander(ui.tr("tidy_archer_title")):
        new = st.text_input(ui.tr("tidy_new_name"), value=name, key=f"tidy_rename.{name}")
        if st.button(ui.tr("tidy_rename"), key=f"tidy_rename_btn.{name}", disabled=not new.strip() or new == name):
            try:
                with settings.store() as store:
                    done = rename_archer(store, name, new)
            except TidyRefused as e:
                refused(e)
            else:
                _done(ui.tr("tidy_renamed", old=name, new=done), show_archer=done)
        if not others:
            return
        into = st.selectbox(ui.tr("tidy_merge_into"), others, key=f"tidy_merge.{name}")
        sure = st.checkbox(ui.tr("tidy_merge_sure", src=name, dst=into), key=f"tidy_merge_ok.{name}")
        if st.button(ui.tr("tidy_merge"), key=f"tidy_merge_btn.{name}", disabled=not sure, type="primary"):
            try:
                with settings.store() as store:
                    result = merge_archers(store, name, into)
            except TidyRefused as e:
                refused(e)
            else:
                _done(ui.tr("tidy_merged", n=len(result.sessions_moved), src=name, dst=result.into), result.into)
