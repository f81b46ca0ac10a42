"""Live: the webcam view, drawn by `coach/dashboard/live_page.py`'s `render(lang)` from a live run's board (the
camera, the analysis threads and the board are in `coach/live`, which imports nothing of the dashboard)."""

import streamlit as st

from coach.dashboard import ui
from coach.dashboard.live_page import render as live_view


def render() -> None:
    st.title(f"{ui.tr('page_live')}")
    st.write(ui.tr("live_intro"))
    live_view(lang=ui.lang())


render()
