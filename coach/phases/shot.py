"""What the tracker hands out: the phases of one shot, its marks with how sure each is, and the one
definition of the phase windows (`phase_windows`) that the engine, the live view, sound refinement, the
reports and the dashboard all read."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum


class Phase(str, Enum):
    SETUP = "setup"
    RAISE = "raise"
    DRAW = "draw"
    FULL_DRAW = "full_draw"
    HOLD = "hold"
    RELEASE = "release"
    FOLLOW_THROUGH = "follow_through"


# The phases of a shot as windows of frames (rules brief, "Phases of one shot"). The first moments at the anchor
# are the full draw (still arriving), the plateau after them the hold; the release covers the string leaving,
# then the follow-through.
SETUP_S = 1.0  # how much of the time before the raise counts as the setup pose
# The poses a metric judged against the archer's own (`Metric.relative_to`) is compared with. The trunk's lean:
# the setup, standing before the raise. The head's pitch: "ready", the second before the draw starts, set up and
# looking at the target, which is where 開弓偃弰 (the head tipped back as the bow is drawn) is measured from. The setup before the raise is no reference: archers bow
# their heads over the arrow to nock and look up at the target during the raise (real08: the head 26 deg down
# in the setup, 10 deg down as the draw starts, 5 deg down at full draw, a head_back fault against the setup).
READY_S = 1.0
# Live, the ready pose is the newest READY_S of these phases: the setup and the raise, up to the draw.
READY_PHASES = ("setup", "raise")
# Per reference pose (`Metric.relative_to`): how long it is, and the live phases it is the newest part of.
REFERENCE_POSES = {"ready": (READY_S, READY_PHASES), "setup": (SETUP_S, ("setup",))}
FULL_DRAW_S = 0.3
RELEASE_PHASE_S = 0.1

# The marks each phase's window rests on: a rule judged on phases whose marks are uncertain is not judged.
PHASE_MARKS: dict[str, tuple[str, ...]] = {
    "setup": ("raise_start",),
    "raise": ("raise_start", "draw_start"),
    "draw": ("draw_start", "anchor"),
    "full_draw": ("anchor",),
    "hold": ("anchor", "release"),
    "release": ("release",),
    "follow_through": ("release",),
}
TimeOf = Callable[[int], "float | None"]  # a frame's time in s (None where unknown)


def phase_windows(shot, t_of: TimeOf) -> dict[str, tuple[int, int]]:
    """Frame ranges [start, end) of each phase of a shot: anything with raise_start_frame, draw_start_frame,
    anchor_frame, release_frame and end_frame (None where not found), e.g. ShotPhases or a stored shot."""
    w: dict[str, tuple[int, int]] = {}
    rs, ds, an, rel, end = (
        shot.raise_start_frame,
        shot.draw_start_frame,
        shot.anchor_frame,
        shot.release_frame,
        shot.end_frame,
    )
    if rs is not None:
        w["setup"] = (max(0, rs - int(round(SETUP_S * _fps(t_of, rs)))), rs)
        w["raise"] = (rs, ds if ds is not None else rs)
    if ds is not None:
        w["ready"] = (max(0, ds - int(round(READY_S * _fps(t_of, ds)))), ds)
    if ds is not None and an is not None:
        w["draw"] = (ds, an)
    if an is not None:
        stop = rel if rel is not None else end + 1
        settle = _first_after(t_of, an, FULL_DRAW_S, stop)
        w["full_draw"] = (an, max(settle, an + 1) if stop > an else an)
        w["hold"] = (settle, stop)
    if rel is not None:
        follow = max(_first_after(t_of, rel, RELEASE_PHASE_S, end + 1), rel + 1)
        w["release"] = (rel, follow)
        w["follow_through"] = (follow, end + 1)
    return w


def _first_after(t_of: TimeOf, frame: int, seconds: float, stop: int) -> int:
    """The first frame from `frame` on that is `seconds` after it (or `stop`)."""
    k, t0 = frame, t_of(frame)
    while k < stop and t_of(k) is not None and t0 is not None and t_of(k) - t0 < seconds - 1e-6:
        k += 1
    return k


def _fps(t_of: TimeOf, frame: int) -> float:
    a, b = t_of(frame), t_of(frame + 1)
    return 1.0 / (b - a) if a is not None and b is not None and b > a else 30.0


def first_seen_drawn(marks_confidence: dict[str, float]) -> bool:
    """A shot's archer was already at full draw when first seen (the tracker's `draw_seen`): its raise and draw
    are unknown (confidence 0) while its anchor, the first frame at full draw, is not (a heard shot's is)."""
    return marks_confidence.get("raise_start", 1.0) == 0.0 and marks_confidence.get("anchor", 1.0) > 0.0


@dataclass(slots=True)
class ShotPhases:
    index: int
    raise_start_frame: int
    draw_start_frame: int
    anchor_frame: int
    release_frame: int | None
    end_frame: int
    raise_start_ms: float
    draw_start_ms: float
    anchor_ms: float
    release_ms: float | None
    end_ms: float
    complete: bool
    handedness: str
    hold_start_frame: int  # first frame of the hold (phase_windows: the full draw is anchor..hold_start-1)
    follow_start_frame: int | None  # first frame of the follow-through (phase_windows)
    # "sound+pose" when the string's sound refined it (coach/audio), "sound" when only the sound found it (heard.py)
    release_source: str = "pose"
    # The draw hand was seen not to fly back at what was taken for the release (the span hardly grew): a dead
    # release (後手小), whose "release" is then the arms coming down, later. Real releases widen the span by
    # 0.3-2.8 U in the confirmation window. Sound may then look back for the crack (coach/audio.py).
    hand_stayed: bool = False
    flight_time_s: float | None = None  # release to the arrow heard hitting (sound only)
    # How sure the release is (0-1) and which signals agreed on it (`release_evidence`).
    release_confidence: float = 1.0
    release_evidence: tuple[str, ...] = ()
    # How sure the draw start and the anchor are (0-1); see results.MIN_MARK_CONFIDENCE.
    marks_confidence: dict[str, float] = field(default_factory=dict)
    # The torso after the release at its hold's length, the shoulders never at their hold's width: MediaPipe
    # misread the archer through the hold, whose anchor and release are then uncertain (the analyzer's note).
    shoulders_misread: bool = False
    # The pose misread the draw hand in the hold (read at the bow hand) and snapped it back as the arrow left,
    # which looked like the draw going on (`anchor.draw_leapt`): the anchor and release are uncertain.
    hand_misread: bool = False
    # The earliest the draw may have ended: the span reached the hold's here, the arms came to rest only at the
    # anchor (None where the two agreed). A duration to or from the anchor is judged at both (coach/engine.py).
    anchor_from_frame: int | None = None

    def windows(self, t_of: TimeOf) -> dict[str, tuple[int, int]]:
        """The frame ranges of this shot's phases (`phase_windows`)."""
        return phase_windows(self, t_of)

    @classmethod
    def on_marks(
        cls,
        index: int,
        marks: tuple[int, int, int, int | None, int],
        t_of: TimeOf,
        handedness: str,
        **evidence,
    ) -> ShotPhases:
        """The shot on these marks (raise start, draw start, anchor, release or None, end): each mark's time
        from `t_of` (0 where unknown), the hold and the follow-through placed by `phase_windows`; `evidence`:
        the release and marks evidence fields (release_confidence, marks_confidence, release_source, …)."""
        rs, ds, an, rel, end = marks
        ms = {f: (t_of(f) or 0.0) * 1000.0 for f in marks if f is not None}
        sp = cls(
            index=index,
            raise_start_frame=rs,
            draw_start_frame=ds,
            anchor_frame=an,
            release_frame=rel,
            end_frame=end,
            raise_start_ms=ms[rs],
            draw_start_ms=ms[ds],
            anchor_ms=ms[an],
            release_ms=None if rel is None else ms[rel],
            end_ms=ms[end],
            complete=True,
            handedness=handedness,
            hold_start_frame=an,
            follow_start_frame=None,
            **evidence,
        )
        w = phase_windows(sp, t_of)
        sp.hold_start_frame = min(w["hold"][0], end) if "hold" in w else an
        sp.follow_start_frame = min(w["follow_through"][0], end) if "follow_through" in w else None
        return sp

    @property
    def hold_ms(self) -> float | None:
        return None if self.release_ms is None else self.release_ms - self.anchor_ms

    def phase_at(self, frame: int) -> Phase | None:
        """The phase of `frame` within this shot; None outside it (before the raise, after the end)."""
        if frame < self.raise_start_frame or frame > self.end_frame:
            return None
        if frame < self.draw_start_frame:
            return Phase.RAISE
        if frame < self.anchor_frame:
            return Phase.DRAW
        if frame < self.hold_start_frame:
            return Phase.FULL_DRAW
        if self.release_frame is None or frame < self.release_frame:
            return Phase.HOLD
        if self.follow_start_frame is None or frame < self.follow_start_frame:
            return Phase.RELEASE
        return Phase.FOLLOW_THROUGH


@dataclass(slots=True)
class PhaseUpdate:
    phase: Phase
    shot: int | None
    completed: list[ShotPhases] = field(default_factory=list)


@dataclass(slots=True, frozen=True)
class LetDown:
    """A full draw that was not shot: the archer came down, or the video ended (or an edit cut away for
    good) before a release. Not a shot; the report notes it."""

    anchor_frame: int
    end_frame: int
    anchor_s: float
    end_s: float
    reason: str  # "let_down" (the bow arm came down), "video_ended" (still at full draw) or "view_lost"
    # (the picture changed as the hand moved: an edit's cut or dissolve, a camera swung away)
    # The shot's phases up to the last frame the archer was seen at full draw (release None), for a full draw
    # the picture lost ("view_lost"): the string's sound may still tell that an arrow left (heard.py).
    shot: ShotPhases | None = None


@dataclass(slots=True, frozen=True)
class UnseenDraw:
    """The bow arm raised and held with no full draw seen (the draw hand hidden or misplaced by the pose model
    for the whole hold: a view from behind, stance_high shot 1). Not a shot unless the string was heard
    (`heard.heard_shot`); otherwise the report owns up to it."""

    first_frame: int
    first_s: float
    last_frame: int
    last_s: float

    @property
    def duration_s(self) -> float:
        return self.last_s - self.first_s
