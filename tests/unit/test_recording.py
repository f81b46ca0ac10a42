"""One way to record an analysis for an archer (coach/recording.py): the profile rule every entry point shares,
and a recorder that writes nothing until there is something to keep."""

from __future__ import annotations

import numpy as np

from coach.recording import ProfileChoice, ensure_archer, open_archer, open_recording, resolve_profile
from coach.results import CompletedShot, Finding, SessionReport, ShotResult
from coach.store import Store
from posture_rules.pack import Profile, load_pack


def _shot(i: int) -> ShotResult:
    return ShotResult(
        index=i,
        raise_start_frame=0,
        draw_start_frame=10,
        anchor_frame=30,
        release_frame=60,
        end_frame=80,
        fps=30.0,
        findings=[Finding("kan_shou", "pass", 2.0, {"above": 12.0}, None, None, "deg")],
    )


def _report(shots: list[ShotResult], with_person: int) -> SessionReport:
    return SessionReport(
        source="clip.mp4",
        fps=30.0,
        frame_count=90,
        width=640,
        height=360,
        handedness="left",
        handedness_source="profile",
        view="face-on",
        view_confidence=1.0,
        rule_pack={"id": "shejing", "version": "t"},
        profile={},
        shots=shots,
        consistency=[],
        frames_with_person=with_person,
    )


def _done(shot: ShotResult) -> CompletedShot:
    lm = np.zeros((33, 3), np.float32)
    return CompletedShot(shot, 30.0, 640, 360, None, {"full_draw": 45, "release": 60}, {45: lm, 60: lm})


def test_profile_rule_saved_profile_with_the_given_fields_in_place(tmp_path):
    assert resolve_profile(None, ProfileChoice()) == Profile()
    with Store.open(tmp_path / "s.db") as store:
        saved = store.ensure_archer("王小明", handedness="left", tolerance="elite")
        p = resolve_profile(saved, ProfileChoice(tolerance="beginner"))
        assert (p.handedness, p.draw_style, p.tolerance) == ("left", "mediterranean", "beginner")
        # batch runs resolve on an open store by the same rule, and save what was given
        archer, p2 = ensure_archer(store, "王小明", ProfileChoice(draw_style="thumb"))
        assert (p2.handedness, p2.draw_style, p2.tolerance) == ("left", "thumb", "elite")
        assert store.archer("王小明").draw_style == "thumb"


def test_command_line_defaults_are_not_given():
    class Args:
        handedness, draw_style, tolerance = "auto", "mediterranean", "club"

    assert ProfileChoice.from_args(Args).given() == {}
    Args.handedness, Args.tolerance = "left", "elite"
    assert ProfileChoice.from_args(Args).given() == {"handedness": "left", "tolerance": "elite"}


def test_nothing_is_written_until_a_shot_then_the_given_profile_is_saved(tmp_path):
    db = tmp_path / "s.db"
    clip = tmp_path / "clip.json"  # a pose track: hashed, no key-frame images
    clip.write_text("{}")
    pack = load_pack()
    rec, profile = open_recording(db, "Ann", str(clip), pack, ProfileChoice(handedness="left"))
    assert profile.handedness == "left"
    rec.finish(_report([], with_person=0))  # nothing analysable
    rec.close()
    assert not db.exists()

    started: list[int] = []
    rec, _ = open_recording(db, "Ann", str(clip), pack, ProfileChoice(handedness="left"), on_start=started.append)
    rec.on_shot(_done(_shot(0)))
    assert started == [rec.sid]
    rec.finish(_report([_shot(0)], with_person=90))
    rec.close()
    with Store.open(db, readonly=True) as store:
        assert store.archer("Ann").handedness == "left"
        assert store.session(started[0]).complete is True
        assert len(store.shots(started[0])) == 1
    # the next recording for Ann, with nothing given, analyses with her saved profile
    assert open_archer(db, "Ann").profile.handedness == "left"
