"""The rule pack as terminal text (`coach rules`)."""

from __future__ import annotations

from posture_rules.pack import Rule, RulePack


def _thresholds(r: Rule) -> str:
    th = r.thresholds
    parts = []
    if th.enter_below is not None:
        parts.append(f"fault below {th.enter_below:g} (clears at {th.exit_below:g})")
    if th.enter_above is not None:
        parts.append(f"fault above {th.enter_above:g} (clears at {th.exit_above:g})")
    return "; ".join(parts)


def format_pack(pack: RulePack) -> str:
    lines = [f"{pack.title} — pack {pack.id} {pack.version} ({pack.path})", ""]
    for r in pack.rules:
        lines.append(f"{r.id}  {r.name_zh}  {r.name_en}")
        lines.append(f"    {r.section}：{r.quote}")
        if r.observable:
            lines.append(f"    metric {r.metric}; phases {', '.join(r.phases)}; views {', '.join(r.views)}")
            lines.append(f"    {_thresholds(r)}; min {r.min_duration_s:g} s; severity {r.severity}")
        else:
            lines.append(f"    not checked — needs {r.needs}")
        lines.append(f"    → {r.cue_zh} / {r.cue_en}")
        lines.append("")
    return "\n".join(lines).rstrip()
