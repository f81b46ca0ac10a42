"""A shot the pose did not see but the sound heard: the bow arm raised and held (`UnseenDraw`, the draw hand
hidden for the whole hold, as from behind), and the string's crack heard as the hold ended.

The picture alone cannot tell such a hold from a let-down or a neighbour's shot, so the tracker leaves it
out and the report owns up to it. The sound can: a string's crack heard in the last moments the bow arm was
up — no earlier than a follow-through's length before it came down or left the picture — is this archer's
release. A crack heard earlier in the hold is a neighbour's (the archer held on after it). The release is
then timed by the sound alone and every other mark is unknown, so the shot is counted and timed but its
phases are uncertain and no rule is judged on them (`results.uncertain_marks`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from .params import P
from .shot import ShotPhases, UnseenDraw

# A crack heard this close before a frame's timestamp belongs to that frame (as coach/audio's ONSET_SLACK_S).
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
    release_confidence: float,
) -> ShotPhases:
    """The shot whose release was heard at `release_frame` during `draw`: raise, draw start and anchor are
    unknown (placed at the first frame the bow arm was seen up, confidence 0), the release timed by the sound
    (`release_confidence`, P.heard_conf: uncertain), the end where the bow arm was last seen up, or the release
    if later."""
    first, end = draw.first_frame, max(draw.last_frame, release_frame)
    return ShotPhases.on_marks(
        index,
        (first, first, first, release_frame, end),
        t_of,
        handedness,
        release_source="sound",
        release_confidence=release_confidence,
        release_evidence=("sound",),
        marks_confidence={"raise_start": 0.0, "draw_start": 0.0, "anchor": 0.0},
    )
