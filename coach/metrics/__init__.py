"""The measurements rules are judged on, in a registry: rules name a metric, never code.

    registry.py    Metric, the @metric decorator and METRICS, the read-only registry
    frame.py       one value per frame from a Body (angles, heights, spreads)
    shot.py        one value per shot from its frames and phases (ShotFrames: tempo, stillness, release travel…)
    session.py     one value from all shots (spread, rhythm)
    vocabulary.py  what a rule pack may name (metrics, body parts), written as data for posture_rules

Lengths are in shoulder widths (SW), angles in degrees, times in seconds. The metrics sit with the analysis
(they read a Body through coach.kinematics); the rule pack format (posture_rules) knows only their names,
scopes and landmarks, from posture_rules/vocabulary.json.
"""

from . import frame, session, shot  # noqa: F401  (importing a scope's module registers its metrics)
from .registry import METRICS, SCOPES, Metric, metric
from .shot import ShotFrames

__all__ = ["METRICS", "SCOPES", "Metric", "ShotFrames", "metric"]
