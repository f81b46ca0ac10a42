"""Analyze: upload a video or pick a sample, choose or create the archer, run, then open the session."""

import streamlit as st

from coach.capture import VIDEO_EXTENSIONS
from coach.dashboard import ui
from coach.dashboard.data import archer_names
from coach.dashboard.jobs import DONE, JOBS, ArcherSpec, save_upload
from coach.errors import CoachError
from coach.store import normalize_name
from coach.wording.machine import error_text

NEW = ui.NEW_ARCHER
HANDS = (None, "right", "left")
HAND_KEYS = {None: "hand_auto", "right": "hand_right", "left": "hand_left"}
STYLES = ("mediterranean", "thumb")
TOLS = ("beginner", "club", "elite")


def choose_archer(settings) -> ArcherSpec | None | str:
    """The archer to record under: an `ArcherSpec`, None for a new archer with no usable name yet, or
    `ui.PICK` while nobody is chosen."""
    with settings.store() as store:
        names = archer_names(store)
    pick = ui.archer_choice(names)
    if pick == ui.PICK:
        return ui.PICK
    if pick != NEW:
        with settings.store() as store:
            a = store.archer(pick)
        if a is not None:
            st.caption(
                f"{ui.tr('handedness')}: {ui.tr(HAND_KEYS.get(a.handedness, 'hand_auto'))} · "
                f"{ui.tr('draw_style')}: {ui.tr('style_' + a.draw_style)} · {ui.tr('tolerance')}: {ui.tr('tol_' + a.tolerance)}"
            )
        return ArcherSpec(pick)
    c1, c2, c3, c4 = st.columns([2, 1, 1, 1])
    name = c1.text_input(ui.tr("archer_name"), key="new_name", placeholder="王小明 / Wang Xiaoming")
    # labels from the i18n table: each a fresh widget per language, the choice kept (ui.choice)
    hand = ui.choice(ui.tr("handedness"), HANDS, "hand", lambda h: ui.tr(HAND_KEYS[h]), where=c2, radio=True)
    style = ui.choice(ui.tr("draw_style"), STYLES, "style", lambda s: ui.tr("style_" + s), where=c3)
    tol = ui.choice(ui.tr("tolerance"), TOLS, "tol", lambda s: ui.tr("tol_" + s), default="club", where=c4)
    try:
        name = normalize_name(name or "")
    except CoachError:
        return None
    return ArcherSpec(name, new=True, handedness=hand, draw_style=style, tolerance=tol)


def render() -> None:
    settings = ui.settings()
    st.title(f"{ui.tr('page_analyze')}")
    st.write(ui.tr("analyze_intro"))

    source = ui.choice(
        ui.tr("source"), ("sample", "upload"), "source", lambda s: ui.tr("source_" + s), radio=True, horizontal=True
    )
    mb = st.get_option("server.maxUploadSize")
    st.caption(ui.tr("upload_limit", mb=mb))
    clip = upload = None
    keep = False
    if source == "sample":
        clips = settings.sample_clips()
        if not clips:
            st.info(ui.tr("no_samples"))
        else:
            names = [p.stem for p in clips]
            default = names.index("short_1shot") if "short_1shot" in names else 0
            pick = st.selectbox(ui.tr("sample"), names, index=default, key="sample")
            clip = clips[names.index(pick)]
    else:
        upload = st.file_uploader(
            ui.tr("upload"),
            type=sorted(suffix.lstrip(".") for suffix in VIDEO_EXTENSIONS),
            key="upload",
            help=ui.tr("upload_limit", mb=mb),
        )
        keep = st.checkbox(ui.tr("upload_keep"), value=False, key="upload_keep")

    archer = choose_archer(settings)

    if st.button(ui.tr("start"), type="primary", key="analyse"):
        if archer == ui.PICK:
            st.warning(ui.tr("need_archer"))
        elif archer is None:
            st.warning(ui.tr("need_name"))
        elif clip is None and upload is None:
            st.warning(ui.tr("need_video"))
        else:
            try:
                video = clip if clip is not None else save_upload(upload.getvalue(), upload.name, settings)
                shown = clip.name if clip is not None else upload.name
            except CoachError as e:
                st.error(ui.tr("analysis_failed", error=ui.esc(error_text(str(e), ui.lang()))), icon=":material/error:")
            else:
                job = JOBS.submit(settings, video, archer, shown_name=shown, keep=clip is not None or keep)
                st.session_state["job"] = job.snapshot().id

    job_id = st.session_state.get("job")
    if job_id:
        snap = ui.job_progress(job_id)
        if snap is not None and snap.is_over:
            ui.show_job_outcome(snap)
            if snap.stage == DONE:
                st.page_link(ui.PAGES["review"], label=ui.tr("open_review"), icon=":material/target:")
                if st.session_state.get("opened_job") != job_id:
                    st.session_state["opened_job"] = job_id
                    st.session_state["review_sid"] = snap.sid
                    st.switch_page(ui.PAGES["review"])


render()
