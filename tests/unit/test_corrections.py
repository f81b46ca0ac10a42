"""The coach corrects the machine (issue 14): the kept pose track, re-judging from it, corrections recorded in
the store, `coach correct`, `coach labels export` and `coach eval` — all on real pose tracks (real archers in
../shared/realpose, the committed synthetic three-shot track)."""

from __future__ import annotations

import json
import re
import sqlite3
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from coach.cli import main
from coach.corrections import Correction, apply_correction
from coach.kept_track import decode, encode_track
from coach.pipeline import analyze_track
from coach.pose_frame import load_posetrack
from coach.store import Store, TrendRow
from posture_rules.pack import Profile
from tests.support.paths import ROOT

REALPOSE = ROOT.parent / "shared" / "realpose"
THREE_SHOTS = ROOT / "tests" / "golden" / "clean_rh_3shots.pose.json.gz"
real = pytest.mark.skipif(not REALPOSE.is_dir(), reason=f"{REALPOSE} not found")


def _clip(name: str) -> tuple[Path, dict]:
    labels = json.loads((REALPOSE / f"{name}.labels.json").read_text(encoding="utf-8"))
    return REALPOSE / labels["pose_track"], labels


def _analyse_into(db: Path, track: Path, archer: str = "王小明", hand: str = "right") -> int:
    assert main(["analyze", "--pose-track", str(track), "--archer", archer, "--handedness", hand, "--db", str(db)]) == 0
    with Store.open(db) as s:
        return max(r.id for r in s.sessions())


def _rows(db: Path) -> dict[str, list]:
    """Every row of every table, for "nothing else changed"."""
    c = sqlite3.connect(db)
    try:
        tables = [r[0] for r in c.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return {t: c.execute(f"SELECT * FROM {t} ORDER BY 1").fetchall() for t in tables}
    finally:
        c.close()


# ---- the kept track ---------------------------------------------------------------------------------------
@real
def test_kept_track_is_the_pose_track_file_and_analyses_the_same() -> None:
    track = load_posetrack(REALPOSE / "real01_compound_front_oblique.pose.json")
    blob = encode_track(track)
    back = decode(blob)
    assert len(blob) < 400 * len(track.frames)  # compressed: the JSON is ~1800 bytes a frame
    assert [f.index for f in back.frames] == [f.index for f in track.frames]
    for a, b in zip(track.frames, back.frames):
        assert (a.landmarks is None) == (b.landmarks is None)
        if a.landmarks is not None:
            assert np.array_equal(np.round(a.landmarks, 5), b.landmarks)
    prof = Profile(handedness="right")
    assert analyze_track(back, profile=prof).to_json() == analyze_track(track, profile=prof).to_json()


@real
def test_a_recorded_analysis_keeps_its_track(tmp_path: Path) -> None:
    track, _ = _clip("real03_recurve_front_bystanders")
    sid = _analyse_into(tmp_path / "c.db", track)
    with Store.open(tmp_path / "c.db") as s:
        kept = s.pose_track(sid)
    assert kept is not None and len(kept.frames) == len(load_posetrack(track).frames)


def test_an_older_store_is_migrated_and_its_sessions_say_they_cannot_be_corrected(tmp_path: Path, capsys) -> None:
    db = tmp_path / "old.db"
    with Store.open(db) as s:
        archer = s.ensure_archer("老")
        s.conn.execute("DROP TABLE corrections")
        s.conn.execute("DROP TABLE pose_tracks")
        s.conn.execute("PRAGMA user_version = 2")
        from posture_rules.pack import load_pack

        sid = s.begin_session(archer, "old.mp4", "sha256:x", load_pack(), {})
    with Store.open(db) as s:
        assert s.schema_version == 3 and not s.has_pose_track(sid)
    capsys.readouterr()
    rc = main(["correct", str(sid), "--shot", "1", "--release", "5", "--db", str(db)])
    assert rc == 3 and "has no kept pose track" in capsys.readouterr().err


# ---- re-judging ---------------------------------------------------------------------------------------------
def _assert_rejudged_as_analysed(track, handedness: str) -> None:
    from coach.rejudge import Marks, SessionTrack, judge_marks
    from posture_rules.pack import load_pack

    prof = Profile(handedness=handedness)
    report = analyze_track(track, profile=prof)
    st = SessionTrack(track, report.handedness, report.view, prof.apply(load_pack()))
    assert report.shots
    for s in report.shots:
        m = Marks(s.raise_start_frame, s.draw_start_frame, s.anchor_frame, s.release_frame, s.end_frame)
        j = judge_marks(
            st, m, s.index, marks_confidence=s.marks_confidence, release_confidence=s.release_confidence, like=s
        )
        assert [f.to_json() for f in j.shot.findings] == [f.to_json() for f in s.findings], f"shot {s.index}"
        assert j.shot.times_s == s.times_s


@real
@pytest.mark.parametrize("name", ["real01_compound_front_oblique", "real07_recurve_faceon_close_longhold"])
def test_rejudging_the_machines_own_marks_gives_its_own_verdicts(name: str) -> None:
    path, labels = _clip(name)
    _assert_rejudged_as_analysed(load_posetrack(path), labels["handedness"])


@pytest.mark.parametrize(("name", "arrives_at"), [("clean_rh_3shots", 0), ("fault_elbow", 3), ("fault_elbow", 5)])
def test_rejudging_gives_the_analysis_own_values_whatever_came_before_the_shot(name: str, arrives_at: int) -> None:
    """The same to the last digit, every rule of every shot: where the archer came into the picture at a frame
    number that is no multiple of the shoulder width's refresh (the re-judged shots were measured in units a
    step apart: 18 of the golden tracks' 38 shots, fault_elbow's second and third among them), and where the pose
    read no shoulders for a while in the seconds before a shot (clean_rh_3shots' second follow-through: shot 3's
    setup read ding_ba_spread 1.238, re-judged 1.234)."""
    from coach.pose_frame import PoseFrame

    track = load_posetrack(ROOT / "tests" / "golden" / f"{name}.pose.json.gz")
    frames = [PoseFrame(f.index, f.t_ms, None, None) if f.index < arrives_at else f for f in track.frames]
    _assert_rejudged_as_analysed(replace(track, frames=frames), "right")


def test_a_rejudged_shot_keeps_its_anchors_range_while_the_anchor_stays() -> None:
    """fault_bow_hand at 480p, shot 2: the span reached the hold's 17 frames before the arms came to rest, and the
    hold time's 0.8 s floor lies between the two, so it is not judged. Re-judged on the same marks (a coach who
    moved nothing, or only the release) it stays so; with the anchor placed by the coach, it is judged."""
    from coach.rejudge import Marks, SessionTrack, judge_marks
    from coach.summary import format_report
    from posture_rules.pack import load_pack

    track = load_posetrack(ROOT / "tests/golden/metamorphic/fault_bow_hand-480p.pose.json.gz")
    report = analyze_track(track)
    st = SessionTrack(track, report.handedness, report.view, load_pack())
    s = report.shots[1]
    hold = next(f for f in s.findings if f.rule == "stillness_hold_time")
    assert s.anchor_from_frame is not None and hold.reason == "phase uncertain: anchor", (s.anchor_from_frame, hold)
    said = f"Full draw reached between frames {s.anchor_from_frame} and {s.anchor_frame} · 於第"
    assert said in format_report(report, load_pack())  # the terminal says why the hold time is not judged
    conf = {"marks_confidence": s.marks_confidence, "release_confidence": s.release_confidence, "like": s}
    same = Marks(s.raise_start_frame, s.draw_start_frame, s.anchor_frame, s.release_frame, s.end_frame)
    j = judge_marks(st, same, s.index, **conf)
    assert [f.to_json() for f in j.shot.findings] == [f.to_json() for f in s.findings]
    assert j.shot.anchor_from_frame == s.anchor_from_frame
    placed = Marks(s.raise_start_frame, s.draw_start_frame, s.anchor_from_frame, s.release_frame, s.end_frame)
    j = judge_marks(st, placed, s.index, **conf)
    assert j.shot.anchor_from_frame is None
    assert next(f for f in j.shot.findings if f.rule == "stillness_hold_time").verdict == "pass"


# ---- a missed release, corrected, exported and scored --------------------------------------------------------
@real
def test_a_missed_release_corrected_becomes_a_labelled_clip(tmp_path: Path, capsys) -> None:
    """real04: seen from behind, the tracker finds no shot. The coach adds it by its release (and places the
    other marks); the export carries the hand labels' marks, and `coach eval` on it scores the current tracker
    exactly as the real-footage benchmark scores it on the hand-labelled original: the release is now counted,
    as a miss, in the club's own benchmark."""
    from coach.labels import evaluate_folder

    name = "real04_recurve_behind_oblique"
    path, labels = _clip(name)
    want = labels["shots"][0]
    db = tmp_path / "club.db"
    sid = _analyse_into(db, path)
    with Store.open(db) as s:
        assert s.shots(sid) == []
    capsys.readouterr()
    rc = main(
        ["correct", str(sid), "--add-shot", "--release", str(want["release_frame"]), "--anchor"]
        + [
            str(want["anchor_frame"]),
            "--draw-start",
            str(want["draw_start"]),
            "--raise-start",
            str(want["raise_start"]),
        ]
        + ["--by", "李教練", "--db", str(db)]
    )
    out = capsys.readouterr().out
    assert rc == 0 and "shot added" in out and "李教練" in out
    with Store.open(db) as s:
        (shot,) = s.shots(sid)
        assert shot.result.corrected["by"] == "李教練" and shot.result.release_source == "coach"
        assert {f.verdict for f in shot.result.findings} & {"pass", "fault"}  # judged, on the coach's marks
    # the reports and the terminal say who corrected which shot
    html, pdf = tmp_path / "r.html", tmp_path / "r.pdf"
    assert main(["report", str(sid), "--format", "html", "--out", str(html), "--db", str(db)]) == 0
    assert main(["report", str(sid), "--format", "pdf", "--out", str(pdf), "--db", str(db)]) == 0
    assert "added by 李教練" in html.read_text(encoding="utf-8") and pdf.stat().st_size > 0
    capsys.readouterr()
    assert main(["show", str(sid), "--db", str(db)]) == 0
    assert "added by 李教練 (the machine missed it) 由李教練補記" in capsys.readouterr().out
    assert main(["labels", "export", str(sid), "--out", str(tmp_path / "bench"), "--db", str(db)]) == 0
    (exported,) = (tmp_path / "bench").glob("*.labels.json")
    doc = json.loads(exported.read_text(encoding="utf-8"))
    assert doc["schema"] == "coach.labels/1" and doc["n_shots"] == 1
    got = doc["shots"][0]
    assert {k: got[k] for k in ("raise_start", "draw_start", "anchor_frame", "release_frame")} == {
        k: want[k] for k in ("raise_start", "draw_start", "anchor_frame", "release_frame")
    }
    capsys.readouterr()
    assert main(["eval", str(tmp_path / "bench")]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith(exported.name[: -len(".labels.json")]))
    _, ours, _ = evaluate_folder(tmp_path / "bench")
    _, theirs, _ = evaluate_folder(_only(tmp_path / "orig", name))
    assert ours[0].shots[0].want_release == want["release_frame"]
    assert line.split(":", 1)[1] == theirs[0].line().split(":", 1)[1]


@real
def test_a_late_anchor_corrected_is_scored_against_the_coach(tmp_path: Path, capsys) -> None:
    """real01: the tracker's anchor is 74 frames late (the archer's long aim); the coach moves it to the
    labelled frame. `coach eval` on the export reports the release correct and the anchor 74 frames off."""
    path, labels = _clip("real01_compound_front_oblique")
    want = labels["shots"][0]
    db = tmp_path / "club.db"
    sid = _analyse_into(db, path)
    with Store.open(db) as s:
        before = s.shots(sid)[0]
    assert main(["correct", str(sid), "--shot", "1", "--anchor", str(want["anchor_frame"]), "--db", str(db)]) == 0
    html = tmp_path / "r.html"
    assert main(["report", str(sid), "--format", "html", "--out", str(html), "--db", str(db)]) == 0
    text = html.read_text(encoding="utf-8")
    assert f"corrected by coach 由coach校正: anchor 靠位 {before.result.anchor_frame} → {want['anchor_frame']}" in text
    csv_out = tmp_path / "r.csv"
    assert main(["report", str(sid), "--format", "csv", "--out", str(csv_out), "--db", str(db)]) == 0
    import csv

    rows = list(csv.DictReader(csv_out.read_text(encoding="utf-8-sig").splitlines()))
    assert rows and {r["corrected_by"] for r in rows} == {"coach"}
    with Store.open(db) as s:
        (c,) = s.corrections(sid)
        assert c.marks == [{"mark": "anchor", "before": before.result.anchor_frame, "after": want["anchor_frame"]}]
        assert c.before["findings"] == before.to_json()["findings"]  # the machine's verdicts are kept
    assert main(["labels", "export", str(sid), "--out", str(tmp_path / "bench"), "--db", str(db)]) == 0
    capsys.readouterr()
    assert main(["eval", str(tmp_path / "bench")]) == 0
    out = capsys.readouterr().out
    assert "releases within ±2: 1/1" in out
    assert f"anchor error [{before.result.anchor_frame - want['anchor_frame']}]" in out


def _only(folder: Path, name: str) -> Path:
    """A folder holding just one clip of ../shared/realpose (its labels and track)."""
    folder.mkdir()
    for p in REALPOSE.glob(f"{name}.*"):
        (folder / p.name).symlink_to(p)
    return folder


# ---- delete, add, let down: nothing else changes, the trends follow ---------------------------------------
@pytest.fixture()
def three_shots(tmp_path: Path) -> tuple[Path, int, int]:
    """A store with two sessions of one archer: the synthetic three-shot clip twice (as two sources)."""
    from coach.pose_frame import save_posetrack

    db = tmp_path / "c.db"
    a = _analyse_into(db, THREE_SHOTS, "張三")
    other = tmp_path / "again.pose.json"  # the same frames in another file: a session of its own
    save_posetrack(load_posetrack(THREE_SHOTS), other)
    b = _analyse_into(db, other, "張三")
    assert a != b
    with Store.open(db) as s:
        assert len(s.shots(a)) == 3 and len(s.shots(b)) == 3
    return db, a, b


def _others(rows: dict[str, list], sid: int, shot_ids: set[int]) -> dict[str, list]:
    """The rows that belong to neither the corrected session nor its shots."""
    keep = {}
    for t, rs in rows.items():
        if t == "sessions":
            keep[t] = [r for r in rs if r[0] != sid]
        elif t in ("shots", "findings", "annotations", "corrections", "pose_tracks"):
            keep[t] = [r for r in rs if r[1] != sid]
        elif t in ("series", "key_frames"):
            keep[t] = [r for r in rs if (r[0] if t == "series" else r[1]) not in shot_ids]
        else:
            keep[t] = rs
    return keep


def _shot_ids(db: Path, sid: int) -> set[int]:
    with Store.open(db) as s:
        return {sh.id for sh in s.shots(sid)}


def _trend(db: Path, sid: int) -> TrendRow:
    with Store.open(db) as s:
        archer = s.session(sid).archer_id
        return next(r for r in s.trend_rows(archer) if r.id == sid)


def test_delete_a_shot(three_shots) -> None:
    db, a, b = three_shots
    main(["annotate", str(a), "--shot", "3", "--comment", "好", "--by", "李", "--db", str(db)])
    ids = _shot_ids(db, a)
    before = _rows(db)
    with Store.open(db) as s:
        shots0 = s.shots(a)
        r = apply_correction(s, Correction(a, 1, "delete", {}, "李教練"))
        shots1 = s.shots(a)
        notes = s.annotations(a)
        (c,) = s.corrections(a)
    assert r.shot is None and len(r.shots) == 2
    assert [x.result.release_frame for x in shots1] == [shots0[0].result.release_frame, shots0[2].result.release_frame]
    assert [x.index for x in shots1] == [0, 1]
    assert [x.result.findings for x in shots1] == [shots0[0].result.findings, shots0[2].result.findings]
    assert notes[0].shot == 1  # the comment on the third shot follows it
    assert c.action == "delete" and c.before["release_frame"] == shots0[1].result.release_frame
    assert _others(_rows(db), a, ids) == _others(before, a, ids)
    t = _trend(db, a)
    assert t.shots == 2
    assert sum(v["fault"] + v["pass"] + v["not_assessable"] + v["dismissed"] for v in t.rules.values()) == sum(
        len(x.result.findings) for x in shots1
    )


def test_add_a_shot_finds_its_marks_with_the_trackers_code(three_shots) -> None:
    """The second shot deleted, then added back by its release alone: the tracker's look-back and anchor code
    find its marks again, and the session is three shots as before."""
    db, a, _ = three_shots
    with Store.open(db) as s:
        machine = s.shots(a)[1]
        apply_correction(s, Correction(a, 1, "delete", {}, "李"))
        ids = {sh.id for sh in s.shots(a)}
    before = _rows(db)
    with Store.open(db) as s:
        r = apply_correction(s, Correction(a, None, "add", {"release": machine.result.release_frame}, "李"))
        shots = s.shots(a)
    assert r.shot is not None and r.shot.index == 1 and len(shots) == 3
    added = shots[1]
    assert added.result.release_frame == machine.result.release_frame and added.result.corrected["action"] == "add"
    assert abs(added.result.anchor_frame - machine.result.anchor_frame) <= 3
    assert abs(added.result.draw_start_frame - machine.result.draw_start_frame) <= 5
    assert {f.verdict for f in added.result.findings} & {"pass", "fault"}
    rows = _rows(db)
    assert _others(rows, a, ids | {added.id}) == _others(before, a, ids)
    assert _trend(db, a).shots == 3


def test_let_down(three_shots) -> None:
    db, a, _ = three_shots
    ids = _shot_ids(db, a)
    before = _rows(db)
    with Store.open(db) as s:
        shots0 = s.shots(a)
        r = apply_correction(s, Correction(a, 2, "let_down", {}, "李"))
        report = s.session(a).report
    assert r.shot is None and len(r.shots) == 2
    assert any(re.match(r"^frames \d+–\d+ .*a let-down.*marked by 李", n) for n in report["notes"])
    assert [s["release_frame"] for s in report["shots"]] == [x.result.release_frame for x in shots0[:2]]
    assert _others(_rows(db), a, ids) == _others(before, a, ids)
    assert _trend(db, a).shots == 2


def test_moving_a_release_rejudges_the_shot_and_the_session(three_shots) -> None:
    db, a, _ = three_shots
    with Store.open(db) as s:
        shots0 = s.shots(a)
        rel = shots0[0].result.release_frame + 6
        r = apply_correction(s, Correction(a, 0, "move", {"release": rel}, "李教練"))
        shot = s.shots(a)[0]
        session = s.session(a)
    assert (
        shot.result.release_frame == rel
        and shot.result.corrected["machine"]["release"] == shots0[0].result.release_frame
    )
    assert shot.result.times_s["hold_s"] > shots0[0].result.times_s["hold_s"]
    t = shot.result.times_s
    assert shot.result.measures["hold_time"] == pytest.approx(t["release_at"] - t["anchor_at"], abs=1e-3)
    with Store.open(db) as s:
        # a shot whose release is uncertain (clean_rh_3shots' second: MediaPipe folds its hold) has no hold time
        holds = [h for x in s.shots(a) if (h := x.result.measures["hold_time"]) is not None]
    assert len(holds) >= 2
    assert session.report["consistency"]["measures"]["hold_time_mean"] == pytest.approx(np.mean(holds), abs=1e-3)
    assert [f.rule for f in r.consistency] == [f["rule"] for f in session.report["consistency"]["findings"]]


# ---- one-line errors -----------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "argv, says",
    [
        (["correct", "99", "--shot", "1", "--release", "5"], "has no session 99"),
        (["correct", "{a}", "--shot", "7", "--release", "5"], "has no shot 7"),
        (["correct", "{a}", "--shot", "1", "--release", "99999"], "outside the video"),
        (["correct", "{a}", "--shot", "1", "--release", "-4"], "outside the video"),
        (["correct", "{a}", "--shot", "1", "--anchor", "1"], "must come before"),
        (["correct", "{a}", "--release", "5"], "give --shot N"),
        (["correct", "{a}", "--add-shot"], "--add-shot needs --release"),
        (["correct", "{a}", "--shot", "1"], "give the marks to move"),
        (["correct", "{a}", "--shot", "1", "--delete-shot", "--release", "5"], "takes no marks"),
        (["labels", "export", "{a}", "--out", "{tmp}/x"], "has no corrections"),
        (["eval", "{tmp}/nothing"], "is not a folder"),
    ],
)
def test_one_line_errors(three_shots, tmp_path: Path, capsys, argv: list[str], says: str) -> None:
    db, a, _ = three_shots
    capsys.readouterr()
    argv = [x.format(a=a, tmp=tmp_path) for x in argv]
    rc = main(argv + (["--db", str(db)] if argv[0] != "eval" else []))
    err = capsys.readouterr().err
    assert rc == 3, err
    assert says in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_a_release_inside_another_shot_is_refused(three_shots, capsys) -> None:
    db, a, _ = three_shots
    with Store.open(db) as s:
        inside = s.shots(a)[1].result.anchor_frame + 3
    rows = _rows(db)
    assert main(["correct", str(a), "--add-shot", "--release", str(inside), "--db", str(db)]) == 3
    assert "is inside shot 2" in capsys.readouterr().err
    assert _rows(db) == rows  # nothing written


# ---- a recorded video: key frames follow the moved marks ----------------------------------------------------
def test_key_frames_follow_a_moved_release(tmp_path: Path) -> None:
    """A video analysed into the store (the model runs once); its release moved: the release key frame is read
    again from the video at the new frame, with the skeleton re-judged there."""
    clip = ROOT / "sample_videos" / "short_1shot.mp4"
    if not clip.is_file():
        pytest.skip(f"{clip} is missing")
    db = tmp_path / "v.db"
    assert main(["analyze", str(clip), "--archer", "王", "--db", str(db)]) == 0
    with Store.open(db) as s:
        sid = s.sessions()[0].id
        shot = s.shots(sid)[0]
        assert s.pose_track(sid) is not None  # kept from the model's own run
        old = {k.kind: k.frame for k in s.key_frames(shot.id)}
        rel = shot.result.release_frame + 4
        apply_correction(s, Correction(sid, 0, "move", {"release": rel}, "李"))
        now = {k.kind: k for k in s.key_frames(s.shots(sid)[0].id)}
    assert old["release"] == shot.result.release_frame and now["release"].frame == rel
    assert now["release"].landmarks.shape == (33, 3)
    # found by its time, the same image as decoding the video from its start to that frame
    from coach.store import VideoFrameGrabber, encode_thumbnail

    g = VideoFrameGrabber(clip)
    try:
        img = g.grab([rel])[rel]
    finally:
        g.close()
    assert now["release"].jpeg == encode_thumbnail(img, img.shape[1])[0]
    assert now["full_draw"].frame == (shot.result.anchor_frame + rel) // 2
