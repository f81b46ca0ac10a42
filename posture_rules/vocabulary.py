"""What a rule pack may name that the analysis defines: the metrics (each with its scope and the landmarks it
needs, a rule's body parts by default) and the body parts. Data, in vocabulary.json beside this file, written
by the analysis from its registry (`python -m coach.metrics`; a test fails while it is stale), so the pack
format and its loader import nothing of `coach`."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

VOCABULARY_FILE = Path(__file__).with_name("vocabulary.json")


@dataclass(frozen=True, slots=True)
class MetricName:
    """A metric as a rule pack sees it: its name, scope (frame, shot or session) and the landmarks it needs."""

    name: str
    scope: str
    landmarks: tuple[str, ...]


def _read() -> tuple[MappingProxyType, frozenset[str]]:
    doc = json.loads(VOCABULARY_FILE.read_text(encoding="utf-8"))
    metrics = {n: MetricName(n, d["scope"], tuple(d["landmarks"])) for n, d in doc["metrics"].items()}
    return MappingProxyType(metrics), frozenset(doc["body_parts"])


METRIC_NAMES, BODY_PARTS = _read()
