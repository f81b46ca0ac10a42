"""Scoring an analysis against a synthetic clip's truth: releases matched to the true ones, and the
rounded pose tracks committed as golden files (tests/golden, tests/golden/failure_modes)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from coach.pose_frame import PoseFrame, PoseTrack

TRUTH_META_KEYS = ("scenario", "fps", "n_frames", "handedness", "view", "shots", "faults", "camera_move", "rotation")


@dataclass
class ReleaseMatch:
    truth: list[int]  # the true release frames (shots with a release, in the clip)
    found: list[int | None]  # every found shot's release frame, in order
    pairs: list[tuple[int, int]] = field(default_factory=list)  # (true, found), each used once
    missed: list[int] = field(default_factory=list)  # true releases with no found release near them
    extra: list[int | None] = field(default_factory=list)  # found shots matched to no true release

    @property
    def errors(self) -> list[int]:
        return [f - t for t, f in self.pairs]


def match_releases(truth: list[int], found: list[int | None], window: int) -> ReleaseMatch:
    """Greedy nearest matching of found releases to true ones within ``window`` frames."""
    m = ReleaseMatch(list(truth), list(found))
    left = [f for f in found if f is not None]
    for t in truth:
        best = min(left, key=lambda f: abs(f - t), default=None)
        if best is not None and abs(best - t) <= window:
            m.pairs.append((t, best))
            left.remove(best)
        else:
            m.missed.append(t)
    m.extra = left + [None] * sum(1 for f in found if f is None)
    return m


def truth_meta(truth: dict) -> dict:
    return {k: truth[k] for k in TRUTH_META_KEYS if k in truth}


def rounded_track(track: PoseTrack, truth: dict, note: str) -> PoseTrack:
    """The golden-file convention: x, y to 4 decimals, z 0, visibility to 2, no world landmarks, the truth in
    the meta."""
    frames = []
    for f in track.frames:
        lm = None
        if f.landmarks is not None:
            lm = np.zeros_like(f.landmarks, dtype=float)
            lm[:, :2] = np.round(f.landmarks[:, :2], 4)
            lm[:, 3] = np.round(f.landmarks[:, 3], 2)
        frames.append(PoseFrame(f.index, f.t_ms, lm, None))
    meta = {"note": note, "truth": truth_meta(truth)}
    return PoseTrack(track.fps, track.width, track.height, frames, source=track.source, model=track.model, meta=meta)
