"""Streamlit pieces the pages share: the language, settings, the store, and a job's progress."""

from __future__ import annotations

import logging
import re
import sqlite3
from collections.abc import Callable

import streamlit as st

from ..errors import CoachError
from ..wording.machine import error_text
from .i18n import LANG_NAMES, LANGS, t
from .jobs import DONE, FAILED, JOBS, QUEUED, JobState
from .settings import Settings

PAGES = {
    "review": "coach/dashboard/pages/review.py",
    "analyze": "coach/dashboard/pages/analyze.py",
    "compare": "coach/dashboard/pages/compare.py",
    "trends": "coach/dashboard/pages/trends.py",
    "rulebook": "coach/dashboard/pages/rulebook.py",
    "live": "coach/dashboard/pages/live.py",
}


# The characters that make Markdown fetch, link, format or embed: images and links need [ ] (and <…> for
# autolinks and HTML), Streamlit's directives :red[…] need [ ], math needs $, code and emphasis ` * ~ |.
# Escaping these is enough to keep user text literal, and leaves ordinary names (a_b.mp4) readable.
_MD_SPECIAL = re.compile(r"([\\`*\[\]<>$~|])")


def esc(text: object) -> str:
    """User text (names, comments, file names, error lines) as literal text inside Streamlit's Markdown: a
    comment's `![x](http://…)` is shown, never fetched by the viewers' browsers, and `:red[…]` or `$…$` are
    not interpreted."""
    return _MD_SPECIAL.sub(r"\\\1", str(text)).replace("\n", " ")


def lang() -> str:
    return st.session_state.get("lang", "zh")


def tr(key: str, **fmt) -> str:
    return t(key, lang(), **fmt)


def fmt(options, label: Callable) -> Callable:
    """A widget's format_func with its labels fixed now, in this run's language (AppTest and reruns call
    format_func later, outside the run)."""
    names = {o: label(o) for o in options}
    return lambda o: names.get(o, str(o))


def settings() -> Settings:
    return Settings.from_env()


LANG_KEEP = "lang_choice"  # the language kept apart from the radio's own state, which a page switch can drop


def language_switch() -> None:
    """The sidebar's language radio. The choice is kept for the browser session (`LANG_KEEP`, plain session
    state that no widget owns) and put in the URL (`?lang=en`), so a bookmark or a new tab opens in it."""
    kept = st.session_state.get(LANG_KEEP)
    if st.session_state.get("lang") not in LANGS:
        asked = st.query_params.get("lang")
        st.session_state["lang"] = kept if kept in LANGS else asked if asked in LANGS else "zh"
    st.sidebar.radio(
        "語言 · Language", LANGS, format_func=LANG_NAMES.get, key="lang", horizontal=True, label_visibility="visible"
    )
    st.session_state[LANG_KEEP] = st.session_state["lang"]
    if st.query_params.get("lang") != st.session_state["lang"]:
        st.query_params["lang"] = st.session_state["lang"]


def choice(label: str, options, key: str, label_of: Callable, *, default=None, where=None, radio=False, **kw):
    """A selectbox (or radio) whose shown labels follow the language, with the choice kept under `key`.

    The browser keeps a selectbox's or radio's value as the label it showed; after a language switch that label
    is not among the new ones, and Streamlit then hands back the old label as the value. So the widget's key
    carries the language (a fresh widget per language), and the choice itself lives in plain session state."""
    options = list(options)
    wkey = f"{key}.{lang()}"
    chosen = st.session_state.get(key, default)
    if chosen not in options:
        chosen = default if default in options else (options[0] if options else None)
    st.session_state[key] = chosen
    st.session_state[wkey] = chosen

    def keep() -> None:
        st.session_state[key] = st.session_state[wkey]

    box = where if where is not None else st
    widget = box.radio if radio else box.selectbox
    return widget(label, options, format_func=fmt(options, label_of), key=wkey, on_change=keep, **kw)


def stage_text(s: JobState) -> str:
    if s.stage == QUEUED:
        return tr("queued")
    if s.stage == DONE:
        return tr("stage_done")
    label = tr("stage_analyse") if s.stage == "analyse" else tr("stage_render")
    frames = tr("frames_of", done=s.done, total=s.total or "?")
    return f"{label} — {s.video} · {frames}"


def job_progress(job_id: str, poll_s: float = 1.0) -> JobState | None:
    """Show the job's progress, refreshing itself until the job is over (then the whole page reruns)."""
    job = JOBS.get(job_id)
    if job is None:
        return None
    snap = job.snapshot()
    if snap.is_over:
        return snap

    @st.fragment(run_every=poll_s)
    def _poll() -> None:
        s = job.snapshot()
        st.progress(s.fraction, text=stage_text(s))
        if s.is_over:
            st.rerun()

    _poll()
    return snap


def show_job_outcome(s: JobState) -> None:
    if s.stage == FAILED:
        st.error(tr("analysis_failed", error=esc(error_text(s.error, lang()))), icon=":material/error:")
    elif s.stage == DONE:
        st.success(tr("analysis_done", sid=s.sid, shots=s.shots), icon=":material/check_circle:")


def run_page(page) -> None:
    """Run the chosen page so that nothing it raises reaches the coach as a traceback: a bad rule pack, store or
    video gives its one line; anything unexpected gives one line and a way back, and the trace goes to the log.
    Streamlit's own rerun/stop signals are BaseExceptions and pass through untouched."""
    try:
        page.run()
    except (CoachError, sqlite3.DatabaseError, OSError) as e:  # a bad pack, store or video, a full disk: one line
        st.error(esc(e), icon=":material/error:")
    except Exception as e:
        logging.getLogger("coach.dashboard").exception("page %s failed", getattr(page, "url_path", page))
        st.error(tr("page_error", error=f"{e.__class__.__name__}: {e}"), icon=":material/error:")
        if str(getattr(page, "url_path", "")) in ("", "review"):  # the review itself failed: go to Analyze
            st.page_link(PAGES["analyze"], label=tr("page_analyze"), icon=":material/movie:")
        else:
            st.page_link(PAGES["review"], label=tr("page_back"), icon=":material/arrow_back:")


PICK = "\x00pick"  # "choose or create an archer": nobody is pre-selected, so no session lands under a wrong name
NEW_ARCHER = "\x00new"
ARCHER_KEY = "archer"  # one remembered choice for the Analyze and Live pages


def archer_choice(names: list[str]) -> str:
    """The archer picker: "choose or create" first and by default, then the archers, then "+ New archer".
    The last archer chosen is remembered for the browser session (on both pages)."""
    options = [PICK, *names, NEW_ARCHER]
    labels = {PICK: tr("pick_archer"), NEW_ARCHER: tr("new_archer")}
    # with nobody in the store yet there is no one to pick by mistake: go straight to creating one
    default = PICK if names else NEW_ARCHER
    return choice(tr("archer"), options, ARCHER_KEY, lambda n: labels.get(n, n), default=default)
