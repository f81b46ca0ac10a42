"""Live: the webcam view, drawn by the live module through its one hook, `coach/live/dashboard.py`'s
`render(lang)` (the camera, the analysis threads and the board live there, beside the rest of live coaching)."""

import streamlit as st

from coach.dashboard import ui
from coach.live.dashboard import render as live_view


def render() -> None:
    st.title(f"{ui.tr('page_live')}")
    st.write(ui.tr("live_intro"))
    live_view(lang=ui.lang())


render()
