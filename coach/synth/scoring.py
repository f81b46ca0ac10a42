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


BODY_JOINTS: tuple[int, ...] = (11, 12, 13, 14, 15, 16, 23, 24, 25, 26, 27, 28)
_SWAP = {11: 12, 12: 11, 13: 14, 14: 13, 15: 16, 16: 15, 23: 24, 24: 23, 25: 26, 26: 25, 27: 28, 28: 27}


@dataclass
class PoseErrors:
    """MediaPipe's body joints against the rendered truth, per frame, in shoulder widths (truth's, per frame)."""

    error_sw: np.ndarray  # (T,) median over the body joints; NaN where no person or no truth
    swapped: np.ndarray  # (T,) bool: the archer read with left and right exchanged (facing away)

    def median(self, frames: range | None = None) -> float:
        e = self.error_sw if frames is None else self.error_sw[[i for i in frames if 0 <= i < len(self.error_sw)]]
        e = e[np.isfinite(e)]
        return float(np.median(e)) if len(e) else float("nan")

    def worst(self, frames: range) -> float:
        e = self.error_sw[[i for i in frames if 0 <= i < len(self.error_sw)]]
        e = e[np.isfinite(e)]
        return float(np.max(e)) if len(e) else float("nan")

    def swapped_spans(self) -> list[tuple[int, int]]:
        return _spans(self.swapped)

    def misread_spans(self, over_sw: float = 0.2) -> list[tuple[int, int]]:
        return _spans(np.nan_to_num(self.error_sw, nan=0.0) > over_sw)


def _spans(mask: np.ndarray) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    for i in np.flatnonzero(mask):
        if spans and spans[-1][1] == i - 1:
            spans[-1] = (spans[-1][0], int(i))
        else:
            spans.append((int(i), int(i)))
    return spans


def pose_errors(track: PoseTrack, landmarks_2d: list) -> PoseErrors:
    xy, _, _ = track.xy_vis()
    n = min(len(xy), len(landmarks_2d))
    err = np.full(len(xy), np.nan)
    swapped = np.zeros(len(xy), bool)
    for i in range(n):
        t = landmarks_2d[i]
        if t[11] is None or t[12] is None or not np.isfinite(xy[i, 11, 0]):
            continue
        sw = float(np.hypot(t[11][0] - t[12][0], t[11][1] - t[12][1]))
        if sw < 1.0:
            continue
        ks = [k for k in BODY_JOINTS if t[k] is not None]
        same = [float(np.hypot(*(xy[i, k] - t[k]))) / sw for k in ks]
        other = [float(np.hypot(*(xy[i, _SWAP[k]] - t[k]))) / sw for k in ks]
        err[i] = np.median(same)
        swapped[i] = np.median(other) < 0.5 * np.median(same) and np.median(same) > 0.3
    return PoseErrors(err, swapped)
