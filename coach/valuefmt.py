"""Measured values and their limits as text, one way for the terminal, the dashboard and the reports.

A value is shown with as many digits as it takes to stay on its own side of every limit: 0.1834 SW against a
limit of 0.18 is "0.183 SW", never "0.18 SW" next to "≤ 0.18" and a fault. Units are marks a reader knows
(°, SW, s); the internal ones (`log`, `ratio`) are dimensionless and shown bare."""

from __future__ import annotations

import math

UNIT_MARK = {"deg": "°", "SW": " SW", "s": " s", "log": "", "ratio": "", "": ""}
MAX_DECIMALS = 6


def unit_mark(unit: str | None) -> str:
    return UNIT_MARK.get(unit or "", f" {unit}")


def limit_values(threshold: dict | None) -> list[float]:
    th = threshold or {}
    return [float(th[k]) for k in ("below", "above") if th.get(k) is not None]


def decimals(v: float, limits: list[float] = ()) -> int:
    """Digits after the point: 2 (1 from 10 up), more while the rounded value would land on or across a limit
    the real value does not."""
    d = 2 if abs(v) < 10 else 1
    while d < MAX_DECIMALS:
        shown = round(v, d)
        if all((shown > x) == (v > x) and (shown < x) == (v < x) for x in limits):
            break
        d += 1
    return d


def number_text(v: float | None, limits: list[float] = ()) -> str:
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return "—"
    return f"{v:.{decimals(v, limits)}f}"


def value_text(v: float | None, unit: str | None = "", threshold: dict | None = None) -> str:
    """ "−9.07°", "0.183 SW"; "—" for nothing measured."""
    s = number_text(v, limit_values(threshold))
    return s if s == "—" else s + unit_mark(unit)


def limit_text(x: float, unit: str | None = "") -> str:
    return f"{x:g}{unit_mark(unit)}"


def limits_parts(threshold: dict | None, unit: str | None = "") -> tuple[str | None, str | None]:
    """(lowest value that is fine, highest value that is fine), each as text with its unit, or None."""
    th = threshold or {}
    lo = limit_text(th["below"], unit) if th.get("below") is not None else None
    hi = limit_text(th["above"], unit) if th.get("above") is not None else None
    return lo, hi


def limits_text(threshold: dict | None, unit: str | None = "") -> str:
    """The range that is fine, in symbols every reader of a bilingual report reads alike: "≥ 155°",
    "≤ 0.18 SW", "-8° … 18°"."""
    lo, hi = limits_parts(threshold, unit)
    if lo and hi:
        return f"{lo} … {hi}"
    return f"≥ {lo}" if lo else f"≤ {hi}" if hi else ""
