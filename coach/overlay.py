"""Drawing on BGR frames: the skeleton, the current phase, and each flagged fault highlighted on the body (the
rule's `body_parts`) with its short cue — in Chinese, which OpenCV's putText cannot draw.

    ov = Overlay(pack, handedness="right")          # font loaded once
    ov.draw(image, frame_result, shot_faults)        # draws in place and returns the image

Used by annotated videos, report key frames and live views. Text is rendered with Pillow once per distinct
(text, size, colour) into a cached RGBA sprite and alpha-blended into the frame, so steady-state drawing
allocates nothing but small temporaries.
"""

from __future__ import annotations

import math
import os
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from .errors import CoachError
from .landmarks import SIDES, SKELETON

PHASE_LABELS = {
    "setup": "預備 setup",
    "raise": "舉弓 raise",
    "draw": "開弓 draw",
    "full_draw": "滿弓 full draw",
    "hold": "審固 hold",
    "release": "發矢 release",
    "follow_through": "收勢 follow-through",
}

# BGR
BONE = (235, 220, 120)
JOINT = (255, 255, 255)
FAULT = (40, 40, 235)
PANEL = (30, 30, 30)
TEXT = (255, 255, 255)

_SYSTEM_FONTS = (
    "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc",
    "/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc",
    "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf",
)


@lru_cache(maxsize=1)
def cjk_font_path() -> Path:
    """A TrueType font with Chinese glyphs: $COACH_FONT, else the one the `paperang-p2-fonts-cjk` dependency
    installs (WenQuanYi Micro Hei, Apache-2.0, TrueType outlines so PDFs can embed it), else a system font."""
    env = os.environ.get("COACH_FONT")
    if env:
        p = Path(env)
        if not p.is_file():
            raise CoachError(p, "COACH_FONT names no font file")
        return p
    try:
        import paperang_p2_fonts_cjk as pkg

        p = Path(pkg.__file__).parent / "fonts" / "wqy-microhei.ttc"
        if p.is_file():
            return p
    except ImportError:
        pass
    for s in _SYSTEM_FONTS:
        if Path(s).is_file():
            return Path(s)
    raise CoachError(None, "no Chinese font found: reinstall the project (pip install -e .) or set COACH_FONT")


class TextSprites:
    """Pillow-rendered text as cached premultiplied sprites, blended onto BGR images."""

    def __init__(self, font_path: str | os.PathLike | None = None, cache_size: int = 512):
        from PIL import ImageFont

        self._font_path = str(font_path or cjk_font_path())
        self._fonts: dict[int, ImageFont.FreeTypeFont] = {}
        self._cache: OrderedDict[tuple, tuple[np.ndarray, np.ndarray]] = OrderedDict()
        self._cache_size = cache_size

    def font(self, px: int):
        from PIL import ImageFont

        f = self._fonts.get(px)
        if f is None:
            f = self._fonts[px] = ImageFont.truetype(self._font_path, px)
        return f

    def sprite(self, text: str, px: int, colour: tuple[int, int, int]) -> tuple[np.ndarray, np.ndarray]:
        """(colour × alpha as float32 HxWx3, 1 − alpha as float32 HxWx1) for `text` at `px` pixels."""
        key = (text, px, colour)
        hit = self._cache.get(key)
        if hit is not None:
            self._cache.move_to_end(key)
            return hit
        from PIL import Image, ImageDraw

        font = self.font(px)
        left, top, right, bottom = font.getbbox(text)
        ox, oy = -min(left, 0), -min(top, 0)
        w, h = max(1, right + ox), max(1, bottom + oy)
        mask = Image.new("L", (w, h), 0)
        ImageDraw.Draw(mask).text((ox, oy), text, font=font, fill=255)
        a = np.asarray(mask, dtype=np.float32)[..., None] / 255.0
        premul = a * np.array(colour, dtype=np.float32)
        out = (premul, 1.0 - a)
        self._cache[key] = out
        if len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)
        return out

    def size(self, text: str, px: int) -> tuple[int, int]:
        premul, _ = self.sprite(text, px, TEXT)
        return premul.shape[1], premul.shape[0]

    def put(self, image: np.ndarray, text: str, org: tuple[int, int], px: int, colour=TEXT) -> tuple[int, int]:
        """Blend `text` with its top-left at `org`; clipped at the image border. Returns (w, h)."""
        premul, inv = self.sprite(text, px, colour)
        h, w = premul.shape[:2]
        x, y = int(org[0]), int(org[1])
        H, W = image.shape[:2]
        x0, y0, x1, y1 = max(x, 0), max(y, 0), min(x + w, W), min(y + h, H)
        if x0 >= x1 or y0 >= y1:
            return w, h
        roi = image[y0:y1, x0:x1]
        sx, sy = x0 - x, y0 - y
        blended = roi * inv[sy : sy + y1 - y0, sx : sx + x1 - x0] + premul[sy : sy + y1 - y0, sx : sx + x1 - x0]
        np.clip(blended, 0, 255, out=blended)
        roi[...] = blended.astype(np.uint8)
        return w, h

    def label(
        self, image: np.ndarray, text: str, org: tuple[int, int], px: int, colour=TEXT, box=PANEL, pad: int = 4
    ) -> tuple[int, int]:
        """Text on a filled box; `org` is the box's top-left. Returns the box size."""
        w, h = self.size(text, px)
        x, y = int(org[0]), int(org[1])
        cv2.rectangle(image, (x, y), (x + w + 2 * pad, y + h + 2 * pad), box, thickness=-1)
        self.put(image, text, (x + pad, y + pad), px, colour)
        return w + 2 * pad, h + 2 * pad


@dataclass(slots=True)
class PoseView:
    """What the overlay needs of a frame; `FrameResult` has the same fields."""

    xy: np.ndarray  # (33, 2) pixels in the source frame, NaN = missing
    vis: np.ndarray  # (33,)
    phase: str = ""
    shot: int | None = None
    active_faults: tuple[str, ...] = ()


class Overlay:
    """Draws one frame's pose, phase and faults. One instance per video or view; not thread-safe."""

    def __init__(
        self,
        pack,
        handedness: str = "right",
        *,
        font_path: str | os.PathLike | None = None,
        min_visibility: float = 0.5,
        english: bool = True,
    ):
        self.rules = {r.id: r for r in pack.rules}
        self.handedness = handedness if handedness in SIDES else "right"
        self.text = TextSprites(font_path)
        self.min_visibility = min_visibility
        self.english = english
        self._edges = np.array(SKELETON, dtype=np.intp)

    def _parts(self, rule_id: str) -> list[int]:
        rule = self.rules.get(rule_id)
        if rule is None:
            return []
        sides = SIDES[self.handedness]
        out = []
        for name in rule.body_parts:
            if name.startswith("mid_"):
                out += [sides.index.get(f"bow_{name[4:]}"), sides.index.get(f"draw_{name[4:]}")]
            else:
                out.append(sides.index.get(name))
        return [i for i in out if i is not None]

    def draw(
        self,
        image: np.ndarray,
        frame,
        shot_faults: Iterable[str] = (),
        *,
        scale: float = 1.0,
        title: str | None = None,
    ) -> np.ndarray:
        """Draw in place on the BGR `image` and return it.

        `frame`: a FrameResult or PoseView (landmarks in source pixels; `scale` maps them onto `image`, e.g.
        for a thumbnail). Faults drawn: `shot_faults` plus the frame's own `active_faults`."""
        H, W = image.shape[:2]
        px = max(12, round(H / 26))
        thick = max(1, round(H / 240))
        xy = getattr(frame, "xy", None)
        vis = getattr(frame, "vis", None)
        faults = list(dict.fromkeys([*shot_faults, *(getattr(frame, "active_faults", None) or ())]))
        pts = ok = None
        if xy is not None:
            pts = np.asarray(xy, dtype=np.float64)[:, :2] * scale
            ok = np.isfinite(pts).all(axis=1)
            if vis is not None:
                ok &= np.asarray(vis) >= self.min_visibility
            for a, b in self._edges:
                if ok[a] and ok[b]:
                    cv2.line(image, _pt(pts[a]), _pt(pts[b]), BONE, thick + 1, cv2.LINE_AA)
            for i in np.flatnonzero(ok[11:]) + 11:
                cv2.circle(image, _pt(pts[i]), thick + 2, JOINT, -1, cv2.LINE_AA)
        # faults on the body: all highlights first, then the cue labels on top
        labels: list[tuple[str, int, int]] = []
        for rid in faults:
            parts = self._parts(rid)
            if pts is None or not parts:
                continue
            seen = [i for i in parts if ok[i]]
            part_set = set(parts)
            for a, b in self._edges:
                if a in part_set and b in part_set and ok[a] and ok[b]:
                    cv2.line(image, _pt(pts[a]), _pt(pts[b]), FAULT, thick + 3, cv2.LINE_AA)
            for i in seen:
                cv2.circle(image, _pt(pts[i]), 3 * thick + 6, FAULT, thick + 1, cv2.LINE_AA)
            if seen:
                # the cue sits above the highlighted parts (below them if there is no room), off the body
                top = min(seen, key=lambda i: pts[i, 1])
                bottom = max(seen, key=lambda i: pts[i, 1])
                ring = 3 * thick + 6
                x = int(np.mean([pts[i, 0] for i in seen]))
                y = int(pts[top, 1]) - ring - 2 * px - 8
                if y < 2 * px + 16:  # under the phase banner: go below instead
                    y = int(pts[bottom, 1]) + ring + 6
                labels.append((self.rules[rid].cue_zh, x, y))
        placed: list[tuple[int, int, int]] = []
        for text, x, y in labels:
            w, h = self.text.size(text, px)
            x = max(min(x - w // 2, W - w - 10), 0)
            for ox, oy, ow in placed:  # keep labels of different faults from piling up
                if ox < x + w + 8 and x < ox + ow + 8 and abs(oy - y) < h + 10:
                    y = oy + h + 12
            placed.append((x, y, w))
            self.text.label(image, text, (x, max(min(y, H - h - 10), 0)), px, TEXT, FAULT)
        # phase banner
        phase = getattr(frame, "phase", "") or ""
        shot = getattr(frame, "shot", None)
        head = title or " · ".join(
            p
            for p in (f"第{shot + 1}箭 shot {shot + 1}" if shot is not None else "", PHASE_LABELS.get(phase, phase))
            if p
        )
        if head:
            self.text.label(image, head, (8, 8), px)
        # the list of faults, bottom left
        y = H - 8
        small = max(11, round(px * 0.8))
        for rid in reversed(faults):
            rule = self.rules.get(rid)
            if rule is None:
                continue
            line = f"× {rule.name_zh}：{rule.cue_zh}" + (f" — {rule.cue_en}" if self.english else "")
            _, h = self.text.size(line, small)
            y -= h + 8
            self.text.label(image, line, (8, y), small, TEXT, FAULT)
            y -= 4
        return image


def _pt(p: np.ndarray) -> tuple[int, int]:
    x, y = float(p[0]), float(p[1])
    return (int(round(x)) if math.isfinite(x) else 0, int(round(y)) if math.isfinite(y) else 0)
