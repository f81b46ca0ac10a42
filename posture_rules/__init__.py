"""The 射經 rules as data: a versioned, validated rule pack (TOML) and the registry of metric functions."""

from .metrics import METRICS, Metric, metric
from .pack import DEFAULT_PACK, Profile, Rule, RulePack, Thresholds, load_pack

__all__ = ["DEFAULT_PACK", "METRICS", "Metric", "Profile", "Rule", "RulePack", "Thresholds", "load_pack", "metric"]
