"""Camera check before a session: is the whole body in frame, which way does the archer face, how far away,
how is the light, and so which rules can be judged from this camera.

`assess(poses, width, height, ...)` works on pose frames (a few seconds of the archer standing ready) and is
what the dashboard calls with the browser camera's frames; `check_source(spec)` opens a camera or file, runs
the pose model on its first seconds and assesses them (`coach live --check`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np

from posture_rules.pack import RulePack, load_pack

from ..kinematics import Body, classify_view, torso_ratio
from ..landmarks import INDEX, NAMES, RIGHT
from ..pose_frame import PoseFrame

OK, WARN, FAIL = "ok", "warn", "fail"

# The landmarks the rules need: head, arms, torso, legs and feet.
KEY_POINTS = (
    "nose",
    "left_shoulder",
    "right_shoulder",
    "left_elbow",
    "right_elbow",
    "left_wrist",
    "right_wrist",
    "left_hip",
    "right_hip",
    "left_knee",
    "right_knee",
    "left_ankle",
    "right_ankle",
)
MARGIN = 0.02  # key points this share of the image inside its border
IN_FRAME_SHARE = 0.8  # share of the checked frames that must show every key point
VIS_MIN = 0.5
DRAW_ROOM_SW = 2.2  # the bow arm reaches about this far out from the shoulder midpoint at full draw
# Distance: a standing adult's shoulders are about a quarter of their height (nose to ankles), so SW/(0.25 H)
# estimates the share of the image height the body fills, even with the feet cut off.
FILL_MIN, FILL_MAX = 0.4, 0.92
SW_MIN_PX = 24  # fewer pixels across the shoulders and the landmarks get too coarse for angles
LUMA_MIN, LUMA_MAX, CONTRAST_MIN = 50.0, 215.0, 20.0


@dataclass(slots=True)
class CheckItem:
    name: str  # framing | room | view | distance | light
    status: str  # ok | warn | fail
    message: str
    value: float | str | None = None

    def to_json(self) -> dict:
        v = self.value
        return {
            "name": self.name,
            "status": self.status,
            "message": self.message,
            "value": round(v, 3) if isinstance(v, float) and math.isfinite(v) else v,
        }


@dataclass(slots=True)
class CameraCheck:
    items: list[CheckItem]
    view: str
    frames: int
    frames_with_person: int
    judgeable: list[str] = field(default_factory=list)  # rule ids judged from this view
    not_judgeable: dict[str, str] = field(default_factory=dict)  # rule id → why not

    @property
    def ok(self) -> bool:
        return all(i.status != FAIL for i in self.items)

    @property
    def status(self) -> str:
        s = {i.status for i in self.items}
        return FAIL if FAIL in s else WARN if WARN in s else OK

    def item(self, name: str) -> CheckItem | None:
        return next((i for i in self.items if i.name == name), None)

    def to_json(self) -> dict:
        return {
            "schema": "coach.camera_check/1",
            "ok": self.ok,
            "status": self.status,
            "view": self.view,
            "frames": self.frames,
            "frames_with_person": self.frames_with_person,
            "items": [i.to_json() for i in self.items],
            "judgeable": list(self.judgeable),
            "not_judgeable": dict(self.not_judgeable),
        }


def light_stats(image: np.ndarray) -> tuple[float, float]:
    """(mean luma, luma standard deviation) of a BGR image, on a downscaled copy."""
    h, w = image.shape[:2]
    s = min(1.0, 160 / max(h, w))
    small = cv2.resize(image, (max(1, round(w * s)), max(1, round(h * s))), interpolation=cv2.INTER_AREA)
    y = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
    return float(y.mean()), float(y.std())


def _edge(x: float, y: float) -> str:
    dists = {"left": x, "right": 1 - x, "top": y, "bottom": 1 - y}
    return min(dists, key=dists.get)


_FIX = {
    "bottom": "step back, or tilt the camera down",
    "top": "step back, or tilt the camera up",
    "left": "move right in the picture, or turn the camera",
    "right": "move left in the picture, or turn the camera",
}


def _part(name: str) -> str:
    return name.replace("left_", "").replace("right_", "")


def assess(
    poses: Sequence[PoseFrame],
    width: int,
    height: int,
    *,
    pack: RulePack | None = None,
    light: Iterable[tuple[float, float]] = (),
) -> CameraCheck:
    """Judge the set-up from pose frames (normalised landmarks) and the frames' light statistics."""
    pack = pack or load_pack()
    people = [p for p in poses if p.landmarks is not None]
    items: list[CheckItem] = []
    key = np.array([INDEX[n] for n in KEY_POINTS])
    if not people:
        items.append(CheckItem("framing", FAIL, "no one in the picture: stand where the camera sees all of you"))
        view = "other"
    else:
        # framing: every key point seen, inside the border
        out_counts: dict[str, int] = {}
        good = 0
        for p in people:
            lm = p.landmarks
            bad = []
            for i in key:
                x, y, v = lm[i, 0], lm[i, 1], lm[i, 3]
                if v < VIS_MIN or not (MARGIN <= x <= 1 - MARGIN and MARGIN <= y <= 1 - MARGIN):
                    bad.append(i)
                    where = _edge(x, y) if math.isfinite(x) and math.isfinite(y) else "hidden"
                    k = f"{_part(NAMES[i])}@{where}"
                    out_counts[k] = out_counts.get(k, 0) + 1
            good += not bad
        share = good / len(people)
        if share >= IN_FRAME_SHARE:
            items.append(CheckItem("framing", OK, "whole body in the picture", share))
        else:
            worst = sorted(out_counts, key=out_counts.get, reverse=True)
            parts = sorted({w.split("@")[0] for w in worst[:4]})
            edge = worst[0].split("@")[1]
            fix = _FIX.get(edge, "make sure nothing hides them")
            where = f"at the {edge} edge" if edge in _FIX else "not seen"
            items.append(CheckItem("framing", FAIL, f"{', '.join(parts)} out of the picture ({where}): {fix}", share))
        # room for the bow arm, and distance
        lm = np.median(np.stack([p.landmarks for p in people]), axis=0)
        ls, rs = lm[INDEX["left_shoulder"]], lm[INDEX["right_shoulder"]]
        sw_px = math.hypot((ls[0] - rs[0]) * width, (ls[1] - rs[1]) * height)
        torso_px = math.hypot(
            ((ls[0] + rs[0]) - (lm[23, 0] + lm[24, 0])) / 2 * width,
            ((ls[1] + rs[1]) - (lm[23, 1] + lm[24, 1])) / 2 * height,
        )
        unit = max(sw_px, 0.45 * torso_px) if math.isfinite(torso_px) else sw_px  # turned archers: torso floor
        mid_x = (ls[0] + rs[0]) / 2 * width
        room = min(mid_x, width - mid_x) / unit if unit > 0 else math.nan
        if math.isfinite(room) and room < DRAW_ROOM_SW:
            side = "left" if mid_x < width / 2 else "right"
            items.append(
                CheckItem(
                    "room",
                    WARN,
                    f"too near the {side} edge: the bow arm will leave the picture at full draw; "
                    f"move towards the middle or step back",
                    room,
                )
            )
        else:
            items.append(CheckItem("room", OK, "room for the bow arm at full draw", room))
        fill = unit / (0.25 * height) if height else math.nan
        if sw_px < SW_MIN_PX or fill < FILL_MIN:
            items.append(
                CheckItem(
                    "distance", WARN if sw_px >= SW_MIN_PX else FAIL, "too far from the camera: come closer", fill
                )
            )
        elif fill > FILL_MAX:
            items.append(CheckItem("distance", FAIL, "too close to the camera: step back", fill))
        else:
            items.append(CheckItem("distance", OK, f"good distance (shoulders {sw_px / width:.0%} of the width)", fill))
        # view
        ratios = []
        for p in people:
            xy = p.landmarks[:, :2] * (width, height)
            ratios.append(torso_ratio(Body(p.index, p.t_ms, xy, p.landmarks[:, 3], 1.0, RIGHT)))
        est = classify_view(ratios)
        view = est.view
        msg = {
            "face-on": "facing the camera (face-on): the view the most rules are judged from",
            "down-line": "side-on to the camera (down-line): fewer rules can be judged; face the camera for all",
            "other": "turned at an angle: face the camera square, or stand side-on",
        }[view]
        items.append(CheckItem("view", OK if view == "face-on" else WARN, msg, est.ratio))
    # light
    light = list(light)
    if light:
        mean = float(np.median([m for m, _ in light]))
        contrast = float(np.median([s for _, s in light]))
        if mean < LUMA_MIN:
            items.append(CheckItem("light", FAIL if mean < LUMA_MIN / 2 else WARN, "too dark: add light", mean))
        elif mean > LUMA_MAX:
            items.append(CheckItem("light", WARN, "too bright or back-lit: turn away from windows", mean))
        elif contrast < CONTRAST_MIN:
            items.append(CheckItem("light", WARN, "flat, low-contrast picture: more light on the archer", contrast))
        else:
            items.append(CheckItem("light", OK, "light is fine", mean))
    judgeable, not_judgeable = rules_for_view(pack, view)
    return CameraCheck(items, view, len(poses), len(people), judgeable, not_judgeable)


def rules_for_view(pack: RulePack, view: str) -> tuple[list[str], dict[str, str]]:
    """Which rules this view lets us judge, and why the others cannot be."""
    ok: list[str] = []
    no: dict[str, str] = {}
    for r in pack.rules:
        if not r.observable:
            no[r.id] = f"not observable from body landmarks (needs {r.needs})" if r.needs else "not observable"
        elif not r.applies_to_view(view):
            no[r.id] = f"needs a {' or '.join(r.views)} view (this camera: {view})"
        else:
            ok.append(r.id)
    return ok, no


def check_frames(frames: Iterable, estimator, *, pack: RulePack | None = None) -> CameraCheck:
    """Run the pose model on `frames` (coach Frames) and assess them."""
    poses, light = [], []
    width = height = 0
    for f in frames:
        height, width = f.image.shape[:2]
        poses.append(estimator.estimate(f))
        light.append(light_stats(f.image))
    return assess(poses, width, height, pack=pack, light=light)


def check_source(
    spec,
    *,
    seconds: float = 2.0,
    samples: int = 12,
    pack: RulePack | None = None,
    model: str | None = None,
    estimator=None,
) -> CameraCheck:
    """Look at the first `seconds` of a camera or file: `samples` frames through the pose model."""
    from ..capture import FrameSource
    from ..pose import make_estimator

    own = estimator is None
    est = estimator or make_estimator(model)
    try:
        with FrameSource(spec) as src:
            step = max(1, int(src.fps * seconds / samples))
            picked = []
            for f in src:
                if f.t_ms > seconds * 1000.0 or len(picked) >= samples:
                    break
                if f.index % step == 0:
                    picked.append(f)
            return check_frames(picked, est, pack=pack)
    finally:
        if own:
            est.close()


def format_check(c: CameraCheck, lang: str = "zh") -> str:
    """The check for the terminal: every line in Chinese and English, `lang`'s first (coach/live/words.py; the
    findings worded by coach/wording/machine.py)."""
    from ..wording.machine import check_text, view_name
    from .words import other, say

    mark = {OK: "✓", WARN: "!", FAIL: "✗"}

    def two(line) -> str:  # line(lang) in both languages, once where they read the same
        a, b = line(lang), line(other(lang))
        return a if a == b else f"{a} · {b}"

    lines = [
        two(
            lambda lg: say(
                "check_head",
                lg,
                status=say(f"check_{c.status}", lg),
                view=view_name(c.view, lg),
                person=c.frames_with_person,
                frames=c.frames,
            )
        )
    ]
    for i in c.items:
        lines.append(f"  {mark[i.status]} {i.name:9} {two(lambda lg, m=i.message: check_text(m, lg))}")
    judged = two(lambda lg: say("check_judgeable", lg, n=len(c.judgeable)))  # the heading in both, the ids once
    lines.append(f"  {judged} — {', '.join(c.judgeable) or two(lambda lg: say('check_none', lg))}")
    view_limited = {k: v for k, v in c.not_judgeable.items() if v.startswith("needs a")}
    for rid, why in view_limited.items():
        lines.append(f"  – {rid}: {two(lambda lg, m=why: check_text(m, lg))}")
    n_unobs = len(c.not_judgeable) - len(view_limited)
    if n_unobs:
        lines.append("  " + two(lambda lg: say("check_unobservable", lg, n=n_unobs)))
    return "\n".join(lines)
