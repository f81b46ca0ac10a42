"""`python -m coach.metrics`: write posture_rules/vocabulary.json from the registry (after adding a metric)."""

from . import METRICS
from .vocabulary import write

print(f"{write()}: {len(METRICS)} metrics")
