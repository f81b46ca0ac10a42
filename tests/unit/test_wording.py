"""Machine-written English in the reader's language (coach/wording): a real feeder's lines when a camera is lost,
worded in Chinese and left as written in English, in both languages for the terminal; and the wording table is one
table, part of the dashboard's, never written twice."""

from __future__ import annotations

import ast

import numpy as np

from coach.capture import Frame
from coach.dashboard.i18n import TEXT
from coach.errors import CoachError
from coach.live.feeder import Feeder
from coach.live.mailbox import Mailbox
from coach.wording.machine import (
    certainty_text,
    error_text,
    note_both,
    note_text,
    reason_both,
    status_both,
    status_kind,
    status_text,
)
from coach.wording.text import MACHINE_TEXT
from tests.support.paths import ROOT


class _LostCamera:
    """Camera 0: two frames, then nothing; it cannot be opened again."""

    is_camera, is_file, fps, width, height, source = True, False, 30.0, 8, 8, 0

    def __iter__(self):
        for i in range(2):
            yield Frame(i, i * 33.3, np.zeros((8, 8, 3), np.uint8))

    def close(self):
        pass


def _lost_camera_lines() -> tuple[list[str], str]:
    """What a real Feeder posts while camera 0 is gone, and the error it ends with."""
    camera, calls = _LostCamera(), []

    def reopen():
        calls.append(1)
        if len(calls) == 1:
            return camera
        raise CoachError("0", "camera 0 does not exist or cannot be opened")

    msgs: list[str] = []
    feeder = Feeder(reopen, Mailbox(), retries=2, retry_wait_s=0.01, on_status=msgs.append)
    feeder.run()  # in this thread
    assert feeder.error is not None
    return msgs, str(feeder.error)


def test_a_lost_cameras_lines_are_worded_in_chinese_and_stay_in_english():
    msgs, error = _lost_camera_lines()
    assert msgs == [
        "camera 0: camera lost (read failed); retrying (1/2) …",
        "camera 0: camera lost (read failed); retrying (2/2) …",
    ]
    assert [status_text(m, "zh") for m in msgs] == [
        "攝影機 0：攝影機中斷（讀不到畫面），重新連接中（第 1/2 次）…",
        "攝影機 0：攝影機中斷（讀不到畫面），重新連接中（第 2/2 次）…",
    ]
    assert [status_text(m, "en") for m in msgs] == msgs
    assert error_text(error, "zh") == "攝影機 0: 攝影機中斷：重試 2 次仍沒有畫面"
    assert error_text(error, "en") == error == "camera 0: camera lost: no frames after 2 retries"
    # the terminal: both languages, --lang's first; a line it does not know, once, as written
    assert status_both(msgs[0], "en") == f"{msgs[0]} · {status_text(msgs[0], 'zh')}"
    assert status_both("something new", "zh") == "something new"


def test_a_camera_back_after_a_loss_is_said_in_both_languages():
    """The first frame after a reopen is posted ("reconnected"), so the retrying line does not stand (the page,
    the terminal); what follows a second loss is retried from 1 again."""
    camera, calls = _LostCamera(), []

    def reopen():
        calls.append(1)
        if len(calls) <= 2:
            return camera
        raise CoachError("0", "camera 0 does not exist or cannot be opened")

    msgs: list[str] = []
    Feeder(reopen, Mailbox(), retries=1, retry_wait_s=0.01, on_status=msgs.append).run()
    assert [m.split(" after ")[0] for m in msgs] == [
        "camera 0: camera lost (read failed); retrying (1/1) …",
        "camera 0: reconnected",
        "camera 0: camera lost (read failed); retrying (1/1) …",
    ]
    back = msgs[1]
    assert status_kind(back) == "status_reconnected" and status_kind(msgs[0]) == "status_retrying"
    assert status_text(back, "en") == back and back.startswith("camera 0: reconnected after ")
    gap = back.split(" after ")[1].removesuffix(" s")
    assert status_text(back, "zh") == f"攝影機 0：已重新連接（中斷了 {gap} 秒）"
    assert status_both(back, "zh") == f"{status_text(back, 'zh')} · {back}"


def test_a_live_sources_errors_are_worded_and_a_name_keeps_its_colons():
    assert error_text("0: camera 0 does not exist or cannot be opened", "zh") == "0: 攝影機 0 不存在或無法開啟"
    assert error_text("rtsp://cam/1: cannot be opened (bad: url)", "zh") == "rtsp://cam/1: 無法開啟（bad: url）"
    assert error_text("a: b.mp4: no such file", "zh") == "a: b.mp4: 找不到這個檔案"
    assert error_text("a: b.mp4: something else", "zh") == "a: b.mp4: something else"


def _literal_keys(path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    table = next(n.value for n in tree.body if isinstance(n, ast.AnnAssign) and isinstance(n.value, ast.Dict))
    return [k.value for k in table.keys if isinstance(k, ast.Constant)]


def test_the_wording_table_is_one_table_in_both_languages():
    own = _literal_keys(ROOT / "coach/dashboard/i18n.py")
    assert own and not set(own) & set(MACHINE_TEXT)  # each key written once, here or there
    assert len(own) == len(set(own))
    assert all(TEXT[k] == v for k, v in MACHINE_TEXT.items())  # the dashboard's t() words machine text too
    for key, (zh, en) in MACHINE_TEXT.items():
        assert zh.strip() and en.strip(), key


def test_the_terminal_says_why_a_rule_was_not_judged_in_both_languages():
    """A real analysis of a clip filmed from above: its face-on rules are not judged, and the terminal says why
    in English and Chinese (the engine's reason is machine English, stored as written); an uncertain phase too."""
    from coach.pipeline import analyze_track
    from coach.summary import format_report
    from posture_rules.pack import load_pack
    from tests.support.hidden import stance_high_hand_hidden

    report = analyze_track(stance_high_hand_hidden())  # shot 2's draw hand never seen: a note owns up to it
    reasons = {f.reason for s in report.shots for f in s.findings if f.verdict == "not_assessable"}
    assert "not judged from a high view" in reasons and "phase uncertain: draw start" in reasons
    text = format_report(report, load_pack())
    assert "(not judged from the high view · 從高處視角無法判斷)" in text
    assert "(phase uncertain (draw start): not judged · 階段不確定（開弓起點），這條規則不判斷)" in text
    assert "not judged from a high view" not in text
    note = next(n for n in report.notes if "no full draw was seen" in n)
    assert f"note 附註: {note_text(note, 'en')} · {note_text(note, 'zh')}" in text


def test_a_reason_or_note_the_table_does_not_know_is_shown_once_as_written():
    assert reason_both("something new") == "something new" and note_both("a new note", "zh") == "a new note"
    assert reason_both("not judged from a other view", "zh") == "從斜側視角無法判斷 · not judged from the oblique view"


def test_how_sure_a_shot_is_is_said_in_the_readers_language():
    """A real analysis (fault_bow_hand at 480p, shot 2: its anchor a range, the hold time not judged), from the
    shot's stored JSON as the review page reads it."""
    from coach.pipeline import analyze_track
    from coach.pose_frame import load_posetrack

    report = analyze_track(load_posetrack(ROOT / "tests/golden/metamorphic/fault_bow_hand-480p.pose.json.gz"))
    shot = report.to_json()["shots"][1]
    a, b, conf = shot["anchor_from_frame"], shot["anchor_frame"], shot["release_confidence"]
    assert certainty_text(shot, "en") == [
        f"Release confidence {conf:.2f} (draw hand, span)",
        f"Full draw reached between frames {a} and {b}",
    ]
    assert certainty_text(shot, "zh") == [f"發矢把握 {conf:.2f}（拉弦手、兩手距）", f"於第 {a}–{b} 幀之間滿弓"]
    unsure = {**shot, "marks_confidence": {"draw_start": 0.3}, "anchor_from_frame": None}
    assert certainty_text(unsure, "zh")[1:] == ["不確定：開弓起點，相關規則不判斷"]


def test_a_draw_not_analysed_is_worded_in_chinese() -> None:
    """The note of a draw seen and not analysed (coach/session_notes.py UNSEEN_NOTE), as the analysis writes it."""
    from coach.session_notes import UNSEEN_NOTE

    note = UNSEEN_NOTE.format(a=273, b=421, ta=9.1, tb=14.03, dur=4.93)
    assert (
        note_text(note, "zh")
        == "9.1–14.0 秒：弓臂舉起 4.9 秒，卻沒看到滿弓（拉弦手被遮住或判錯），那裡的一箭沒有分析。"
    )
