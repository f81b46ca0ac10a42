"""The phases of one shot (rules brief, "Phases of one shot"), found in a stream of Body frames.

    tracker.py   PhaseTracker: the state machine (seek → hold → candidate → follow-through)
    whole.py     a whole recording through it: track_shots, detect_handedness
    live_phase.py  its cheap per-frame belief of the phase, for the live view
    frames.py    what is kept of each frame (body-relative points in U) and the geometry on them
    lookback.py  the raise and the draw start, walked back from the anchor
    anchor.py    where full draw was reached, and how sure the anchor and the draw start are
    release.py   the release: opened by a jump of the draw hand, confirmed by fused evidence
    release_onset.py  where a confirmed release is: its frame on the raw points, and whether the hand stayed
    heard.py     a shot the pose did not see (the draw hand hidden) whose release the string's sound times
    elbow.py     the draw elbow standing in for a draw hand hidden behind the head (behind views)
    state.py     the open shot, its marks and the release evidence (typed)
    shot.py      what is handed out: ShotPhases, LetDown, and the one definition of the phase windows
    params.py    every threshold, in one dataclass, each with where its value comes from

All lengths are in body units U (shoulder widths, see `frames._unit`) and all positions are taken relative to
the shoulder midpoint, so a handheld camera's pan and zoom cancel out. All speeds and durations use t_ms,
never frame counts, because live capture drops frames.
"""

from .heard import Hear, Heard, hear_lost, hear_unseen
from .params import P, TrackerParams
from .shot import (
    FULL_DRAW_S,
    PHASE_MARKS,
    READY_PHASES,
    READY_S,
    REFERENCE_POSES,
    RELEASE_PHASE_S,
    SETUP_S,
    LetDown,
    Phase,
    PhaseUpdate,
    ShotPhases,
    UnseenDraw,
    first_seen_drawn,
    phase_windows,
)
from .state import ReleaseEvidence
from .tracker import PhaseTracker
from .whole import detect_handedness, track_shots

__all__ = [
    "Hear",
    "Heard",
    "hear_lost",
    "hear_unseen",
    "FULL_DRAW_S",
    "PHASE_MARKS",
    "READY_PHASES",
    "READY_S",
    "REFERENCE_POSES",
    "RELEASE_PHASE_S",
    "SETUP_S",
    "LetDown",
    "P",
    "Phase",
    "PhaseTracker",
    "PhaseUpdate",
    "ReleaseEvidence",
    "ShotPhases",
    "TrackerParams",
    "UnseenDraw",
    "detect_handedness",
    "first_seen_drawn",
    "phase_windows",
    "track_shots",
]
