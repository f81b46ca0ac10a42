"""Compare: two shots (same or different sessions) side by side, synchronised at the release (t = 0)."""

import altair as alt
import pandas as pd
import streamlit as st

from coach.dashboard import ui
from coach.dashboard.data import aligned_series, fmt_value, metric_label, session_label
from coach.report.data import gather
from posture_rules.metrics import METRICS


def all_shots(store, lang: str) -> list[dict]:
    out = []
    for s in store.sessions():
        fps = float(store.session(s["id"]).get("fps") or 30.0)
        for sh in store.shots(s["id"]):
            out.append(
                {
                    "key": f"{s['id']}:{sh['index']}",
                    "sid": s["id"],
                    "shot": sh,
                    "fps": fps,
                    "label": f"{session_label(s, lang)} — {ui.tr('shot', n=sh['index'] + 1)}",
                }
            )
    return out


def release_frame_image(store, sid: int, index: int):
    rd = gather(store, sid)
    sv = next((s for s in rd.shots if s.index == index), None)
    if sv is None:
        return None, rd.pack
    kf = next((k for k in sv.key_frames if k[0] == "release"), None) or (sv.key_frames[0] if sv.key_frames else None)
    return kf, rd.pack


def render() -> None:
    settings = ui.settings()
    lang = ui.lang()
    st.title(f"{ui.tr('page_compare')}")
    st.write(ui.tr("compare_intro"))
    with settings.store() as store:
        shots = all_shots(store, lang)
        if not shots:
            st.info(ui.tr("need_shots"), icon=":material/info:")
            st.page_link(ui.PAGES["analyze"], label=ui.tr("page_analyze"), icon=":material/movie:")
            return
        keys = [s["key"] for s in shots]
        by_key = {s["key"]: s for s in shots}
        c1, c2 = st.columns(2)
        label = lambda k: by_key[k]["label"]  # noqa: E731
        a = ui.choice(ui.tr("shot_a"), keys, "cmp_a", label, default=keys[0], where=c1)
        b = ui.choice(ui.tr("shot_b"), keys, "cmp_b", label, default=keys[min(1, len(keys) - 1)], where=c2)
        picked = {ui.tr("shot_a"): by_key[a], ui.tr("shot_b"): by_key[b]}
        rows = []
        pack = None
        for name, s in picked.items():
            kf, pack = release_frame_image(store, s["sid"], s["shot"]["index"])
            s["kf"] = kf
            series = store.series(s["shot"]["_id"])
            for r in aligned_series(series, s["shot"], s["fps"]):
                r["shot"] = name
                rows.append(r)

    cols = st.columns(2)
    for col, (name, s) in zip(cols, picked.items()):
        with col:
            st.markdown(f"**{ui.esc(name)}** — {ui.esc(s['label'])}")
            if s["kf"] is not None:
                kind, frame, jpeg = s["kf"]
                st.image(jpeg, caption=f"{ui.tr('kf_' + kind)} · #{frame}", width="stretch")
            faults = [f for f in s["shot"].get("findings", []) if f["verdict"] == "fault"]
            st.caption(
                ", ".join(
                    f"✗ {pack.by_id[f['rule']].name_zh if f['rule'] in pack.by_id else f['rule']}" for f in faults
                )
                or ui.tr("no_faults")
            )

    if not rows:
        st.info(ui.tr("no_series"))
        return
    df = pd.DataFrame(rows)
    metrics = list(dict.fromkeys(df["metric"]))
    fault_metrics = [
        pack.by_id[f["rule"]].metric
        for s in picked.values()
        for f in s["shot"].get("findings", [])
        if f["verdict"] == "fault" and f["rule"] in pack.by_id and pack.by_id[f["rule"]].metric in metrics
    ]
    default = list(dict.fromkeys(fault_metrics + ["draw_elbow_elevation", "bow_elbow_angle", "draw_hand_to_chin"]))
    default = [m for m in default if m in metrics][:4] or metrics[:3]
    chosen = st.multiselect(
        ui.tr("metrics"),
        metrics,
        default=default,
        format_func=ui.fmt(metrics, lambda m: metric_label(m, pack, lang)),
        key=f"cmp_metrics.{lang}",  # a fresh widget per language (see ui.choice)
    )
    if chosen:
        df = df[df["metric"].isin(chosen)].copy()
        df["metric"] = [metric_label(m, pack, lang) for m in df["metric"]]
        line = (
            alt.Chart(df)
            .mark_line()
            .encode(
                x=alt.X("t:Q", title=ui.tr("t_release")),
                y=alt.Y("value:Q", title=None, scale=alt.Scale(zero=False)),
                color=alt.Color("shot:N", title=None),
                strokeDash=alt.StrokeDash("shot:N", title=None),
            )
        )
        zero = alt.Chart(pd.DataFrame({"t": [0.0]})).mark_rule(color="#c0392b").encode(x="t:Q")
        chart = (
            alt.layer(line, zero, data=df)
            .properties(height=140, width="container")
            .facet(row=alt.Row("metric:N", title=None, header=alt.Header(labelAngle=0, labelAlign="left")), data=df)
            .resolve_scale(y="independent")
        )
        st.altair_chart(chart, width="stretch")

    st.subheader(ui.tr("measures"))
    names = sorted({k for s in picked.values() for k in (s["shot"].get("measures") or {})})
    units = {k: METRICS[k].unit if k in METRICS else "" for k in names}
    table = {
        ui.tr("measure"): [metric_label(k, pack, lang) for k in names],
        **{
            n: [fmt_value((s["shot"].get("measures") or {}).get(k), units[k]) for k in names] for n, s in picked.items()
        },
    }
    st.dataframe(pd.DataFrame(table), hide_index=True)


render()
