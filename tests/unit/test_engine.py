"""Rule engine: hysteresis, minimum duration, not assessable, per-shot verdicts."""

import math
from dataclasses import dataclass

import numpy as np
import pytest

from coach.engine import Hysteresis, RuleEngine, fault_spans
from coach.kinematics import Body
from coach.landmarks import RIGHT
from coach.results import FAULT, NOT_ASSESSABLE, PASS
from posture_rules.pack import Rule, RulePack, load_pack
from posture_rules.thresholds import Thresholds


def _rule(**kw):
    base = dict(
        id="cup_of_water",
        name_zh="肘可措杯水",
        name_en="x",
        section="總訣",
        quote="q",
        meaning_zh="m",
        meaning_en="m",
        cue_zh="c",
        cue_en="c",
        metric="draw_elbow_elevation",
        phases=("hold",),
        views=("face-on",),
        thresholds=Thresholds(enter_below=-8, exit_below=-5, enter_above=18, exit_above=15),
        min_duration_s=0.3,
    )
    base.update(kw)
    return Rule(**base)


def test_hysteresis_enters_beyond_enter_and_clears_only_inside_exit():
    h = Hysteresis(_rule(min_duration_s=0.0))
    assert not h.update(-7.0, 0)  # between exit and enter: no fault
    assert h.update(-9.0, 33)  # beyond enter
    assert h.update(-6.0, 66)  # back above enter but not inside exit: still a fault (no flicker)
    assert not h.update(-4.0, 99)  # inside exit: cleared


def test_minimum_duration_suppresses_short_wobbles():
    r = _rule()
    t = np.arange(30) * 1000 / 30
    v = np.zeros(30)
    v[10:15] = -12  # 5 frames = 0.17 s < 0.3 s
    assert fault_spans(r, list(range(30)), list(t), v) == []
    v[10:25] = -12  # 15 frames = 0.5 s
    assert fault_spans(r, list(range(30)), list(t), v) == [(10, 24)]


def test_nan_holds_state_but_does_not_extend_the_span():
    r = _rule(min_duration_s=0.0)
    v = np.array([0, -10, -10, np.nan, np.nan, 0, 0], dtype=float)
    assert fault_spans(r, list(range(7)), [i * 33.3 for i in range(7)], v) == [(1, 2)]


def _body(i, elbow_dy, visible=True):
    """A right-handed archer at full draw: bow wrist far left (image right), elbow behind the draw wrist."""
    xy = np.full((33, 2), np.nan)
    vis = np.zeros(33)
    pts = {
        0: (300, 100),
        7: (320, 95),
        8: (280, 95),
        9: (305, 120),
        10: (295, 120),
        11: (350, 160),
        12: (250, 160),
        13: (450, 160),
        15: (550, 160),  # bow wrist
        16: (290, 160),  # draw wrist
        14: (190, 160 - elbow_dy),  # draw elbow, 100 px behind
        23: (330, 320),
        24: (270, 320),
    }
    for k, (x, y) in pts.items():
        xy[k] = (x, y)
        vis[k] = 0.99
    if not visible:
        vis[14] = 0.1
    return Body(i, i * 1000 / 30, xy, vis, 100.0, RIGHT)


@dataclass
class _Shot:
    raise_start_frame: int = 0
    draw_start_frame: int = 10
    anchor_frame: int = 20
    release_frame: int | None = 80
    end_frame: int = 100


def _pack(rule):
    return RulePack("t", "1", "t", "mem", (rule,))


def _judge(rule, elbow_dy, visible=True, view="face-on"):
    eng = RuleEngine(_pack(rule), fps=30)
    for i in range(101):
        eng.push(_body(i, elbow_dy, visible), "hold", view)
    findings, _ = eng.judge_shot(_Shot(), view)
    return findings[0]


def test_per_shot_verdicts_pass_fault_and_not_assessable():
    ok = _judge(_rule(), elbow_dy=5)  # ~3° above the line
    assert ok.verdict == PASS and ok.value == pytest.approx(math.degrees(math.atan2(5, 100)), abs=0.1)
    low = _judge(_rule(), elbow_dy=-30)  # ~17° below
    assert low.verdict == FAULT and low.reason == "below" and low.value < -8
    assert low.start_frame is not None and low.end_frame is not None
    hidden = _judge(_rule(), elbow_dy=-30, visible=False)
    assert hidden.verdict == NOT_ASSESSABLE and "hidden" in hidden.reason
    wrong_view = _judge(_rule(), elbow_dy=-30, view="down-line")
    assert wrong_view.verdict == NOT_ASSESSABLE and "view" in wrong_view.reason


def test_live_flags_follow_phase_and_view():
    eng = RuleEngine(_pack(_rule(min_duration_s=0.1)), fps=30)
    flagged = [eng.push(_body(i, -30), "hold", "face-on")[1] for i in range(10)]
    assert flagged[0] == [] and flagged[-1] == ["cup_of_water"]
    assert eng.push(_body(10, -30), "draw", "face-on")[1] == []  # rule does not apply in the draw


def test_bundled_pack_has_the_three_core_rules():
    pack = load_pack()
    ids = {r.id for r in pack.rules}
    assert {"cup_of_water", "kan_shou", "ti_shou", "straight_bow_arm"} <= ids


def _dy(deg: float) -> float:
    return -100.0 * math.tan(math.radians(deg))  # the elbow's height above the draw wrist for an elevation


def _judge_track(rule, degrees_per_frame):
    eng = RuleEngine(_pack(rule), fps=30)
    for i, deg in enumerate(degrees_per_frame):
        eng.push(_body(i, -_dy(deg)), "hold", "face-on")
    findings, _ = eng.judge_shot(_Shot(), "face-on")
    return findings[0]


def test_an_override_moves_the_verdict_never_the_value():
    """#15 item 6: the elbow ~9° low for most of the hold, ~29° low for a third of it. A coach who lowers the
    limit from −8° to −12° (or to −35°) must see the same measured value, only the verdict changing with it;
    the value reported was the median of the faulted frames, which the limit itself chose."""
    track = [-9.0] * 101
    track[55:75] = [-29.0] * 20  # 20 of the hold's 60 frames
    default = _rule()
    lower = _rule(thresholds=Thresholds(enter_below=-12, exit_below=-10, enter_above=18, exit_above=15))
    lenient = _rule(thresholds=Thresholds(enter_below=-35, exit_below=-32, enter_above=18, exit_above=15))
    a, b, c = (_judge_track(r, track) for r in (default, lower, lenient))
    assert a.verdict == FAULT and b.verdict == FAULT and c.verdict == PASS
    assert a.value == pytest.approx(b.value, abs=1e-6) and b.value == pytest.approx(c.value, abs=1e-6)
    # The value is what the verdict asks about: the elbow was this low for a quarter of the hold.
    assert a.value == pytest.approx(-29.0, abs=0.5) and a.reason == b.reason == "below"


def test_a_shot_is_faulted_only_where_the_value_it_shows_is_beyond_the_limit():
    """The elbow 21° high for 10 of the hold's 51 frames, then 16.5° (inside the 15° exit, short of the 18° entry):
    the hysteresis keeps the fault span open to the release, but the archer was beyond the limit for a fifth of
    the hold, so the shot passes, and its value (16.5°) says so. Beyond it for two fifths, the shot is faulted."""
    track = [16.5] * 101
    track[30:40] = [21.0] * 10
    brief = _judge_track(_rule(), track)
    assert brief.verdict == PASS and brief.value == pytest.approx(16.5, abs=0.3), brief
    track[30:50] = [21.0] * 20
    held = _judge_track(_rule(), track)
    assert held.verdict == FAULT and held.reason == "above" and held.value > 18, held


@dataclass
class _RangedShot(_Shot):
    """A shot whose span reached the hold's at frame 10 of the draw, the arms at rest only at the anchor (30)."""

    draw_start_frame: int = 0
    anchor_frame: int = 30
    anchor_from_frame: int | None = 10


def _timed(shot, **th) -> tuple:
    rule = _rule(id="t", metric="hold_time", phases=("full_draw", "hold"), views=("any",), thresholds=Thresholds(**th))
    eng = RuleEngine(_pack(rule), fps=30)
    for i in range(101):
        eng.push(_body(i, 5), "hold", "face-on")
    (f,), _ = eng.judge_shot(shot, "face-on")
    return f.verdict, f.value, f.reason


def test_a_duration_whose_limit_lies_inside_the_anchors_range_is_not_judged():
    """Hold 30→80 is 1.67 s, from the span's arrival (10) 2.33 s: a 2 s floor is passed at one end of the range
    and failed at the other, so the shot is not judged on it; limits the whole range meets or misses are."""
    assert _timed(_RangedShot(), enter_below=2.0) == (NOT_ASSESSABLE, None, "phase uncertain: anchor")
    assert _timed(_RangedShot(), enter_below=1.0)[0] == PASS
    assert _timed(_RangedShot(), enter_below=3.0)[0] == FAULT
    # the same shot with its two readings agreeing: judged as measured, from the anchor
    verdict, value, _ = _timed(_RangedShot(anchor_from_frame=None), enter_below=2.0)
    assert verdict == FAULT and value == pytest.approx(50 / 30)
