"""Does adaptive analysis find what a full-rate run finds? The comparison the long-session benchmark and the
tests make: a saved pose track stands in for the model ("run the model on frame i" = read frame i's
landmarks), so the sampler's decisions are checked on real archers without running MediaPipe."""

from __future__ import annotations

from dataclasses import dataclass

from posture_rules.pack import Profile

from .analyzer import Analyzer, ReleaseRefiner
from .pose_frame import PoseFrame, PoseTrack
from .results import SHOT_MARKS, SessionReport
from .sampling import AdaptiveSampler, SamplingLog, SamplingPlan

RELEASE_TOLERANCE = 1  # frames (issue #17: "release ±1 frame")


@dataclass(frozen=True, slots=True)
class Difference:
    shot: int | None
    what: str  # "shots", "release", "raise_start", ..., "verdict:<rule>"
    full: object
    adaptive: object

    def __str__(self) -> str:
        where = f"shot {self.shot}" if self.shot is not None else "session"
        return f"{where}: {self.what} full={self.full} adaptive={self.adaptive}"


def differences(full: SessionReport, adaptive: SessionReport, tolerance: int = RELEASE_TOLERANCE) -> list[Difference]:
    """What the adaptive run found differently: the number of shots, each shot's phase marks (the release
    within `tolerance` frames, the others exactly) and each rule's verdict."""
    out: list[Difference] = []
    if len(full.shots) != len(adaptive.shots):
        out.append(Difference(None, "shots", len(full.shots), len(adaptive.shots)))
    for a, b in zip(full.shots, adaptive.shots):
        for m in SHOT_MARKS:
            x, y = getattr(a, m), getattr(b, m)
            tol = tolerance if m == "release_frame" else 0
            if (x is None) != (y is None) or (x is not None and abs(x - y) > tol):
                out.append(Difference(a.index, m.removesuffix("_frame"), x, y))
        va = {f.rule: f.verdict for f in a.findings}
        vb = {f.rule: f.verdict for f in b.findings}
        for rule in sorted(va.keys() | vb.keys()):
            if va.get(rule) != vb.get(rule):
                out.append(Difference(a.index, f"verdict:{rule}", va.get(rule), vb.get(rule)))
    sa = {f.rule: f.verdict for f in full.consistency}
    sb = {f.rule: f.verdict for f in adaptive.consistency}
    for rule in sorted(sa.keys() | sb.keys()):
        if sa.get(rule) != sb.get(rule):
            out.append(Difference(None, f"verdict:{rule}", sa.get(rule), sb.get(rule)))
    return out


def _analyzer(track: PoseTrack, handedness: str | None, refiner: ReleaseRefiner | None) -> Analyzer:
    return Analyzer(
        track.fps,
        track.width,
        track.height,
        profile=Profile(handedness=handedness),
        mode="recorded",
        source=track.source,
        release_refiner=refiner,
    )


def replay(
    track: PoseTrack,
    handedness: str | None = None,
    plan: SamplingPlan | None = None,
    refiner: ReleaseRefiner | None = None,
) -> tuple[SessionReport, SessionReport, SamplingLog]:
    """(full-rate report, adaptive report, what the sampler did) for one pose track."""
    full = _analyzer(track, handedness, refiner)
    for pf in track.frames:
        full.push_pose(pf)
    an = _analyzer(track, handedness, refiner)
    sampler = AdaptiveSampler(
        an, lambda pf: pf, index_of=lambda pf: pf.index, t_ms_of=lambda pf: pf.t_ms, plan=plan or SamplingPlan()
    )
    log = sampler.run(track.frames, scout=lambda pf: pf)
    return full.finish(), an.finish(), log


def padded(track: PoseTrack, before_s: float, after_s: float = 0.0, rest: PoseFrame | None = None) -> PoseTrack:
    """The track with an idle stretch before and after it: nobody in the picture, or the pose `rest` held
    (an archer standing)."""
    dt = 1000.0 / track.fps
    n = int(round(before_s * track.fps))

    def idle(i: int) -> PoseFrame:
        lm = None if rest is None else rest.landmarks
        return PoseFrame(i, i * dt, lm, None if rest is None else rest.world)

    frames = [idle(i) for i in range(n)]
    frames += [PoseFrame(pf.index + n, pf.t_ms + n * dt, pf.landmarks, pf.world) for pf in track.frames]
    m = len(frames)
    frames += [idle(m + i) for i in range(int(round(after_s * track.fps)))]
    return PoseTrack(track.fps, track.width, track.height, frames, source=track.source, model=track.model)
