"""Session review: the frame player on the annotated video (coach/dashboard/player: frame stepping, slow motion,
loop, marks and faults on the scrub bar), a timeline of phases and faults (click a band to land on its first
frame), the verdicts per shot with the classical quote and cues, key frames, the coach's accept / dismiss /
comment, and the correction panel (coach/dashboard/corrections_panel.py), which reads the player's frame."""

import altair as alt
import pandas as pd
import streamlit as st

from coach.dashboard import ui
from coach.dashboard.corrections_panel import corrected_note, correction_panel
from coach.dashboard.data import (
    fault_name,
    fmt_value,
    limits_label,
    rule_name,
    session_label,
    timeline_rows,
    verdict_rows,
)
from coach.dashboard.jobs import JOBS
from coach.dashboard.player import Clip, frame_player, media_url, request_seek, session_videos, video_frame_count
from coach.dashboard.player.ghost import skeleton_data, skeleton_frames
from coach.dashboard.player.model import frame_of_time, jump_targets, session_ticks
from coach.dashboard.tidy_panel import session_tidy_panel, show_done
from coach.headline import any_hint
from coach.report.data import gather, local_time
from coach.store import SessionSummary, StoredSession
from coach.wording.machine import certainty_text, note_text

# fixed colours per phase and for faults, so "hold" is the same colour in every session
TIMELINE_COLOURS = {
    "raise": "#8fb3d9",
    "draw": "#5b8cc2",
    "full_draw": "#2f5f98",
    "hold": "#e0b050",
    "follow_through": "#7fb069",
    "fault": "#c0392b",
}


def running_jobs(settings) -> bool:
    """Show the analyses still running (the first-start demo, this visitor's own); True if there are any.
    Their shots are committed as they complete, so the page refreshes with them and once more at the end."""
    any_running = False
    demo = JOBS.demo_job(settings)
    mine = JOBS.get(st.session_state.get("job"))
    for job in dict.fromkeys(j for j in (demo, mine) if j is not None):
        snap = job.snapshot()
        if snap.is_over:
            continue
        any_running = True
        if job is demo:
            st.info(ui.tr("demo_running", name=snap.video), icon=":material/hourglass_top:")
        ui.job_progress(snap.id)
    return any_running


def empty_state(settings) -> None:
    demo = JOBS.demo_job(settings)
    if demo is not None and demo.snapshot().stage == "error":
        ui.show_job_outcome(demo.snapshot())
    st.info(ui.tr("empty_store"), icon=":material/info:")
    st.page_link(ui.PAGES["analyze"], label=ui.tr("page_analyze"), icon=":material/movie:")


def pick_session(sessions: list[SessionSummary], running: dict[int, float]) -> int:
    ids = [s.id for s in sessions]
    by_id = {s.id: s for s in sessions}
    want = st.session_state.pop("review_sid", None)
    if want in ids:
        st.session_state["review_session"] = want
    return ui.choice(
        ui.tr("session"),
        ids,
        "review_session",
        lambda i: session_label(by_id[i], ui.lang(), running.get(i)),
        default=ids[-1],
    )


def timeline_chart(rows: list[dict]) -> alt.LayerChart:
    """One lane per shot's phases and per fault. Each phase and faults have their own colour whatever appears
    first; the lane's name sits above its bars (not on an axis beside them, which a phone has no room for)."""
    df = pd.DataFrame(rows)
    lanes = list(dict.fromkeys(df["lane"]))
    kinds = [ui.tr(f"phase_{k}") for k in TIMELINE_COLOURS]
    df["from_s"] = df["start_s"].round(2)
    df["to_s"] = df["end_s"].round(2)
    pick = alt.selection_point(name="fault_pick", fields=["start_s", "rule"], on="click")
    y = alt.Y("lane:N", sort=lanes, title=None, axis=None)
    bars = (
        alt.Chart(df)
        .mark_bar(cornerRadius=2, height={"band": 0.42}, yOffset=8)
        .encode(
            x=alt.X("start_s:Q", title=ui.tr("time_s")),
            x2="end_s:Q",
            y=y,
            color=alt.Color(
                "kind:N",
                title=None,
                scale=alt.Scale(domain=kinds, range=list(TIMELINE_COLOURS.values())),
                legend=alt.Legend(orient="bottom", direction="horizontal", columns=3),
            ),
            opacity=alt.condition(pick, alt.value(1.0), alt.value(0.55)),
            tooltip=[
                alt.Tooltip("label:N", title=ui.tr("tt_what")),
                alt.Tooltip("from_s:Q", title=ui.tr("tt_from"), format=".2f"),
                alt.Tooltip("to_s:Q", title=ui.tr("tt_to"), format=".2f"),
            ],
        )
        .add_params(pick)
    )
    names = (
        alt.Chart(pd.DataFrame({"lane": lanes}))
        .mark_text(align="left", baseline="bottom", dy=-2, fontSize=12, color="#333")
        .encode(x=alt.value(0), y=y, text="lane:N")
    )
    # a step per lane: Streamlit does not keep a fixed pixel height for a chart with a discrete y
    return alt.layer(bars, names).properties(height=alt.Step(44))


def video_panel(
    settings,
    sid: int,
    session: StoredSession,
    shots: list[dict],
    pack,
    fps: float,
    annotations,
    running: bool = False,
) -> None:
    """The frame player with the shot's marks and faults on its scrub bar; "jump to" (a mark, a fault, a band of
    the timeline) lands on the exact frame."""
    lang = ui.lang()
    key = f"player_{sid}"
    ticks, spans = session_ticks(shots, pack, lang, annotations)
    jump_menu(key, jump_targets(ticks), lang)
    if not any(k.kind == "fault" for k in ticks) and not running:
        st.caption(ui.tr("no_faults"))
    video_box = st.container()  # laid out above the timeline
    rows = timeline_rows(shots, fps, pack, lang, annotations)
    if rows:
        st.caption(ui.tr("timeline"))
        tkey = f"timeline_{sid}"
        st.altair_chart(
            timeline_chart(rows),
            width="stretch",
            on_select=lambda: band_picked(key, tkey, fps),
            key=tkey,
        )
    videos = session_videos(settings, sid, session)
    video = videos.best
    with video_box:
        if videos.stale:
            st.caption(ui.tr("video_stale"))
        if video is None:
            st.warning(ui.tr("no_video"))
            return
        skeleton = None
        if videos.annotated is not None and videos.plain is not None:  # the skeleton is drawn into the video
            if not st.toggle(ui.tr("pl_skeleton"), value=True, key=f"skeleton_{sid}"):
                video = videos.plain
        elif videos.annotated is None:  # the original video: the skeleton from the kept pose track, if any
            skeleton = kept_skeleton(settings, sid, spans)
            if skeleton is not None and not st.toggle(ui.tr("pl_skeleton"), value=True, key=f"skeleton_{sid}"):
                skeleton = None
        n = video_frame_count(video, session.frame_count)
        clip = Clip(media_url(video, f"review.{sid}"), fps, n, ticks, spans)
        frame_player(clip, key=key, lang=lang, skeleton=skeleton)


def kept_skeleton(settings, sid: int, spans: list) -> dict | None:
    """The shots' skeletons from the session's kept pose track, for a session without an annotated video."""
    with settings.store() as store:
        reader = getattr(store, "pose_track", None)
        track = reader(sid) if callable(reader) else None
    if track is None:
        return None
    return skeleton_data(skeleton_frames(track, [(s.start, s.end) for s in spans]))


def jump_menu(key: str, jumps: list, lang: str) -> None:
    """ "Jump to" a phase mark or a fault: picking one moves the player there and the menu back to its blank,
    so the same target can be picked again after scrubbing away."""
    if not jumps:
        return
    labels = [ui.tr("jump_none")] + [j.label for j in jumps]
    wkey = f"{key}.jump.{lang}"

    def go() -> None:
        k = st.session_state.get(wkey) or 0
        if k:
            request_seek(key, jumps[k - 1].frame)
        st.session_state[wkey] = 0

    st.selectbox(
        ui.tr("pl_jump"),
        range(len(labels)),
        format_func=ui.fmt(range(len(labels)), labels.__getitem__),
        key=wkey,
        on_change=go,
    )


def band_picked(key: str, tkey: str, fps: float) -> None:
    """A click on a timeline band (a phase or a fault): the player lands on the band's first frame."""
    event = st.session_state.get(tkey) or {}
    picked = ((event.get("selection") or {}).get("fault_pick")) or []
    if picked and picked[0].get("start_s") is not None:
        request_seek(key, frame_of_time(float(picked[0]["start_s"]), fps))


def focus_panel(rd, lang: str) -> None:
    """What to work on first: the session's one or two faults that matter most (coach.headline), with the cue."""
    focus = rd.focus()
    if not focus:
        return
    with st.container(border=True):
        st.markdown(f"**{ui.tr('focus_title')}**")
        n = len(rd.shots)
        for f in focus:
            r = rd.pack.by_id.get(f.rule)
            where = ui.tr("focus_session") if f.session_level else ui.tr("focus_shots", k=len(f.shots), n=n)
            cue = (r.cue_zh if lang == "zh" else r.cue_en) if r else ""
            name = fault_name(rd.pack, f.rule, lang)
            st.markdown(f"- **{name}** ({ui.tr('sev_' + f.severity)}, {where}) → {cue}")
        if any_hint(rd.pack, (f.rule for f in focus)):
            st.caption(ui.tr("hint_note"))


def shot_panels(rd, lang: str) -> None:
    st.subheader(ui.tr("verdicts"))
    if not rd.shots:
        return
    tabs = st.tabs([ui.tr("shot", n=s.index + 1) for s in rd.shots])
    for tab, sv in zip(tabs, rd.shots):
        with tab:
            if note := corrected_note(sv.data):
                st.caption(ui.esc(note))
            for line in certainty_text(sv.data, lang):  # how sure its phases are: said, not hidden
                st.caption(ui.esc(line))
            if first := rd.shot_focus(sv):
                st.markdown(f"**{ui.tr('focus_shot', rule=fault_name(rd.pack, first.rule, lang))}**")
            st.dataframe(
                pd.DataFrame(verdict_rows(sv.data, rd.pack, rd.annotations, lang)),
                column_config={
                    ui.tr("col_quote"): st.column_config.TextColumn(width="large"),
                    ui.tr("col_cue_en"): st.column_config.TextColumn(width="medium"),
                },
                hide_index=True,
                width="stretch",
            )
            if any_hint(rd.pack, (f["rule"] for f in sv.faults)):
                st.caption(ui.tr("hint_note"))
            for f in sv.faults:
                r = rd.pack.by_id.get(f["rule"])
                if r is None:
                    continue
                with st.container(border=True):
                    st.markdown(f"**{r.name_zh} · {r.name_en}** — {ui.tr('v_fault')}")
                    st.markdown(f"> {r.section}：{r.quote}")
                    st.markdown(f"{r.meaning_zh if lang == 'zh' else r.meaning_en}")
                    st.markdown(f"→ **{r.cue_zh}** / *{r.cue_en}*")
            st.markdown(f"**{ui.tr('key_frames')}**")
            if not sv.key_frames:
                st.caption(ui.tr("no_key_frames"))
            else:
                cols = st.columns(len(sv.key_frames))
                for col, (kind, frame, jpeg) in zip(cols, sv.key_frames):
                    col.image(jpeg, caption=f"{ui.tr('kf_' + kind)} · #{frame}", width="stretch")


def consistency_panel(rd, lang: str) -> None:
    if not rd.consistency:
        return
    st.subheader(ui.tr("consistency"))
    rows = []
    for f in rd.consistency:
        r = rd.pack.by_id.get(f["rule"])
        rows.append(
            {
                ui.tr("col_rule"): rule_name(rd.pack, f["rule"], lang),
                ui.tr("col_verdict"): ui.tr(f"v_{f['verdict']}"),
                ui.tr("col_value"): fmt_value(f.get("value"), f.get("unit") or "", f.get("threshold")),
                ui.tr("col_limits"): limits_label(f.get("threshold"), f.get("unit") or "", lang),
                ui.tr("col_quote"): f"{r.section}：{r.quote}" if r else "",
                ui.tr("col_cue_zh"): r.cue_zh if r else "",
                ui.tr("col_cue_en"): r.cue_en if r else "",
            }
        )
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")


def coach_panel(settings, sid: int, rd, lang: str) -> None:
    st.subheader(ui.tr("coach_review"))
    targets = []
    for sv in rd.shots:
        for f in sorted(sv.findings, key=lambda f: f["verdict"] != "fault"):
            targets.append((sv.index, f["rule"], f["verdict"]))
    targets += [(None, f["rule"], f["verdict"]) for f in rd.consistency]
    if not targets:
        return

    def label(k: int) -> str:
        shot, rid, verdict = targets[k]
        where = ui.tr("shot", n=shot + 1) if shot is not None else ui.tr("consistency")
        return f"{where} · {rule_name(rd.pack, rid, lang)} · {ui.tr('v_' + verdict)}"

    with st.form(f"annotate_{sid}", clear_on_submit=True):
        # inside a form no widget may have a callback, so this one is simply fresh per language
        k = st.selectbox(
            ui.tr("finding"),
            range(len(targets)),
            format_func=ui.fmt(range(len(targets)), label),
            key=f"ann_target.{lang}",
        )
        action = st.radio(
            ui.tr("action"),
            ("accept", "dismiss", "comment"),
            format_func=ui.fmt(("accept", "dismiss", "comment"), lambda a: ui.tr("act_" + a)),
            horizontal=True,
            key=f"ann_action.{lang}",
        )
        comment = st.text_area(ui.tr("comment"), key="ann_comment")
        if st.form_submit_button(ui.tr("save")):
            shot, rid, _ = targets[k]
            with settings.store() as store:
                store.annotate(sid, action, shot=shot, rule=rid, comment=comment.strip())
            st.success(ui.tr("saved"))
            st.rerun()
    if rd.annotations:
        st.markdown(f"**{ui.tr('annotations')}**")
        for a in rd.annotations:
            where = ui.tr("shot", n=a.shot + 1) if a.shot is not None else ui.tr("consistency")
            name = rule_name(rd.pack, a.rule, lang) if a.rule else ""
            text = f" — {ui.esc(a.comment)}" if a.comment else ""  # user text: shown, never rendered
            st.markdown(f"- {local_time(a.created_at)} · {where} · {name} · **{ui.tr('act_' + a.action)}**{text}")


def render() -> None:
    settings = ui.settings()
    lang = ui.lang()
    st.title(f"{ui.tr('page_review')}")
    show_done()
    running = running_jobs(settings)
    with settings.store() as store:
        sessions = store.sessions()
        if not sessions:
            if not running:
                empty_state(settings)
            return
        in_progress = JOBS.in_progress()
        sid = pick_session(sessions, in_progress)
        rd = gather(store, sid)
    fps = rd.fps
    shots = [sv.data for sv in rd.shots]
    if sid in in_progress:  # still running: neither "stopped" nor "no faults" yet
        st.info(ui.tr("analysing_note", pct=round(100 * in_progress[sid])), icon=":material/hourglass_top:")
        rd.notes = [n for n in rd.notes if not n.startswith("incomplete session")]
    for note in rd.notes:
        st.caption(f"{ui.tr('notes')}: {ui.esc(note_text(note, lang))}")
    focus_panel(rd, lang)
    video_panel(settings, sid, rd.session, shots, rd.pack, fps, rd.annotations, sid in in_progress)
    shot_panels(rd, lang)
    correction_panel(settings, sid, rd, lang)
    consistency_panel(rd, lang)
    coach_panel(settings, sid, rd, lang)
    if sid not in in_progress:
        session_tidy_panel(settings, sid)


render()
