"""Score the analysis on a folder of labelled pose tracks (`coach.labels/1`, the format of ../shared/realpose):
per clip the releases found against the labelled ones, anchor and draw-start errors, extra and missed shots,
and the faults flagged, then one summary line. The real-footage benchmark and its test read these figures;
a club's own corrected sessions, exported in the same format, can be scored the same way.

A report shot pairs with the labelled shot whose release it is nearest to (each used once) when that is
within RELEASE_TOL_FRAMES; an unpaired report shot with a release is an extra shot. A clip labelled with no
shot (a full draw never shot) must give no shot with a release.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from .results import FAULT, SessionReport, uncertain_marks

RELEASE_TOL_FRAMES = 2  # the real-footage issue: the release within ±2 frames
ANCHOR_TOL_MIN_FRAMES = 3  # no labelled anchor is judged tighter than this


@dataclass(slots=True)
class LabelledClip:
    name: str
    labels: dict
    track: Path
    envelope: Path | None  # the sound's `coach.audioenvelope/1`, where the clip had sound

    @property
    def shots(self) -> list[dict]:
        return [s for s in self.labels.get("shots", []) if s.get("release_frame") is not None]


@dataclass(slots=True)
class ShotScore:
    want_release: int
    found_release: int | None  # the paired report shot's release (None: missed)
    anchor_error: int | None = None  # report - label, frames (paired shots only)
    anchor_tol: int = ANCHOR_TOL_MIN_FRAMES
    draw_start_error: int | None = None
    faults: list[str] = field(default_factory=list)  # rules the paired shot was faulted on
    anchor_sure: bool = False  # the paired shot's anchor was not marked uncertain

    @property
    def release_ok(self) -> bool:
        return self.found_release is not None and abs(self.found_release - self.want_release) <= RELEASE_TOL_FRAMES

    @property
    def anchor_ok(self) -> bool:
        return self.anchor_error is not None and abs(self.anchor_error) <= self.anchor_tol


@dataclass(slots=True)
class ClipScore:
    name: str
    shots: list[ShotScore]
    found_releases: list[int | None]  # every report shot's release, in order
    extra: int  # report shots with a release that pair with no labelled shot
    faults: list[str]  # every rule faulted on any shot of the clip
    notes: list[str] = field(default_factory=list)

    def line(self) -> str:
        want = [s.want_release for s in self.shots]
        anchors = [s.anchor_error for s in self.shots]
        draws = [s.draw_start_error for s in self.shots]
        return (
            f"{self.name}: release want {want} found {self.found_releases}; anchor error {anchors}; "
            f"draw-start error {draws}; extra {self.extra}; faults {sorted(set(self.faults))}"
        )


@dataclass(slots=True)
class Summary:
    releases_ok: int
    releases: int
    anchors_ok: int
    anchors: int
    extra: int
    contradicted: int  # faults the clip's observations contradict (see `contradicted_faults`)
    # Of the anchors the analysis did not mark uncertain, how many are right: an honest tool's sure marks are.
    sure_anchors_ok: int = 0
    sure_anchors: int = 0

    def line(self) -> str:
        return (
            f"releases within ±{RELEASE_TOL_FRAMES}: {self.releases_ok}/{self.releases}, anchors within tolerance: "
            f"{self.anchors_ok}/{self.anchors} (of those marked sure: {self.sure_anchors_ok}/{self.sure_anchors}), "
            f"extra shots: {self.extra}, faults on labelled-clean shots: {self.contradicted}"
        )


def labelled_clips(folder: str | Path) -> list[LabelledClip]:
    """Every `*.labels.json` in `folder` with its pose track and, if there is one, its sound envelope."""
    from .audio import envelope_beside

    out = []
    for p in sorted(Path(folder).glob("*.labels.json")):
        labels = json.loads(p.read_text(encoding="utf-8"))
        name = p.name.removesuffix(".labels.json")
        track = p.with_name(labels["pose_track"])
        out.append(LabelledClip(name, labels, track, envelope_beside(track)))
    return out


def analyse_clip(clip: LabelledClip, *, sound: bool = True, transform=None) -> SessionReport:
    """The whole analysis of one labelled track, as `coach analyze --pose-track` runs it (with its sound).
    `transform(track, envelope) -> (track, envelope)` changes both first (benchmarks/clip_edges.py cuts them; the
    envelope is None where the clip has no sound)."""
    from posture_rules.pack import Profile

    from .audio import cues_from_envelope, load_envelope
    from .pipeline import analyze_track
    from .pose_frame import load_posetrack

    track = load_posetrack(clip.track)
    env = load_envelope(clip.envelope) if sound and clip.envelope is not None else None
    if transform is not None:
        track, env = transform(track, env)
    refiner = cues_from_envelope(env).refiner(track.fps) if env is not None else None
    return analyze_track(track, profile=Profile(handedness=clip.labels.get("handedness")), release_refiner=refiner)


def score_clip(clip: LabelledClip, report: SessionReport) -> ClipScore:
    found = [s for s in report.shots if s.release_frame is not None]
    pairs: dict[int, int] = {}  # labelled shot -> report shot
    cands = sorted(
        (abs(r.release_frame - w["release_frame"]), wi, ri)
        for wi, w in enumerate(clip.shots)
        for ri, r in enumerate(found)
        if abs(r.release_frame - w["release_frame"]) <= RELEASE_TOL_FRAMES
    )
    for _, wi, ri in cands:
        if wi not in pairs and ri not in pairs.values():
            pairs[wi] = ri
    shots = []
    for wi, w in enumerate(clip.shots):
        r = found[pairs[wi]] if wi in pairs else None
        tol = w.get("tolerance_frames") or {}
        score = ShotScore(w["release_frame"], None if r is None else r.release_frame)
        score.anchor_tol = max(ANCHOR_TOL_MIN_FRAMES, tol.get("anchor_frame", tol.get("anchor", 5)))
        if r is not None:
            score.anchor_error = _diff(r.anchor_frame, w.get("anchor_frame"))
            score.draw_start_error = _diff(r.draw_start_frame, w.get("draw_start"))
            score.faults = [f.rule for f in r.findings if f.verdict == FAULT]
            score.anchor_sure = "anchor" not in uncertain_marks(r.marks_confidence, r.release_confidence)
        shots.append(score)
    faults = [f.rule for s in report.shots for f in s.findings if f.verdict == FAULT]
    return ClipScore(
        clip.name, shots, [s.release_frame for s in report.shots], len(found) - len(pairs), faults, report.notes
    )


def _diff(found: int | None, want: int | None) -> int | None:
    return None if found is None or want is None else found - want


def summarise(scores: Iterable[ClipScore], contradicted: Mapping[str, Iterable[str]] = {}) -> Summary:
    scores = list(scores)
    shots = [s for c in scores for s in c.shots]
    return Summary(
        releases_ok=sum(s.release_ok for s in shots),
        releases=len(shots),
        anchors_ok=sum(s.anchor_ok for s in shots),
        anchors=len(shots),
        extra=sum(c.extra for c in scores),
        sure_anchors_ok=sum(s.anchor_ok for s in shots if s.anchor_sure),
        sure_anchors=sum(s.anchor_sure for s in shots),
        contradicted=sum(len(contradicted_faults(c, contradicted.get(c.name, ()))) for c in scores),
    )


def contradicted_faults(score: ClipScore, rules: Iterable[str]) -> list[str]:
    """The faults on a clip that its labelled observations contradict (`rules`: those the observations
    show passing, e.g. a draw the labels time at 0.7 s for draw_tempo's floor)."""
    bad = set(rules)
    return [f for f in score.faults if f in bad]
