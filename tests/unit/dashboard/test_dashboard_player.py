"""The frame player's Python side and Compare's metric chart, on sessions recorded from real pose tracks
(tests/golden, no model run): the ticks and jump targets are the stored marks, a timeline band lands on its own
first frame, the metric chart has the release at t = 0 inside its axis and each metric in its own panel with its
fine range, the ghost puts shot B's shoulders on shot A's, and under AppTest the player's frame reaches
st.session_state["review_frame"] and a "jump to" reaches the player. The browser side: test_browser_player.py."""

import json

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from coach.dashboard.data import timeline_rows
from coach.dashboard.metric_chart import bands, metric_chart, metric_rows, time_domain
from coach.dashboard.player import REVIEW_FRAME
from coach.dashboard.player.ghost import POINTS, Poses, ghost, shot_poses
from coach.dashboard.player.model import frame_of_time, jump_targets, session_ticks
from coach.landmarks import LEFT_SHOULDER, RIGHT_SHOULDER
from coach.pose_frame import load_posetrack
from coach.store import Store
from posture_rules.pack import load_pack
from tests.support.dashboard import app, dashboard_at
from tests.support.player import GOLDEN, record_track

PACK = load_pack()


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("player_app")
    with dashboard_at(tmp) as settings:
        sessions = {
            c: record_track(settings.db, settings.media, f"射手 {c}", c) for c in ("fault_release", "fault_elbow")
        }
        yield settings, sessions


def player_data(at: AppTest) -> tuple[str, dict]:
    (el,) = at.get("bidi_component")
    return el.proto.id, json.loads(el.proto.json)


# ---- what the player is told -----------------------------------------------------------------------------
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_ticks_and_jumps_are_the_stored_marks_and_faults(env, lang):
    _, sessions = env
    _, shots = sessions["fault_release"]
    ticks, spans = session_ticks([sh.to_json() for sh in shots], PACK, lang)
    for sh in shots:
        mine = {(k.kind, k.frame) for k in ticks if k.shot == sh.index}
        for field, kind in (
            ("anchor_frame", "anchor"),
            ("release_frame", "release"),
            ("draw_start_frame", "draw_start"),
        ):
            if getattr(sh.result, field) is not None:
                assert (kind, getattr(sh.result, field)) in mine
        faults = sh.result.faults
        assert len([k for k in ticks if k.shot == sh.index and k.kind == "fault"]) == len(faults)
    assert len(spans) == len(shots)
    assert all(s.start <= sh.result.release_frame <= s.end for s, sh in zip(spans, shots))
    jumps = jump_targets(ticks)
    assert [(j.shot, j.frame) for j in jumps] == sorted((j.shot, j.frame) for j in jumps)
    assert all(f"#{j.frame}" in j.label for j in jumps)


def test_a_timeline_band_lands_on_its_own_first_frame(env):
    _, sessions = env
    _, shots = sessions["fault_elbow"]
    fps = 30.0
    rows = timeline_rows([sh.to_json() for sh in shots], fps, PACK, "en")
    marks = {
        m
        for sh in shots
        for m in (sh.result.raise_start_frame, sh.result.draw_start_frame, sh.result.anchor_frame)
        if m
    }
    starts = {frame_of_time(r["start_s"], fps) for r in rows}
    assert marks <= starts  # every phase band starts on its mark's exact frame
    assert all(frame_of_time(k / 29.97, 29.97) == k for k in range(0, 5000, 7))


# ---- Compare's metric chart ------------------------------------------------------------------------------
def test_metric_chart_puts_the_release_at_zero_inside_the_axis(env):
    settings, sessions = env
    _, shots_a = sessions["fault_release"]
    _, shots_b = sessions["fault_elbow"]
    with Store.open(settings.db) as store:
        sa, sb = store.series(shots_a[0].id), store.series(shots_b[0].id)
    rows = metric_rows([("A", sa, shots_a[0].to_json(), 30.0), ("B", sb, shots_b[0].to_json(), 30.0)])
    for name, series, shot in (("A", sa, shots_a[0]), ("B", sb, shots_b[0])):
        frames = series.frames()
        k = int(np.where(frames == shot.result.release_frame)[0][0])
        m = series.names[0]
        at_zero = [r for r in rows if r["shot"] == name and r["metric"] == m and r["t"] == 0.0]
        value = float(series.data[0, k]) - series.offsets.get(m, 0.0)
        assert at_zero and at_zero[0]["value"] == pytest.approx(value, abs=1e-5)
    lo, hi = time_domain(rows)
    assert lo < 0 < hi and hi >= 0.5
    # a series that stops before its release still shows the release on the axis
    late = dict(shots_a[0].to_json(), release_frame=int(sa.frames()[-1]) + 30)
    cut = metric_rows([("A", sa, late, 30.0)])
    assert max(r["t"] for r in cut) < 0 and time_domain(cut)[1] >= 0.5


def test_metric_chart_has_a_panel_per_metric_with_its_fine_range(env):
    settings, sessions = env
    _, shots = sessions["fault_release"]
    with Store.open(settings.db) as store:
        series = store.series(shots[0].id)
    chosen = ["draw_elbow_elevation", "bow_elbow_angle", "draw_hand_to_chin"]
    rows = metric_rows([("A", series, shots[0].to_json(), 30.0)], chosen)
    band_of = bands(PACK, [shots[0].to_json()], chosen)
    stored = next(f.threshold for f in shots[0].result.findings if f.rule == "cup_of_water")
    assert (band_of["draw_elbow_elevation"].lo, band_of["draw_elbow_elevation"].hi) == (
        stored.get("below"),
        stored.get("above"),
    )
    spec = metric_chart(rows, band_of, str, "zh").to_dict()
    panels = spec["vconcat"]
    assert sorted(p["title"] for p in panels) == sorted(chosen)
    for p in panels:
        marks = [layer["mark"]["type"] if isinstance(layer["mark"], dict) else layer["mark"] for layer in p["layer"]]
        assert marks == ["rect", "line", "rule"]


# ---- the ghost -----------------------------------------------------------------------------------------
def track_poses(clip: str) -> Poses:
    track = load_posetrack(GOLDEN / f"{clip}.pose.json.gz")
    xy, vis, _ = track.xy_vis()
    by = {i: np.column_stack([xy[i], vis[i]]) for i in range(len(track.frames)) if np.isfinite(xy[i]).all()}
    return Poses(by, (track.width, track.height), True)


def test_the_ghost_puts_shot_b_shoulders_on_shot_a(env):
    _, sessions = env
    a, b = track_poses("fault_release"), track_poses("fault_elbow")
    sa, sb = sessions["fault_release"][1][0].result.release_frame, sessions["fault_elbow"][1][0].result.release_frame
    g = ghost(a, b, sa, sb, 30.0, 30.0)
    assert g.dense
    at = next(f for f in g.frames if f["frame"] == sa)
    w, h = a.size
    ls, rs = POINTS.index(LEFT_SHOULDER), POINTS.index(RIGHT_SHOULDER)
    pa = a.by_frame[sa]
    ghost_px = np.array([[at["points"][k][0] * w, at["points"][k][1] * h] for k in (ls, rs)])
    want = pa[[LEFT_SHOULDER, RIGHT_SHOULDER], :2]
    assert np.allclose(ghost_px.mean(0), want.mean(0), atol=1.0)  # midpoints meet (to the rounding)
    assert np.hypot(*(ghost_px[0] - ghost_px[1])) == pytest.approx(np.hypot(*(want[0] - want[1])), rel=0.01)
    # B's pose itself, not A's: its elbow differs from A's
    eb = POINTS.index(13)
    assert not np.allclose(at["points"][eb], pa[13, :2] / [w, h], atol=1e-3)


def test_the_ghost_poses_come_from_the_kept_track_else_the_key_frames(env, monkeypatch):
    from coach.store import Store as StoreClass

    settings, sessions = env
    sid, shots = sessions["fault_release"]
    with Store.open(settings.db) as store:
        kept = shot_poses(store, sid, store.session(sid), shots[0])
        monkeypatch.setattr(StoreClass, "pose_track", lambda self, s: None, raising=False)  # an older session
        keys = shot_poses(store, sid, store.session(sid), shots[0])
    assert kept is not None and kept.dense
    assert all(f in kept.by_frame for f in range(shots[0].result.raise_start_frame, shots[0].result.end_frame + 1))
    assert keys is not None and not keys.dense
    assert set(keys.by_frame) == {shots[0].result.release_frame, *keys.by_frame} and len(keys.by_frame) == 2
    # the same pose either way at the release (the key frame keeps the analysed pose; the track is quantised)
    rel = shots[0].result.release_frame
    assert np.allclose(kept.by_frame[rel][[11, 12], :2], keys.by_frame[rel][[11, 12], :2], atol=1.0)


# ---- the pages under AppTest -----------------------------------------------------------------------------
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_review_player_frame_reaches_session_state_and_jumps_reach_the_player(env, lang):
    _, sessions = env
    sid, shots = sessions["fault_elbow"]  # the latest session: the review opens on it
    at = app(lang=lang).run()
    assert not at.exception, [e.value for e in at.exception]
    _, data = player_data(at)
    (clip,) = data["clips"]
    assert clip["url"].endswith(".mp4") and clip["n_frames"] == len(
        load_posetrack(GOLDEN / "fault_elbow.pose.json.gz").frames
    )
    assert {tk["frame"] for tk in clip["ticks"] if tk["kind"] == "release"} == {s.result.release_frame for s in shots}
    assert at.session_state[REVIEW_FRAME] == 0

    # the browser reports the frame it rests on (setStateValue("frame", …))
    at.session_state[f"player_{sid}"] = {"frame": 42}
    at.run()
    assert not at.exception
    assert at.session_state[REVIEW_FRAME] == 42

    # "jump to" shot 2's release: the player is asked to land there, once; the menu is blank again
    menu = at.selectbox(key=f"player_{sid}.jump.{lang}")
    want = f"#{shots[1].result.release_frame}"
    k = next(i for i, s in enumerate(menu.options) if s.endswith(want))
    menu.set_value(k).run()
    assert not at.exception
    _, data = player_data(at)
    assert data["seek"]["frame"] == shots[1].result.release_frame
    n = data["seek"]["n"]
    assert at.selectbox(key=f"player_{sid}.jump.{lang}").value == 0
    at.run()
    assert player_data(at)[1]["seek"]["n"] == n  # a rerun does not jump again


def test_compare_synchronises_the_two_clips_at_the_chosen_mark(env):
    _, sessions = env
    (_, shots_a), (_, shots_b) = sessions["fault_release"], sessions["fault_elbow"]
    at = app("compare").run()
    assert not at.exception, [e.value for e in at.exception]
    _, data = player_data(at)
    a, b = data["clips"]
    assert a["sync"] == shots_a[0].result.release_frame and b["sync"] == shots_a[1].result.release_frame
    assert data["ghost"] and data["ghost"]["frames"]
    at.radio(key="cmp_sync.en").set_value("anchor_frame").run()
    assert not at.exception
    _, data = player_data(at)
    assert [c["sync"] for c in data["clips"]] == [shots_a[0].result.anchor_frame, shots_a[1].result.anchor_frame]
    assert data["seek"]["frame"] == shots_a[0].result.anchor_frame
    assert sum(o.startswith("#2 ") for o in at.selectbox(key="cmp_b.en").options) == len(shots_b)


def test_the_kept_track_skeleton_covers_the_shots_over_the_original_video(env, monkeypatch):
    """A session with only its original video: the player draws the skeleton from the kept pose track (the
    track's own points, over the shots' frames), and the toggle turns it off."""
    from coach.store import Store as StoreClass

    settings, _ = env
    sid, shots = record_track(settings.db, settings.media, "原片射手", "fault_hold", annotated=False)
    track = load_posetrack(GOLDEN / "fault_hold.pose.json.gz")
    monkeypatch.setattr(StoreClass, "pose_track", lambda self, s: track if s == sid else None, raising=False)
    at = app().run()  # the latest session: this one
    assert not at.exception, [e.value for e in at.exception]
    _, data = player_data(at)
    frames = data["skeleton"]["frames"]
    by = {f["frame"]: f for f in frames}
    rel = shots[0].result.release_frame
    lm = track.frames[rel].landmarks
    ls = POINTS.index(LEFT_SHOULDER)
    assert by[rel]["points"][ls] == pytest.approx([lm[LEFT_SHOULDER, 0], lm[LEFT_SHOULDER, 1]], abs=1e-4)
    assert min(by) >= shots[0].result.raise_start_frame - 30 and max(by) <= shots[-1].result.end_frame + 30
    at.toggle(key=f"skeleton_{sid}").set_value(False).run()
    assert player_data(at)[1]["skeleton"] is None
