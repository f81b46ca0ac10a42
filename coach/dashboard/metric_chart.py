"""Compare's per-frame metric chart: one panel per metric, each shot its own line, the rule's fine range as a
band, and the release at t = 0 always inside the time axis (a series may stop before its release)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import altair as alt
import pandas as pd

from posture_rules.pack import RulePack

from .data import aligned_series
from .i18n import t

RELEASE_AFTER_S = 0.5  # the axis runs at least this far past the release


@dataclass(frozen=True, slots=True)
class Band:
    """The fine range of a metric: a fault enters below `lo` or above `hi` (either may be open)."""

    lo: float | None
    hi: float | None


def metric_rows(named_series: list[tuple[str, object, dict, float]], names: list[str] | None = None) -> list[dict]:
    """Rows {shot, metric, t, value} for each (shot name, Series, stored shot, fps); t = 0 at each release."""
    rows = []
    for name, series, shot, fps in named_series:
        for r in aligned_series(series, shot, fps, names):
            r["shot"] = name
            rows.append(r)
    return rows


def bands(pack: RulePack, shots: list[dict], metrics: list[str]) -> dict[str, Band]:
    """Per metric, the fine range the shot was judged against: the thresholds stored with its findings (the
    archer's own), else the pack's; a metric judged by two rules (one each side) gets both sides."""
    out: dict[str, Band] = {}
    for m in metrics:
        limits = [
            f["threshold"]
            for sh in shots
            for f in sh.get("findings", [])
            if f.get("threshold") and getattr(pack.by_id.get(f.get("rule")), "metric", None) == m
        ]
        if not limits:
            limits = [
                {"below": r.thresholds.enter_below, "above": r.thresholds.enter_above}
                for r in pack.observable
                if r.metric == m
            ]
        lows = [v for th in limits if (v := th.get("below", th.get("enter_below"))) is not None]
        highs = [v for th in limits if (v := th.get("above", th.get("enter_above"))) is not None]
        if lows or highs:
            out[m] = Band(max(lows) if lows else None, min(highs) if highs else None)
    return out


def time_domain(rows: list[dict]) -> tuple[float, float]:
    """The time axis: all the data, and the release (t = 0) with a little after it, always."""
    ts = [r["t"] for r in rows] or [0.0]
    return min(min(ts), 0.0), max(max(ts), RELEASE_AFTER_S)


def metric_chart(rows: list[dict], band_of: dict[str, Band], label_of, lang: str) -> alt.VConcatChart:
    """One panel per metric (its own y scale and unit), each shot a line, the fine range shaded, the release
    a red rule at t = 0."""
    df = pd.DataFrame(rows)
    shots = list(dict.fromkeys(df["shot"]))  # shot A first, in the legend as on the page
    lo_t, hi_t = time_domain(rows)
    x = alt.X("t:Q", title=t("t_release", lang), scale=alt.Scale(domain=[lo_t, hi_t], nice=False))
    panels = []
    for m in dict.fromkeys(df["metric"]):
        d = df[df["metric"] == m]
        layers = []
        b = band_of.get(m)
        if b is not None:
            vmin, vmax = float(d["value"].min()), float(d["value"].max())
            lo = b.lo if b.lo is not None else min(vmin, b.hi if b.hi is not None else vmin)
            hi = b.hi if b.hi is not None else max(vmax, b.lo if b.lo is not None else vmax)
            if math.isfinite(lo) and math.isfinite(hi) and hi > lo:
                band = pd.DataFrame(
                    {"t0": [lo_t], "t1": [hi_t], "lo": [lo], "hi": [hi], "what": [t("pl_threshold", lang)]}
                )
                layers.append(
                    alt.Chart(band)
                    .mark_rect(color="#7fb069", opacity=0.18)
                    .encode(x="t0:Q", x2="t1:Q", y="lo:Q", y2="hi:Q", tooltip=alt.Tooltip("what:N", title=None))
                )
        layers.append(
            alt.Chart(d)
            .mark_line(point=False)
            .encode(
                x=x,
                y=alt.Y("value:Q", title=None, scale=alt.Scale(zero=False)),
                color=alt.Color("shot:N", title=None, sort=shots, legend=alt.Legend(orient="top")),
                strokeDash=alt.StrokeDash("shot:N", title=None, sort=shots),
                detail="shot:N",
            )
        )
        zero = pd.DataFrame({"t": [0.0], "what": [t("pl_metric_release", lang)]})
        layers.append(
            alt.Chart(zero)
            .mark_rule(color="#c0392b", strokeWidth=2)
            .encode(x="t:Q", tooltip=alt.Tooltip("what:N", title=None))
        )
        panels.append(alt.layer(*layers).properties(title=label_of(m), height=130, width="container"))
    return alt.vconcat(*panels).resolve_scale(y="independent", color="shared", strokeDash="shared")
