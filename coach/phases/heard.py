"""Shots the pose could not follow to a release but the sound heard: the bow arm raised and held (`UnseenDraw`,
the draw hand hidden for the whole hold, as from behind) with the string's crack heard as the hold ended; and
a full draw the picture lost (`LetDown` "view_lost": a phone swung away to follow the arrow, an edit cut away;
"video_ended": the clip ends at the release) with the crack heard then (`hear_lost`).

The picture alone cannot tell such a hold from a let-down or a neighbour's shot, so the tracker leaves it
out and the report owns up to it. The sound can: a string's crack heard in the last moments the bow arm was
up — no earlier than a follow-through's length before it came down or left the picture — is this archer's
release. A crack heard earlier in the hold is a neighbour's (the archer held on after it). The release is
then timed by the sound alone and every other mark is unknown, so the shot is counted and timed but its
phases are uncertain and no rule is judged on them (`results.uncertain_marks`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from .params import P
from .shot import LetDown, ShotPhases, UnseenDraw

# A crack heard this close before a frame's timestamp belongs to that frame (coach/audio times releases so too).
ONSET_SLACK_S = 0.002


@dataclass(slots=True, frozen=True)
class HeardWindow:
    """When a crack would be this hold's release (video clock, s)."""

    from_s: float
    to_s: float


def heard_window(draw: UnseenDraw) -> HeardWindow:
    """From a follow-through's length before the bow arm came down (but not before a draw could have reached
    full draw), to a little after it was last seen up: the camera may swing away at the release (real06),
    and the sound may run late against the picture."""
    start = max(draw.first_s + P.heard_min_up_s, draw.last_s - P.follow_max_s)
    return HeardWindow(start, draw.last_s + P.heard_after_last_s)


def lost_window(ld: LetDown) -> HeardWindow | None:
    """When a crack would be the release of a full draw the picture lost (`LetDown.shot`): around the release
    the pose saw before the picture changed (as far as sound may move a release), or, where it saw none, from
    a little before the last frame the archer was seen at full draw to a follow-through's length after it (and
    hardly later than when they were seen again, or the video ended). None for a let-down the picture saw."""
    sp = ld.shot
    if sp is None:
        return None
    if sp.release_ms is not None:
        t = sp.release_ms / 1000.0
        return HeardWindow(t - P.heard_release_move_s, t + P.heard_release_move_s)
    t = sp.end_ms / 1000.0
    return HeardWindow(t - P.heard_release_move_s, min(t + P.follow_max_s, ld.end_s + P.heard_after_last_s))


def heard_after_lost(sp: ShotPhases, release_frame: int, t_of: Callable[[int], float | None]) -> ShotPhases:
    """The shot `sp` (seen up to its full draw, its release not) with its release heard at `release_frame`."""
    marks = (
        sp.raise_start_frame,
        sp.draw_start_frame,
        sp.anchor_frame,
        release_frame,
        max(sp.end_frame, release_frame),
    )
    return ShotPhases.on_marks(
        sp.index,
        marks,
        t_of,
        sp.handedness,
        release_source="sound",
        release_confidence=P.heard_conf,
        release_evidence=("sound",),
        marks_confidence=dict(sp.marks_confidence),
    )


def frame_at(t_s: float, frames: Iterable[tuple[int, float]]) -> int | None:
    """The frame whose exposure holds time `t_s`: the last one whose timestamp is not after it."""
    best = None
    for i, t in frames:
        if t <= t_s + ONSET_SLACK_S and (best is None or i > best):
            best = i
    return best


def heard_shot(
    draw: UnseenDraw,
    release_frame: int,
    t_of: Callable[[int], float | None],
    *,
    index: int,
    handedness: str,
) -> ShotPhases:
    """The shot whose release was heard at `release_frame` during `draw`: raise, draw start and anchor are
    unknown (placed at the first frame the bow arm was seen up, confidence 0), the release timed by the sound
    (P.heard_conf: uncertain), the end where the bow arm was last seen up, or the release
    if later."""
    first, end = draw.first_frame, max(draw.last_frame, release_frame)
    return ShotPhases.on_marks(
        index,
        (first, first, first, release_frame, end),
        t_of,
        handedness,
        release_source="sound",
        release_confidence=P.heard_conf,
        release_evidence=("sound",),
        marks_confidence={"raise_start": 0.0, "draw_start": 0.0, "anchor": 0.0},
    )


# When the string's crack was heard between two times (picture clock), or None (coach.audio.SoundTiming).
Hear = Callable[[float, float], "float | None"]


@dataclass(slots=True, frozen=True)
class Heard:
    """A shot the sound told of: its phases, and when the crack was heard."""

    shot: ShotPhases
    t_s: float


def hear_unseen(draw: UnseenDraw, hear: Hear, times: Mapping[int, float], index: int, handedness: str) -> Heard | None:
    """The shot of a hold with no full draw seen, if the string was heard as it ended (`heard_window`)."""
    w = heard_window(draw)
    t = hear(w.from_s, w.to_s)
    frame = None if t is None else frame_at(t, times.items())
    if frame is None or frame <= draw.first_frame:
        return None
    sp = heard_shot(draw, frame, times.get, index=index, handedness=handedness)
    return Heard(sp, t)


def hear_lost(ld: LetDown, hear: Hear, times: Mapping[int, float]) -> Heard | None:
    """The shot of a full draw the picture lost, if the string was heard then (`lost_window`): with the
    release the pose saw (the sound then times it, coach/audio), or with the release heard where it saw none."""
    w = lost_window(ld)
    t = None if w is None else hear(w.from_s, w.to_s)
    if t is None:
        return None
    if ld.shot.release_frame is not None:
        return Heard(ld.shot, t)
    frame = frame_at(t, times.items())
    if frame is None or frame <= ld.shot.anchor_frame:
        return None
    return Heard(heard_after_lost(ld.shot, frame, times.get), t)
