"""Live: the webcam view. The live module (`coach.live`) plugs in here through one hook:

    coach/live/dashboard.py:  def render(lang: str) -> None   # draws the live view into the current page

Until that hook exists this page says so and points to the Analyze page."""

import importlib

import streamlit as st

from coach.dashboard import ui


def live_hook():
    try:
        mod = importlib.import_module("coach.live.dashboard")
    except ImportError:
        return None
    hook = getattr(mod, "render", None)
    return hook if callable(hook) else None


def render() -> None:
    st.title(f"{ui.tr('page_live')}")
    st.write(ui.tr("live_intro"))
    hook = live_hook()
    if hook is None:
        st.info(ui.tr("live_missing"), icon=":material/construction:")
        st.page_link(ui.PAGES["analyze"], label=ui.tr("page_analyze"), icon=":material/movie:")
        return
    hook(lang=ui.lang())


render()
