"""Session metrics: one value from all shots (spread, rhythm), `fn(per_shot: dict[str, list[float]],
release_times: list[float]) -> float`."""

from __future__ import annotations

import math

import numpy as np

from .registry import metric

# A spread from two shots is half their difference: one shot a little off (an anchor placed a few frames
# early on an eased draw) makes it, so consistency is judged from the third shot on (間若一: its intervals).
MIN_SPREAD_SHOTS = 3


def _cv(x: list[float], n_min: int = MIN_SPREAD_SHOTS) -> float:
    a = np.array([v for v in x if v is not None and math.isfinite(v)])
    return float(np.std(a, ddof=1) / np.mean(a)) if len(a) >= max(n_min, 2) and np.mean(a) != 0 else math.nan


def _sd(x: list[float], n_min: int = MIN_SPREAD_SHOTS) -> float:
    a = np.array([v for v in x if v is not None and math.isfinite(v)])
    return float(np.std(a, ddof=1)) if len(a) >= max(n_min, 2) else math.nan


@metric("draw_length_cv", "session", "ratio")
def draw_length_cv(per_shot: dict, releases: list[float]) -> float:
    """Coefficient of variation of the draw length across shots."""
    return _cv(per_shot.get("draw_length", []))


@metric("anchor_spread", "session", "SW")
def anchor_spread(per_shot: dict, releases: list[float]) -> float:
    """Standard deviation of the anchor height across shots, in SW."""
    return _sd(per_shot.get("anchor_height", []))


@metric("draw_time_sd", "session", "s")
def draw_time_sd(per_shot: dict, releases: list[float]) -> float:
    """Spread of draw time across shots."""
    return _sd(per_shot.get("draw_time", []))


@metric("hold_time_sd", "session", "s")
def hold_time_sd(per_shot: dict, releases: list[float]) -> float:
    """Spread of hold time across shots."""
    return _sd(per_shot.get("hold_time", []))


@metric("release_interval_cv", "session", "ratio")
def release_interval_cv(per_shot: dict, releases: list[float]) -> float:
    """Coefficient of variation of the interval between releases (間若一)."""
    r = sorted(t for t in releases if t is not None)
    return _cv(list(np.diff(r)), n_min=MIN_SPREAD_SHOTS - 1)


def _mean(x: list[float]) -> float:
    a = np.array([v for v in x if v is not None and math.isfinite(v)])
    return float(np.mean(a)) if len(a) else math.nan


@metric("draw_time_mean", "session", "s")
def draw_time_mean(per_shot: dict, releases: list[float]) -> float:
    """Mean draw time across shots."""
    return _mean(per_shot.get("draw_time", []))


@metric("hold_time_mean", "session", "s")
def hold_time_mean(per_shot: dict, releases: list[float]) -> float:
    """Mean hold time across shots."""
    return _mean(per_shot.get("hold_time", []))


@metric("release_interval_mean", "session", "s")
def release_interval_mean(per_shot: dict, releases: list[float]) -> float:
    """Mean interval between releases."""
    r = sorted(t for t in releases if t is not None)
    return _mean(list(np.diff(r))) if len(r) >= 2 else math.nan
