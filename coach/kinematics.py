"""A frame's body in the archer's terms: named points in pixels, shoulder width as the unit of length,
angles and lengths defined as data, and the camera view.

Lengths are in shoulder widths (SW) so that no rule depends on the archer's distance or the resolution.
SW is taken as a running median over upright frames, because the 2D shoulder width shrinks whenever the
archer turns; a per-frame SW would make every length jump with the turn.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np

from . import geometry as g
from .landmarks import LEFT_HIP, LEFT_SHOULDER, NAMES, RIGHT_HIP, RIGHT_SHOULDER, SideMap

VIS_MIN = 0.5
# An arm joint whose centre is nearer the picture's edge than this is not measured: the arm may be partly out of
# the picture, and MediaPipe places a joint it cannot see just inside the border with full visibility (real02's
# draw elbow, out of frame late in the hold, read 5-25 px in and 0.06-0.14 SW from the edge, its elevation 10 deg
# low). An elbow or a wrist is about a quarter of a shoulder width across: this is more than half of that. The
# trunk's points are left alone: a picture framed at the hips (real03, real05) still gives the torso's line.
EDGE_MARGIN_SW = 0.15
ARM_JOINTS = frozenset(
    i for i, n in enumerate(NAMES) if n.split("_", 1)[-1] in ("elbow", "wrist", "pinky", "index", "thumb")
)


@dataclass(slots=True)
class Body:
    """One filtered frame. `xy` (33, 2) pixels (NaN = missing), `vis` (33,), `sw` pixels per SW."""

    index: int
    t_ms: float
    xy: np.ndarray
    vis: np.ndarray
    sw: float
    sides: SideMap
    raw_xy: np.ndarray | None = None
    # The pose of the very picture before, to the bit (a duplicated frame, `pose.RepeatsSeen`): no new look at the
    # archer; a glimpse and its copy are one glimpse (`phases.frames.view_after`).
    repeat: bool = False
    picture: tuple[int, int] | None = None  # (width, height) in pixels, where known: points at its edge are not read

    @property
    def t_s(self) -> float:
        return self.t_ms / 1000.0

    def p(self, name: str) -> np.ndarray:
        return self.xy[self.sides[name]]

    def v(self, name: str) -> float:
        return float(self.vis[self.sides[name]])

    def visible(self, names: tuple[str, ...], min_vis: float = VIS_MIN) -> bool:
        """Every named point seen (its visibility at least `min_vis`), an arm joint off the picture's edge."""
        for n in names:
            i = self.sides[n]
            if self.vis[i] < min_vis or math.isnan(self.xy[i, 0]) or self._at_edge(i):
                return False
        return True

    def _at_edge(self, i: int) -> bool:
        """Point i an arm joint within EDGE_MARGIN_SW of the picture's edge (False where the picture's size is not
        known)."""
        if self.picture is None or i not in ARM_JOINTS or not self.sw > 0:
            return False
        m = EDGE_MARGIN_SW * self.sw
        x, y = self.xy[i]
        return bool(x < m or y < m or x > self.picture[0] - m or y > self.picture[1] - m)

    def mid(self, a: str, b: str) -> np.ndarray:
        return g.midpoint(self.p(a), self.p(b))

    def dist_sw(self, a: str, b: str) -> float:
        return g.distance(self.p(a), self.p(b)) / self.sw if self.sw > 0 else math.nan


@dataclass(frozen=True, slots=True)
class AngleDef:
    points: tuple[str, ...]
    kind: str  # "joint" | "tilt" | "lean" | "elevation"


def _point(body: Body, name: str) -> np.ndarray:
    if name.startswith("mid_"):
        part = name[4:]
        return body.mid(f"bow_{part}", f"draw_{part}")
    return body.p(name)


_ANGLE_KINDS = MappingProxyType(
    {
        "joint": lambda p: g.joint_angle(p[0], p[1], p[2]),
        "tilt": lambda p: g.tilt(p[0], p[1]),
        "lean": lambda p: g.lean(p[0], p[1]),
        "elevation": lambda p: g.elevation_above_line(p[0], p[1], p[2]),
    }
)

# The angles a coach talks about, as data. Each resolves through the archer's SideMap.
ANGLES: MappingProxyType[str, AngleDef] = MappingProxyType(
    {
        "bow_elbow": AngleDef(("bow_shoulder", "bow_elbow", "bow_wrist"), "joint"),
        "draw_elbow": AngleDef(("draw_shoulder", "draw_elbow", "draw_wrist"), "joint"),
        "arrow_tilt": AngleDef(("bow_wrist", "draw_wrist"), "tilt"),
        "shoulder_tilt": AngleDef(("bow_shoulder", "draw_shoulder"), "tilt"),
        "trunk_lean": AngleDef(("mid_hip", "mid_shoulder"), "lean"),
        "draw_elbow_elevation": AngleDef(("draw_elbow", "bow_wrist", "draw_wrist"), "elevation"),
    }
)

LENGTHS: MappingProxyType[str, tuple[str, str]] = MappingProxyType(
    {
        "span": ("bow_wrist", "draw_wrist"),
        "draw_hand_to_face": ("draw_wrist", "nose"),
        "ankle_spread": ("bow_ankle", "draw_ankle"),
    }
)


def point_names(defn: AngleDef | tuple[str, str]) -> tuple[str, ...]:
    pts = defn.points if isinstance(defn, AngleDef) else defn
    out: list[str] = []
    for n in pts:
        out.extend((f"bow_{n[4:]}", f"draw_{n[4:]}") if n.startswith("mid_") else (n,))
    return tuple(out)


def angle(body: Body, name: str) -> float:
    d = ANGLES[name]
    return _ANGLE_KINDS[d.kind]([_point(body, n) for n in d.points])


def length(body: Body, name: str) -> float:
    a, b = LENGTHS[name]
    return body.dist_sw(a, b)


class ShoulderWidth:
    """Robust running shoulder width: the upper quartile of recent widths (a turn only ever narrows the
    projected shoulders), never less than TORSO_FLOOR × the torso length, because in an oblique or profile
    view the shoulders may never look square and the unit would collapse (seen on real footage: 15 px of
    "shoulder width" on a 140 px torso).

    The quantiles are recomputed on the frames whose number is a multiple of REFRESH (and on the first frame
    measured), not on every REFRESH-th frame seen: where the archer came into the picture at a frame number that
    is no multiple of it, the units were in another step, and a shot re-judged from a few seconds before it
    (coach/rejudge.py) was measured otherwise than the analysis had (18 of the golden tracks' 38 shots)."""

    REFRESH = 6  # frames between recomputing the quantiles: the unit changes slowly, this runs every frame

    def __init__(self, window: int = 90):
        self._w: deque[float] = deque(maxlen=window)
        self._torso: deque[float] = deque(maxlen=window)
        self._value = math.nan
        self._block = -1  # index // REFRESH of the frame the value was computed on

    def update(self, index: int, xy: np.ndarray, vis: np.ndarray) -> float:
        if vis[LEFT_SHOULDER] >= VIS_MIN and vis[RIGHT_SHOULDER] >= VIS_MIN:
            w = g.distance(xy[LEFT_SHOULDER], xy[RIGHT_SHOULDER])
            if w > 0 and not math.isnan(w):
                self._w.append(w)
                if vis[LEFT_HIP] >= VIS_MIN and vis[RIGHT_HIP] >= VIS_MIN:
                    t = g.distance(
                        g.midpoint(xy[LEFT_SHOULDER], xy[RIGHT_SHOULDER]), g.midpoint(xy[LEFT_HIP], xy[RIGHT_HIP])
                    )
                    if not math.isnan(t):
                        self._torso.append(t)
        if not self._w:
            return math.nan
        block = index // self.REFRESH
        if block != self._block or math.isnan(self._value):
            w = sorted(self._w)
            sw = w[(3 * (len(w) - 1)) // 4]
            if self._torso:
                t = sorted(self._torso)
                sw = max(sw, TORSO_FLOOR * t[len(t) // 2])
            self._value, self._block = sw, block
        return self._value


TORSO_FLOOR = 0.45


VIEWS = ("face-on", "down-line", "other", "high")
# Shoulder width over torso length: ~0.55–0.75 square to the camera, ~0.1–0.2 in profile. Measured on the
# real tracks in shared/realpose: front views 0.42–0.57 over the shot, front-oblique 0.40, behind-oblique 0.16.
FACE_ON_RATIO = 0.40
DOWN_LINE_RATIO = 0.25
# Hip-to-ankle over torso length: 1.5–1.6 with the camera at shoulder height (synthetic clips; adults'
# legs are ~1.6 torsos), 1.31 from the high camera that shows the stance; below this the view is "high".
HIGH_LEG_RATIO = 1.42


@dataclass(frozen=True, slots=True)
class ViewEstimate:
    view: str
    confidence: float
    ratio: float  # shoulder width / torso length


def classify_view(ratios, leg_ratios=()) -> ViewEstimate:
    """Face-on shows the shoulders wide against the torso; down-line (profile) shows them narrow; a high
    camera looking down shortens the legs against the torso.

    `ratios` are SW / torso length per frame, `leg_ratios` hip-to-ankle / torso length where the feet are
    seen; the median decides and the share of frames agreeing with it is the confidence.
    """
    r = np.asarray([x for x in ratios if not math.isnan(x)])
    if len(r) == 0:
        return ViewEstimate("other", 0.0, math.nan)
    med = float(np.median(r))
    cats = np.where(r >= FACE_ON_RATIO, 0, np.where(r <= DOWN_LINE_RATIO, 1, 2))
    view = VIEWS[0] if med >= FACE_ON_RATIO else VIEWS[1] if med <= DOWN_LINE_RATIO else VIEWS[2]
    conf = float(np.mean(cats == VIEWS.index(view)))
    legs = np.asarray([x for x in leg_ratios if not math.isnan(x)])
    if view == "face-on" and len(legs) >= max(5, 0.3 * len(r)) and float(np.median(legs)) < HIGH_LEG_RATIO:
        return ViewEstimate("high", round(float(np.mean(legs < HIGH_LEG_RATIO)), 3), round(med, 3))
    return ViewEstimate(view, round(conf, 3), round(med, 3))


def leg_ratio(body: Body) -> float:
    names = ("bow_shoulder", "draw_shoulder", "bow_hip", "draw_hip", "bow_ankle", "draw_ankle")
    if not body.visible(names):
        return math.nan
    hip = body.mid("bow_hip", "draw_hip")
    torso = g.distance(body.mid("bow_shoulder", "draw_shoulder"), hip)
    return g.distance(hip, body.mid("bow_ankle", "draw_ankle")) / torso if torso > 0 else math.nan


def torso_ratio(body: Body) -> float:
    names = ("bow_shoulder", "draw_shoulder", "bow_hip", "draw_hip")
    if not body.visible(names):
        return math.nan
    torso = g.distance(body.mid("bow_shoulder", "draw_shoulder"), body.mid("bow_hip", "draw_hip"))
    sw_now = g.distance(body.p("bow_shoulder"), body.p("draw_shoulder"))
    return sw_now / torso if torso > 0 else math.nan
