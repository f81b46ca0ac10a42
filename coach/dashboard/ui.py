"""Streamlit pieces the pages share: the language, settings, the store, and a job's progress."""

from __future__ import annotations

import re
from collections.abc import Callable

import streamlit as st

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


def language_switch() -> None:
    if st.session_state.get("lang") not in LANGS:
        st.session_state["lang"] = "zh"
    st.sidebar.radio(
        "語言 · Language", LANGS, format_func=LANG_NAMES.get, key="lang", horizontal=True, label_visibility="visible"
    )


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
        st.error(tr("analysis_failed", error=esc(s.error)), icon=":material/error:")
    elif s.stage == DONE:
        st.success(tr("analysis_done", sid=s.sid, shots=s.shots), icon=":material/check_circle:")
