"""The dashboard's Live page (`coach/dashboard/pages/live.py` calls `render(lang)`); the runs it starts and the
boards it reads are in `coach/live`, which does not import the dashboard.

Two cameras:
- **this computer's** (a laptop's webcam, a video file fed at its real rate like a camera, or a stream URL): a
  `CameraRun` — capture and analysis in worker threads — shared by every tab, since a camera opens once;
- **the browser's** (a phone or tablet on the same network) through streamlit-webrtc: a `BrowserRun` per tab,
  whose `callback` hands each frame to the analysis and returns it annotated at once.

The page polls the run's board (`coach.live.board`) from an `st.fragment(run_every=…)`: the newest annotated frame,
faults as they are confirmed (rule, classical line, cue), a summary after each release, the tally and the
dropped-frame count. Worker threads never touch `st.session_state`. Every shot is in the store the moment it
completes, so stopping, or closing the tab, loses nothing already shot.

A little over 400 lines: the two cameras share the panel, the status lines and the camera check's view below, and
what the browser camera's component is told (its words in both languages) is kept beside the call that gives it.
"""

from __future__ import annotations

import uuid

import streamlit as st

from posture_rules.pack import RulePack, load_pack

from ..errors import CoachError
from ..live.board import FaultEvent, Snapshot
from ..live.browser_run import BrowserRun
from ..live.check import FAIL, OK, WARN, CameraCheck
from ..live.hub import REGISTRY
from ..live.runs import CameraRun
from ..results import UNSURE_TIME_MARK, ShotResult, unsure_times
from ..wording.machine import check_text, error_text, status_kind, status_text, view_name
from .access import live_source
from .data import archer_names
from .i18n import both, t
from .settings import Settings
from .ui import esc

CAMERA_KEY = "camera"  # the dashboard machine's camera: one run, whichever tab started it
# The page's poll. Every poll reruns the panel in the dashboard's process and the browser lays it out and paints
# it again; on the machine that also runs the analysis, that work takes the analysis' frames (with the page
# closed the dashboard analysed as many as `coach live`). A 22 s clip, benchmarks/live_latency.py --compare, the
# page in headless Chromium on 2 shared cores: polled every 0.5 s, 27 % of the frames analysed against 83 % for
# `coach live` in the same run; every 1 s, 67 % against 98 %; every 2 s, 73 % against 99 % — little more for
# a page twice as slow, so 1 s. (Under loads of 8-12 single runs vary widely: 13-69 % at 1 s.)
REFRESH_S = 1.0
MAX_FAULTS_SHOWN = 12
# A source back after a loss is said for this long, then the page is as before the loss: long enough to be read at
# the page's 1 s poll by a coach who looked away, short enough not to stand as if something were still wrong.
RECONNECTED_SHOWN_S = 10.0
# How the page shows the capture thread's status lines (coach/wording/machine.py status_kind): (st's message kind,
# icon, seconds shown after it was posted; None: while it is the newest). The retrying warning stands until the
# next line replaces it: the next attempt, the run's end, or "reconnected" once frames come again.
STATUS_SHOWN: dict[str, tuple[str, str, float | None]] = {
    "status_retrying": ("warning", ":material/videocam_off:", None),
    "status_reconnected": ("success", ":material/videocam:", RECONNECTED_SHOWN_S),
}
# Streamlit's bundled Material Symbols (a font shipped with the app, not an emoji font the machine may lack)
# plus a word: pass, warn and fail read apart without colour and without emoji
MARK_ICON = {OK: ":material/check_circle:", WARN: ":material/warning:", FAIL: ":material/cancel:"}
# streamlit-webrtc's Translations keys (streamlit_webrtc.config.Translations, 0.79), each worded as i18n "rtc_<key>"
WEBRTC_WORDS = (
    "start stop select_device media_api_not_available device_ask_permission device_not_available "
    "device_access_denied turn_camera_on turn_camera_off mute_microphone unmute_microphone select_camera "
    "select_microphone"
).split()
CHECK_ITEM_LABELS = {
    "framing": "check_framing",
    "room": "check_room",
    "view": "views",
    "distance": "check_distance",
    "light": "check_light",
}


@st.cache_resource
def _pack() -> RulePack:
    return load_pack()


def render(lang: str = "zh") -> None:
    settings = Settings.from_env()
    tr = lambda key, **kw: t(key, lang, **kw)  # noqa: E731
    archer = _choose_archer(settings, lang)
    modes = ("machine", "browser")
    names = {m: tr(f"live_mode_{m}") for m in modes}
    from . import ui

    # a fresh widget per language, the choice kept (ui.choice): a radio's value is the label it showed
    mode = ui.choice(tr("live_mode"), modes, "live_mode", names.get, radio=True, horizontal=True)
    if mode == "machine":
        _machine(settings, archer, lang)
    else:
        _browser(settings, archer, lang)


# ---- who is shooting ----------------------------------------------------------------------------------------
def _choose_archer(settings: Settings, lang: str) -> str | None:
    """Nobody is pre-selected ("choose or create"), and the last archer chosen on Analyze or here is kept."""
    from . import ui

    with settings.store() as store:
        names = archer_names(store)
    pick = ui.archer_choice(names)
    if pick == ui.PICK:
        return None
    if pick != ui.NEW_ARCHER:
        return pick
    name = st.text_input(t("archer_name", lang), key="live_new_archer", placeholder="王小明 / Wang Xiaoming")
    return name.strip() or None


# ---- this computer's camera ---------------------------------------------------------------------------------
def _machine(settings: Settings, archer: str | None, lang: str) -> None:
    tr = lambda key, **kw: t(key, lang, **kw)  # noqa: E731
    run = REGISTRY.get(CAMERA_KEY)
    running = run is not None and run.running
    spec = st.text_input(tr("live_source"), value="0", key="live_source", help=tr("live_source_help"))
    with st.expander(tr("check_title"), expanded=not running):
        st.caption(tr("check_intro"))
        if st.button(tr("check_run"), key="live_check", disabled=running or not spec.strip()):
            from ..live.check import check_source

            try:
                with st.spinner(tr("check_run")):
                    src = live_source(spec, settings)  # cameras, samples, uploads; more only if configured
                    st.session_state["live_check_result"] = check_source(src, pack=_pack())
            except CoachError as e:
                st.session_state.pop("live_check_result", None)
                st.error(tr("live_cannot_open", error=esc(error_text(str(e), lang))), icon=":material/error:")
        result = st.session_state.get("live_check_result")
        if isinstance(result, CameraCheck):
            show_check(result, lang)

    c1, c2, _ = st.columns([1, 1, 4])
    start = c1.button(tr("live_start"), type="primary", key="live_start", disabled=running)
    stop = c2.button(tr("live_stop"), key="live_stop", disabled=not running)
    if start:
        if archer is None:
            st.warning(t("need_archer", lang))
        elif not spec.strip():
            st.warning(tr("live_need_source"))
        else:
            try:
                new = CameraRun(settings.db, archer, live_source(spec, settings), pack=_pack()).start()
            except CoachError as e:  # a missing camera or file, a bad URL, a store that is not ours: one line
                st.error(tr("live_cannot_open", error=esc(error_text(str(e), lang))), icon=":material/error:")
            else:
                REGISTRY.put(CAMERA_KEY, new)
                st.rerun()
    if stop and run is not None:
        run.stop()
        run.join(10)  # the analysis finishes what it has and closes the session in the store
        st.rerun()
    run = REGISTRY.get(CAMERA_KEY)
    if run is None:
        return
    if run.running:
        _poll(CAMERA_KEY, lang, True, True)
    else:
        panel(run.board.snapshot(), run, lang, show_image=True)


# ---- the browser's camera -----------------------------------------------------------------------------------
def _browser(settings: Settings, archer: str | None, lang: str) -> None:
    tr = lambda key, **kw: t(key, lang, **kw)  # noqa: E731
    st.caption(tr("live_browser_intro"))
    if archer is None:
        st.warning(t("need_archer", lang))
        return
    key = f"browser:{st.session_state.setdefault('live_browser_id', uuid.uuid4().hex)}"
    run = REGISTRY.get(key)
    if run is None or (run.archer != archer and not run.running):
        try:
            run = REGISTRY.put(key, BrowserRun(settings.db, archer, pack=_pack()))
        except CoachError as e:
            st.error(esc(error_text(str(e), lang)), icon=":material/error:")
            return

    from streamlit_webrtc import WebRtcMode, webrtc_streamer

    from ..live.webrtc import RTC_CONFIGURATION, enable_loopback_candidates

    if not _has_server():  # e.g. under AppTest: streamlit-webrtc needs the dashboard's server
        st.info(tr("live_browser_no_server"), icon=":material/info:")
        return
    enable_loopback_candidates()  # before the peer connection is made: see docs/webrtc-findings.md
    ctx = webrtc_streamer(
        key="live_webrtc",
        mode=WebRtcMode.SENDRECV,
        rtc_configuration=RTC_CONFIGURATION,
        media_stream_constraints={"video": True, "audio": False},
        video_frame_callback=run.callback,
        on_video_ended=run.stop,
        async_processing=True,
        translations=webrtc_translations(lang),
    )
    st.caption(both("live_browser_component", first=lang))  # what the component cannot be told to say
    playing = bool(getattr(ctx.state, "playing", False))
    signalling = bool(getattr(ctx.state, "signalling", False))
    run.streaming(playing)  # while the stream plays, frames are expected: none for a few seconds is said
    if run.running and not playing and not signalling:
        run.stop()  # the component's STOP: close the session (its shots are already stored)

    with st.expander(tr("check_title"), expanded=False):
        st.caption(tr("check_intro"))
        if st.button(tr("check_run"), key="live_check_browser"):
            frames = run.check_samples()
            if not frames:
                st.info(tr("check_need_frames"))
            else:
                from ..live.check import check_frames
                from ..pose import make_estimator

                est = make_estimator()
                try:
                    st.session_state["live_check_browser_result"] = check_frames(frames, est, pack=_pack())
                finally:
                    est.close()
        result = st.session_state.get("live_check_browser_result")
        if isinstance(result, CameraCheck):
            show_check(result, lang)

    if run.running or playing:
        _poll(key, lang, False, run.running)
    elif run.board.session_no:
        panel(run.board.snapshot(), run, lang, show_image=False)
    else:
        st.info(tr("live_browser_idle"))


def webrtc_translations(lang: str) -> dict[str, str]:
    """streamlit-webrtc's `translations`: each of its buttons and device messages in both languages, the page's
    first (its frontend falls back to English for a key left out; what it never lets us word is in
    docs/webrtc-findings.md and said by the `live_browser_component` caption)."""
    return {key: both(f"rtc_{key}", first=lang) for key in WEBRTC_WORDS}


def _has_server() -> bool:
    """A real Streamlit server (AppTest's runtime is a mock, which streamlit-webrtc cannot work with)."""
    try:
        from streamlit.runtime import Runtime

        return Runtime.exists() and hasattr(Runtime.instance(), "_session_mgr")
    except Exception:
        return False


# ---- the live panel -----------------------------------------------------------------------------------------
@st.fragment(run_every=REFRESH_S)
def _poll(key: str, lang: str, show_image: bool, was_running: bool) -> None:
    run = REGISTRY.get(key)
    if run is None:
        return
    snap = panel(run.board.snapshot(), run, lang, show_image)
    if was_running and not snap.running:
        st.rerun(scope="app")  # over: the whole page again (buttons, the saved-session note)


def panel(snap: Snapshot, run, lang: str, show_image: bool) -> Snapshot:
    tr = lambda key, **kw: t(key, lang, **kw)  # noqa: E731
    pack = run.board.pack
    if snap.error:
        st.error(tr("live_failed", error=esc(error_text(snap.error, lang))), icon=":material/error:")
    elif snap.state == "starting":
        st.info(tr("live_starting"), icon=":material/hourglass_top:")
    elif snap.running:
        st.caption(f":red[●] {tr('live_running', source=esc(snap.source))} · {esc(snap.archer)}")
    elif snap.expecting:  # the browser's stream plays, its first frame not here yet: not "stopped"
        st.caption(f"{tr('live_waiting_frame')} · {esc(snap.archer)}")
    else:
        st.caption(f"■ {tr('live_stopped', source=esc(snap.source))} · {esc(snap.archer)}")
    if snap.no_picture:  # a black view says nothing: say it, and what to check, in both languages
        st.warning(no_picture_line(snap, lang), icon=":material/videocam_off:")
    elif snap.status and snap.running:  # posted in English by the capture thread, worded here, at the page's poll
        show_status(snap, lang)
    if show_image:
        left, right = st.columns([3, 2])
        with left:
            jpeg = run.board.jpeg(lang)  # encoded small by the board; st.image passes JPEG bytes through as they are
            if jpeg is None:
                st.caption(tr("live_waiting_frame"))
            else:
                st.image(jpeg, output_format="JPEG", width="stretch")
    else:
        right = st.container()
    with right:
        _tally(snap, pack, lang)
        st.subheader(tr("live_faults"))
        _faults(snap.events, pack, lang)
    st.subheader(tr("live_shots"))
    _shots(snap.shots, pack, lang)
    if not snap.running and snap.sids:
        st.success(tr("live_saved", sids=", ".join(f"#{s}" for s in snap.sids)), icon=":material/check_circle:")
    return snap


def show_status(snap: Snapshot, lang: str) -> None:
    """The capture thread's newest status line as STATUS_SHOWN says (an unknown one as a warning, as written)."""
    how, icon, for_s = STATUS_SHOWN.get(status_kind(snap.status) or "", STATUS_SHOWN["status_retrying"])
    if for_s is None or snap.status_age_s < for_s:
        getattr(st, how)(esc(status_text(snap.status, lang)), icon=icon)


def no_picture_line(snap: Snapshot, lang: str) -> str:
    """One line, the page's language first then the other: no picture is arriving from this source, what to
    check (camera permission, another app, the file, the address)."""
    return both(f"live_no_picture_{snap.picture_from}", first=lang, source=esc(snap.source))


def _tally(snap: Snapshot, pack: RulePack, lang: str) -> None:
    tr = lambda key, **kw: t(key, lang, **kw)  # noqa: E731
    f = snap.figures
    a, b = st.columns(2)
    a.metric(tr("live_m_shots"), snap.tally.shots)
    b.metric(tr("live_m_clean"), snap.tally.clean)
    c, d = st.columns(2)
    c.metric(tr("live_m_dropped"), f.dropped)
    share = f.analysed_share
    d.metric(tr("live_m_analysed"), f"{f.analysed}" + (f" ({share:.0%})" if share is not None else ""))
    top = snap.tally.faults.most_common(4)
    if top:
        names = " · ".join(f"{_name(pack, rid, lang)} ×{n}" for rid, n in top)
        st.caption(f"{tr('live_top_faults')}: {names}")
    if f.latency_p50_ms is not None:
        st.caption(f"{tr('live_m_latency')}: {f.latency_p50_ms:.0f} ms")
    if f.dropped and share is not None:  # said in words: a count alone does not tell a coach what it means
        st.caption(tr("live_dropped_note", dropped=f.dropped, released=f.released, share=share))


def _name(pack: RulePack, rid: str, lang: str) -> str:
    r = pack.by_id.get(rid)
    if r is None:
        return rid
    return f"{r.name_zh} {r.name_en}" if lang == "zh" else f"{r.name_en} {r.name_zh}"


def _rule_lines(pack: RulePack, rid: str, lang: str) -> tuple[str, str, str]:
    """(name in both languages, the classical line, the cue in both languages)."""
    r = pack.by_id.get(rid)
    if r is None:
        return rid, "", ""
    cue = f"{r.cue_zh} / {r.cue_en}" if lang == "zh" else f"{r.cue_en} / {r.cue_zh}"
    return _name(pack, rid, lang), f"{r.section}：{r.quote}", cue


def _faults(events: list[FaultEvent], pack: RulePack, lang: str) -> None:
    if not events:
        st.caption(t("live_no_faults", lang))
        return
    for e in reversed(events[-MAX_FAULTS_SHOWN:]):
        name, quote, cue = _rule_lines(pack, e.rule, lang)
        when = (
            t("live_fault_at", lang, shot=e.shot + 1, t=e.t_s)
            if e.shot is not None
            else t("live_fault_at_noshot", lang, t=e.t_s)
        )
        with st.container(border=True):
            st.markdown(f"**:red[✗ {name}]** · {when}")
            if quote:
                st.markdown(f"> {quote}")
            if cue:
                st.caption(f"→ {cue}")


def _shots(shots: list[ShotResult], pack: RulePack, lang: str) -> None:
    if not shots:
        st.caption(t("live_no_shots", lang))
        return
    for shot in reversed(shots):
        with st.container(border=True):
            st.markdown(shot_head(shot, lang))
            for f in shot.faults:
                name, quote, cue = _rule_lines(pack, f.rule, lang)
                st.markdown(f"- **:red[{name}]** — {quote}  \n  → {cue}")
    if any(unsure_hold(s) for s in shots):
        st.caption(t("unsure_time", lang))


def unsure_hold(shot: ShotResult) -> bool:
    """The shot's hold time is measured from an uncertain mark (coach/results.py unsure_times)."""
    return "hold" in unsure_times(shot.marks_confidence, shot.release_confidence, shot.times_s)


def shot_head(shot: ShotResult, lang: str) -> str:
    """ "**Shot 1** · release at 6.1 s · hold 1.9 s? · 1 fault(s)": a hold timed from an uncertain mark marked "?"
    as the terminal and the reports mark it."""
    head = [f"**{t('live_shot_title', lang, n=shot.index + 1)}**"]
    rel = shot.times_s.get("release_at")
    if rel is not None:
        head.append(t("live_release_at", lang, t=rel))
    hold = shot.times_s.get("hold_s")
    if hold is not None:
        head.append(t("live_hold", lang, t=hold) + (UNSURE_TIME_MARK if unsure_hold(shot) else ""))
    if not shot.complete:
        head.append(t("live_incomplete", lang))
    faults = shot.faults
    head.append(t("live_n_faults", lang, n=len(faults)) if faults else f":green[{t('live_clean', lang)}]")
    return " · ".join(head)


# ---- camera check -------------------------------------------------------------------------------------------
def mark(status: str, lang: str) -> str:
    return f"{MARK_ICON[status]} **{t('mark_' + status, lang)}**"


def show_check(c: CameraCheck, lang: str) -> None:
    tr = lambda key, **kw: t(key, lang, **kw)  # noqa: E731
    pack = _pack()
    head = {OK: st.success, WARN: st.warning, FAIL: st.error}[c.status]
    head(f"{mark(c.status, lang)} {tr('check_' + c.status)}")
    st.caption(tr("check_view", view=view_name(c.view, lang), n=c.frames_with_person, total=c.frames))
    rows = [
        f"- {mark(i.status, lang)} **{tr(CHECK_ITEM_LABELS.get(i.name, 'check_framing'))}** — "
        f"{check_text(i.message, lang)}"
        for i in c.items
    ]
    st.markdown("\n".join(rows))
    ok_names = ", ".join(_name(pack, rid, lang) for rid in c.judgeable) or "—"
    st.markdown(f"**{tr('check_judgeable', n=len(c.judgeable))}**: {ok_names}")
    if c.not_judgeable:
        st.markdown(f"**{tr('check_not_judgeable', n=len(c.not_judgeable))}**")
        st.markdown(
            "\n".join(f"- {_name(pack, rid, lang)}: {check_text(why, lang)}" for rid, why in c.not_judgeable.items())
        )
