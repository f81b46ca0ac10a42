"""What a rule pack may name that the analysis defines, as data for the pack loader: every metric with its
scope and the landmarks it needs, and the body parts (coach names and MediaPipe's). posture_rules reads it
from posture_rules/vocabulary.json, so the pack format imports nothing of `coach`; `python -m coach.metrics`
writes that file after a metric is added or changed (tests/unit/rules/test_vocabulary.py fails while it is
stale)."""

from __future__ import annotations

import json
from pathlib import Path

from posture_rules.vocabulary import VOCABULARY_FILE

from ..landmarks import SIDES
from .registry import METRICS


def vocabulary() -> dict:
    parts = sorted({name for side in SIDES.values() for name in side.index})
    metrics = {m.name: {"scope": m.scope, "landmarks": list(m.landmarks)} for m in METRICS.values()}
    return {"metrics": dict(sorted(metrics.items())), "body_parts": parts}


def vocabulary_text() -> str:
    """The file's text: one line a metric and a body part, so a change reads as a one-line diff."""
    v = vocabulary()
    metrics = ",\n".join(f"  {json.dumps(n)}: {json.dumps(d)}" for n, d in v["metrics"].items())
    parts = ",\n".join(f"  {json.dumps(n)}" for n in v["body_parts"])
    return f'{{\n "metrics": {{\n{metrics}\n }},\n "body_parts": [\n{parts}\n ]\n}}\n'


def write(path: Path = VOCABULARY_FILE) -> Path:
    path.write_text(vocabulary_text(), encoding="utf-8")
    return path
