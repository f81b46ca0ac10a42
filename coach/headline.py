"""What to work on first: the one or two faults of a session that matter most.

Pure (no store, no I/O), so the reports, the dashboard and the terminal can share it. A fault ranks by its
rule's severity first, then by how many shots showed it (recurrence), then by the pack's order of rules; a rule
the landmarks judge with low confidence (a hint, not a verdict: `confidence = "low"` in the pack) ranks after
every fault the tool stands behind, whatever its severity. Faults the coach dismissed are not faults here."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from posture_rules.pack import RulePack

SEVERITY_RANK = {"critical": 0, "major": 1, "minor": 2}
SEVERITY_TEXT = {"critical": "critical 極重", "major": "major 重", "minor": "minor 輕"}  # the terminal's bilingual text


@dataclass(frozen=True, slots=True)
class Focus:
    rule: str
    severity: str
    shots: tuple[int, ...]  # 0-based shot indices showing it; empty for a session-level (consistency) fault
    of_shots: int  # shots judged in the session

    @property
    def session_level(self) -> bool:
        return not self.shots


def headline(
    shots: list[dict],
    consistency: list[dict],
    severity: dict[str, str],
    order: list[str],
    dismissed: set[tuple[int | None, str]] = frozenset(),
    limit: int = 2,
    hints: frozenset[str] = frozenset(),
) -> list[Focus]:
    """The faults to work on first, most important first (at most `limit`).

    `shots` are coach.session/1 shot dicts (index, findings); `consistency` the session-level findings;
    `severity` maps rule id → severity; `order` is the pack's rule order (the tie-break); `hints` the rules judged
    with low confidence."""
    seen: dict[str, list[int]] = {}
    for sh in shots:
        for f in sh.get("findings", []):
            if f.get("verdict") == "fault" and (sh["index"], f["rule"]) not in dismissed:
                seen.setdefault(f["rule"], []).append(sh["index"])
    session_faults = [
        f["rule"] for f in consistency if f.get("verdict") == "fault" and (None, f["rule"]) not in dismissed
    ]
    for rid in session_faults:
        seen.setdefault(rid, [])
    pos = {rid: i for i, rid in enumerate(order)}

    def rank(rid: str) -> tuple:
        sev = SEVERITY_RANK.get(severity.get(rid, "minor"), 3)
        return (rid in hints, sev, -len(seen[rid]), pos.get(rid, len(pos)))

    picked = sorted(seen, key=rank)[:limit]
    return [Focus(rid, severity.get(rid, "minor"), tuple(seen[rid]), len(shots)) for rid in picked]


HINT_MARK = " (?)"  # after a hint's name wherever its fault is named: terminal, reports, review page


def is_hint(pack: RulePack, rid: str) -> bool:
    """Is `rid` a rule the landmarks judge with low confidence (`confidence = "low"`): its fault a hint, not a verdict?"""
    r = pack.by_id.get(rid)
    return r is not None and r.confidence == "low"


def hint_mark(pack: RulePack, rid: str) -> str:
    """HINT_MARK for a hint's name, else ""."""
    return HINT_MARK if is_hint(pack, rid) else ""


def any_hint(pack: RulePack, rids: Iterable[str]) -> bool:
    """Is any of the rules whose faults a page shows a hint? Then the page says what HINT_MARK means."""
    return any(is_hint(pack, rid) for rid in rids)


def pack_headline(
    shots: list[dict],
    consistency: list[dict],
    pack: RulePack,
    dismissed: set[tuple[int | None, str]] = frozenset(),
    limit: int = 2,
) -> list[Focus]:
    """`headline` with the severities, the order and the hints (low-confidence rules) of a rule pack."""
    severity = {r.id: r.severity for r in pack.rules}
    hints = frozenset(r.id for r in pack.rules if is_hint(pack, r.id))
    return headline(shots, consistency, severity, [r.id for r in pack.rules], dismissed, limit, hints)
