"""A rule's thresholds: the band a metric passes in, with hysteresis (a fault *enters* beyond `enter_above` /
`enter_below` and *exits* only back inside `exit_above` / `exit_below`), widened or tightened by a profile's
tolerance, and the one validator every set of thresholds passes (the pack loader's and the dashboard's overrides).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

THRESHOLD_KEYS = ("enter_above", "exit_above", "enter_below", "exit_below")


@dataclass(frozen=True, slots=True)
class Thresholds:
    enter_above: float | None = None
    exit_above: float | None = None
    enter_below: float | None = None
    exit_below: float | None = None

    def as_fault_limits(self) -> dict[str, float]:
        out = {}
        if self.enter_below is not None:
            out["below"] = self.enter_below
        if self.enter_above is not None:
            out["above"] = self.enter_above
        return out

    def scaled(self, factor: float, norm: float | None, clean: CleanReads | None = None) -> Thresholds:
        """Widen (factor > 1) or tighten the band around the rule's norm, for tolerance levels. Tightened, a side's
        limit stops at what clean shots read there (`clean`): a stricter eye does not make the pose's own spread a
        fault."""
        if factor == 1.0:
            return self
        vals = {k: getattr(self, k) for k in THRESHOLD_KEYS}
        centre = norm
        if centre is None:
            lo, hi = vals["enter_below"], vals["enter_above"]
            centre = (lo + hi) / 2 if lo is not None and hi is not None else 0.0
        out = {}
        for side in ("above", "below"):
            limit, read = vals[f"enter_{side}"], getattr(clean, side, None)
            f = factor
            if factor < 1.0 and limit is not None and read is not None and limit != centre:
                f = min(1.0, max(factor, (read - centre) / (limit - centre)))
            for k in (f"enter_{side}", f"exit_{side}"):
                out[k] = None if vals[k] is None else centre + (vals[k] - centre) * f
        return Thresholds(**out)


@dataclass(frozen=True, slots=True)
class CleanReads:
    """The lowest and highest values clean shots read for a rule's metric ([O]: real archers, the synthetic clean
    shots and their re-encoded, scaled, darkened copies): the measurement's own spread, past which no tolerance
    tightens a limit."""

    below: float | None = None
    above: float | None = None


@dataclass(frozen=True, slots=True)
class ThresholdProblem:
    """Why a set of thresholds cannot work: `code` and the threshold `key` it is about, for each reader to word
    in their language (the pack loader in English, the dashboard's rulebook from its i18n table)."""

    code: str  # not_finite | exit_beyond_enter | exit_without_enter | inverted_band
    key: str

    def english(self) -> str:
        side = self.key.rpartition("_")[2]
        return {
            "not_finite": f"{self.key} must be a finite number",
            "exit_beyond_enter": f"exit_{side} must not lie beyond enter_{side}",
            "exit_without_enter": f"exit_{side} without enter_{side}",
            "inverted_band": "enter_below must be less than enter_above (inverted thresholds)",
        }[self.code]


def threshold_problem(values: dict[str, float | None], *, override: bool = False) -> ThresholdProblem | None:
    """The one threshold validator (pack loader and the dashboard's overrides alike): every value finite; an
    exit beyond its enter would make a fault impossible to clear; an exit needs its enter (not in an
    `override`, which keeps the rule's own); and with both sides given the band between them is what passes —
    inverted, every value would be a fault. None: they work."""
    v = {k: x for k, x in values.items() if x is not None}
    for k, x in v.items():
        if not math.isfinite(x):
            return ThresholdProblem("not_finite", k)
    for side, sign in (("above", 1), ("below", -1)):
        enter, exit_ = f"enter_{side}", f"exit_{side}"
        if enter in v and exit_ in v and sign * (v[exit_] - v[enter]) > 0:
            return ThresholdProblem("exit_beyond_enter", exit_)
        if exit_ in v and enter not in v and not override:
            return ThresholdProblem("exit_without_enter", exit_)
    if "enter_above" in v and "enter_below" in v and v["enter_below"] >= v["enter_above"]:
        return ThresholdProblem("inverted_band", "enter_below")
    return None
