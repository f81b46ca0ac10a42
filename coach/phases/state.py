"""The shot the tracker is following, between its anchor and the end of its follow-through, and the tracker's
states. Marks are (frame index, time in s) pairs."""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum
from typing import NamedTuple

import numpy as np

from .frames import ArcherSize, TrackFrame
from .params import P
from .shot import ShotPhases

# How much each release signal, fully present, adds to a release's confidence (combined as independent evidence).
EVIDENCE_WEIGHT = {"draw_hand": 0.8, "bow_arm": 0.5, "span": 0.3}


class Mark(NamedTuple):
    """A phase event: the frame it happened at and its time in seconds."""

    frame: int
    t: float


@dataclass(slots=True)
class Candidate:
    """A release-like jump waiting for confirmation."""

    index: int
    t: float
    ref: np.ndarray  # the anchor position the hand left (median of the recent hold)
    confirm_sw: float  # how far the hand must be late in the window for a release
    back: np.ndarray | None = None  # unit vector from the bow hand to the anchor: the way a release goes
    bow_ref: np.ndarray | None = None  # the bow wrist's position in the recent hold (median)
    bow_drop_sw: float = P.release_bow_drop_sw  # how far it must drop for the bow arm to agree
    span_ref: float = math.nan  # the span in the recent hold (median)
    # Opened by the bow arm falling, the hand not having jumped: its slow departure must then be straight back
    # along the arrow (a thumb release's spring-back), not down with the bow (real05 settling into aim), unless
    # the hand jumps later in the window (`ReleaseWatch._hand_jumped`).
    by_bow: bool = False
    # Its window ended with the hand leaving: judged again from where it left (ReleaseWatch.judge), once.
    moved_on: bool = False


@dataclass(slots=True, frozen=True)
class ReleaseEvidence:
    """What the frames after a release-like jump say, each signal as a share of what makes it sure on its own
    (1 = sure): the draw hand away from the anchor, the bow arm moved from its hold, the span opened."""

    draw_hand: float
    bow_arm: float
    span: float

    @property
    def released(self) -> bool:
        """The hand far from the anchor; or half as far with the bow arm dropping and the wrists not closing
        (a let-down brings the string, and the draw hand with it, forward: the span closes)."""
        weak = self.draw_hand >= P.release_hand_part and self.bow_arm >= 1.0 and self.span >= 0.0
        return self.draw_hand >= 1.0 or weak

    @property
    def confidence(self) -> float:
        unsure = 1.0
        for name, weight in EVIDENCE_WEIGHT.items():
            unsure *= 1.0 - weight * min(max(getattr(self, name), 0.0), 1.0)
        return round(1.0 - unsure, 3)

    @property
    def agreed(self) -> tuple[str, ...]:
        return tuple(name for name in EVIDENCE_WEIGHT if getattr(self, name) >= 1.0)


@dataclass(slots=True)
class OpenShot:
    """A shot between its anchor and the end of its follow-through."""

    index: int
    raise_at: Mark
    draw_at: Mark
    anchor_at: Mark
    handedness: str
    bow_y: float = 0.0  # the bow wrist's height at the anchor (U below the shoulder line)
    anchor_span: float = math.nan  # the span at the anchor (median of the frames seen there)
    closed_since: float | None = None  # when the span last closed by P.let_down_span_close_sw (s)
    mid_at: Mark = Mark(-1, 0.0)  # the middle of the draw (the anchor is refined forward from it)
    set_span: float = math.nan  # the span at the draw start
    set_motion: float = math.nan  # how fast the arms moved there (U/s): a set is a pause
    refined: bool = False
    draw_conf: float = P.unrefined_conf
    anchor_conf: float = P.unrefined_conf
    # Where the span reached the hold's, when the arms came to rest as in the hold only later (the anchor,
    # `anchor._settle_anchor`): the draw ended between the two. None where they agreed.
    anchor_from: Mark | None = None
    release_at: Mark | None = None
    cand: Candidate | None = None
    evidence: ReleaseEvidence | None = None  # what confirmed the release
    release_conf: float = 1.0
    left_from: np.ndarray | None = None  # where the draw hand was in the hold it left at the release (U)
    hold_size: ArcherSize = ArcherSize()  # the archer's size in the picture in the hold, for "the same archer after"
    hand_stayed: bool = False
    # Frame index where the span last began to grow fast in the hold. Kept across release candidates: in a
    # draw after an early anchor the hand is fast enough to open (and fail) candidates all the way to the face.
    growing_since: int | None = None
    # The newest frame of the hold with the archer in the picture (index, s; -1 before any): two numbers, not a
    # Mark, as they are set on every frame.
    seen_frame: int = -1
    seen_t: float = math.nan
    # False when the archer came into view already drawing (a clip that starts at full draw, a camera that
    # finds the archer mid-draw): the raise and the draw were not seen, so nothing is told of them.
    draw_seen: bool = True
    # The picture lost the archer with the draw hand at the face, before the anchor could settle (someone walked
    # in front, MediaPipe lost them), and found them again after (`anchor.lost_at_anchor`): the anchor is uncertain.
    lost_at_anchor: bool = False
    # After its release: the frame from which the draw hand has been at rest at the face (`anchor.back_at_full_draw`).
    rest_since: int | None = None
    # The shot as it was when the archer was found back at full draw after its release (`anchor.back_at_full_draw`):
    # its release stands if no other comes from that full draw.
    held: OpenShot | None = None
    # The shot went on from a 'draw' the pose leapt through (`anchor.draw_leapt`): its hold was misread, and the
    # release found next lies in frames it misread.
    hand_misread: bool = False
    # The frames about the release showed the arms misread (`release_onset._misread`: the span closed): where the
    # string left among them cannot be told. Said only in the shot's phases (`phases`), so that until the shot is
    # out a 'release' that was the pose coming out of a fold can still be found to be full draw again
    # (`anchor.back_at_full_draw`, which leaves a release already said uncertain alone).
    release_misread: bool = False

    def doubt(self, conf: float) -> None:
        """The pose misread the archer through the hold (`frames.ViewAfter.MISREAD`, or the draw hand: `hand_misread`): its anchor and release are
        no surer than `conf`, so the rules timed from them are not judged."""
        self.anchor_conf = min(self.anchor_conf, conf)
        self.release_conf = min(self.release_conf, conf)

    def phases(self, end: TrackFrame, shoulders_misread: bool) -> ShotPhases:
        """The shot's phases, released and ended at `end` (its windows' hold and follow starts left to the caller)."""
        rel = self.release_at
        return ShotPhases(
            index=self.index,
            raise_start_frame=self.raise_at.frame,
            draw_start_frame=self.draw_at.frame,
            anchor_frame=self.anchor_at.frame,
            release_frame=rel.frame,
            end_frame=end.index,
            raise_start_ms=self.raise_at.t * 1000.0,
            draw_start_ms=self.draw_at.t * 1000.0,
            anchor_ms=self.anchor_at.t * 1000.0,
            release_ms=rel.t * 1000.0,
            end_ms=end.t * 1000.0,
            complete=True,
            handedness=self.handedness,
            hold_start_frame=self.anchor_at.frame,
            anchor_from_frame=None if self.anchor_from is None else self.anchor_from.frame,
            follow_start_frame=None,
            hand_stayed=self.hand_stayed,
            release_confidence=min(self.release_conf, P.release_unseen_conf)
            if self.release_misread
            else self.release_conf,
            release_evidence=() if self.evidence is None else self.evidence.agreed,
            marks_confidence=self.marks_confidence(),
            shoulders_misread=shoulders_misread,
            hand_misread=self.hand_misread,
        )

    def marks_confidence(self) -> dict[str, float]:
        """ShotPhases.marks_confidence: how sure each mark the pose placed is."""
        conf = {"draw_start": self.draw_conf, "anchor": self.anchor_conf}
        if not self.draw_seen:
            conf["raise_start"] = 0.0
        return conf


class TrackerState(str, Enum):
    SEEK = "seek"  # setup / raise / draw: waiting for an anchor
    HOLD = "hold"
    CANDIDATE = "candidate"  # a release-like jump, waiting for confirmation
    FOLLOW = "follow"
