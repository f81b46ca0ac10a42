"""Which view a shot is judged from: an arrow pointing into the depth is not face-on, whatever the shoulders
look like (coach/shot_view.py)."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from coach.engine import RuleEngine, Sample
from coach.landmarks import INDEX
from coach.session_notes import ARROW_UNSEEN_NOTE
from coach.shot_view import ARROW_SQUARE_MIN, ARROW_UNSEEN_REASON, arrow_squareness, shot_view
from coach.wording.machine import note_text, reason_text
from posture_rules.pack import load_pack
from tests.support.archer_series import Archer, shot

_ARMS = [INDEX[f"{s}_{p}"] for s in ("left", "right") for p in ("elbow", "wrist", "pinky", "index", "thumb")]


def _arms_yawed(series, yaw_deg: float):
    """The same shot with the arms turned `yaw_deg` out of the picture's plane about each shoulder (the
    camera down-range of an archer whose shoulders still look square): horizontal arm lengths shorten by
    cos(yaw), the arms hanging down at setup do not."""
    c = math.cos(math.radians(yaw_deg))
    out = []
    for b in series.bodies:
        xy = b.xy.copy()
        for side in ("left", "right"):
            sh = xy[INDEX[f"{side}_shoulder"], 0]
            idx = [
                i for i in _ARMS if i in {INDEX[f"{side}_{p}"] for p in ("elbow", "wrist", "pinky", "index", "thumb")}
            ]
            xy[idx, 0] = sh + (xy[idx, 0] - sh) * c
        out.append(replace(b, xy=xy))
    return replace(series, bodies=out)


# The feet hidden: the parametric archer's short legs would make every shot a high camera's.
SQUARE = Archer(hidden=("left_ankle", "right_ankle"))


def _window(series):
    lo = series.anchor_frame
    return lo, series.release_frame


def test_a_square_shot_is_face_on() -> None:
    s = shot(SQUARE)
    assert arrow_squareness(s.bodies, *_window(s)) > 0.85
    assert shot_view(s.bodies, s, "face-on").view == "face-on"


@pytest.mark.parametrize("yaw, view", [(20, "face-on"), (40, "face-on"), (55, "other"), (70, "other")])
def test_the_arrow_into_the_depth_is_not_face_on(yaw: float, view: str) -> None:
    s = _arms_yawed(shot(SQUARE), yaw)
    sq = arrow_squareness(s.bodies, *_window(s))
    assert sq < arrow_squareness(shot(SQUARE).bodies, *_window(s))
    assert (sq >= ARROW_SQUARE_MIN) == (view == "face-on")
    assert shot_view(s.bodies, s, "face-on").view == view


def _hidden_in(series, names: tuple[str, ...], lo: int, hi: int):
    """The same shot with the named points unseen (visibility 0) in frames [lo, hi)."""
    idx = [INDEX[n] for n in names]
    out = []
    for b in series.bodies:
        if lo <= b.index < hi:
            vis = b.vis.copy()
            vis[idx] = 0.0
            b = replace(b, vis=vis)
        out.append(b)
    return replace(series, bodies=out)


def test_an_arrow_not_seen_is_not_judged_square() -> None:
    """The bow arm hidden through the whole full draw (a close-up cutting the bow hand off, someone passing in
    front): how square the arrow lay is not known, and not known is not square. The face-on rules are not judged,
    and say why in both languages (those that do not need the bow hand, head_back, were judged in the picture's
    plane before); the timing rules still are."""
    s = _arms_yawed(shot(replace(SQUARE, hidden=SQUARE.hidden + ("left_wrist",))), 70)
    assert math.isnan(arrow_squareness(s.bodies, *_window(s)))
    view = shot_view(s.bodies, s, "face-on")
    assert view.view == "other" and view.arrow_unseen and not view.along_depth
    assert view.off_view == ARROW_UNSEEN_REASON
    by_rule = _judged(s, view)
    for rid in ("ti_shou", "level_as_water", "cup_of_water", "head_back"):
        assert by_rule[rid].verdict == "not_assessable", by_rule[rid]
        assert reason_text(by_rule[rid].reason, "en").startswith("the bow arm was hardly seen"), by_rule[rid]
        assert reason_text(by_rule[rid].reason, "zh").startswith("滿弓時弓臂幾乎看不到"), by_rule[rid]
    assert by_rule["draw_tempo"].verdict in ("pass", "fault")
    note = ARROW_UNSEEN_NOTE.format(n=2)
    assert note_text(note, "zh").startswith("第 2 箭：滿弓時弓臂幾乎看不到")
    assert note_text(note, "en").startswith("Shot 2: the bow arm was hardly seen at full draw")


def test_hips_seen_before_the_full_draw_still_measure_the_arm() -> None:
    """A picture framed at the hips shows them in some frames only, and the arms only once raised into it: with
    the hips unseen at full draw, the bow arm was measured against its own foreshortened length and an arrow 70°
    into the depth read as square (1.0; real01 cropped to its upper body: 59 % read as 79 %, five faults). The
    torso seen in the shot's other frames is the arm's measure."""
    yawed = _arms_yawed(shot(SQUARE), 70)
    lo, hi = _window(yawed)
    framed = _hidden_in(yawed, ("left_wrist", "right_wrist", "left_elbow", "right_elbow"), 0, yawed.anchor_frame)
    framed = _hidden_in(framed, ("left_hip", "right_hip"), lo, hi)
    assert arrow_squareness(framed.bodies, lo, hi) < ARROW_SQUARE_MIN
    assert shot_view(framed.bodies, framed, "face-on").along_depth


def _judged(s, view) -> dict:
    engine = RuleEngine(load_pack(), buffer_s=60.0, fps=15.0)
    for b in s.bodies:
        engine.buffer.append(Sample(b, engine.measure(b)))
    findings, _ = engine.judge_shot(s, view.view, view.off_view)
    return {f.rule: f for f in findings}


def test_a_yawed_shot_has_no_face_on_fault() -> None:
    """A low draw elbow and a tilted arrow, filmed with the arrow 70° into the depth: the picture's angles are
    not the body's, so the face-on rules are not judged, while the timing rules still are."""
    s = _arms_yawed(shot(replace(SQUARE, elbow_dy=-60.0, arrow_tilt=-25.0)), 70)
    by_rule = _judged(s, shot_view(s.bodies, s, "face-on"))
    # and it says why: the arrow, not "the oblique view", which the session's face-on view would contradict
    for rid in ("ti_shou", "straight_bow_arm", "level_as_water"):
        assert by_rule[rid].verdict == "not_assessable", by_rule[rid]
        assert reason_text(by_rule[rid].reason, "en").startswith("the arrow pointed into the depth"), by_rule[rid]
        assert reason_text(by_rule[rid].reason, "zh").startswith("箭指向鏡頭深處"), by_rule[rid]
    assert by_rule["draw_tempo"].verdict in ("pass", "fault")
    sq = shot(replace(SQUARE, elbow_dy=-60.0, arrow_tilt=-25.0))
    judged = _judged(sq, shot_view(sq.bodies, sq, "face-on"))
    assert {r for r, f in judged.items() if f.verdict == "fault"} >= {"ti_shou"}


def test_marks_are_a_guess_when_the_draw_runs_into_the_depth() -> None:
    """The draw moves the hand along the arrow: with the arrow into the depth, the draw start and the anchor
    are no surer than a guess; a square view leaves them as the tracker found them."""
    found = {"draw_start": 0.9, "anchor": 0.9}
    square = shot(SQUARE)
    assert shot_view(square.bodies, square, "face-on").marks_confidence(found) == found
    yawed = _arms_yawed(shot(SQUARE), 70)
    capped = shot_view(yawed.bodies, yawed, "face-on").marks_confidence(found)
    assert capped["draw_start"] < 0.5 and capped["anchor"] < 0.5
