"""The names a rule pack may use (posture_rules/vocabulary.json) are the analysis's: every registered metric with
its scope and landmarks, every body part of both sides, and nothing else. The file is data the pack loader reads
without importing coach; after adding or changing a metric, `python -m coach.metrics` writes it again."""

from coach.landmarks import LEFT, RIGHT
from coach.metrics import METRICS
from coach.metrics.vocabulary import vocabulary_text
from posture_rules.pack import load_pack
from posture_rules.vocabulary import BODY_PARTS, METRIC_NAMES, VOCABULARY_FILE


def test_the_file_is_what_the_registry_writes():
    assert VOCABULARY_FILE.read_text(encoding="utf-8") == vocabulary_text(), "stale: run `python -m coach.metrics`"


def test_the_pack_knows_each_metric_as_the_analysis_registers_it():
    assert set(METRIC_NAMES) == set(METRICS)
    for name, m in METRICS.items():
        assert (METRIC_NAMES[name].scope, METRIC_NAMES[name].landmarks) == (m.scope, m.landmarks), name
    assert BODY_PARTS == set(RIGHT.index) == set(LEFT.index)


def test_the_bundled_pack_judges_each_rule_by_a_registered_metric_of_its_scope():
    for rule in load_pack().observable:
        assert METRICS[rule.metric].scope == rule.scope
        assert set(rule.body_parts) <= BODY_PARTS
