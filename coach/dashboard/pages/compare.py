"""Compare: two shots (same or different sessions) played side by side, synchronised at the release (or another
phase mark), with the second shot's skeleton as a ghost over the first; each metric's per-frame line with its
fine range and the release at t = 0; and the shot measures."""

import pandas as pd
import streamlit as st

from coach.dashboard import ui
from coach.dashboard.data import fmt_value, metric_label, session_label
from coach.dashboard.metric_chart import bands, metric_chart, metric_rows
from coach.dashboard.player import Clip, media_url, pair_player, session_videos, video_frame_count
from coach.dashboard.player.ghost import Ghost, ghost, shot_poses
from coach.dashboard.player.model import Span, shot_span, shot_ticks
from coach.metrics import METRICS
from coach.report.data import gather
from coach.store import StoredShot


def all_shots(store, lang: str) -> list[dict]:
    """Every stored shot the page can pick: its key, session, the stored shot, frame rate and label."""
    out = []
    for s in store.sessions():
        fps = store.session(s.id).frame_rate
        for sh in store.shots(s.id):
            out.append(
                {
                    "key": f"{s.id}:{sh.index}",
                    "sid": s.id,
                    "shot": sh,
                    "fps": fps,
                    "label": f"{session_label(s, lang)} — {ui.tr('shot', n=sh.index + 1)}",
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


SYNC_MARKS = ("release_frame", "anchor_frame", "draw_start_frame", "raise_start_frame")
SYNC_LABELS = {
    "release_frame": "mark_release",
    "anchor_frame": "mark_anchor",
    "draw_start_frame": "mark_draw_start",
    "raise_start_frame": "pl_mark_raise",
}


def sync_frame(shot: StoredShot, mark: str) -> int | None:
    """The frame the two shots are synchronised at: the chosen mark, else the release, else the anchor."""
    for k in (mark, "release_frame", "anchor_frame"):
        if getattr(shot.result, k) is not None:
            return int(getattr(shot.result, k))
    return None


def shot_clip(settings, store, s: dict, mark: str, name: str, lang: str) -> Clip | None:
    """A shot's video for the side-by-side player (its session's annotated video, else the original)."""
    session = store.session(s["sid"])
    s["session"] = session
    video = session_videos(settings, s["sid"], session).best
    sync = sync_frame(s["shot"], mark)
    if video is None or sync is None:
        return None
    n = video_frame_count(video, session.frame_count)
    ticks = shot_ticks(s["shot"].to_json(), s["pack"], lang)
    span = shot_span(s["shot"].to_json())
    spans = [Span(span[0], span[1], name)] if span else []
    return Clip(media_url(video, f"compare.{name}"), s["fps"], n, ticks, spans, sync, f"{name} — {s['label']}")


def shot_ghost(store, picked: list[dict], mark: str) -> Ghost | None:
    a, b = picked
    pa = shot_poses(store, a["sid"], a["session"], a["shot"])
    pb = shot_poses(store, b["sid"], b["session"], b["shot"])
    sa, sb = sync_frame(a["shot"], mark), sync_frame(b["shot"], mark)
    if pa is None or pb is None or sa is None or sb is None:
        return None
    g = ghost(pa, pb, sa, sb, a["fps"], b["fps"])
    return g if g.frames else None


def side_by_side(settings, store, picked: list[dict], names: list[str], lang: str) -> bool:
    """Both shots' videos, synchronised at a phase mark, with the second's skeleton as an optional ghost."""
    labels = {m: ui.tr(SYNC_LABELS[m]) for m in SYNC_MARKS}
    mark = ui.choice(
        ui.tr("pl_sync"),
        SYNC_MARKS,
        "cmp_sync",
        labels.__getitem__,
        default="release_frame",
        radio=True,
        horizontal=True,
    )
    clips = [shot_clip(settings, store, s, mark, n, lang) for s, n in zip(picked, names)]
    if any(c is None for c in clips):
        st.caption(ui.tr("pl_no_video"))
        return False
    g = shot_ghost(store, picked, mark)
    if g is None:
        st.caption(ui.tr("pl_ghost_none"))
    elif not g.dense:
        st.caption(ui.tr("pl_ghost_sparse"))
    pair_player(
        clips[0],
        clips[1],
        key="cmp_player",
        lang=lang,
        ghost=g.as_data() if g is not None else None,
        seek={"frame": clips[0].sync, "n": f"{picked[0]['key']}|{picked[1]['key']}|{mark}"},
    )
    return True


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
        names = [ui.tr("shot_a"), ui.tr("shot_b")]
        picked = [dict(by_key[a]), dict(by_key[b])]
        pack = None
        for s in picked:
            s["kf"], s["pack"] = release_frame_image(store, s["sid"], s["shot"].index)
            s["series"] = store.series(s["shot"].id)
            pack = s["pack"]
        st.subheader(ui.tr("pl_side_by_side"))
        played = side_by_side(settings, store, picked, names, lang)

    cols = st.columns(2)
    for col, name, s in zip(cols, names, picked):
        with col:
            if not played:
                st.markdown(f"**{ui.esc(name)}** — {ui.esc(s['label'])}")
                if s["kf"] is not None:
                    kind, frame, jpeg = s["kf"]
                    st.image(jpeg, caption=f"{ui.tr('kf_' + kind)} · #{frame}", width="stretch")
            faults = s["shot"].result.faults
            st.caption(
                f"{ui.esc(name)}: "
                + (
                    ", ".join(f"✗ {pack.by_id[f.rule].name_zh if f.rule in pack.by_id else f.rule}" for f in faults)
                    or ui.tr("no_faults")
                )
            )

    rows = metric_rows([(n, s["series"], s["shot"].to_json(), s["fps"]) for n, s in zip(names, picked)])
    if not rows:
        st.info(ui.tr("no_series"))
        return
    metrics = list(dict.fromkeys(r["metric"] for r in rows))
    fault_metrics = [
        pack.by_id[f.rule].metric
        for s in picked
        for f in s["shot"].result.faults
        if f.rule in pack.by_id and pack.by_id[f.rule].metric in metrics
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
        shown = [r for r in rows if r["metric"] in chosen]
        band_of = bands(pack, [picked[0]["shot"].to_json()], chosen)
        chart = metric_chart(shown, band_of, lambda m: metric_label(m, pack, lang), lang)
        st.altair_chart(chart, width="stretch")

    st.subheader(ui.tr("measures"))
    names_m = sorted({k for s in picked for k in s["shot"].result.measures})
    units = {k: METRICS[k].unit if k in METRICS else "" for k in names_m}
    table = {
        ui.tr("measure"): [metric_label(k, pack, lang) for k in names_m],
        **{n: [fmt_value(s["shot"].result.measures.get(k), units[k]) for k in names_m] for n, s in zip(names, picked)},
    }
    st.dataframe(pd.DataFrame(table), hide_index=True)


render()
