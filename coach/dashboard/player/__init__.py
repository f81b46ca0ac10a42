"""The frame player: a bidirectional Streamlit component (st.components.v2) on the HTML video element.

One clip (the session review) or two side by side (Compare), with play/pause, ±1 frame (buttons and the arrow
keys), speeds 1/8 to 1, loop the current shot, the phase marks and faults as ticks on the scrub bar, and the
frame number and time on screen. Every seek lands inside its frame ((k + 0.5) / fps) and the frame shown is read
back with requestVideoFrameCallback, so a "jump to" lands on the exact frame.

    frame_player(clip, key=...)        one clip; returns the frame the player rests on and keeps it in
                                       st.session_state["review_frame"] (the correction panel's "this frame")
    pair_player(a, b, key=...)         two clips synchronised at their `sync` frames (a phase mark), with an
                                       optional ghost: the second shot's skeleton over the first
    session_videos(settings, sid, s)   the annotated and the original video of a session; media_url serves one
    request_seek(key, frame)           a "jump to": the player lands on `frame` on its next run (use it in a
                                       widget's on_change)

The videos are served by Streamlit's media file manager (HTTP range requests, so the browser seeks without
downloading the whole file), the same way st.video serves them. The JS and CSS are the package files
player.js and player.css."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import streamlit as st

from ..i18n import t
from .media import media_url, session_videos, video_frame_count
from .model import Span, Tick, as_data

REVIEW_FRAME = "review_frame"  # session_state: the frame the review's player rests on (int)
HERE = Path(__file__).parent
LABEL_KEYS = {
    "frame": "pl_frame",
    "back": "pl_back",
    "fwd": "pl_fwd",
    "play": "pl_play",
    "pause": "pl_pause",
    "speed": "pl_speed",
    "loop": "pl_loop",
    "ghost": "pl_ghost",
    "keys": "pl_keys",
    "scrub": "pl_scrub",
}


@dataclass(slots=True)
class Clip:
    """One video for the player: where the browser fetches it, its frame rate and length, its ticks and shot
    spans, and (side by side) the frame the two clips are synchronised at."""

    url: str
    fps: float
    n_frames: int
    ticks: list[Tick] = field(default_factory=list)
    spans: list[Span] = field(default_factory=list)
    sync: int | None = None
    title: str = ""

    def as_data(self) -> dict:
        return {
            "url": self.url,
            "fps": float(self.fps),
            "n_frames": int(self.n_frames),
            "ticks": as_data(self.ticks),
            "spans": as_data(self.spans),
            "sync": self.sync,
            "title": self.title,
        }


COMPONENT = "coach_frame_player"
_mount = None


def _component():
    """The component's mount function, registered once per Streamlit runtime (a test harness starts several)."""
    global _mount
    from streamlit import runtime

    registry = runtime.get_instance().bidi_component_registry if runtime.exists() else None
    if _mount is None or (registry is not None and registry.get(COMPONENT) is None):
        _mount = st.components.v2.component(
            COMPONENT,
            html='<div class="cp-root"></div>',
            css=(HERE / "player.css").read_text(encoding="utf-8"),
            js=(HERE / "player.js").read_text(encoding="utf-8"),
        )
    return _mount


def labels(lang: str) -> dict[str, str]:
    return {k: t(v, lang) for k, v in LABEL_KEYS.items()}


def request_seek(key: str, frame: int) -> None:
    """Ask the player `key` to land on `frame` on its next run (once, however often the page reruns)."""
    old = st.session_state.get(f"{key}.seek") or {}
    st.session_state[f"{key}.seek"] = {"frame": int(frame), "n": int(old.get("n", 0)) + 1}


def _keep_frame(key: str) -> None:
    value = st.session_state.get(key) or {}
    frame = value.get("frame") if hasattr(value, "get") else None
    if isinstance(frame, (int, float)):
        st.session_state[REVIEW_FRAME] = int(frame)


def frame_player(clip: Clip, *, key: str, lang: str, start: int = 0, skeleton: dict | None = None) -> int:
    """The review's player for one clip. Returns the frame it rests on (the last it reported), which is also
    st.session_state[REVIEW_FRAME]. `skeleton` (ghost.skeleton_data) is drawn over the video frame by frame."""
    seek = st.session_state.get(f"{key}.seek")
    data = {"clips": [clip.as_data()], "labels": labels(lang), "seek": seek, "report": True, "skeleton": skeleton}
    if seek is None and start:
        data["seek"] = {"frame": int(start), "n": 0}
    result = _component()(
        key=key,
        data=data,
        default={"frame": int(seek["frame"]) if seek else int(start)},
        on_frame_change=lambda: _keep_frame(key),
        height="content",
    )
    frame = result.get("frame") if result is not None else None
    frame = int(frame) if isinstance(frame, (int, float)) else 0
    st.session_state[REVIEW_FRAME] = frame
    return frame


def pair_player(a: Clip, b: Clip, *, key: str, lang: str, ghost: dict | None = None, seek: dict | None = None) -> None:
    """Two clips side by side, the second following the first through their `sync` frames at any speed;
    `ghost` ({"frames": [{"frame", "points"}], "edges", "hold"}) draws the second shot's skeleton over the first
    (points as fractions of the first video's width and height). `seek` ({"frame", "n"}) puts the first clip on
    `frame` (and the second on its partner frame) whenever `n` changes, e.g. when other shots are picked."""
    data = {
        "clips": [a.as_data(), b.as_data()],
        "labels": labels(lang),
        "seek": seek,
        "report": False,
        "ghost": ghost,
    }
    _component()(key=key, data=data, height="content")


__all__ = [
    "REVIEW_FRAME",
    "Clip",
    "frame_player",
    "media_url",
    "pair_player",
    "request_seek",
    "session_videos",
    "video_frame_count",
]
