"""Live coaching building blocks: mailbox, real-rate feeder, lost camera, camera check, feedback, replay, view."""

from __future__ import annotations

import fractions
import threading
import time

import numpy as np
import pytest

from coach.capture import Frame, FrameSource
from coach.errors import CoachError
from coach.landmarks import INDEX, N_LANDMARKS
from coach.live.check import FAIL, OK, WARN, assess, light_stats, rules_for_view
from coach.live.feedback import TONES, Announcer, tone
from coach.live.feeder import Feeder
from coach.live.mailbox import Closed, Mailbox
from coach.live.printer import ShotPrinter
from coach.live.replay import FrameRing, ReplayPlayer
from coach.pose_frame import PoseFrame
from coach.results import FAULT, Finding, FrameResult, ShotResult
from posture_rules.pack import load_pack


# ---- mailbox ------------------------------------------------------------------------------------------------
def test_mailbox_keeps_only_the_newest_and_counts_the_dropped():
    box: Mailbox[int] = Mailbox()
    assert box.put(1) is False
    assert box.put(2) is True  # 1 was never taken: dropped
    assert box.put(3) is True
    assert box.get(timeout=0) == 3
    assert box.get(timeout=0.01) is None  # nothing new
    box.put(4)
    assert box.discard() is True
    assert (box.posted, box.taken, box.dropped) == (4, 1, 3)


def test_mailbox_close_hands_out_the_last_item_then_raises():
    box: Mailbox[str] = Mailbox()
    box.put("last")
    box.close()
    with pytest.raises(Closed):
        box.put("late")
    assert box.get() == "last"
    with pytest.raises(Closed):
        box.get(timeout=1)


def test_mailbox_wait_taken_returns_when_the_reader_takes_the_item():
    box: Mailbox[int] = Mailbox()
    assert box.wait_taken(timeout=0) is True  # nothing waiting
    box.put(1)
    assert box.wait_taken(timeout=0.01) is False
    threading.Timer(0.05, box.get).start()
    t0 = time.monotonic()
    assert box.wait_taken(timeout=30) is True
    assert time.monotonic() - t0 < 29 and (box.taken, box.dropped) == (1, 0)


def test_mailbox_wakes_a_waiting_reader():
    box: Mailbox[int] = Mailbox()
    threading.Timer(0.05, box.put, args=(7,)).start()
    t0 = time.monotonic()
    assert box.get(timeout=2) == 7
    assert time.monotonic() - t0 < 1.0


# ---- feeder ---------------------------------------------------------------------------------------------------
VFR_TIMES = [0, 50, 100, 200, 250, 400, 450, 500, 700, 750]


def _write_vfr(path, times_ms, size=(64, 48)):
    """An H.264 MP4 with exactly these frame times (variable frame rate), as phones record."""
    import av

    w, h = size
    with av.open(str(path), "w") as c:
        s = c.add_stream("libx264", rate=20)
        s.width, s.height, s.pix_fmt = w, h, "yuv420p"
        s.time_base = s.codec_context.time_base = fractions.Fraction(1, 1000)
        for i, t in enumerate(times_ms):
            f = av.VideoFrame.from_ndarray(np.full((h, w, 3), 10 * i, np.uint8), format="bgr24")
            f.pts, f.time_base = t, fractions.Fraction(1, 1000)
            for p in s.encode(f):
                c.mux(p)
        for p in s.encode():
            c.mux(p)
    return path


def test_file_is_fed_at_its_real_rate_with_container_timestamps(tmp_path):
    path = _write_vfr(tmp_path / "vfr.mp4", VFR_TIMES)
    box: Mailbox = Mailbox()
    feeder = Feeder(FrameSource(path), box).start()
    got = []
    while True:
        try:
            a = box.get(timeout=3)
        except Closed:
            break
        if a is not None:
            got.append(a)
    feeder.join(2)
    assert [round(a.frame.t_ms) for a in got] == VFR_TIMES  # container time, not index / fps
    assert [a.frame.index for a in got] == list(range(len(VFR_TIMES)))
    assert box.dropped == 0 and feeder.released == len(VFR_TIMES)
    # released against the clock: each frame no earlier than its due time, and not long after
    t0 = got[0].arrived
    for a in got:
        due = a.frame.t_ms / 1000.0
        assert due - 0.005 <= a.arrived - t0 <= due + 0.15, (a.frame.t_ms, a.arrived - t0)
    assert got[-1].arrived - t0 >= 0.74  # 750 ms of video took 750 ms


def _read_all(box: Mailbox, seconds_per_frame) -> list:
    """Take frames from `box` until it closes, spending `seconds_per_frame(n)` on the n-th (from 1), as a model
    would."""
    got = []
    while True:
        try:
            a = box.get(timeout=3)
        except Closed:
            return got
        if a is not None:
            got.append(a)
            time.sleep(seconds_per_frame(len(got)))


def test_a_slow_reader_gets_the_newest_frames_and_the_rest_are_dropped(tmp_path):
    times = [i * 1000 / 30 for i in range(30)]  # one second at 30 fps
    path = _write_vfr(tmp_path / "cfr.mp4", [round(t) for t in times])
    box: Mailbox = Mailbox()
    feeder = Feeder(FrameSource(path), box).start()
    taken = [a.frame.index for a in _read_all(box, lambda n: 0.1)]  # a model that needs 100 ms a frame
    feeder.join(2)
    assert feeder.released == 30
    assert box.taken + box.dropped == 30
    assert 5 <= len(taken) <= 16  # ~10 taken in one second
    assert box.dropped >= 14
    assert taken == sorted(taken) and taken[-1] == 29  # always the newest; the last one is not lost


def test_no_drop_holds_each_frame_until_a_slow_reader_took_the_one_before(tmp_path):
    times = [round(i * 1000 / 30) for i in range(20)]
    path = _write_vfr(tmp_path / "cfr.mp4", times)
    box: Mailbox = Mailbox()
    feeder = Feeder(FrameSource(path), box, no_drop=True).start()
    got = _read_all(box, lambda n: 0.05 if n < 10 else 0.0)  # slower than the video at first, then faster
    feeder.join(2)
    assert [a.frame.index for a in got] == list(range(20)) and box.dropped == 0 and feeder.released == 20
    for prev, a in zip(got, got[1:], strict=False):  # never hurried: each gap at least the video's own
        assert a.arrived - prev.arrived >= (a.frame.t_ms - prev.frame.t_ms) / 1000.0 - 0.005


def test_no_drop_refuses_a_camera():
    box: Mailbox = Mailbox()
    feeder = Feeder(_FakeCamera(3), box, no_drop=True)
    feeder.run()
    assert feeder.error is not None and "video file" in str(feeder.error) and feeder.released == 0
    with pytest.raises(Closed):
        box.get(timeout=0)


class _FakeCamera:
    """A camera that delivers `n` frames, then its read fails."""

    is_camera, is_file = True, False

    def __init__(self, n, source=5):
        self.n, self.source, self.fps, self.width, self.height = n, source, 30.0, 8, 8
        self.closed = False

    def __iter__(self):
        for i in range(self.n):
            yield Frame(i, i * 33.3, np.zeros((8, 8, 3), np.uint8))

    def close(self):
        self.closed = True


def test_a_lost_camera_is_reopened_and_frames_keep_counting():
    opened = [_FakeCamera(4)]
    plan = iter([_FakeCamera(3), CoachError("camera 5", "busy"), _FakeCamera(0)])

    def reopen():
        if not opened[-1].closed and len(opened) == 1:
            return opened[0]
        nxt = next(plan, None)
        if isinstance(nxt, Exception) or nxt is None:
            raise nxt or CoachError("camera 5", "does not exist or cannot be opened")
        opened.append(nxt)
        return nxt

    msgs: list[str] = []
    box: Mailbox = Mailbox()
    feeder = Feeder(reopen, box, retries=3, retry_wait_s=0.01, on_status=msgs.append)
    feeder.run()  # in this thread
    frames = []
    while True:
        try:
            a = box.get(timeout=0)
        except Closed:
            break
        if a is None:
            break
        frames.append(a.frame)
    assert feeder.released == 7  # 4 before the loss, 3 after the reopen
    assert feeder.error is not None and "camera lost" in str(feeder.error)
    assert any("retrying (1/3)" in m for m in msgs) and any("(3/3)" in m for m in msgs)
    assert all("\n" not in m for m in msgs)


def test_reopened_camera_continues_index_and_time():
    sources = iter([_FakeCamera(3), _FakeCamera(3)])
    box: Mailbox = Mailbox()

    def reopen():
        nxt = next(sources, None)
        if nxt is None:
            raise CoachError("camera 5", "does not exist or cannot be opened")
        return nxt

    feeder = Feeder(reopen, box, retries=1, retry_wait_s=0.0)
    out = []
    t = threading.Thread(target=feeder.run)
    t.start()
    while True:
        try:
            a = box.get(timeout=2)
        except Closed:
            break
        if a is not None:
            out.append(a.frame)
            time.sleep(0.001)
    t.join()
    idx = [f.index for f in out]
    ts = [f.t_ms for f in out]
    assert idx == sorted(set(idx)) and ts == sorted(ts)
    assert idx[-1] >= 5  # the second camera's frames came after the first's


def test_missing_camera_index_is_one_line_error(capsys):
    from coach.cli import main

    rc = main(["live", "--source", "97", "--no-window", "--no-sound"])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 3
    assert len(err) == 1 and "camera 97" in err[0] and "does not exist" in err[0]


def test_missing_file_is_one_line_error(capsys, tmp_path):
    from coach.cli import main

    rc = main(["live", "--source", str(tmp_path / "nope.mp4"), "--no-window"])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 3 and len(err) == 1 and "no such file" in err[0]


# ---- camera check -----------------------------------------------------------------------------------------
def _standing(cx=0.5, top=0.15, height=0.7, turned=False, vis=0.95) -> np.ndarray:
    """Normalised landmarks (x, y, z, visibility) of an archer standing ready, on a 16:9 image."""
    lm = np.zeros((N_LANDMARKS, 4))
    lm[:, 3] = vis
    aspect = 16 / 9
    # body proportions in units of the nose-to-ankle height h (y down), x in image-width units
    sw = 0.25 * height / aspect * (0.25 if turned else 1.0)
    pts = {
        "nose": (0, 0.0),
        "left_shoulder": (sw / 2, 0.12),
        "right_shoulder": (-sw / 2, 0.12),
        "left_elbow": (sw / 2 + 0.02, 0.30),
        "right_elbow": (-sw / 2 - 0.02, 0.30),
        "left_wrist": (sw / 2 + 0.02, 0.45),
        "right_wrist": (-sw / 2 - 0.02, 0.45),
        "left_hip": (sw / 3, 0.48),
        "right_hip": (-sw / 3, 0.48),
        "left_knee": (sw / 3, 0.74),
        "right_knee": (-sw / 3, 0.74),
        "left_ankle": (sw / 3, 1.0),
        "right_ankle": (-sw / 3, 1.0),
    }
    for name, (dx, dy) in pts.items():
        lm[INDEX[name], :2] = (cx + dx, top + dy * height)
    for side in ("left", "right"):
        for part, base in (("eye", "nose"), ("ear", "nose"), ("mouth", "nose")):
            key = f"{part}_{side}" if part == "mouth" else f"{side}_{part}"
            lm[INDEX[key], :2] = lm[INDEX[base], :2]
        for part in ("pinky", "index", "thumb"):
            lm[INDEX[f"{side}_{part}"], :2] = lm[INDEX[f"{side}_wrist"], :2]
        for part in ("heel", "foot_index"):
            lm[INDEX[f"{side}_{part}"], :2] = lm[INDEX[f"{side}_ankle"], :2]
    return lm


def _poses(lm, n=10):
    return [PoseFrame(i, i * 33.3, lm.copy(), None) for i in range(n)]


PACK = load_pack()
GOOD_LIGHT = [(120.0, 50.0)]


def test_check_passes_a_good_set_up():
    c = assess(_poses(_standing()), 1280, 720, pack=PACK, light=GOOD_LIGHT)
    assert c.ok and c.status == OK, c.to_json()
    assert c.view == "face-on"
    assert {i.name for i in c.items} == {"framing", "room", "distance", "view", "light"}
    assert "cup_of_water" in c.judgeable
    assert c.to_json()["schema"] == "coach.camera_check/1"


def test_check_feet_cut_off_says_which_part_and_what_to_do():
    c = assess(_poses(_standing(top=0.35, height=0.75)), 1280, 720, pack=PACK, light=GOOD_LIGHT)
    framing = c.item("framing")
    assert not c.ok and framing.status == FAIL
    assert "ankle" in framing.message and "bottom" in framing.message and "step back" in framing.message


def test_check_too_far_and_too_close():
    far = assess(_poses(_standing(top=0.5, height=0.25)), 1280, 720, pack=PACK)
    assert far.item("distance").status in (WARN, FAIL) and "closer" in far.item("distance").message
    near = assess(_poses(_standing(top=0.03, height=0.96)), 1280, 720, pack=PACK)
    assert near.item("distance").status == FAIL and "step back" in near.item("distance").message


def test_check_side_on_view_limits_the_rules():
    c = assess(_poses(_standing(turned=True)), 1280, 720, pack=PACK, light=GOOD_LIGHT)
    assert c.view == "down-line"
    assert c.item("view").status == WARN
    face_on_only = [r.id for r in PACK.rules if r.observable and r.views == ("face-on",)]
    assert face_on_only and all(r in c.not_judgeable for r in face_on_only)
    assert all("face-on" in c.not_judgeable[r] for r in face_on_only)
    ok, no = rules_for_view(PACK, "down-line")
    assert set(ok) == set(c.judgeable) and set(ok).isdisjoint(no)


def test_check_archer_at_the_edge_has_no_room_to_draw():
    c = assess(_poses(_standing(cx=0.1)), 1280, 720, pack=PACK, light=GOOD_LIGHT)
    assert c.item("room").status == WARN and "left" in c.item("room").message


def test_check_nobody_and_darkness():
    dark = np.full((72, 128, 3), 12, np.uint8)
    c = assess(_poses(None, 5) if False else [PoseFrame(0, 0.0, None, None)], 128, 72, light=[light_stats(dark)])
    assert not c.ok
    assert c.item("framing").status == FAIL and "no one" in c.item("framing").message
    assert c.item("light").status == FAIL and "dark" in c.item("light").message


# ---- feedback -------------------------------------------------------------------------------------------------
def test_tones_tell_the_severity_apart():
    minor, major, critical = (tone(s) for s in ("minor", "major", "critical"))
    assert minor.dtype == np.int16 and 0 < np.abs(minor).max() <= 32767
    assert len(minor) < len(major) < len(critical)
    assert TONES["minor"][0] < TONES["critical"][0]
    assert abs(int(minor[0])) < 200 and abs(int(minor[-1])) < 200  # faded: no click


def test_announcer_plays_and_speaks_off_the_analysis_thread():
    played, said = [], []
    done = threading.Event()

    def say(text):
        said.append(text)
        done.set()

    a = Announcer(PACK, lang="en", play=lambda s, sr: played.append(len(s)), say=say)
    rule = PACK.by_id["cup_of_water"]
    a.on_fault("cup_of_water")
    assert done.wait(5)
    a.close()
    assert played and said == [rule.cue_en]


def test_announcer_off_does_nothing():
    a = Announcer(PACK, sound=False, speech=False)
    assert not a.active
    a.on_fault("cup_of_water")
    a.close()


# ---- replay, printer, view -------------------------------------------------------------------------------------
def _result(i, faults=()):
    xy = np.full((N_LANDMARKS, 2), np.nan)
    xy[11:17] = [(300, 200), (340, 200), (280, 260), (360, 260), (270, 320), (370, 320)]
    return FrameResult(i, i * 33.3, xy, np.ones(N_LANDMARKS), "hold", 0, list(faults), {})


def _shot(faults=("cup_of_water",)):
    findings = [Finding(r, FAULT, -12.0, {"below": -8.0}, 50, 60, "deg", "below") for r in faults]
    return ShotResult(0, 20, 30, 50, 80, 100, 30.0, {"release_at": 2.67, "hold_s": 1.0}, findings)


def test_frame_ring_is_bounded_and_cuts_the_shot_clip():
    ring = FrameRing(fps=30, seconds=4, max_side=64)
    img = np.zeros((360, 640, 3), np.uint8)
    for i in range(150):
        ring.offer(img, _result(i))
    assert len(ring) == 120  # bounded
    assert ring.grab([149, 0]).keys() == {149}
    assert ring.between(0, 200)[0][0].shape == (36, 64, 3)  # downscaled
    clip = ring.clip(ShotResult(0, 100, 110, 120, 130, 140, 30.0))
    assert clip.frames[0][1].index == 100 - 15 and clip.frames[-1][1].index == 140
    assert clip.scale == pytest.approx(0.1)
    player = ReplayPlayer(speed=0.5)
    player.start(clip, now=0.0)
    assert player.frame(0.0)[1].index == 85
    assert player.frame(0.2)[1].index == 88  # 0.2 s at half speed = 0.1 s of video = 3 frames
    assert player.frame(10.0) is None and not player.playing


def test_printer_shows_quote_and_cue_in_both_languages():
    lines = ShotPrinter(PACK, "zh").shot_lines(_shot())
    rule = PACK.by_id["cup_of_water"]
    text = "\n".join(lines)
    assert lines[0] == "第 1 箭：第 80 幀發矢（2.67 秒） — 1 病 · Shot 1: release at frame 80 (2.67 s) — 1 fault(s)"
    assert rule.quote in text and rule.cue_zh in text and rule.cue_en in text
    assert f"{rule.name_zh} {rule.name_en}" in lines[1] and "[major 重]" in lines[1]  # name, severity: both
    assert (
        ShotPrinter(PACK, "en").shot_lines(_shot(()))[0]
        == "Shot 1: release at frame 80 (2.67 s) — clean · 第 1 箭：第 80 幀發矢（2.67 秒） — 無病"
    )


def test_view_composes_without_a_window(output_dir):
    import cv2

    from coach.live.session import LiveFrame, Tally
    from coach.live.view import LiveView

    view = LiveView(PACK, "zh")
    tally = Tally()
    tally.add(_shot())
    ring = FrameRing(fps=30, seconds=5, max_side=320)
    img = np.full((540, 960, 3), 90, np.uint8)
    for i in range(0, 110):
        ring.offer(img, _result(i, ("cup_of_water",) if i > 50 else ()))
    view.replay(ring.clip(_shot()), now=0.0)
    view.shot_done(_shot(), now=0.0)
    lf = LiveFrame(img, _result(120, ("cup_of_water",)), ("cup_of_water",), 0.0, 0.01, 1)
    out = view.compose(lf, tally, now=0.5)
    assert out.shape == img.shape and not np.array_equal(out, img)
    assert np.array_equal(lf.image, img)  # the analysed frame itself is not drawn on
    cv2.imwrite(str(output_dir / "live_view.png"), out)
