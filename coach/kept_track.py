"""The pose track kept with every analysed session, so re-judging a corrected shot, re-rendering and exporting
labels never need the pose model again.

`PoseKeeper` is an `Analyzer` pose listener: it copies each frame's landmarks, already quantised to the 1e-5
steps of a `coach.posetrack/1` file, into preallocated int32 chunks (no per-frame allocation). `encode`
packs them as `coach.keptpose/1`: a JSON header and zlib-compressed frame-to-frame differences (~270 bytes a
frame, a third of the gzipped JSON). `decode` gives back a `PoseTrack` whose numbers are exactly those
`save_posetrack` writes, so analysing a kept track is `coach analyze --pose-track` on a `--save-pose` file.

The world landmarks are not kept: no analysis reads them (they are MediaPipe's depth hints).
"""

from __future__ import annotations

import json
import struct
import zlib

import numpy as np

from .landmarks import N_LANDMARKS
from .pose_frame import PoseFrame, PoseTrack

CODEC = "coach.keptpose/1"
SCALE = 100_000  # landmarks in 1e-5 steps: the precision of a coach.posetrack/1 file
T_SCALE = 100  # t_ms in 0.01 ms steps, as save_posetrack rounds it
CHUNK = 1024  # frames per preallocated chunk
_HEADER = struct.Struct("<I")


class KeptTrackError(ValueError):
    """A kept track that does not decode (a damaged store); the store turns it into one line."""


class PoseKeeper:
    """Collects the poses of an analysis as they stream (`push`, an Analyzer pose listener); `encode()` packs
    them. Memory: ~550 bytes a frame (a 30-minute session at 30 fps: 30 MB)."""

    def __init__(self) -> None:
        self._chunks: list[np.ndarray] = []  # (CHUNK, 33, 4) int32, landmarks * SCALE
        self._found: list[np.ndarray] = []  # (CHUNK,) bool
        self._index: list[np.ndarray] = []  # (CHUNK,) int64
        self._t: list[np.ndarray] = []  # (CHUNK,) int64, t_ms * T_SCALE
        self._scratch = np.empty((N_LANDMARKS, 4))
        self.n = 0

    def push(self, pf: PoseFrame) -> None:
        j = self.n % CHUNK
        if j == 0:
            self._chunks.append(np.zeros((CHUNK, N_LANDMARKS, 4), dtype=np.int32))
            self._found.append(np.zeros(CHUNK, dtype=bool))
            self._index.append(np.zeros(CHUNK, dtype=np.int64))
            self._t.append(np.zeros(CHUNK, dtype=np.int64))
        self._index[-1][j] = pf.index
        self._t[-1][j] = round(pf.t_ms * T_SCALE)
        if pf.landmarks is not None:
            np.multiply(pf.landmarks, SCALE, out=self._scratch)
            np.rint(self._scratch, out=self._scratch)
            self._chunks[-1][j] = self._scratch
            self._found[-1][j] = True
        self.n += 1

    def encode(self, fps: float, width: int, height: int, source: str = "", model: str = "") -> bytes:
        n = self.n
        if n == 0:
            lm = np.zeros((0, N_LANDMARKS, 4), np.int32)
            found = np.zeros(0, bool)
            index = t = np.zeros(0, np.int64)
        else:
            lm = np.concatenate(self._chunks)[:n]
            found = np.concatenate(self._found)[:n]
            index = np.concatenate(self._index)[:n]
            t = np.concatenate(self._t)[:n]
        return _pack(fps, width, height, source, model, index, t, found, lm[found])


def encode_track(track: PoseTrack) -> bytes:
    """A whole `PoseTrack` as `coach.keptpose/1` (e.g. to keep the track of a `--pose-track` analysis)."""
    keeper = PoseKeeper()
    for pf in track.frames:
        keeper.push(pf)
    return keeper.encode(track.fps, track.width, track.height, track.source, track.model)


def _pack(fps, width, height, source, model, index, t, found, lm) -> bytes:
    header = {
        "codec": CODEC,
        "fps": float(fps),
        "width": int(width),
        "height": int(height),
        "source": str(source),
        "model": str(model),
        "frames": int(len(index)),
        "found": int(found.sum()),
        "scale": SCALE,
        "t_scale": T_SCALE,
    }
    # Differences along time are small where the archer is still: they compress three times better.
    d_lm = np.diff(lm.astype(np.int32), axis=0, prepend=np.zeros((1, N_LANDMARKS, 4), np.int32))
    body = b"".join(
        (
            np.diff(index, prepend=0).astype("<i4").tobytes(),
            np.diff(t, prepend=0).astype("<i8").tobytes(),
            np.packbits(found).tobytes(),
            d_lm.astype("<i4").tobytes(),
        )
    )
    head = json.dumps(header, ensure_ascii=False).encode("utf-8")
    return _HEADER.pack(len(head)) + head + zlib.compress(body, 6)


def header(blob: bytes) -> dict:
    """The header of a kept track (fps, size, frame count) without decoding its frames."""
    try:
        (n,) = _HEADER.unpack_from(blob, 0)
        h = json.loads(blob[_HEADER.size : _HEADER.size + n].decode("utf-8"))
    except (struct.error, UnicodeDecodeError, ValueError) as e:
        raise KeptTrackError(f"not a kept pose track ({type(e).__name__})") from None
    if not isinstance(h, dict) or h.get("codec") != CODEC:
        raise KeptTrackError(f"not a {CODEC} track")
    return h


def decode(blob: bytes) -> PoseTrack:
    h = header(blob)
    start = _HEADER.size + _HEADER.unpack_from(blob, 0)[0]
    try:
        n, k = int(h["frames"]), int(h["found"])
        body = zlib.decompress(blob[start:])
        o = 0
        index = np.cumsum(np.frombuffer(body, "<i4", n, o).astype(np.int64))
        o += 4 * n
        t = np.cumsum(np.frombuffer(body, "<i8", n, o)) / float(h["t_scale"])
        o += 8 * n
        nb = (n + 7) // 8
        found = np.unpackbits(np.frombuffer(body, np.uint8, nb, o))[:n].astype(bool)
        o += nb
        lm = np.cumsum(np.frombuffer(body, "<i4", k * N_LANDMARKS * 4, o).reshape(k, N_LANDMARKS, 4), axis=0)
        if o + k * N_LANDMARKS * 4 * 4 != len(body) or int(found.sum()) != k:
            raise ValueError("sizes do not match")
    except (KeyError, TypeError, ValueError, zlib.error) as e:
        raise KeptTrackError(f"damaged kept pose track ({type(e).__name__})") from None
    lm = lm / float(h["scale"])
    frames: list[PoseFrame] = []
    j = 0
    for i in range(n):
        if found[i]:
            frames.append(PoseFrame(int(index[i]), float(t[i]), lm[j]))
            j += 1
        else:
            frames.append(PoseFrame(int(index[i]), float(t[i]), None))
    return PoseTrack(h["fps"], h["width"], h["height"], frames, source=h.get("source", ""), model=h.get("model", ""))
