"""What the frame player is told, shaped from stored shots into plain typed data (no Streamlit here, so it is
tested without a browser): the phase marks and faults as ticks, each shot's frame span (for "loop this shot"),
the "jump to" targets, and the seek request that lands the player on one exact frame."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from posture_rules.pack import RulePack

from ...results import SHOT_MARKS
from ...store.records import Annotation
from ..data import dismissed_findings, fault_window, rule_name
from ..i18n import t

# a shot's phase marks in the order they happen, with the label key of each (the stored shot's field names)
MARK_FIELDS = (
    ("raise_start_frame", "raise", "pl_mark_raise"),
    ("draw_start_frame", "draw_start", "mark_draw_start"),
    ("anchor_frame", "anchor", "mark_anchor"),
    ("release_frame", "release", "mark_release"),
)


@dataclass(frozen=True, slots=True)
class Tick:
    """One mark on the scrub bar: a phase mark (kind = raise / draw_start / anchor / release) or a fault (kind =
    fault, drawn from `frame` to `end`)."""

    frame: int
    kind: str
    label: str
    end: int | None = None
    shot: int = 0  # the shot's index (0-based)


@dataclass(frozen=True, slots=True)
class Span:
    """A shot's frames, first to last, for "loop this shot"."""

    start: int
    end: int
    label: str


@dataclass(frozen=True, slots=True)
class Jump:
    """A "jump to" target: the frame the player lands on exactly."""

    frame: int
    label: str
    kind: str
    shot: int


def shot_span(shot: dict) -> tuple[int, int] | None:
    marks = [shot.get(f) for f in SHOT_MARKS]
    marks = [m for m in marks if m is not None]
    end = shot.get("end_frame")
    if end is not None:
        marks.append(end)
    if not marks:
        return None
    return min(marks), max(marks)


def shot_ticks(shot: dict, pack: RulePack, lang: str, dismissed: set | frozenset = frozenset()) -> list[Tick]:
    """The shot's phase marks and its faults (those the coach did not dismiss), in frame order."""
    n = shot["index"]
    name = t("shot", lang, n=n + 1)
    out = [
        Tick(int(shot[f]), kind, f"{name} · {t(key, lang)} · #{int(shot[f])}", shot=n)
        for f, kind, key in MARK_FIELDS
        if shot.get(f) is not None
    ]
    for f in shot.get("findings", []):
        if f.get("verdict") != "fault" or (n, f["rule"]) in dismissed:
            continue
        a, b = fault_window(f, shot)
        if a is None:
            continue
        label = f"{name} · {rule_name(pack, f['rule'], lang)} · #{a}"
        out.append(Tick(int(a), "fault", label, end=int(b if b is not None else a), shot=n))
    return sorted(out, key=lambda k: (k.frame, k.kind))


def session_ticks(
    shots: list[dict], pack: RulePack, lang: str, annotations: list[Annotation] | None = None
) -> tuple[list[Tick], list[Span]]:
    dismissed = dismissed_findings(annotations)
    ticks: list[Tick] = []
    spans: list[Span] = []
    for sh in shots:
        ticks += shot_ticks(sh, pack, lang, dismissed)
        span = shot_span(sh)
        if span is not None:
            spans.append(Span(span[0], span[1], t("shot", lang, n=sh["index"] + 1)))
    return ticks, spans


def jump_targets(ticks: list[Tick]) -> list[Jump]:
    """Every mark and fault as a "jump to" target, shot by shot, in frame order."""
    return [Jump(k.frame, k.label, k.kind, k.shot) for k in sorted(ticks, key=lambda k: (k.shot, k.frame))]


def frame_of_time(seconds: float, fps: float) -> int:
    """The frame shown at `seconds` (a chart's band start): frames are [k/fps, (k+1)/fps)."""
    return max(0, int(seconds * fps + 1e-6))


def as_data(items) -> list[dict]:
    return [asdict(i) for i in items]
