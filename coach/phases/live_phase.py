"""The live phase: the tracker's cheap per-frame belief of where the archer is in the shot, for the live view and
the overlay (`live_phase`). The shots' frame numbers come from the look-back and the release watch instead."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .frames import TrackFrame, _dist
from .params import P
from .shot import FULL_DRAW_S, RELEASE_PHASE_S, Phase
from .state import OpenShot, TrackerState


def live_phase(state: TrackerState, f: TrackFrame, shot: OpenShot | None, sides: Sequence[str]) -> Phase:
    """The phase at the newest frame `f`: while seeking, from the arms (a bow arm up is a raise, with the hands
    apart a draw); in a shot, from its state and the time since its anchor or release."""
    if shot is not None and shot.held is not None and state is not TrackerState.FOLLOW:
        # Back at full draw after a release (`anchor.back_at_full_draw`): that release stands unless another comes,
        # and most often none does (a follow-through held with the hand by the jaw).
        shot = shot.held
        state = TrackerState.FOLLOW
    if state is TrackerState.SEEK or shot is None:
        for side in sides:
            bow, draw = f.wrists(side)
            if np.isnan(bow[1]):
                continue
            if bow[1] < P.raise_level_below_sw:
                return Phase.DRAW if not np.isnan(draw[0]) and _dist(bow, draw) > 1.0 else Phase.RAISE
        return Phase.SETUP
    if state is TrackerState.HOLD:
        return Phase.FULL_DRAW if f.t - shot.anchor_at.t < FULL_DRAW_S else Phase.HOLD
    if state is TrackerState.CANDIDATE:
        return Phase.RELEASE
    return Phase.RELEASE if f.t - shot.release_at.t < RELEASE_PHASE_S else Phase.FOLLOW_THROUGH
