"""Which view a shot was filmed from: the shoulders against the torso over the shot (`classify_view`), and
whether the arrow lay square to the camera at full draw.

The face-on rules measure angles and lengths in the picture's plane: the draw elbow against the arrow, the
arrow's tilt, the bow arm's straightness, the shoulder line. Those are the body's own only while the arrow
lies across the picture. With the camera down-range or up-range of the archer the arrow points into the
depth and every one of them is distorted: an elevation θ seen at a yaw φ shows as atan(tan θ / cos φ).
Beyond 45° of yaw that inflates an angle by more than 40 %, larger than any rule's margin, so such a shot
is not judged face-on ("other", the oblique view) whatever its shoulders look like. The shoulder-width ratio
cannot see this: the shoulder line lies along the arrow and shortens with it.

The yaw is read from the bow arm, which at full draw lies along the arrow: its length in the picture over
its own length is cos φ. A projection only ever shortens a segment, so the arm's own length is the larger
of two estimates that can only fall short: the longest its upper arm and forearm were seen in the shot
(the arms hang straight down before the raise), and a typical arm for the torso seen in the same frame.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from . import geometry as g
from .kinematics import Body, classify_view, leg_ratio, torso_ratio

# cos 45°: beyond this yaw an angle in the picture is inflated by more than 40 % (see the docstring).
ARROW_SQUARE_MIN = 0.7
# Shoulder to wrist over shoulder-centre to hip-centre: ~1.0 in adults (anthropometric tables: arm 0.33,
# trunk 0.29 of the stature, hip joints below the iliac crest); 0.89–0.99 measured on the square real views.
ARM_PER_TORSO = 1.0
# The upper quantile of the segment lengths seen, not the maximum: one bad landmark must not set the unit.
OWN_LENGTH_QUANTILE = 90
MIN_FRAMES = 5
_ARM = ("bow_shoulder", "bow_wrist")
_SEGMENTS = (
    ("bow_shoulder", "bow_elbow"),
    ("draw_shoulder", "draw_elbow"),
    ("bow_elbow", "bow_wrist"),
    ("draw_elbow", "draw_wrist"),
)
_TORSO = ("bow_shoulder", "draw_shoulder", "bow_hip", "draw_hip")


# How sure the draw start and the anchor are when the arrow points into the depth: the draw moves the hand
# along the arrow, so its travel is foreshortened as much as the arrow and where it starts and stops is a
# guess (real01: anchor 74 frames late; real07: draw start 14 frames early). The same as a draw start found
# without a pause at the set (coach/phases/params.py draw_guess_conf).
ALONG_DEPTH_MARK_CONF = 0.3
ALONG_DEPTH_REASON = "the arrow pointed into the depth"  # a face-on rule's reason (coach/wording/machine.py)
# A face-on rule's reason where the bow arm was too little seen at full draw to tell how square the arrow lay
# (a close-up that cuts the bow hand off in part of the hold, a hand hidden by someone passing): the arrow may
# point into the depth as much as real01's, and an angle read in the picture would be distorted as much.
ARROW_UNSEEN_REASON = "the arrow's direction was not seen"


@dataclass(frozen=True, slots=True)
class ShotView:
    """The view a shot is judged from, and how square its arrow lay to the camera (NaN: not seen)."""

    view: str
    arrow_square: float = math.nan
    face_on_shoulders: bool = False  # the shoulders said face-on, so the arrow's squareness was measured

    @property
    def along_depth(self) -> bool:
        """Seen face-on by its shoulders, but with the arrow pointing into the depth."""
        return self.arrow_square < ARROW_SQUARE_MIN

    @property
    def arrow_unseen(self) -> bool:
        """Seen face-on by its shoulders, but with too little of the bow arm at full draw to tell the arrow's way."""
        return self.face_on_shoulders and math.isnan(self.arrow_square)

    @property
    def off_view(self) -> str | None:
        """Why the face-on rules were not judged, where the shoulders say face-on and the arrow does not (or may
        not): the view's name alone ("oblique") would contradict the session's face-on view."""
        if self.along_depth:
            return ALONG_DEPTH_REASON
        return ARROW_UNSEEN_REASON if self.arrow_unseen else None

    def marks_confidence(self, conf: dict[str, float]) -> dict[str, float]:
        """The shot's mark confidences, with the draw start and the anchor no surer than this view allows."""
        if not self.along_depth:
            return dict(conf)
        return {**conf, **{m: min(conf.get(m, 1.0), ALONG_DEPTH_MARK_CONF) for m in ("draw_start", "anchor")}}


def shot_view(bodies: Sequence[Body], shot, fallback: str) -> ShotView:
    """The view a shot is judged from. `bodies`: the shot's frames (raise start → end); `shot`: its marks
    (anything with anchor_frame, release_frame and end_frame: the full draw's arrow decides); `fallback`: the
    session's view when the shot alone cannot tell."""
    est = classify_view([torso_ratio(b) for b in bodies], [leg_ratio(b) for b in bodies])
    view = est.view if est.confidence > 0 else fallback
    if view != "face-on":
        return ShotView(view)
    square = arrow_squareness(bodies, *_full_draw(shot))
    # Not known is not square: a shot whose arrow could not be seen is not judged in the picture's plane.
    square_enough = square >= ARROW_SQUARE_MIN
    return ShotView(view if square_enough else "other", square, face_on_shoulders=True)


def _full_draw(shot) -> tuple[int, int]:
    """Frames [anchor, release) — to the shot's end when the release was not seen."""
    if shot.anchor_frame is None:
        return (0, 0)
    stop = shot.release_frame if shot.release_frame is not None else shot.end_frame + 1
    return (shot.anchor_frame, stop)


def arrow_squareness(bodies: Sequence[Body], lo: int, hi: int) -> float:
    """cos of the arrow's yaw out of the picture's plane over frames [lo, hi): the median length of the bow arm
    in the picture over its own length. NaN when too little is seen: not known, which `shot_view` does not take
    for square."""
    own_px = _own_arm_px(bodies)
    torso = _torso_by_frame(bodies)
    seen = []
    for b in bodies:
        if lo <= b.index < hi and b.visible(_ARM):
            own = max(own_px, ARM_PER_TORSO * torso(b.index))
            if own > 0:
                seen.append(g.distance(b.p("bow_shoulder"), b.p("bow_wrist")) / own)
    return float(np.median(seen)) if len(seen) >= MIN_FRAMES else math.nan


def _torso_by_frame(bodies: Sequence[Body]) -> Callable[[int], float]:
    """The torso's length at a frame: as seen there, or else as seen in the nearest frame of the shot that
    shows it (0 if none does). A picture framed at the hips shows them in some frames only (real01 cropped to
    its upper body: in a third, none at full draw): the arm at full draw was then measured against its own
    foreshortened length alone and the arrow, 59 % into the depth, read as square (79 %), so every face-on rule
    was judged on it. The torso does not shorten with the arrow's yaw, nor within a shot with the distance."""
    frames = [(b.index, t) for b in bodies if (t := _torso_px(b)) > 0]
    at = [i for i, _ in frames]

    def torso(index: int) -> float:
        if not frames:
            return 0.0
        k = bisect.bisect_left(at, index)
        near = min((j for j in (k - 1, k) if 0 <= j < len(frames)), key=lambda j: abs(at[j] - index))
        return frames[near][1]

    return torso


def _own_arm_px(bodies: Sequence[Body]) -> float:
    """Upper arm plus forearm at their longest seen (either side: the two arms are the same length)."""
    upper, fore = [], []
    for b in bodies:
        for (a, c), out in zip(_SEGMENTS, (upper, upper, fore, fore)):
            if b.visible((a, c)):
                out.append(g.distance(b.p(a), b.p(c)))
    if len(upper) < MIN_FRAMES or len(fore) < MIN_FRAMES:
        return 0.0
    return float(np.percentile(upper, OWN_LENGTH_QUANTILE) + np.percentile(fore, OWN_LENGTH_QUANTILE))


def _torso_px(b: Body) -> float:
    if not b.visible(_TORSO):
        return 0.0
    return g.distance(b.mid("bow_shoulder", "draw_shoulder"), b.mid("bow_hip", "draw_hip"))
