"""What the pose estimator hands to the rest of the pipeline, and pose-track files (coach.posetrack/1)."""

from __future__ import annotations

import gzip
import io
import json
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .errors import PoseTrackError
from .landmarks import N_LANDMARKS

POSETRACK_SCHEMA = "coach.posetrack/1"


@dataclass(slots=True)
class PoseFrame:
    """One frame's pose. `landmarks` is (33, 4): x, y normalised to the image, z, visibility.

    `landmarks` is None when no person was found in the frame; the frame still exists so that time and
    frame numbers stay those of the decoded video.
    """

    index: int
    t_ms: float
    landmarks: np.ndarray | None
    world: np.ndarray | None = None  # (33, 3) metres, hip-centred; hints only (depth is unreliable)

    @property
    def found(self) -> bool:
        return self.landmarks is not None


@dataclass(slots=True)
class PoseTrack:
    """A whole video's poses plus what is needed to turn them back into pixels and seconds."""

    fps: float
    width: int
    height: int
    frames: list[PoseFrame]
    source: str = ""
    model: str = ""
    meta: dict = field(default_factory=dict)

    def xy_vis(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(T, 33, 2) pixel coordinates, (T, 33) visibility, (T,) t_ms; NaN / 0 where nobody was found."""
        n = len(self.frames)
        xy = np.full((n, N_LANDMARKS, 2), np.nan)
        vis = np.zeros((n, N_LANDMARKS))
        t = np.empty(n)
        scale = np.array([self.width, self.height], dtype=float)
        for i, f in enumerate(self.frames):
            t[i] = f.t_ms
            if f.landmarks is not None:
                xy[i] = f.landmarks[:, :2] * scale
                vis[i] = f.landmarks[:, 3]
        return xy, vis, t


# The precision of a coach.posetrack/1 file (and of the track kept with a session, coach/kept_track.py).
POINT_DECIMALS = 5
T_MS_DECIMALS = 2


def _round(a: np.ndarray, nd: int) -> list:
    return np.round(a.astype(float), nd).tolist()


def at_file_precision(pf: PoseFrame) -> PoseFrame:
    """`pf` put at a pose-track file's precision, in place: its points rounded to 1e-5, its time to 0.01 ms. The
    analysis reads every pose at this precision, so a saved (`--save-pose`) or kept track analysed again gives the
    video's analysis exactly, not one that a borderline reading tips another way (the long session's shot 9,
    adaptive: released at 13204 from the video, 13200 from its kept track, a hold's stray on either side of a
    limit). Rounding a rounded pose changes nothing."""
    for a in (pf.landmarks, pf.world):
        if a is not None:
            np.round(a, POINT_DECIMALS, out=a)
    pf.t_ms = round(float(pf.t_ms), T_MS_DECIMALS)
    return pf


def save_posetrack(track: PoseTrack, path: str | Path) -> None:
    frames = []
    for f in track.frames:
        d: dict = {"index": f.index, "t_ms": round(float(f.t_ms), T_MS_DECIMALS)}
        d["landmarks"] = None if f.landmarks is None else _round(f.landmarks, POINT_DECIMALS)
        d["world"] = None if f.world is None else _round(f.world, POINT_DECIMALS)
        frames.append(d)
    doc = {
        "schema": POSETRACK_SCHEMA,
        "source": track.source,
        "model": track.model,
        "landmark_format": "landmarks: 33 x [x, y, z, visibility], x and y normalised to image width and "
        "height; world: 33 x [x, y, z] metres, hip-centred",
        "fps": track.fps,
        "width": track.width,
        "height": track.height,
        **({"meta": track.meta} if track.meta else {}),
        "frames": frames,
    }
    text = json.dumps(doc, ensure_ascii=False, separators=(",", ":"))
    if str(path).endswith(".gz"):
        Path(path).write_bytes(gzip.compress(text.encode("utf-8"), mtime=0))
    else:
        Path(path).write_text(text, encoding="utf-8")


MAX_TRACK_BYTES = 1536 << 20  # a 10⁶-frame track (9 h at 30 fps) is 1.2 GB; read frame by frame, never whole
MAX_SIDE = 16384


class _Bounded(io.RawIOBase):
    """A gzip stream that may not expand beyond the limit (a small .gz can hold gigabytes of frames)."""

    def __init__(self, raw, path: Path, limit: int):
        self.raw, self.path, self.limit, self.total = raw, path, limit, 0

    def readable(self) -> bool:
        return True

    def readinto(self, b) -> int:
        n = self.raw.readinto(b)
        self.total += n
        if self.total > self.limit:
            raise PoseTrackError(self.path, f"expands to more than the {self.limit >> 20} MB a pose track may be")
        return n


def _open_text(p: Path):
    if p.name.endswith(".gz"):
        raw = io.BufferedReader(_Bounded(gzip.open(p, "rb"), p, MAX_TRACK_BYTES))
    else:
        raw = open(p, "rb")
    return io.TextIOWrapper(raw, encoding="utf-8")


def _number(p: Path, doc: dict, key: str, lo: float, hi: float) -> float:
    v = doc[key]
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not (lo <= v <= hi):
        raise PoseTrackError(p, f"field {key!r} must be a number from {lo:g} to {hi:g}, not {str(v)[:40]!r}")
    return v


def _frame(p: Path, i: int, f) -> PoseFrame:
    try:
        lm = f.get("landmarks")
        w = f.get("world")
        lm_a = None if not lm else np.asarray(lm, dtype=float).reshape(N_LANDMARKS, 4)
        w_a = None if not w else np.asarray(w, dtype=float).reshape(N_LANDMARKS, 3)
        if lm_a is not None and not (np.isfinite(lm_a).all() and ((lm_a[:, 3] >= 0) & (lm_a[:, 3] <= 1)).all()):
            raise ValueError("landmarks must be finite, visibility from 0 to 1")
        return PoseFrame(int(f["index"]), float(f["t_ms"]), lm_a, w_a)
    except (KeyError, TypeError, ValueError, AttributeError, OverflowError) as e:
        raise PoseTrackError(p, f"frame {i} is malformed ({str(e)[:80]})") from None


def load_posetrack(path: str | Path) -> PoseTrack:
    """Read a pose track; a name ending in .gz is read through gzip. Streamed: each frame becomes arrays as
    it is read (coach/jsonstream.py), so memory is the frames' arrays, not the text or its parsed JSON. Every
    field is checked, so a bad file is one line naming it and the field, never a traceback."""
    from .errors import CoachError
    from .jsonstream import ListCount, read_object
    from .safe_io import require_regular_file

    p = Path(path)
    try:
        require_regular_file(p, "pose track", MAX_TRACK_BYTES)
    except CoachError as e:
        raise PoseTrackError(e.path, e.problem) from None
    frames: list[PoseFrame] = []
    try:
        with _open_text(p) as f:
            doc = read_object(f, lambda i, fr: frames.append(_frame(p, i, fr)))
    except PoseTrackError:
        raise
    except RecursionError:
        raise PoseTrackError(p, "not a pose track (nested too deeply)") from None
    except (OSError, EOFError, UnicodeDecodeError, ValueError, zlib.error) as e:
        if "top level" in str(e):
            raise PoseTrackError(p, f"not a {POSETRACK_SCHEMA} file (the top level is not an object)") from None
        raise PoseTrackError(p, f"not a readable JSON pose track ({e.__class__.__name__})") from None
    if doc.get("schema") != POSETRACK_SCHEMA:
        raise PoseTrackError(p, f"not a {POSETRACK_SCHEMA} file (schema={str(doc.get('schema'))[:40]!r})")
    for key in ("fps", "width", "height", "frames"):
        if key not in doc:
            raise PoseTrackError(p, f"missing field {key!r}")
    fps = _number(p, doc, "fps", 1, 1000)
    width, height = (int(_number(p, doc, k, 1, MAX_SIDE)) for k in ("width", "height"))
    if not isinstance(doc["frames"], ListCount):  # read_object streams a list and leaves its length
        raise PoseTrackError(p, "field 'frames' must be a list")
    meta = doc.get("meta", {})
    return PoseTrack(
        fps=float(fps),
        width=width,
        height=height,
        frames=frames,
        source=str(doc.get("source", "")),
        model=str(doc.get("model", "")),
        meta=dict(meta) if isinstance(meta, dict) else {},
    )
