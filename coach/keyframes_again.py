"""The key frames of a corrected shot, read again from the session's video where its marks now are.

A frame is found by its container time (the kept track's t_ms, which is `FrameSource`'s CAP_PROP_POS_MSEC):
seek a little before it and read forward to the frame whose time matches, so a correction late in a long
video does not decode the video from its start. A frame whose time cannot be matched (a container without
times) is left out: a key frame is a nicety, and any failure leaves the shot without it.
"""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np

from .store import KeyFrame, StoredSession, encode_thumbnail

SEEK_BEFORE_MS = 1500.0  # seek this far before the frame: containers seek to the key frame before a time
READ_MAX = 600  # frames read forward at most per key frame
TIME_TOL_MS = 0.5


def grab_by_time(path: str | Path, times_ms: dict[int, float]) -> dict[int, np.ndarray]:
    """Images of the frames whose container times are given (frame index -> t_ms)."""
    import cv2

    cap = cv2.VideoCapture(str(path))
    cap.set(cv2.CAP_PROP_ORIENTATION_AUTO, 1)
    out: dict[int, np.ndarray] = {}
    try:
        for i, t in sorted(times_ms.items(), key=lambda kv: kv[1]):
            cap.set(cv2.CAP_PROP_POS_MSEC, max(0.0, t - SEEK_BEFORE_MS))
            for _ in range(READ_MAX):
                ok, img = cap.read()
                if not ok or img is None:
                    break
                now = cap.get(cv2.CAP_PROP_POS_MSEC)
                if abs(now - t) <= TIME_TOL_MS:
                    out[i] = img
                    break
                if now > t + TIME_TOL_MS:
                    break
    finally:
        cap.release()
    return out


def key_frames_again(store, session: StoredSession, plan, t_ms_of) -> None:
    """The re-judged shot's key frames where its marks now are, read from the session's video when it is still
    there (the store dropped those that no longer sit on the marks). A key frame is a nicety: any failure
    leaves the shot without it."""
    src = Path(str(session.source or ""))
    todo = [p for p in plan.shots if p.key_frames and p.poses]
    if not todo or not src.is_file() or src.suffix.lower() in (".json", ".gz"):
        return
    try:
        stored = {s.index: s.id for s in store.shots(plan.session_id)}
        for p in todo:
            shot_id = stored[p.result.index]
            have = {k.kind for k in store.key_frames(shot_id)}
            want = {kind: f for kind, f in p.key_frames.items() if kind not in have}
            times = {f: t_ms_of(f) for f in want.values() if t_ms_of(f) is not None}
            images = grab_by_time(src, times) if times else {}
            out = []
            for kind, f in want.items():
                if f not in images:
                    continue
                jpeg, scale = encode_thumbnail(images[f], int(session.width or images[f].shape[1]))
                b = p.poses.get(f)
                lm = (
                    None
                    if b is None
                    else np.column_stack([np.asarray(b.xy, np.float32), np.asarray(b.vis, np.float32)])
                )
                out.append(KeyFrame(kind, f, scale, jpeg, lm))
            if out:
                store.add_key_frames(shot_id, out)
    except Exception:
        logging.getLogger(__name__).exception("key frames of session %s after a correction", plan.session_id)
