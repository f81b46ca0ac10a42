"""Skeletons the player draws on its canvas. A session's own skeleton over its original video, every frame of its
shots from the kept pose track (for sessions with no annotated video). And the second shot's skeleton as a
ghost over the first: B's pose at the moment that corresponds to A's frame
(through the synchronising phase mark), scaled and moved so that B's shoulders sit on A's (no rotation, so a
difference in trunk tilt stays visible).

Poses come from the session's kept pose track (every frame) where the store keeps one, else from the stored key
frames (full draw and release only): then the ghost shows near those frames alone (`Ghost.dense` is False)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...landmarks import LEFT_SHOULDER, RIGHT_SHOULDER, SKELETON
from ...store.records import StoredSession, StoredShot

# nose, shoulders, elbows, wrists, hips, knees, ankles: what a coach compares; indices into the 33 landmarks
POINTS = (0, 11, 12, 13, 14, 15, 16, 23, 24, 25, 26, 27, 28)
_AT = {lm: k for k, lm in enumerate(POINTS)}
EDGES = tuple((_AT[a], _AT[b]) for a, b in SKELETON if a in _AT and b in _AT)  # the overlay's own bones, feet left out
MIN_VIS = 0.3
SPARSE_HOLD = 4  # frames either side of a key frame that its ghost stays on screen


@dataclass(slots=True)
class Poses:
    """One shot's poses: frame -> (33, 3) of x, y in pixels of the video, visibility."""

    by_frame: dict[int, np.ndarray]
    size: tuple[int, int]  # the video's width, height
    dense: bool  # every frame (a kept track) or a few key frames


@dataclass(slots=True)
class Ghost:
    frames: list[dict]  # [{"frame": A's frame, "points": [[x, y] as fractions of A's video, or None]}]
    dense: bool

    def as_data(self) -> dict:
        return {"frames": self.frames, "edges": [list(e) for e in EDGES], "hold": 0 if self.dense else SPARSE_HOLD}


def shot_poses(store, sid: int, session: StoredSession, stored: StoredShot, margin: int = 30) -> Poses | None:
    """The shot's poses from the session's kept track (its frames from the raise to the end, `margin` either
    side), else from its key frames; None when neither holds a pose."""
    size = (int(session.width or 0), int(session.height or 0))
    reader = getattr(store, "pose_track", None)
    track = reader(sid) if callable(reader) else None
    shot = stored.result
    marks = [shot.raise_start_frame, shot.draw_start_frame, shot.anchor_frame, shot.release_frame, shot.end_frame]
    marks = [m for m in marks if m is not None]
    if track is not None and marks:
        lo, hi = min(marks) - margin, max(marks) + margin
        scale = np.array([track.width, track.height], dtype=np.float32)
        out = {}
        for f in track.frames:
            if lo <= f.index <= hi and f.landmarks is not None:
                lm = np.asarray(f.landmarks, dtype=np.float32)
                out[f.index] = np.column_stack([lm[:, :2] * scale, lm[:, 3]])
        if out:
            return Poses(out, (int(track.width), int(track.height)), True)
    out = {kf.frame: kf.landmarks for kf in store.key_frames(stored.id) if kf.landmarks is not None}
    if not out or not all(size):
        return None
    return Poses(out, size, False)


def _shoulders(pose: np.ndarray) -> tuple[np.ndarray, float] | None:
    ls, rs = pose[LEFT_SHOULDER], pose[RIGHT_SHOULDER]
    if min(ls[2], rs[2]) < MIN_VIS:
        return None
    width = float(np.hypot(*(ls[:2] - rs[:2])))
    if not np.isfinite(width) or width < 1.0:
        return None
    return (ls[:2] + rs[:2]) / 2, width


def _nearest(by_frame: dict[int, np.ndarray], f: int, within: int) -> np.ndarray | None:
    best = min(by_frame, key=lambda g: abs(g - f), default=None)
    if best is None or abs(best - f) > within:
        return None
    return by_frame[best]


def ghost(a: Poses, b: Poses, a_sync: int, b_sync: int, fps_a: float, fps_b: float) -> Ghost:
    """B's poses placed over A: each B frame g lands on A's frame a_sync + (g - b_sync) in A's frame rate,
    scaled by A's shoulder width over B's and moved so the shoulder midpoints meet. A's shoulders come from A's
    pose at that frame (the nearest within a few frames; within the whole shot when only key frames exist)."""
    within = 3 if a.dense else 10_000
    aw, ah = a.size
    frames = []
    for g in sorted(b.by_frame):
        pb = b.by_frame[g]
        f = a_sync + round((g - b_sync) * fps_a / fps_b)
        pa = _nearest(a.by_frame, f, within)
        sb = _shoulders(pb)
        sa = _shoulders(pa) if pa is not None else None
        if sa is None or sb is None:
            continue
        (ma, wa), (mb, wb) = sa, sb
        xy = (pb[:, :2] - mb) * (wa / wb) + ma
        pts = [
            [round(float(xy[i, 0]) / aw, 4), round(float(xy[i, 1]) / ah, 4)] if pb[i, 2] >= MIN_VIS else None
            for i in POINTS
        ]
        frames.append({"frame": int(f), "points": pts})
    return Ghost(frames, a.dense and b.dense)


def skeleton_frames(track, spans: list[tuple[int, int]], margin: int = 30) -> list[dict]:
    """A kept pose track's skeleton over the frames of the shots (each span `margin` frames wider), as
    [{"frame", "points": [[x, y] as fractions of the video, or None]}] for the player's canvas."""
    want = set()
    for a, b in spans:
        want.update(range(a - margin, b + margin + 1))
    out = []
    for f in track.frames:
        if f.index not in want or f.landmarks is None:
            continue
        lm = f.landmarks
        pts = [[round(float(lm[i, 0]), 4), round(float(lm[i, 1]), 4)] if lm[i, 3] >= MIN_VIS else None for i in POINTS]
        out.append({"frame": int(f.index), "points": pts})
    return out


def skeleton_data(frames: list[dict]) -> dict | None:
    return {"frames": frames, "edges": [list(e) for e in EDGES], "hold": 0} if frames else None
