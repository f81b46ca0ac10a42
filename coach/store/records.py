"""The typed records the store hands out and takes in (`Series` is the analysis's own, `coach.results.Series`).

Every read of `Store` returns one of these, one record per thing read; the row id of a session or a shot is a
field (`id`), never a key injected into a JSON document. Where a reader hands the stored document on (a report's
JSON, the shot JSON the writers render), the record's `to_json()` is that document exactly as it was stored."""

from __future__ import annotations

import dataclasses
import unicodedata
from dataclasses import dataclass, field

import numpy as np

from posture_rules.pack import AUTO

from ..errors import CoachError
from ..results import Series, ShotResult

__all__ = [
    "Annotation",
    "Archer",
    "CorrectionRecord",
    "KeyFrame",
    "Series",
    "SessionSummary",
    "StoredFinding",
    "StoredSession",
    "StoredShot",
    "TrendRow",
]


def normalize_name(name: str) -> str:
    """Archer names in any script; NFC so the same name typed two ways is one archer."""
    n = unicodedata.normalize("NFC", name).strip()
    if not n:
        raise CoachError(None, "the archer's name is empty")
    return n


# ---- records handed out ---------------------------------------------------------------------------------
@dataclass(slots=True)
class Archer:
    id: int
    name: str
    handedness: str | None
    draw_style: str
    tolerance: str
    overrides: dict

    def profile(self):
        from posture_rules.pack import Profile

        return Profile.from_json(self.to_json())

    def to_json(self) -> dict:
        return {
            "name": self.name,
            "handedness": self.handedness or AUTO,
            "draw_style": self.draw_style,
            "tolerance": self.tolerance,
            "overrides": self.overrides,
        }


@dataclass(slots=True)
class KeyFrame:
    kind: str
    frame: int
    scale: float
    jpeg: bytes
    landmarks: np.ndarray | None  # (33, 3) x, y (source pixels), visibility


@dataclass(frozen=True, slots=True)
class SessionSummary:
    """A session as the lists show it (`Store.sessions`): whose, which video, when, its shot and fault counts
    (faults the coach dismissed left out)."""

    id: int
    archer: str
    source: str
    started_at: str
    finished_at: str | None
    complete: bool
    view: str | None
    handedness: str | None
    pack_id: str
    pack_version: str
    content_hash: str
    shots: int
    faults: int


@dataclass(frozen=True, slots=True)
class StoredSession:
    """One session row (`Store.session`). `report` is its `coach.session/1` report as stored (None while the
    analysis has not finished), `profile` the archer's profile it was judged with (`Profile.to_json`)."""

    id: int
    archer_id: int
    source: str
    content_hash: str
    pack_id: str
    pack_version: str
    fps: float | None
    width: int | None
    height: int | None
    frame_count: int | None
    view: str | None
    handedness: str | None
    started_at: str
    finished_at: str | None
    complete: bool
    report: dict | None
    profile: dict

    @property
    def frame_rate(self) -> float:
        """The session's frame rate, 30 where the row has none (an analysis that never got to read it)."""
        return float(self.fps or 30.0)

    def to_json(self) -> dict:
        """The session as one JSON object, every column by name."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}


@dataclass(frozen=True, slots=True)
class StoredShot:
    """One stored shot (`Store.shots`): its row id (what `series` and `key_frames` take) and the shot as judged.
    `to_json()` is its `coach.session/1` shot JSON exactly as stored, for the writers that render that JSON."""

    id: int
    result: ShotResult
    stored: dict = field(repr=False)

    @property
    def index(self) -> int:
        return self.result.index

    def to_json(self) -> dict:
        return self.stored


def _columns(record) -> dict:
    """A record as one JSON object, every field by name, in order."""
    return {f.name: getattr(record, f.name) for f in dataclasses.fields(record)}


@dataclass(frozen=True, slots=True)
class StoredFinding:
    """A finding row (`Store.findings`): `shot` is its shot's index, None for a finding on the whole session."""

    id: int
    shot: int | None
    rule: str
    verdict: str
    value: float | None
    threshold: dict
    start_frame: int | None
    end_frame: int | None
    unit: str
    reason: str

    def to_json(self) -> dict:
        return _columns(self)


@dataclass(frozen=True, slots=True)
class Annotation:
    """A coach's note (`Store.annotations`): accept, dismiss or comment, on a shot (its index) and/or a rule."""

    id: int
    shot: int | None
    rule: str | None
    action: str
    comment: str | None
    author: str | None
    created_at: str

    def to_json(self) -> dict:
        """As the JSON report lists it."""
        return _columns(self)


@dataclass(frozen=True, slots=True)
class CorrectionRecord:
    """What a coach corrected (`Store.corrections`): the shot (its index now and before), the action, the marks
    moved ({mark, before, after} each), the shot as it was (its JSON, with its notes), who and when."""

    id: int
    shot: int | None
    old_shot: int | None
    action: str
    marks: list[dict]
    before: dict | None
    by: str
    at: str


@dataclass(frozen=True, slots=True)
class TrendRow:
    """One session of an archer's trends (`Store.trend_rows`): its shot count, per rule its findings counted by
    verdict ("fault", "pass", "not_assessable", and "dismissed" for the faults the coach dismissed), and the
    mean of each shot measure."""

    id: int
    started_at: str
    complete: bool
    shots: int
    rules: dict[str, dict[str, int]]
    measures: dict[str, float]
