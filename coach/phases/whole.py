"""Whole recordings through the phase tracker: every shot (re-analysis, benchmarks and tests), or which hand
draws. The streaming analysis pushes its frames itself (coach/analyzer.py)."""

from __future__ import annotations

from collections.abc import Iterable

from ..kinematics import Body
from .shot import ShotPhases
from .tracker import PhaseTracker


def detect_handedness(bodies: Iterable[Body]) -> str | None:
    """'right' or 'left' from which hand goes to the face at anchor (the other arm extended); None if no
    anchor is ever seen. Feet are never used: stance says nothing reliable about the bow hand."""
    tracker = PhaseTracker()
    for b in bodies:
        tracker.push(b)
        if tracker.handedness is not None:
            return tracker.handedness
    return None


def track_shots(bodies: Iterable[Body], handedness: str | None = None) -> list[ShotPhases]:
    """Every shot of a whole recording (re-analysis and tests)."""
    tracker = PhaseTracker(handedness)
    out: list[ShotPhases] = []
    for b in bodies:
        out += tracker.push(b).completed
    return out + tracker.finish()
