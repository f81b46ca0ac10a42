"""The 射經 rules as data: a versioned, validated rule pack (TOML) and the registry of metric functions.

Direction of imports: this package sits on coach's base (`coach.errors`, `safe_io`, `geometry`, `landmarks`,
`kinematics`), which never imports it; the rest of `coach` (the analysis, store, reports) sits on this package
(tests/unit/test_import_cycles.py holds both to it)."""

from .metrics import METRICS, Metric, metric
from .pack import DEFAULT_PACK, Profile, Rule, RulePack, Thresholds, load_pack

__all__ = ["DEFAULT_PACK", "METRICS", "Metric", "Profile", "Rule", "RulePack", "Thresholds", "load_pack", "metric"]
