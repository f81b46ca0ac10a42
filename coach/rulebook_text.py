"""The rule pack as terminal text (`coach rules`): per rule the id, name, classical line with its section,
what is measured (metric, unit, phases, views), the thresholds (and what clean shots read) and the cue; the session
rules; and the rules
the body landmarks cannot judge, with what they would need."""

from __future__ import annotations

from posture_rules.pack import Rule, RulePack
from posture_rules.thresholds import CleanReads, Thresholds

from .metrics import METRICS

UNITS = {"deg": "°", "SW": " SW", "s": " s", "ratio": "", "log": ""}
# What a metric judged against the archer's own pose is compared with (`Metric.relative_to`).
_AGAINST = {"ready": ", vs own pose as the draw starts", "setup": ", vs own standing pose before the raise"}
# ... or what is taken out of it, measured in that pose (`Metric.reference_metric`).
_LESS = {"camera_roll": ", less the camera's roll the standing trunk shows before the raise"}


def _against(m) -> str:
    return _LESS[m.reference_metric] if m.reference_metric else _AGAINST.get(m.relative_to, "")


def _thresholds(th: Thresholds, unit: str = "") -> str:
    u = UNITS.get(unit, "")
    parts = []
    if th.enter_below is not None:
        hyst = f" (clears at {th.exit_below:g}{u})" if th.exit_below != th.enter_below else ""
        parts.append(f"fault below {th.enter_below:g}{u}{hyst}")
    if th.enter_above is not None:
        hyst = f" (clears at {th.exit_above:g}{u})" if th.exit_above != th.enter_above else ""
        parts.append(f"fault above {th.enter_above:g}{u}{hyst}")
    return "; ".join(parts)


def _reads(c: CleanReads, unit: str) -> str:
    u = UNITS.get(unit, "")
    if c.below is not None and c.above is not None:
        return f"{c.below:g}{u} to {c.above:g}{u}"
    return f"down to {c.below:g}{u}" if c.below is not None else f"up to {c.above:g}{u}"


def format_rule(r: Rule) -> list[str]:
    fam = f"  [part of {r.family}]" if r.family and r.family != r.id else ""
    lines = [f"{r.id}  {r.name_zh}  {r.name_en}{fam}", f"    {r.section}：{r.quote}"]
    lines.append(f"    {r.meaning_en}")
    if r.observable:
        m = METRICS[r.metric]
        lines.append(
            f"    measures {r.metric} ({m.scope}{_against(m)}); "
            f"phases {', '.join(r.phases)}; views {', '.join(r.views)}"
        )
        extra = []
        if r.min_duration_s:
            extra.append(f"for ≥ {r.min_duration_s:g} s")
        extra.append(f"severity {r.severity}")
        if r.confidence != "normal":
            extra.append(f"{r.confidence} confidence")
        lines.append(f"    {_thresholds(r.thresholds, m.unit)}; {'; '.join(extra)}")
        for style, th in r.draw_style.items():
            lines.append(f"    {style} draw: {_thresholds(th, m.unit)}")
        if r.clean_reads is not None:
            own = " (the rule's own thresholds; a draw style's are scaled as they are)" if r.draw_style else ""
            lines.append(
                f"    clean shots read {_reads(r.clean_reads, m.unit)}: a stricter tolerance tightens no limit past "
                f"it{own}"
            )
        if r.source_note:
            lines.append(f"    note: {r.source_note}")
    else:
        lines.append(f"    not checked — needs {r.needs}")
    lines.append(f"    → {r.cue_zh} / {r.cue_en}")
    return lines


def format_pack(pack: RulePack) -> str:
    per_shot = [r for r in pack.observable if r.scope != "session"]
    session = [r for r in pack.observable if r.scope == "session"]
    hidden = [r for r in pack.rules if not r.observable]
    lines = [f"{pack.title} — pack {pack.id} {pack.version} ({pack.path})"]
    lines.append(
        f"{len(pack.rules)} rules: {len(per_shot)} judged per shot, {len(session)} across the session, "
        f"{len(hidden)} listed but not observable from body landmarks"
    )
    for title, rules in (
        ("Judged on every shot", per_shot),
        ("Judged across the session (consistency)", session),
        ("Not observable from body landmarks", hidden),
    ):
        if not rules:
            continue
        lines += ["", f"== {title} ==", ""]
        for r in rules:
            lines += format_rule(r)
            lines.append("")
    return "\n".join(lines).rstrip()


def check_summary(pack: RulePack, path: str) -> str:
    fams = sorted({r.reports_as for r in pack.observable})
    return (
        f"{path}: OK — pack {pack.id} {pack.version}, {len(pack.rules)} rules "
        f"({len(pack.observable)} observable in {len(fams)} families, "
        f"{sum(1 for r in pack.observable if r.scope == 'session')} session)"
    )
