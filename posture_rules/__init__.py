"""The 射經 rules as data: a versioned, validated rule pack (TOML), its loader, and the names a pack may use.

Direction of imports: this package imports nothing of `coach` (tests/unit/test_import_cycles.py holds it to
that); `coach` sits on it. The metric functions a rule names are the analysis's (coach/metrics/); the pack
knows them by name, scope and landmarks from vocabulary.json, which the analysis writes."""

from .errors import CoachError, RulePackError
from .pack import DEFAULT_PACK, Profile, Rule, RulePack, load_pack
from .thresholds import Thresholds
from .vocabulary import BODY_PARTS, METRIC_NAMES, MetricName

__all__ = [
    "BODY_PARTS",
    "DEFAULT_PACK",
    "METRIC_NAMES",
    "CoachError",
    "MetricName",
    "Profile",
    "Rule",
    "RulePack",
    "RulePackError",
    "Thresholds",
    "load_pack",
]
