"""Rule packs: TOML files of rules, validated at load with errors that name the file, the rule and the field.

A rule names a metric of the analysis (posture_rules/vocabulary.py lists them), the phases and camera views it
applies to, and thresholds (posture_rules/thresholds.py: a fault enters beyond `enter_above` / `enter_below`, exits
back inside `exit_above` / `exit_below`, and must last `min_duration_s` to count), with what clean shots read
(`clean_reads`, which no tolerance tightens a limit past). Rules the body landmarks cannot judge stay in the pack
with `observable = false` and `needs`, so a coach sees them listed and knows why they are not checked. An archer's
Profile, whose overrides pass the same threshold checks, is layered over the pack here.
"""

from __future__ import annotations

import math
import os
import stat
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType

from .errors import RulePackError
from .thresholds import THRESHOLD_KEYS, CleanReads, Thresholds, threshold_problem
from .vocabulary import BODY_PARTS, METRIC_NAMES

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

PACK_SCHEMA = "coach.rulepack/1"
PHASES = ("setup", "raise", "draw", "full_draw", "hold", "release", "follow_through", "session")
VIEWS = ("face-on", "down-line", "high", "other", "any")
SEVERITIES = ("minor", "major", "critical")
# The draw hand. One type everywhere: "right", "left", or None while it is not known (detected from the hand
# that goes to the face). Where a person chooses or reads it, None is written "auto" (profiles, --handedness);
# a session report writes what was detected, "unknown" when nothing was (`parse_handedness` reads all three).
HANDS = ("right", "left")
AUTO = "auto"
DRAW_STYLES = ("thumb", "mediterranean")
DEFAULT_PACK = Path(__file__).parent / "packs" / "shejing.toml"


@dataclass(frozen=True, slots=True)
class Rule:
    id: str
    name_zh: str
    name_en: str
    section: str
    quote: str
    meaning_zh: str
    meaning_en: str
    cue_zh: str
    cue_en: str
    observable: bool = True
    needs: str = ""
    metric: str | None = None
    phases: tuple[str, ...] = ()
    views: tuple[str, ...] = ("any",)
    thresholds: Thresholds = field(default_factory=Thresholds)
    norm: float | None = None
    min_duration_s: float = 0.0
    min_visibility: float = 0.5
    severity: str = "major"
    confidence: str = "normal"  # "low" for interpretive rules
    source_note: str = ""
    body_parts: tuple[str, ...] = ()  # landmarks to highlight when flagged
    family: str = ""  # the classical rule this one is a face of (e.g. stillness_hold_time → stillness)
    # draw style → thresholds replacing the rule's own for that style (profile draw_style)
    draw_style: MappingProxyType = field(default_factory=lambda: MappingProxyType({}))
    clean_reads: CleanReads | None = None  # of the rule's own thresholds (not a draw style's)

    @property
    def reports_as(self) -> str:
        """The rule id a finding of this rule counts for: its family, or its own id."""
        return self.family or self.id

    @property
    def scope(self) -> str | None:
        return METRIC_NAMES[self.metric].scope if self.metric else None

    def applies_to_view(self, view: str) -> bool:
        return "any" in self.views or view in self.views


@dataclass(frozen=True, slots=True)
class RulePack:
    id: str
    version: str
    title: str
    path: str
    rules: tuple[Rule, ...]

    @property
    def by_id(self) -> MappingProxyType:
        return MappingProxyType({r.id: r for r in self.rules})

    @property
    def observable(self) -> tuple[Rule, ...]:
        return tuple(r for r in self.rules if r.observable)


_STR_FIELDS = ("name_zh", "name_en", "section", "quote", "meaning_zh", "meaning_en", "cue_zh", "cue_en")
_ALLOWED = set(Rule.__slots__) | set(THRESHOLD_KEYS) | {"thresholds"}


def _parse_thresholds(path: Path, rid: str, th, where: str = "thresholds") -> Thresholds:
    if not isinstance(th, dict):
        raise _fail(path, "must be a table", rid, where)
    extra = sorted(set(th) - set(THRESHOLD_KEYS))
    if extra:
        raise _fail(path, f"unknown threshold {extra[0]!r} (known: {', '.join(THRESHOLD_KEYS)})", rid, where)
    tvals = {k: _number(path, rid, f"{where}.{k}", v) for k, v in th.items()}
    if "enter_above" not in tvals and "enter_below" not in tvals:
        raise _fail(path, "needs enter_above and/or enter_below", rid, where)
    # Exit defaults to enter (no hysteresis).
    for side in ("above", "below"):
        if f"enter_{side}" in tvals:
            tvals.setdefault(f"exit_{side}", tvals[f"enter_{side}"])
    problem = threshold_problem(tvals)
    if problem is not None:
        fld = f"{where}.{problem.key}" if problem.code in ("exit_beyond_enter", "exit_without_enter") else where
        raise _fail(path, problem.english(), rid, fld)
    return Thresholds(**tvals)


def _parse_clean_reads(path: Path, rid: str, raw, th: Thresholds) -> CleanReads:
    """`clean_reads = { below = …, above = … }`: each inside the rule's own pass band (a clean shot the rule itself
    flags is a limit to move, not a reading to keep)."""
    if not isinstance(raw, dict) or not raw or set(raw) - {"below", "above"}:
        raise _fail(path, "must be a table of 'below' and/or 'above'", rid, "clean_reads")
    reads = CleanReads(**{k: _number(path, rid, f"clean_reads.{k}", v) for k, v in raw.items()})
    if (reads.below is not None and th.enter_below is not None and reads.below < th.enter_below) or (
        reads.above is not None and th.enter_above is not None and reads.above > th.enter_above
    ):
        raise _fail(path, "a clean reading beyond the rule's own limit", rid, "clean_reads")
    return reads


def _fail(path: Path, problem: str, rule: str | None = None, fld: str | None = None) -> RulePackError:
    return RulePackError(path, problem, rule=rule, field=fld)


def _number(path: Path, rid: str, key: str, v) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        raise _fail(path, f"must be a number, got {v!r}", rid, key)
    return float(v)


def _parse_rule(path: Path, raw: dict, seen: set[str]) -> Rule:
    rid = raw.get("id")
    if not isinstance(rid, str) or not rid.isidentifier():
        raise _fail(path, f"every rule needs an 'id' that is an identifier, got {rid!r}", None, "id")
    if rid in seen:
        raise _fail(path, "duplicate rule id", rid, "id")
    seen.add(rid)
    unknown = sorted(set(raw) - _ALLOWED)
    if unknown:
        raise _fail(path, f"unknown field (allowed: {', '.join(sorted(_ALLOWED))})", rid, unknown[0])
    for k in _STR_FIELDS:
        if not isinstance(raw.get(k), str) or not raw[k].strip():
            raise _fail(path, "missing or empty text", rid, k)
    observable = raw.get("observable", True)
    if not isinstance(observable, bool):
        raise _fail(path, "must be true or false", rid, "observable")
    kw: dict = {k: raw[k] for k in _STR_FIELDS}
    kw.update(id=rid, observable=observable)
    for k in ("needs", "source_note", "confidence", "family"):
        if k in raw:
            if not isinstance(raw[k], str):
                raise _fail(path, "must be text", rid, k)
            kw[k] = raw[k]
    if not observable:
        if not kw.get("needs"):
            raise _fail(path, "a rule that is not observable must say what it needs", rid, "needs")
        return Rule(**kw)

    metric = raw.get("metric")
    if metric not in METRIC_NAMES:
        raise _fail(path, f"unknown metric {metric!r} (known: {', '.join(sorted(METRIC_NAMES))})", rid, "metric")
    kw["metric"] = metric
    for key, allowed in (("phases", PHASES), ("views", VIEWS)):
        vals = raw.get(key)
        if not isinstance(vals, list) or not vals or not all(isinstance(v, str) for v in vals):
            raise _fail(path, "must be a non-empty list of names", rid, key)
        bad = [v for v in vals if v not in allowed]
        if bad:
            raise _fail(path, f"unknown {key[:-1]} {bad[0]!r} (known: {', '.join(allowed)})", rid, key)
        kw[key] = tuple(vals)
    kw["thresholds"] = _parse_thresholds(path, rid, raw.get("thresholds", {}))
    styles = raw.get("draw_style", {})
    if not isinstance(styles, dict):
        raise _fail(path, "must be a table of draw styles", rid, "draw_style")
    bad = [k for k in styles if k not in DRAW_STYLES]
    if bad:
        raise _fail(path, f"unknown draw style {bad[0]!r} (known: {', '.join(DRAW_STYLES)})", rid, "draw_style")
    kw["draw_style"] = MappingProxyType(
        {k: _parse_thresholds(path, rid, v, f"draw_style.{k}") for k, v in styles.items()}
    )
    if "norm" in raw:
        kw["norm"] = _number(path, rid, "norm", raw["norm"])
    if "clean_reads" in raw:
        kw["clean_reads"] = _parse_clean_reads(path, rid, raw["clean_reads"], kw["thresholds"])
    for key, lo, hi in (("min_duration_s", 0.0, 10.0), ("min_visibility", 0.0, 1.0)):
        if key in raw:
            v = _number(path, rid, key, raw[key])
            if not lo <= v <= hi:
                raise _fail(path, f"must be between {lo} and {hi}", rid, key)
            kw[key] = v
    if "severity" in raw:
        if raw["severity"] not in SEVERITIES:
            raise _fail(path, f"must be one of {', '.join(SEVERITIES)}", rid, "severity")
        kw["severity"] = raw["severity"]
    if "body_parts" in raw:
        bp = raw["body_parts"]
        if not isinstance(bp, list) or not all(isinstance(x, str) for x in bp):
            raise _fail(path, "must be a list of landmark names", rid, "body_parts")
        unknown_parts = [x for x in bp if x not in BODY_PARTS]
        if unknown_parts:
            raise _fail(path, f"unknown landmark {unknown_parts[0]!r} (e.g. bow_wrist, draw_elbow)", rid, "body_parts")
        kw["body_parts"] = tuple(bp)
    else:
        kw["body_parts"] = METRIC_NAMES[metric].landmarks
    return Rule(**kw)


MB = 1 << 20
MAX_PACK_BYTES = 4 * MB  # the bundled pack is 30 KB; a FIFO or /dev/urandom must not be read forever


def _read_file(p: Path) -> bytes:
    """The pack file's bytes. Only a regular file of at most MAX_PACK_BYTES is read: it is opened without
    blocking (a FIFO would wait for a writer) and judged by fstat before a byte is read (/dev/urandom never
    ends). The same guards as coach.safe_io.read_bounded, here because the pack format imports nothing of coach."""
    name = os.fspath(p)
    shown = name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    if shown != name:  # undecodable bytes arrive as lone surrogates, which cannot be printed or stored
        raise _fail(shown, "the file name is not valid UTF-8; rename the file")
    try:
        fd = os.open(p, os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError:
        raise _fail(p, "no such rule pack file") from None
    except OSError as e:
        raise _fail(p, f"cannot be read ({(e.strerror or type(e).__name__).lower()})") from None
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise _fail(p, "is a folder, not a rule pack file")
        if not stat.S_ISREG(st.st_mode):
            raise _fail(p, "is not a regular file (a pipe, device or socket), not a rule pack file")
        if st.st_size > MAX_PACK_BYTES:
            raise _fail(
                p, f"is {st.st_size / MB:.0f} MB, more than the {MAX_PACK_BYTES // MB} MB a rule pack file may be"
            )
        with os.fdopen(fd, "rb", closefd=False) as f:
            data = f.read(MAX_PACK_BYTES + 1)
    finally:
        os.close(fd)
    if len(data) > MAX_PACK_BYTES:  # grew since the stat
        raise _fail(p, f"is more than the {MAX_PACK_BYTES // MB} MB a rule pack file may be")
    return data


def load_pack(path: str | Path | None = None) -> RulePack:
    p = Path(path) if path is not None else DEFAULT_PACK
    try:
        doc = tomllib.loads(_read_file(p).decode("utf-8"))
    except UnicodeDecodeError as e:
        raise _fail(p, f"cannot be read ({e.__class__.__name__})") from None
    except tomllib.TOMLDecodeError as e:
        raise _fail(p, f"is not valid TOML ({e})") from None
    except RecursionError:
        raise _fail(p, "is not a rule pack (nested too deeply)") from None
    if doc.get("schema") != PACK_SCHEMA:
        raise _fail(p, f"schema must be {PACK_SCHEMA!r}, got {doc.get('schema')!r}", None, "schema")
    for k in ("id", "version", "title"):
        if not isinstance(doc.get(k), str) or not doc[k]:
            raise _fail(p, "missing", None, k)
    rules_raw = doc.get("rules")
    if not isinstance(rules_raw, list) or not rules_raw:
        raise _fail(p, "a pack needs at least one [[rules]] entry", None, "rules")
    bad = next((i for i, r in enumerate(rules_raw) if not isinstance(r, dict)), None)
    if bad is not None:
        raise _fail(p, f"entry {bad + 1} is not a table (each rule is a [[rules]] table)", None, "rules")
    seen: set[str] = set()
    rules = tuple(_parse_rule(p, r, seen) for r in rules_raw)
    for r in rules:  # a family groups faces of one classical rule; its name is a key in reports, like an id
        if r.family and not r.family.isidentifier():
            raise _fail(p, f"family must be a rule-like identifier, got {r.family[:40]!r}", r.id, "family")
    return RulePack(doc["id"], doc["version"], doc["title"], str(p), rules)


TOLERANCE = MappingProxyType({"beginner": 1.5, "club": 1.0, "elite": 0.75})


@dataclass(frozen=True, slots=True)
class Profile:
    """An archer's profile layered over a pack: handedness, draw style, tolerance, per-rule overrides."""

    handedness: str | None = None  # None = detect from which hand goes to the face
    draw_style: str = "mediterranean"
    tolerance: str = "club"
    overrides: MappingProxyType = field(default_factory=lambda: MappingProxyType({}))  # rule id -> {key: value}

    def __post_init__(self):
        if self.handedness not in (None, *HANDS):
            raise ValueError(f"handedness must be right, left or auto, not {self.handedness!r}")
        if not isinstance(self.overrides, MappingProxyType):  # frozen: a plain dict given is copied and frozen
            frozen = MappingProxyType({k: dict(v) for k, v in dict(self.overrides).items()})
            object.__setattr__(self, "overrides", frozen)
        if self.tolerance not in TOLERANCE:
            raise ValueError(f"tolerance must be one of {', '.join(TOLERANCE)}, not {self.tolerance!r}")
        if self.draw_style not in DRAW_STYLES:
            raise ValueError(f"draw style must be one of {', '.join(DRAW_STYLES)}, not {self.draw_style!r}")

    @classmethod
    def from_json(cls, d: dict) -> Profile:
        """`to_json`'s inverse (also reads an archer's stored fields); missing fields take the defaults. A value
        that is not a profile's raises ValueError."""
        return cls(
            handedness=parse_handedness(d.get("handedness")),
            draw_style=d.get("draw_style", "mediterranean"),
            tolerance=d.get("tolerance", "club"),
            overrides=MappingProxyType({k: dict(v) for k, v in (d.get("overrides") or {}).items()}),
        )

    def to_json(self) -> dict:
        return {
            "handedness": self.handedness or AUTO,
            "draw_style": self.draw_style,
            "tolerance": self.tolerance,
            "overrides": {k: dict(v) for k, v in self.overrides.items()},
        }

    def apply(self, pack: RulePack) -> RulePack:
        """The pack as this archer is judged by: the draw style's thresholds (e.g. the thumb draw of 射經
        anchors lower, toward the collarbone), then tolerance scaling (tightened no further than the rule's own
        clean readings), then explicit overrides.
        Handedness needs nothing here: every metric reads bow_/draw_ points through the Body's SideMap."""
        factor = TOLERANCE[self.tolerance]
        rules = []
        for r in pack.rules:
            if r.observable:
                styled = r.draw_style.get(self.draw_style)
                th = (styled or r.thresholds).scaled(factor, r.norm, None if styled else r.clean_reads)
                ov = self.overrides.get(r.id, {})
                if ov:
                    vals = {k: getattr(th, k) for k in THRESHOLD_KEYS}
                    vals.update({k: float(v) for k, v in ov.items() if k in THRESHOLD_KEYS})
                    th = Thresholds(**vals)
                r = replace(r, thresholds=th)
            rules.append(r)
        return replace(pack, rules=tuple(rules))


def other_hand(hand: str) -> str:
    """The hand that is not `hand` ("right" or "left")."""
    return "left" if hand == "right" else "right"


def parse_handedness(text: str | None) -> str | None:
    """ "right" and "left" as they are; None, "", "auto" (a profile's word) and "unknown" (a report's) are None."""
    if text in (None, "", AUTO, "unknown"):
        return None
    if text not in HANDS:
        raise ValueError(f"handedness must be right, left or auto, not {text!r}")
    return text
