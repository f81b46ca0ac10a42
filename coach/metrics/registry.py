"""The registry of metrics: rules name a metric, never code. A metric is registered with `@metric` beside its
function (coach/metrics/frame.py, shot.py, session.py); `METRICS` is the read-only view the engine, the reports
and the dashboard look metrics up in. The names, scopes and landmarks a rule pack may name are published for
the pack loader as data (posture_rules/packs/metrics.json, `python -m coach.metrics` writes it), so the pack
format imports nothing of the analysis."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np

SCOPES = ("frame", "shot", "session")
# A value of a window (a frame rule's phase, a shot metric's stretch of frames) needs at least this share of the
# window's frames measurable: a window the pose mostly lost (hidden, misread, the blur of a fast release at a low
# frame rate) tells nothing, however the few frames left read.
MIN_MEASURED_SHARE = 0.5


@dataclass(frozen=True, slots=True)
class Metric:
    name: str
    scope: str
    fn: Callable
    unit: str
    landmarks: tuple[str, ...] = ()
    # Judged as the change from the archer's own pose (a `phase_windows` window, REFERENCES): "ready", the second
    # before the draw starts, set up and looking at the target; "setup", the second before the raise, standing. Not
    # against fixed angles that the camera's height or roll would move. None: the value itself is judged.
    relative_to: str | None = None
    # ... and that pose is one only while its own value is within this of 0 (the trunk standing: a camera held up to
    # 15 deg off level; an archer bending to nock or to pick up an arrow is not standing). None: any value.
    reference_within: float | None = None
    # ... and still: its frames' values within this of each other (interquartile range). A trunk moving in that second
    # (the archer bending, or a raise already begun where the raise start was found late) shows no standing pose.
    reference_steady: float | None = None
    # ... or that pose's value of another metric, taken as a correction: arrow_tilt, measured against the picture's
    # horizontal, less the camera's roll that the standing trunk shows (camera_roll). Without that pose (a clip that
    # starts at full draw, an archer bent in the setup) the value is judged as measured, as with a level camera.
    reference_metric: str | None = None
    doc: str = ""

    def reference(self, values: np.ndarray) -> float:
        """The reference pose's value from its frames' values (median; NaN where there are too few, or it is no
        such pose: `reference_within`, `reference_steady`)."""
        values = values[~np.isnan(values)]
        if len(values) < 3:
            return math.nan
        q1, v, q3 = (float(q) for q in np.quantile(values, (0.25, 0.5, 0.75)))
        if self.reference_steady is not None and q3 - q1 > self.reference_steady:
            return math.nan
        return v if self.reference_within is None or abs(v) <= self.reference_within else math.nan

    @property
    def reference_source(self) -> str:
        """The metric whose value in the reference pose this one is judged against: its own, or a correction's."""
        return self.reference_metric or self.name

    def offset(self, pose_values: np.ndarray) -> float:
        """What is subtracted from this metric's values, given its reference pose's values of `reference_source`:
        NaN where that pose cannot be told (not judged), but 0 for a correction (judged as measured)."""
        ref = METRICS[self.reference_source].reference(pose_values)
        return 0.0 if math.isnan(ref) and self.reference_metric is not None else ref


_REGISTRY: dict[str, Metric] = {}
METRICS = MappingProxyType(_REGISTRY)


REFERENCES = ("ready", "setup")


def metric(
    name: str,
    scope: str,
    unit: str,
    landmarks: tuple[str, ...] = (),
    relative_to: str | None = None,
    reference_within: float | None = None,
    reference_steady: float | None = None,
    reference_metric: str | None = None,
):
    if scope not in SCOPES:
        raise ValueError(f"scope must be one of {SCOPES}")
    if relative_to not in (None, *REFERENCES):
        raise ValueError(f"relative_to must be one of {REFERENCES} or None")
    if reference_metric is not None and relative_to is None:
        raise ValueError("reference_metric needs the pose it is taken in (relative_to)")

    def deco(fn: Callable) -> Callable:
        if name in _REGISTRY:
            raise ValueError(f"metric {name!r} registered twice")
        _REGISTRY[name] = Metric(
            name,
            scope,
            fn,
            unit,
            landmarks,
            relative_to,
            reference_within,
            reference_steady,
            reference_metric,
            (fn.__doc__ or "").strip(),
        )
        return fn

    return deco
