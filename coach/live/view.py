"""The live window (OpenCV, main thread): the newest analysed frame with skeleton, phase and faults (coach/overlay.py),
each fault held on screen for a few seconds from the moment it is confirmed with its classical line, a summary
card after each release, the session tally, and the instant replay of the last shot in a corner.

Keys: q (or Esc) quits, space pauses / resumes, r starts a new session.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import cv2
import numpy as np

from ..overlay import FAULT, PANEL, TEXT, Overlay
from ..results import ShotResult
from .replay import ReplayClip, ReplayPlayer
from .session import LiveFrame, LiveSession, Tally

CUE_SHARE = 1 / 14  # the cue's type, as a share of the frame's height: read from the shooting line
LINE_SHARE = 1 / 20  # the fault's name and the phase: never smaller than this
PHASE_WORDS = {
    "setup": ("預備", "set-up"),
    "raise": ("舉弓", "raise"),
    "draw": ("開弓", "draw"),
    "full_draw": ("滿弓", "full draw"),
    "hold": ("審固", "hold"),
    "release": ("發矢", "release"),
    "follow_through": ("收勢", "follow-through"),
}
FAULT_HOLD_S = 4.0  # a confirmed fault stays on screen this long after it was last active
CARD_S = 6.0  # the summary card after a release
WINDOW = "射經 Coach — live"


@dataclass
class ViewState:
    """What the window remembers between frames (drawn by `compose`, which tests call without a window)."""

    lang: str = "zh"
    fault_seen: dict[str, float] = field(default_factory=dict)  # rule → last time active
    latest_fault: str | None = None
    card: ShotResult | None = None
    card_at: float = 0.0
    paused: bool = False
    session: int = 1
    status: str = ""


class LiveView:
    def __init__(self, pack, lang: str = "zh", handedness: str = "right"):
        self.rules = pack.by_id
        self.lang = lang
        self.overlay = Overlay(pack, handedness, english=lang == "en")
        self.replay_overlay = Overlay(pack, handedness, english=False)
        self.player = ReplayPlayer(speed=0.5)
        self.state = ViewState(lang=lang)

    # ---- events ----------------------------------------------------------------------------------------
    def shot_done(self, shot: ShotResult, now: float) -> None:
        self.state.card, self.state.card_at = shot, now

    def replay(self, clip: ReplayClip, now: float) -> None:
        self.player.start(clip, now)

    # ---- drawing ---------------------------------------------------------------------------------------
    def compose(self, lf: LiveFrame, tally: Tally, now: float) -> np.ndarray:
        img = lf.image.copy()
        st = self.state
        r = lf.result
        if r is not None:
            for rid in r.active_faults:
                st.fault_seen[rid] = now
            for rid in lf.new_faults:
                st.latest_fault = rid
        held = [rid for rid, t in st.fault_seen.items() if now - t <= FAULT_HOLD_S]
        if r is not None:
            self.overlay.draw(img, r, held)
        H, W = img.shape[:2]
        px = max(12, round(H / 30))
        text = self.overlay.text
        # the classical line of the newest fault, under the phase banner
        if st.latest_fault in held and st.latest_fault in self.rules:
            rule = self.rules[st.latest_fault]
            line = f"{rule.section}：{rule.quote}"
            text.label(img, line, (8, 8 + round(H / 26) + 18), px, TEXT, FAULT)
        self._tally(img, tally, px)
        self._coach_lines(img, r.phase if r is not None else "", st.latest_fault if st.latest_fault in held else None)
        if st.card is not None and now - st.card_at <= CARD_S:
            self._card(img, st.card, px)
        self._replay(img, now, px)
        if st.paused:
            text.label(img, "暫停 paused (space)", (W // 2 - 5 * px, H // 2), px * 2)
        if st.status:
            text.label(img, st.status, (8, H // 2 + 3 * px), px, TEXT, FAULT)
        return img

    def coach_lines(self, phase: str, fault: str | None) -> list[tuple[str, float, tuple[int, int, int]]]:
        """What an archer reads from the shooting line, biggest first: the cue for the fault being flagged, the
        fault's name, the phase — each (text, share of the image height, colour)."""
        lines = []
        rule = self.rules.get(fault) if fault else None
        if rule is not None:
            cue = rule.cue_zh if self.lang == "zh" else rule.cue_en
            name = rule.name_zh if self.lang == "zh" else rule.name_en
            lines += [(f"→ {cue}", CUE_SHARE, TEXT), (f"× {name}", LINE_SHARE, (150, 150, 255))]
        if phase:
            lines.append((PHASE_WORDS.get(phase, (phase, phase))[self.lang == "en"], LINE_SHARE, TEXT))
        return lines

    def _coach_lines(self, img: np.ndarray, phase: str, fault: str | None) -> None:
        """The coach lines at the bottom left, in type sized to the frame (so to the window, which keeps the
        frame's aspect): never under 1/20 of its height, shrunk to that floor at most to fit the width."""
        lines = self.coach_lines(phase, fault)
        if not lines:
            return
        H, W = img.shape[:2]
        text = self.overlay.text
        room = W * 2 // 3 - 16  # the replay takes the bottom-right third
        sized = []
        for s, share, colour in lines:
            px = max(12, round(H * share))
            floor = max(12, round(H * LINE_SHARE))
            while px > floor and text.size(s, px)[0] > room:
                px -= 1
            sized.append((s, px, colour, text.size(s, px)))
        h = sum(sz[1] + 10 for *_, sz in sized) + 10
        w = min(W - 16, max(sz[0] for *_, sz in sized) + 24)
        x0, y0 = 8, H - h - 8
        roi = img[max(y0, 0) : y0 + h, x0 : x0 + w]
        roi[...] = (roi * 0.3 + np.array(PANEL) * 0.7).astype(np.uint8)
        y = y0 + 10
        for s, px, colour, (_, sh) in sized:
            text.put(img, s, (x0 + 12, y), px, colour)
            y += sh + 10

    def _tally(self, img: np.ndarray, tally: Tally, px: int) -> None:
        H, W = img.shape[:2]
        lines = [
            f"第{self.state.session}場 session {self.state.session} · {tally.shots}箭 shots · {tally.clean} 無病 clean"
        ]
        for rid, n in tally.faults.most_common(3):
            rule = self.rules.get(rid)
            name = (rule.name_zh if self.lang == "zh" else rule.name_en) if rule else rid
            lines.append(f"{name} ×{n}")
        y = 8
        small = max(11, round(px * 0.8))
        for line in lines:
            w, h = self.overlay.text.size(line, small)
            self.overlay.text.label(img, line, (W - w - 16, y), small)
            y += h + 12

    def _card(self, img: np.ndarray, shot: ShotResult, px: int) -> None:
        H, W = img.shape[:2]
        t = shot.times_s.get("release_at")
        lines = [f"第{shot.index + 1}箭 shot {shot.index + 1}" + (f" · {t:.1f} s" if t is not None else "")]
        hold = shot.times_s.get("hold_s")
        if hold is not None:
            lines.append(f"審固 hold {hold:.1f} s")
        faults = shot.faults
        if not faults:
            lines.append("無病 clean shot")
        for f in faults[:4]:
            rule = self.rules.get(f.rule)
            if rule is None:
                continue
            lines.append(f"× {rule.name_zh} — {rule.cue_zh if self.lang == 'zh' else rule.cue_en}")
        small = max(11, round(px * 0.85))
        sizes = [self.overlay.text.size(s, small) for s in lines]
        w = max(s[0] for s in sizes) + 20
        h = sum(s[1] + 8 for s in sizes) + 12
        x0, y0 = 8, max(8, H // 2 - h // 2)
        roi = img[y0 : y0 + h, x0 : x0 + w]
        roi[...] = (roi * 0.35 + np.array(PANEL) * 0.65).astype(np.uint8)
        y = y0 + 8
        for s, (_, sh) in zip(lines, sizes):
            colour = TEXT if not s.startswith("×") else (150, 150, 255)
            self.overlay.text.put(img, s, (x0 + 10, y), small, colour)
            y += sh + 8

    def _replay(self, img: np.ndarray, now: float, px: int) -> None:
        got = self.player.frame(now)
        if got is None:
            return
        small, fr = got
        clip = self.player.clip
        H, W = img.shape[:2]
        tw = W // 3
        s = tw / small.shape[1]
        th = round(small.shape[0] * s)
        pic = cv2.resize(small, (tw, th), interpolation=cv2.INTER_LINEAR)
        self.replay_overlay.draw(
            pic, fr, clip.faults if clip else (), scale=clip.scale * s if clip else s, title="回放 replay ×0.5"
        )
        y0, x0 = H - th - 8, W - tw - 8
        if y0 < 0:
            return
        img[y0 : y0 + th, x0 : x0 + tw] = pic
        cv2.rectangle(img, (x0 - 1, y0 - 1), (x0 + tw, y0 + th), TEXT, 1)


def screen_size() -> tuple[int, int]:
    """The X screen's size in pixels (libX11 through ctypes), else 1920×1080."""
    import ctypes
    import ctypes.util

    try:
        x11 = ctypes.cdll.LoadLibrary(ctypes.util.find_library("X11") or "libX11.so.6")
        x11.XOpenDisplay.restype = ctypes.c_void_p
        x11.XDefaultScreen.argtypes = [ctypes.c_void_p]
        x11.XDisplayWidth.argtypes = x11.XDisplayHeight.argtypes = [ctypes.c_void_p, ctypes.c_int]
        x11.XCloseDisplay.argtypes = [ctypes.c_void_p]
        d = x11.XOpenDisplay(None)
        if not d:
            return 1920, 1080
        try:
            n = x11.XDefaultScreen(d)
            return int(x11.XDisplayWidth(d, n)), int(x11.XDisplayHeight(d, n))
        finally:
            x11.XCloseDisplay(d)
    except OSError:
        return 1920, 1080


def window_size(frame_w: int, frame_h: int, screen: tuple[int, int], fill: float = 0.9) -> tuple[int, int]:
    """The window's size: as much of the screen as `fill` allows, keeping the frame's aspect (a 960×540 source
    on a 1920×1080 screen opens at 1728×972, not at the size OpenCV picks)."""
    sw, sh = screen
    s = min(sw * fill / frame_w, sh * fill / frame_h)
    return max(1, round(frame_w * s)), max(1, round(frame_h * s))


def run_window(
    session: LiveSession, pack, *, lang: str = "zh", max_seconds: float | None = None, fullscreen: bool = False
) -> None:
    """The window loop on the calling (main) thread until q, the end of the source, or max_seconds."""
    view = LiveView(pack, lang, session.profile.handedness or "right")
    # The frame is scaled to the window's size here rather than left to the GUI backend (Qt's highgui shows it
    # at its own size in a resized window): what is drawn on it keeps its share of the window's height.
    size = None
    if session.width and session.height:
        size = window_size(session.width, session.height, screen_size(), fill=1.0 if fullscreen else 0.9)
    cv2.namedWindow(WINDOW, cv2.WINDOW_NORMAL if fullscreen else cv2.WINDOW_AUTOSIZE)
    if fullscreen:
        cv2.setWindowProperty(WINDOW, cv2.WND_PROP_FULLSCREEN, cv2.WINDOW_FULLSCREEN)
    last: LiveFrame | None = None
    seen_shots = 0
    t_end = None if max_seconds is None else time.monotonic() + max_seconds
    try:
        while True:
            lf = session.view.get(timeout=0.03) if not session.view.closed else None
            now = time.monotonic()
            if lf is not None:
                last = lf
            clip = _take(session.replays)
            if clip is not None:
                view.replay(clip, now)
            shots = session.analyzer.shots if session.analyzer is not None else []
            if len(shots) > seen_shots:
                view.shot_done(shots[-1], now)
            seen_shots = len(shots)
            if session.analyzer is not None and session.analyzer.handedness:  # learnt at each anchor
                view.overlay.handedness = view.replay_overlay.handedness = session.analyzer.handedness
            view.state.paused = session.paused
            view.state.session = session.session_no
            if last is not None:
                shown = view.compose(last, session.tally, now)
                if size is not None and (shown.shape[1], shown.shape[0]) != size:
                    shown = cv2.resize(shown, size, interpolation=cv2.INTER_LINEAR)
                cv2.imshow(WINDOW, shown)
            key = cv2.waitKey(1) & 0xFF
            if key in (ord("q"), 27):
                session.stop()
                break
            if key == ord(" "):
                session.toggle_pause()
            elif key == ord("r"):
                session.new_session()
                view.state = ViewState(lang=lang)
                seen_shots = 0
            if not session.running:
                break
            if t_end is not None and now >= t_end:
                session.stop()
                break
    finally:
        cv2.destroyWindow(WINDOW)
        cv2.waitKey(1)


def _take(box):
    try:
        return box.get(timeout=0)
    except Exception:
        return None
