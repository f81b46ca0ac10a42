"""Archer & trends: an archer's sessions over time, fault frequency per rule, consistency measures."""

import altair as alt
import pandas as pd
import streamlit as st

from coach.dashboard import ui
from coach.dashboard.data import archer_names, consistency_rows, fault_rate_rows, hold_time_rows
from coach.dashboard.i18n import t
from posture_rules.pack import load_pack

MEASURE_NAMES = {
    "anchor_spread": ("靠位分散（SW）", "anchor spread (SW)"),
    "hold_time_sd": ("持滿時間離散（秒）", "hold time spread (s)"),
    "release_interval_cv": ("間若一：發矢間隔變異", "間若一: release interval CV"),
    "draw_time_sd": ("引弓時間離散（秒）", "draw time spread (s)"),
    "draw_length_cv": ("引滿長度變異", "draw length CV"),
    "hold_time": ("平均持滿（秒）", "mean hold (s)"),
    "draw_time": ("平均引弓（秒）", "mean draw (s)"),
}


def measure_name(k: str, lang: str) -> str:
    zh, en = MEASURE_NAMES.get(k, (k, k))
    return en if lang == "en" else zh


def render() -> None:
    settings = ui.settings()
    lang = ui.lang()
    st.title(f"{ui.tr('page_trends')}")
    with settings.store() as store:
        names = archer_names(store)
        if not names:
            st.info(ui.tr("no_archers"), icon=":material/info:")
            st.page_link(ui.PAGES["analyze"], label=ui.tr("page_analyze"), icon=":material/movie:")
            return
        name = st.selectbox(ui.tr("archer"), names, key="trend_archer")
        archer = store.archer(name)
        trend = store.trend_rows(archer.id)
        sessions = [store.session(s["id"]) for s in store.sessions(name)]
    if not trend:
        st.info(ui.tr("no_sessions_archer"))
        return
    pack = archer.profile().apply(load_pack())

    st.subheader(ui.tr("sessions_over_time"))
    overview = pd.DataFrame(
        [
            {
                "session": f"#{s['id']}",
                ui.tr("date"): s["started_at"][:16].replace("T", " "),
                ui.tr("shot_word"): s["shots"],
                t("v_fault", lang): sum(c.get("fault", 0) for c in s["rules"].values()),
            }
            for s in trend
        ]
    )
    st.dataframe(overview, hide_index=True)

    st.subheader(ui.tr("fault_rate"))
    rates = pd.DataFrame(fault_rate_rows(trend, pack, lang))
    if not rates.empty:
        rates["session"] = [f"#{i}" for i in rates["session"]]
        heat = (
            alt.Chart(rates)
            .mark_rect()
            .encode(
                x=alt.X("session:O", title=ui.tr("session")),
                y=alt.Y("rule:N", title=None),
                color=alt.Color("rate:Q", title=ui.tr("rate"), scale=alt.Scale(domain=[0, 1], scheme="reds")),
                tooltip=["rule:N", "session:O", "faults:Q", alt.Tooltip("rate:Q", format=".0%")],
            )
            .properties(height=max(120, 18 * rates["rule"].nunique()))
        )
        st.altair_chart(heat, width="stretch")

    st.subheader(ui.tr("consistency_measures"))
    cons = pd.DataFrame(consistency_rows(sessions) + hold_time_rows(trend))
    if cons.empty:
        st.caption("—")
    else:
        cons["session"] = [f"#{i}" for i in cons["session"]]
        cons["measure"] = [measure_name(k, lang) for k in cons["measure"]]
        lines = (
            alt.Chart(cons)
            .mark_line(point=True)
            .encode(
                x=alt.X("session:O", title=ui.tr("session")),
                y=alt.Y("value:Q", title=None, scale=alt.Scale(zero=False)),
                color=alt.Color("measure:N", title=None),
                tooltip=["measure:N", "session:O", alt.Tooltip("value:Q", format=".3f")],
            )
            .properties(height=110, width="container")
            .facet(row=alt.Row("measure:N", title=None, header=alt.Header(labelAngle=0, labelAlign="left")))
            .resolve_scale(y="independent")
        )
        st.altair_chart(lines, width="stretch")


render()
