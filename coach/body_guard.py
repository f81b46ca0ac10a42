"""The upper body as MediaPipe misreads it: mirrored (left and right labels swapped on a body that did not turn)
or folded (the shoulders snapped together, the arms with them). `UpperBodyGuard` repairs the one and drops the
other, frame by frame and causally, so live and recorded analysis alike see the archer's own body; the rest of
the smoothing is coach/filters.py's. And someone else read for the archer: `SomeoneElse` drops a body found
elsewhere in the picture from one frame to the next (the archer beside on the line, a coach walking past)."""

from __future__ import annotations

import math
from collections import deque

import numpy as np

UPPER_BODY = slice(11, 23)  # MediaPipe shoulders, elbows, wrists and hand points, as (left, right) pairs
LOWER_BODY = slice(23, 33)  # hips, knees, ankles, heels, toes
L_SH, R_SH, L_HIP, R_HIP = 11, 12, 23, 24


def body_scale(xy: np.ndarray) -> float:
    """Pixels per body unit of one frame: the shoulder width, floored by 0.45 torso lengths (oblique views)."""
    w = math.hypot(*(xy[L_SH] - xy[R_SH]))
    torso = math.hypot(*((xy[L_SH] + xy[R_SH] - xy[L_HIP] - xy[R_HIP]) * 0.5))
    if math.isnan(torso):
        return w
    return torso * 0.45 if math.isnan(w) else max(w, torso * 0.45)


def _mirror_pairs(a: np.ndarray, sl: slice) -> None:
    """Swap the left/right labels of the (left, right) index pairs in a[sl], in place."""
    a[sl] = a[sl].reshape(-1, 2, *a.shape[1:])[:, ::-1].reshape(-1, *a.shape[1:])


class UpperBodyGuard:
    """Repairs or drops the upper body of frames where MediaPipe folds it. Causal, so live and recorded alike.

    - Mirror: the left/right order of the shoulders (or of the hips), seen wide, is against the order of
      the last `order_s` seconds. MediaPipe takes the archer for facing away, the arms swapping sides with
      the shoulders; the labels are swapped back. A real turn away lasts: after `mirror_max_s` of swapping
      the new order is taken as the archer's. So is a swap within `order_min_s` of the first frame with a person
      (MediaPipe's first frames of a person may be the misread ones: fm_starts_at_full_draw). But a turn
      passes through side-on: the shoulders narrow for a few frames (0.3-0.5 s between wide frames of the two
      orders on the real tracks). An order that flipped within `mirror_snap_s`, wide on both sides, away
      from one that had held for `mirror_max_s`, is MediaPipe relabelling a body that did not move, however
      long it lasts: it is swapped back for up to `mirror_snap_max_s` (fault_head_trunk at 270p: mirrored for
      2.4 s from the hold into the release; taken as a turn after 2 s, the draw hand leapt to the bow hand's
      side mid-hold and the shot was lost).
    - Legs: with the shoulders and the hips both clearly wide, the hips (and the legs with them) take the
      shoulders' order (`_legs_follow_trunk`): MediaPipe relabels the legs alone.
    - Collapse: the shoulders snap together within a frame (taken for a sudden turn) and the arms come with
      them: the upper body is dropped. The reference is the median width of the last accepted frames; after
      `max_s` of rejection a frame is accepted, one each `max_s`, until the new width is the reference's median
      (the archer did turn: some 8 s; MediaPipe's folds in low-quality video last longer than `max_s`, and
      their frames are not the archer's).
    - A fold is a fold until the width is back near the reference (`unfold_ratio`), not until it first creeps
      over `ratio`; and a width that snaps down by `snap_frac` of the reference within `snap_s` has folded at
      `unfold_ratio` already. MediaPipe half-unfolds for a second (the long session's shot 2: 84 px, 8 px,
      30-48 px, then 84 px again against a reference of 77); judged against `ratio` alone, a pixel of noise
      decided which of those frames were kept (a full-rate and an adaptive run of the same video saw the draw
      hand before the release in 3 frames and in none; a 15 fps copy kept two frames a 30 fps one dropped).
    """

    WIDE = 0.15  # shoulders or hips at least this share of the torso length apart: their order is clear
    # ... and this far apart on both sides of a flip within `mirror_snap_s` (shoulders 0.7 torso lengths apart
    # facing the camera: from 25 deg short of side-on to 25 deg past it in 0.15 s, a turn at 330 deg/s, which no
    # one standing at the shooting line makes)
    SNAP_WIDE = 0.3

    def __init__(
        self,
        ratio: float = 0.6,
        unfold_ratio: float = 0.7,
        snap_frac: float = 0.2,
        snap_s: float = 0.1,
        max_s: float = 1.0,
        window: int = 15,
        order_s: float = 3.0,
        mirror_max_s: float = 2.0,
        order_min_s: float = 0.5,
        mirror_snap_s: float = 0.15,
        mirror_snap_max_s: float = 15.0,
    ):
        self.ratio = ratio
        self.unfold_ratio = unfold_ratio
        self.max_s = max_s
        self.snap_frac = snap_frac
        self.snap_s = snap_s
        self._folded = False
        self._last = (-math.inf, math.nan)  # (t, width) of the frame before
        self.order_s = order_s
        self.mirror_max_s = mirror_max_s
        self.order_min_s = order_min_s
        self.mirror_snap_s = mirror_snap_s
        self.mirror_snap_max_s = mirror_snap_max_s
        self._ref: deque[float] = deque(maxlen=window)
        self._ok_t = -math.inf
        # per part: (t, sign of left-minus-right x) of recent unrepaired frames; (when swapping began, how long it
        # may last)
        self._signs: dict[str, deque[tuple[float, float]]] = {"shoulders": deque(), "hips": deque()}
        self._swap_since: dict[str, tuple[float, float] | None] = {"shoulders": None, "hips": None}
        # per part: (t, left-minus-right x in torso lengths) of the last frame it was seen wide, as MediaPipe
        # labelled it
        self._last_wide: dict[str, tuple[float, float]] = {"shoulders": (-math.inf, 0.0), "hips": (-math.inf, 0.0)}
        self._first_t = math.nan  # when a person was first seen
        self.scale: float = math.nan  # median body scale (px) of recent accepted frames, for the despiker
        self._scales: deque[float] = deque(maxlen=window)

    def _unmirror(self, part: str, dx: float, torso: float, t_s: float, xy: np.ndarray, vis: np.ndarray) -> bool:
        if not abs(dx) >= self.WIDE * torso:
            return False
        signs = self._signs[part]
        while signs and t_s - signs[0][0] > self.order_s:
            signs.popleft()
        sign = math.copysign(1.0, dx)
        last_t, last_r = self._last_wide[part]
        self._last_wide[part] = (t_s, dx / torso)
        snapped = self._snapped(last_t, last_r, t_s, dx / torso)
        order = sum(s for _, s in signs)
        if order * sign < 0:
            # MediaPipe's first reading of a person may be the mirrored one (it settles within a few frames): an
            # order seen in the first `order_min_s` is no order yet, and its frames must not outvote the next two
            # seconds.
            if self._swap_since[part] is None and t_s - self._first_t < self.order_min_s:
                since = (t_s, -1.0)  # the new order is taken at once
            else:
                long_ok = snapped and self._settled(signs, t_s)
                since = self._swap_since[part] or (t_s, self.mirror_snap_max_s if long_ok else self.mirror_max_s)
            if t_s - since[0] <= since[1] + 1e-6:
                self._swap_since[part] = since
                sl = UPPER_BODY if part == "shoulders" else LOWER_BODY
                _mirror_pairs(xy, sl)
                _mirror_pairs(vis, sl)
                return True
            signs.clear()  # swapped for too long (the archer turned), or against no order yet: follow the new one
        self._swap_since[part] = None
        signs.append((t_s, sign))
        return False

    def _legs_follow_trunk(self, xy: np.ndarray, vis: np.ndarray, torso: float, t_s: float) -> bool:
        """With the shoulders (as repaired) and the hips both clearly wide, the hips' order is the shoulders': a body
        does not twist past side-on at the waist (an open stance turns the hips 20-30 deg from the shoulders, not
        the 50 deg two `SNAP_WIDE` readings either side of side-on would take). MediaPipe relabels the legs on
        their own (fault_bow_arm at 270p: the hips and feet swapped for 2 s of a hold, the front foot read as a T);
        the hips' own order, learnt from frames where they were barely wide, would have kept them swapped. Returns
        whether the legs were swapped back; the hips' order is the shoulders' from here on."""
        sh = (xy[L_SH, 0] - xy[R_SH, 0]) / torso
        hips = (xy[L_HIP, 0] - xy[R_HIP, 0]) / torso
        if not (abs(sh) >= self.SNAP_WIDE and abs(hips) >= self.SNAP_WIDE):
            return False  # NaN compares False: the hips' own order decides
        swap = sh * hips < 0
        if swap:
            _mirror_pairs(xy, LOWER_BODY)
            _mirror_pairs(vis, LOWER_BODY)
            hips = -hips
        signs = self._signs["hips"]
        signs.clear()
        signs.append((t_s, math.copysign(1.0, hips)))
        self._swap_since["hips"] = None
        self._last_wide["hips"] = (t_s, hips)
        return swap

    def _snapped(self, last_t: float, last_r: float, t_s: float, r: float) -> bool:
        """Did the order flip from the last wide frame (`last_r` at `last_t`) to this one (`r`; left-minus-right in
        torso lengths) within `mirror_snap_s`, clearly wide on both sides: a relabelling, not a turn?"""
        return (
            last_r * r < 0 and min(abs(last_r), abs(r)) >= self.SNAP_WIDE and t_s - last_t <= self.mirror_snap_s + 1e-6
        )

    def _settled(self, signs: deque[tuple[float, float]], t_s: float) -> bool:
        """Has one order held, unanimous, for `mirror_max_s` at least? An order is defended for longer than a turn
        takes only once it has itself lasted that long. MediaPipe's first readings of someone flicker (real09, from
        behind: four flips in its first half second), and from behind its first reading may be the wrong one: a
        snap away from either is no relabelling of a body it had right."""
        if not signs or t_s - signs[0][0] < self.mirror_max_s:
            return False
        return all(s == signs[-1][1] for _, s in signs)

    def __call__(self, xy: np.ndarray, vis: np.ndarray, t_s: float) -> str | None:
        """Repair `xy` and `vis` in place; returns "mirrored", "collapsed" or None."""
        if math.isnan(self._first_t):
            self._first_t = t_s
        what = None
        torso = math.hypot(*((xy[L_SH] + xy[R_SH] - xy[L_HIP] - xy[R_HIP]) * 0.5))
        if torso > 0:  # NaN compares False; a zero torso (a degenerate reading) orders nothing
            if self._unmirror("shoulders", xy[L_SH, 0] - xy[R_SH, 0], torso, t_s, xy, vis):
                what = "mirrored"
            if self._legs_follow_trunk(xy, vis, torso, t_s):
                what = "mirrored"
            elif self._unmirror("hips", xy[L_HIP, 0] - xy[R_HIP, 0], torso, t_s, xy, vis):
                what = "mirrored"
        w = math.hypot(*(xy[L_SH] - xy[R_SH]))
        if math.isnan(w):
            return what
        ref = float(np.median(self._ref)) if self._ref else math.nan
        # A snap: the width fell by snap_frac of the reference since the frame before (a real turn takes longer:
        # 20 % of the width in 0.1 s is a quarter turn in half a second).
        snapped = t_s - self._last[0] <= self.snap_s + 1e-6 and self._last[1] - w > self.snap_frac * ref
        self._last = (t_s, w)
        limit = self.unfold_ratio if self._folded or snapped else self.ratio
        self._folded = w < limit * ref and t_s - self._ok_t <= self.max_s
        if self._folded:
            xy[UPPER_BODY] = np.nan
            return "collapsed"
        self._ref.append(w)
        self._ok_t = t_s
        sc = body_scale(xy)
        if not math.isnan(sc):
            self._scales.append(sc)
            self.scale = float(np.median(self._scales))
        return what


class SomeoneElse:
    """A body read `jump` body scales or more from where the archer was a moment before (`max_s`) is someone else:
    the pose model, single-person, took up the archer beside on the line or someone walking past. The pose
    misplaces the whole body by under 0.45 body scales from one frame to the next on every real and synthetic track
    (0.82 where a phone swung away after the release or an edit cut, real06 and real10), an archer walking out of
    the picture moves 0.34 a frame at 30 fps, and the archer beside stands 2.5-4 away. Such a frame is dropped as
    one with nobody found, so a hold is not read as a release. After `max_s` with no frame near, the body elsewhere
    is taken as the archer's (a cut, a camera that moved, an archer who walked while seen a few times a second:
    adaptive analysis's idle samples, where nobody draws). Causal."""

    def __init__(self, jump: float = 1.5, max_s: float = 1.0):
        self.jump = jump
        self.max_s = max_s
        self._t = -math.inf  # when the last body was taken
        self._mid = np.full(2, np.nan)  # its shoulder midpoint (px)

    def __call__(self, xy: np.ndarray, scale: float, t_s: float) -> bool:
        """True when the body in `xy` (px) is someone else's, `scale` the archer's body scale (px; NaN: unknown)."""
        dx = 0.5 * (xy[L_SH, 0] + xy[R_SH, 0])
        dy = 0.5 * (xy[L_SH, 1] + xy[R_SH, 1])
        if math.isnan(dx) or math.isnan(dy):
            return False  # no shoulders: nothing to place
        if t_s - self._t <= self.max_s and math.hypot(dx - self._mid[0], dy - self._mid[1]) >= self.jump * scale:
            return True  # NaN (no scale, no body before) compares False
        self._t, self._mid[0], self._mid[1] = t_s, dx, dy
        return False
