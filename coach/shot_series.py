"""A shot's per-frame metrics as the store keeps them (`results.Series`): one builder for a shot the analysis just
judged (coach/analyzer.py) and a shot a coach re-marked (coach/rejudge.py), so both charts show the same numbers
the verdicts were read from."""

from __future__ import annotations

import math

import numpy as np

from .engine import RuleEngine, pose_reference
from .metrics import METRICS
from .results import Series


def shot_series(engine: RuleEngine, lo: int, hi: int, windows: dict[str, tuple[int, int]]) -> Series | None:
    """The metrics the frame rules read, frame by frame from `lo` to `hi` (float32, one row a metric, NaN where not
    measurable), with what each judged against the archer's own pose had taken out in this shot (`pose_reference`
    over the shot's phase `windows`: its own setup, not whichever the live baseline last saw)."""
    names = list(engine.judged_metrics)
    samples = engine.samples_between(lo, hi)
    if not names or not samples:
        return None
    start = samples[0].body.index
    data = np.full((len(names), samples[-1].body.index - start + 1), np.nan, dtype=np.float32)
    for s in samples:
        data[:, s.body.index - start] = [s.values.get(m, math.nan) for m in names]
    offsets = {}
    for m in names:
        if METRICS[m].relative_to is not None:
            ref, _ = pose_reference(METRICS[m], engine.buffer, windows)
            if not math.isnan(ref):
                offsets[m] = ref
    return Series(start, names, offsets, data)
