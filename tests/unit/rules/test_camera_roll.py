"""kan_shou and ti_shou read the arrow against the picture's horizontal, follow_through the draw hand's drop along
its vertical: a camera held off level must not be taken for the hands unlevel, nor hide hands that are. The engine
takes out the roll the standing trunk shows before the raise (coach/metrics/frame.py `camera_roll`), recorded and
live; with no setup seen the picture is taken as level, as before."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from coach.engine import RuleEngine
from coach.kinematics import Body
from coach.results import FAULT, PASS
from posture_rules.pack import load_pack
from tests.support.archer_series import WIDTH, Archer, mirror, shot

PACK = load_pack()
TILT_RULES = ("kan_shou", "ti_shou")
# (the archer's own arrow tilt, the camera's roll): hands within the limit that a roll would push past it, and
# hands past it that a roll the other way would bring back inside.
CASES = [(10.0, 8.0), (-10.0, -8.0), (22.0, -8.0), (-22.0, 8.0)]


def rolled(series, degrees: float):
    """The same shot filmed by a camera rolled `degrees` (counter-clockwise in the picture for +: a right-handed
    archer's bow-hand side up, a left-handed one's down)."""
    a = math.radians(degrees)
    turn = np.array([[math.cos(a), math.sin(a)], [-math.sin(a), math.cos(a)]])
    centre = np.array([WIDTH / 2, 300.0])
    bodies = [replace(b, xy=(b.xy - centre) @ turn.T + centre) for b in series.bodies]
    return replace(series, bodies=bodies)


def tilt_findings(series, rules: tuple[str, ...] = TILT_RULES) -> dict:
    eng = RuleEngine(PACK, fps=30)
    for b in series.bodies:
        eng.push(b, "setup", "face-on")
    findings, _ = eng.judge_shot(series, "face-on")
    return {f.rule: f for f in findings if f.rule in rules}


def test_the_roll_is_in_the_tilt_the_rules_measure() -> None:
    """The test's own roll tips the arrow as a camera would (else the cases below prove nothing)."""
    level = tilt_findings(shot(Archer(arrow_tilt=10.0)))["kan_shou"].value
    eng = RuleEngine(PACK, fps=30)
    body: Body = rolled(shot(Archer(arrow_tilt=10.0)), 8.0).bodies[-40]
    assert eng.measure(body)["arrow_tilt"] == pytest.approx(level + 8.0, abs=1.0)


@pytest.mark.parametrize("hand", ["right", "left"])
@pytest.mark.parametrize(("tilt", "roll"), CASES)
def test_a_rolled_camera_gives_the_level_camera_verdicts(tilt: float, roll: float, hand: str) -> None:
    one = shot(Archer(arrow_tilt=tilt))
    one = one if hand == "right" else mirror(one)
    level, tipped = tilt_findings(one), tilt_findings(rolled(one, roll))
    for rule in TILT_RULES:
        assert tipped[rule].verdict == level[rule].verdict, (rule, tipped[rule], level[rule])
        assert tipped[rule].value == pytest.approx(level[rule].value, abs=0.5)
    assert {level[r].verdict for r in TILT_RULES} == ({PASS} if abs(tilt) < 15 else {PASS, FAULT})


# (how far the draw hand drops below the shoulder in the follow-through, SW; the camera's roll): a level hand the
# roll would drop past the limit (0.35 SW: the hand 1.35 SW behind the shoulder moves 0.19 SW with 8 deg), and a
# dropped hand the roll would lift back inside it.
DROPS = [(0.2, 8.0), (0.5, -8.0)]


@pytest.mark.parametrize("hand", ["right", "left"])
@pytest.mark.parametrize(("drop", "roll"), DROPS)
def test_a_rolled_camera_gives_the_level_follow_through(drop: float, roll: float, hand: str) -> None:
    one = shot(Archer(ft_drop=drop))
    one = one if hand == "right" else mirror(one)
    level = tilt_findings(one, ("follow_through",))["follow_through"]
    tipped = tilt_findings(rolled(one, roll), ("follow_through",))["follow_through"]
    assert tipped.verdict == level.verdict, (tipped, level)
    assert tipped.value == pytest.approx(level.value, abs=0.03)
    assert level.verdict == (FAULT if drop > 0.35 else PASS)


def test_without_a_setup_the_tilt_is_judged_as_measured() -> None:
    """A clip that starts at full draw shows no standing trunk: no roll is taken out."""
    one = rolled(shot(Archer(arrow_tilt=10.0)), 8.0)
    drawn = replace(one, bodies=[b for b in one.bodies if b.index >= one.draw_start_frame])
    found = tilt_findings(drawn)["kan_shou"]
    assert found.verdict == FAULT
    assert found.value == pytest.approx(tilt_findings(shot(Archer(arrow_tilt=10.0)))["kan_shou"].value + 8, abs=1.0)


def test_a_trunk_moving_through_the_setup_gives_no_roll() -> None:
    """The archer straightening up from 20 deg bent through the second before the raise: the trunk's median lean
    (10 deg) is no camera's roll, the trunk was moving; the tilt is judged as measured, not 10 deg off."""
    one = shot(Archer(arrow_tilt=10.0))
    setup = [b for b in one.bodies if b.index < one.raise_start_frame][-15:]  # its last second (15 fps)
    bodies = list(one.bodies)
    for k, b in enumerate(setup):
        hip = b.xy[[23, 24]].mean(axis=0)
        a = math.radians(-20.0 * (1 - k / len(setup)))
        turn = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
        xy = b.xy.copy()
        xy[:23] = (xy[:23] - hip) @ turn.T + hip
        bodies[bodies.index(b)] = replace(b, xy=xy)
    moved = tilt_findings(replace(one, bodies=bodies))["kan_shou"]
    assert moved.value == pytest.approx(tilt_findings(one)["kan_shou"].value, abs=0.5), moved


def _phase(series, i: int) -> str:
    marks = (
        ("setup", series.raise_start_frame),
        ("raise", series.draw_start_frame),
        ("draw", series.anchor_frame),
        ("hold", series.release_frame),
    )
    return next((name for name, end in marks if i < end), "follow_through")


@pytest.mark.parametrize(("tilt", "roll"), CASES)
def test_live_flags_take_the_roll_out_too(tilt: float, roll: float) -> None:
    """Live, the roll is the newest standing setup's, as the shot's verdict takes it."""
    one = shot(Archer(arrow_tilt=tilt))

    def flagged(series) -> set[str]:
        eng, seen = RuleEngine(PACK, fps=30), set()
        for b in series.bodies:
            seen |= set(eng.push(b, _phase(series, b.index), "face-on")[1]) & set(TILT_RULES)
        return seen

    assert flagged(rolled(one, roll)) == flagged(one)


def test_the_stored_series_shows_what_the_verdict_read() -> None:
    """A shot's chart (its stored series, the reference taken out) gives the value its verdict reports: the arrow
    tilt less the camera's roll, on a golden track filmed 8 deg off level."""
    from coach.engine import shot_value
    from coach.phases import phase_windows
    from coach.pipeline import analyze_track
    from coach.pose_frame import load_posetrack
    from coach.track_transforms import tilt
    from tests.support.paths import ROOT

    done = []
    track = tilt(load_posetrack(ROOT / "tests" / "golden" / "clean_rh_3shots.pose.json.gz"), 8.0)
    analyze_track(track, on_shot=[done.append])
    rule = PACK.by_id["kan_shou"]
    for c in done:
        (found,) = [f for f in c.result.findings if f.rule == "kan_shou"]
        k = c.series.names.index("arrow_tilt")
        shown = c.series.data[k].astype(float) - c.series.offsets.get("arrow_tilt", 0.0)
        windows = phase_windows(c.result, lambda i: i / track.fps)
        frames = c.series.frames()
        inside = np.zeros(len(frames), bool)
        for p in rule.phases:
            if p in windows:
                inside |= (frames >= windows[p][0]) & (frames < windows[p][1])
        vals = shown[inside & ~np.isnan(shown)]
        assert found.verdict == PASS and shot_value(rule, vals) == pytest.approx(found.value, abs=0.05), found


@pytest.mark.parametrize(("roll", "said"), [(0.0, None), (8.0, 8), (-8.0, 8)])
def test_the_session_notes_say_the_camera_was_off_level(roll: float, said: int | None) -> None:
    """The coach is told the camera's roll, in both languages, where it is beyond what a standing trunk reads from a
    level camera; a level camera gets no such note."""
    from coach.pipeline import analyze_track
    from coach.pose_frame import load_posetrack
    from coach.track_transforms import tilt
    from coach.wording.machine import note_text
    from tests.support.paths import ROOT

    track = load_posetrack(ROOT / "tests" / "golden" / "clean_rh_3shots.pose.json.gz")
    notes = [n for n in analyze_track(tilt(track, roll)).notes if "off level" in n]
    if said is None:
        assert notes == []
        return
    (note,) = notes
    deg = int(note.split("about ")[1].split(" deg")[0])
    assert abs(deg - said) <= 2, note  # the archer's own standing lean rides on it (clean_rh_3shots: -1.6 deg)
    assert note_text(note, "zh").startswith(f"鏡頭約偏斜 {deg}°"), note_text(note, "zh")
    assert note_text(note, "en").startswith(f"The camera was held about {deg}°")
