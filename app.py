"""射經 Coach dashboard: `streamlit run app.py` (or `scripts/run`).

Pages live in coach/dashboard/pages/; the store is $COACH_DB (default ./coach.db). On first start with an
empty store the demo sample is analysed so a newcomer sees a real session at once."""

import sqlite3

import streamlit as st

from coach.dashboard import access, ui
from coach.dashboard.jobs import JOBS
from coach.errors import CoachError

st.set_page_config(page_title="射經 Coach", page_icon=":material/target:", layout="wide")
ui.language_switch()
access.gate()  # a server shared on the network shows nothing but the login until the passcode or token

settings = ui.settings()
try:
    JOBS.ensure_demo(settings)
except (CoachError, sqlite3.DatabaseError, OSError) as e:  # e.g. COACH_DB is not a coach database
    st.error(ui.esc(e), icon=":material/error:")
    st.stop()

pages = [
    st.Page(ui.PAGES["review"], title=ui.tr("page_review"), icon=":material/target:", url_path="review", default=True),
    st.Page(ui.PAGES["analyze"], title=ui.tr("page_analyze"), icon=":material/movie:", url_path="analyze"),
    st.Page(ui.PAGES["compare"], title=ui.tr("page_compare"), icon=":material/compare:", url_path="compare"),
    st.Page(ui.PAGES["trends"], title=ui.tr("page_trends"), icon=":material/trending_up:", url_path="trends"),
    st.Page(ui.PAGES["rulebook"], title=ui.tr("page_rulebook"), icon=":material/menu_book:", url_path="rulebook"),
    st.Page(ui.PAGES["live"], title=ui.tr("page_live"), icon=":material/videocam:", url_path="live"),
]
st.sidebar.caption(f"{ui.tr('db')}: `{settings.db}`")
ui.run_page(st.navigation(pages))
