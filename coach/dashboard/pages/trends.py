"""Archer & trends: an archer's sessions over time, fault frequency per rule, consistency measures."""

import altair as alt
import pandas as pd
import streamlit as st

from coach.dashboard import ui
from coach.dashboard.data import archer_names, consistency_rows, fault_rate_rows, hold_time_rows
from coach.dashboard.i18n import TEXT, t
from coach.dashboard.tidy_panel import archer_after_change, archer_tidy_panel, show_done
from coach.report.data import local_time
from posture_rules.pack import load_pack


def measure_name(k: str, lang: str) -> str:
    """A consistency measure's name with its unit (the i18n table's `ms_*` entries)."""
    unit = {"anchor_spread": "SW", "hold_time_sd": "s", "draw_time_sd": "s", "hold_time": "s", "draw_time": "s"}
    name = t(f"ms_{k}", lang) if f"ms_{k}" in TEXT else k.replace("_", " ")
    return f"{name} ({unit[k]})" if k in unit else name


def render() -> None:
    settings = ui.settings()
    lang = ui.lang()
    st.title(f"{ui.tr('page_trends')}")
    show_done()
    with settings.store() as store:
        names = archer_names(store)
        if not names:
            st.info(ui.tr("no_archers"), icon=":material/info:")
            st.page_link(ui.PAGES["analyze"], label=ui.tr("page_analyze"), icon=":material/movie:")
            return
        archer_after_change("trend_archer")
        name = st.selectbox(ui.tr("archer"), names, key="trend_archer")
        archer = store.archer(name)
        trend = store.trend_rows(archer.id)
        sessions = [store.session(s.id) for s in store.sessions(name)]
    archer_tidy_panel(settings, name)
    if not trend:
        st.info(ui.tr("no_sessions_archer"))
        return
    pack = archer.profile().apply(load_pack())

    st.subheader(ui.tr("sessions_over_time"))
    overview = pd.DataFrame(
        [
            {
                ui.tr("session"): f"#{s.id}",
                ui.tr("date"): local_time(s.started_at),
                ui.tr("shot_word"): s.shots,
                t("v_fault", lang): sum(c.get("fault", 0) for c in s.rules.values()),
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
                x=alt.X("session:O", title=ui.tr("session"), axis=alt.Axis(labelAngle=0)),
                # every rule labelled, in full: the row of a rule faulted every time must not be anonymous
                y=alt.Y("rule:N", title=None, axis=alt.Axis(labelOverlap=False, labelLimit=0, labelFontSize=12)),
                color=alt.Color(
                    "rate:Q",
                    title=ui.tr("rate"),
                    scale=alt.Scale(domain=[0, 1], scheme="reds"),
                    legend=alt.Legend(format="%"),
                ),
                tooltip=[
                    alt.Tooltip("rule:N", title=ui.tr("rule")),
                    alt.Tooltip("session:O", title=ui.tr("session")),
                    alt.Tooltip("faults:Q", title=ui.tr("v_fault")),
                    alt.Tooltip("rate:Q", title=ui.tr("rate"), format=".0%"),
                ],
            )
            .properties(height=alt.Step(24))  # a row per rule, each tall enough for its label
        )
        st.altair_chart(heat, width="stretch")

    st.subheader(ui.tr("consistency_measures"))
    cons = pd.DataFrame(consistency_rows(sessions) + hold_time_rows(trend))
    if cons.empty:
        st.caption("—")
    else:
        cons["session"] = [f"#{i}" for i in cons["session"]]
        cons["measure"] = [measure_name(k, lang) for k in cons["measure"]]
        # one small chart per measure (their units differ), each as wide as the page: a faceted chart with a
        # container width is drawn wider than its container and cut off at the right
        for measure, part in cons.groupby("measure", sort=False):
            line = (
                alt.Chart(part)
                .mark_line(point=True)
                .encode(
                    x=alt.X("session:O", title=ui.tr("session"), axis=alt.Axis(labelAngle=0)),
                    y=alt.Y("value:Q", title=None, scale=alt.Scale(zero=False)),
                    tooltip=[
                        alt.Tooltip("session:O", title=ui.tr("session")),
                        alt.Tooltip("value:Q", title=measure, format=".3f"),
                    ],
                )
                .properties(height=120, title=measure)
            )
            st.altair_chart(line, width="stretch")


render()
