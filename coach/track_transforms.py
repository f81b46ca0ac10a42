"""The same shot filmed another way, on a pose track: mirrored (a front camera), at half the frame rate, cropped
to the upper body, or by a camera that rolls, pans or zooms. Metamorphic tests, `benchmarks/metamorphic.py` and
`benchmarks/camera_motion.py` run the analysis on a track and on its transform and expect the same shots,
releases and verdicts (or a shot said to be uncertain), never a different fault. Or by a noisier camera, on a pose
track: landmarks that jitter more, frames the model missed, frames a phone repeated or took unevenly
(`benchmarks/pose_noise.py`), the archer hidden by someone walking in front, or someone else read for the archer.
Or cut short, or thinned: a clip that begins at full draw or ends just after the release, or a converter that drops
every third frame (`benchmarks/clip_edges.py`).
Pure functions: a new PoseTrack out, the input untouched (the noisy ones seeded, so a run repeats)."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from .landmarks import LEFT_SHOULDER, NAMES, RIGHT_SHOULDER
from .pose_frame import PoseFrame, PoseTrack

# Each landmark's mirror image: left_* <-> right_*, the rest (nose) itself.
_MIRROR = np.array(
    [NAMES.index(n.replace("left_", "right_") if "left_" in n else n.replace("right_", "left_")) for n in NAMES]
)


def mirror(track: PoseTrack) -> PoseTrack:
    """The video flipped left to right: a right-handed archer becomes a left-handed one. The pose model names
    body parts by the body, so the flipped person's left hand is the one on the other side: points swap names."""
    frames = []
    for f in track.frames:
        lm = None
        if f.landmarks is not None:
            lm = f.landmarks[_MIRROR].copy()
            lm[:, 0] = 1.0 - lm[:, 0]
        world = None
        if f.world is not None:
            world = f.world[_MIRROR].copy()
            world[:, 0] = -world[:, 0]
        frames.append(PoseFrame(f.index, f.t_ms, lm, world))
    return replace(track, frames=frames, source=f"{track.source} (mirrored)")


def half_rate(track: PoseTrack, odd: bool = False) -> PoseTrack:
    """Every other frame, renumbered, at half the frame rate: frame i of the result is frame 2i of the input
    (2i + 1 when `odd`: the other half, a 12-15 fps clip whose frames fall the other way round a release)."""
    phase = int(odd)
    frames = [PoseFrame(f.index // 2, f.t_ms, f.landmarks, f.world) for f in track.frames if f.index % 2 == phase]
    return replace(track, fps=track.fps / 2, frames=frames, source=f"{track.source} (half rate)")


def every_nth_dropped(track: PoseTrack, n: int, phase: int = 0) -> PoseTrack:
    """Each frame whose number is `phase` modulo `n` dropped, the rest renumbered, at (n - 1) / n of the frame rate
    and with their own times: a converter taking 30 fps to 20 (n = 3), which keeps two frames of every three."""
    kept = [f for f in track.frames if f.index % n != phase]
    frames = [PoseFrame(i, f.t_ms, f.landmarks, f.world) for i, f in enumerate(kept)]
    return replace(
        track, fps=track.fps * (n - 1) / n, frames=frames, source=f"{track.source} (every {n}th frame dropped)"
    )


def at_nth_dropped(frame: int, n: int, phase: int = 0) -> int:
    """Where frame `frame` of the input lands in `every_nth_dropped`'s output (frames numbered from 0): the first
    frame kept at or after it."""
    return frame - len(range(phase, frame, n))


def at_half_rate(frame: float, odd: bool = False) -> int:
    """Where frame `frame` of the input lands in `half_rate`'s output: the first frame kept at or after it. A
    release (the first frame the hand moved) between two kept frames is first seen moved on the later one."""
    return math.ceil((frame - int(odd)) / 2)


def clip(track: PoseTrack, first: int, last: int) -> PoseTrack:
    """Frames `first` to `last` only, renumbered and timed from `first`: a video that begins or ends there (a
    camera started late, at full draw; a phone clip stopped just after the release)."""
    kept = [f for f in track.frames if first <= f.index <= last]
    t0 = kept[0].t_ms if kept else 0.0
    frames = [PoseFrame(f.index - first, f.t_ms - t0, f.landmarks, f.world) for f in kept]
    return replace(track, frames=frames, source=f"{track.source} (frames {first}-{last})")


def crop(track: PoseTrack, x0: float, y0: float, x1: float, y1: float) -> PoseTrack:
    """The picture cut to the box (x0, y0)-(x1, y1) in normalised coordinates: points are re-normalised to it
    and those outside it become unseen (visibility 0), as a pose model would report them."""
    w, h = x1 - x0, y1 - y0
    frames = []
    for f in track.frames:
        lm = None
        if f.landmarks is not None:
            lm = f.landmarks.copy()
            lm[:, 0] = (lm[:, 0] - x0) / w
            lm[:, 1] = (lm[:, 1] - y0) / h
            outside = (lm[:, 0] < 0) | (lm[:, 0] > 1) | (lm[:, 1] < 0) | (lm[:, 1] > 1)
            lm[outside, 3] = 0.0
        frames.append(PoseFrame(f.index, f.t_ms, lm, f.world))
    width, height = max(1, round(track.width * w)), max(1, round(track.height * h))
    return replace(track, width=width, height=height, frames=frames, source=f"{track.source} (cropped)")


def upper_body_box(track: PoseTrack, margin: float = 0.15) -> tuple[float, float, float, float]:
    """A crop box from the top of the picture to just below the hips over the whole track: the picture a
    close camera gives (legs and feet out of frame)."""
    hips = [
        max(f.landmarks[NAMES.index("left_hip"), 1], f.landmarks[NAMES.index("right_hip"), 1])
        for f in track.frames
        if f.landmarks is not None
    ]
    bottom = min(1.0, float(np.median(hips)) + margin) if hips else 1.0
    return 0.0, 0.0, 1.0, bottom


def _moved(track: PoseTrack, move, source: str) -> PoseTrack:
    """Every frame's points through `move(points (33, 2) normalised, t_s)`: a camera that moves while filming."""
    frames = []
    for f in track.frames:
        lm = None
        if f.landmarks is not None:
            lm = f.landmarks.copy()
            lm[:, :2] = move(lm[:, :2], f.t_ms / 1000.0)
        frames.append(PoseFrame(f.index, f.t_ms, lm, f.world))
    return replace(track, frames=frames, source=f"{track.source} ({source})")


def tilt(track: PoseTrack, degrees: float) -> PoseTrack:
    """The camera rolled by `degrees` (counter-clockwise in the picture) about the picture's centre."""
    a, aspect = math.radians(degrees), track.height / track.width
    c, s = math.cos(a), math.sin(a)

    def move(p: np.ndarray, _t: float) -> np.ndarray:
        x, y = p[:, 0] - 0.5, (p[:, 1] - 0.5) * aspect
        return np.column_stack([0.5 + x * c + y * s, 0.5 + (-x * s + y * c) / aspect])

    return _moved(track, move, f"tilted {degrees:g} deg")


def pan(track: PoseTrack, amplitude: float, period_s: float) -> PoseTrack:
    """A handheld camera swaying: the picture moves `amplitude` (a share of its width) to and fro every
    `period_s`, and half as far up and down at another rate."""

    def move(p: np.ndarray, t: float) -> np.ndarray:
        w = 2 * math.pi * t / period_s
        return p + [amplitude * math.sin(w), 0.5 * amplitude * math.sin(w / 1.7)]

    return _moved(track, move, f"panning {amplitude:g}")


def zoom(track: PoseTrack, end_scale: float) -> PoseTrack:
    """The camera zooming steadily about the picture's centre, from 1 at the first frame to `end_scale` at the
    last."""
    last = max((f.t_ms for f in track.frames), default=0.0) / 1000.0 or 1.0

    def move(p: np.ndarray, t: float) -> np.ndarray:
        return 0.5 + (p - 0.5) * (1 + (end_scale - 1) * t / last)

    return _moved(track, move, f"zooming to {end_scale:g}")


def _shoulder_width_px(track: PoseTrack) -> float:
    """The archer's median shoulder width over the track, in pixels (100 where no one is found)."""
    px = np.array([track.width, track.height])
    widths = [
        float(np.hypot(*((f.landmarks[LEFT_SHOULDER, :2] - f.landmarks[RIGHT_SHOULDER, :2]) * px)))
        for f in track.frames
        if f.landmarks is not None
    ]
    return float(np.median(widths)) if widths else 100.0


def jitter(track: PoseTrack, sigma_sw: float, seed: int) -> PoseTrack:
    """Every point of every frame moved at random (normal, `sigma_sw` shoulder widths in x and in y, each frame
    on its own): the pose a noisier camera gives, smaller in the picture, darker or lower in resolution. The real
    tracks' draw hand moves 0.005-0.034 U from frame to frame in a steady hold; 0.01 U of jitter adds ~0.017."""
    rng = np.random.default_rng(seed)
    scale = sigma_sw * _shoulder_width_px(track) / np.array([track.width, track.height])
    frames = []
    for f in track.frames:
        lm = None
        if f.landmarks is not None:
            lm = f.landmarks.copy()
            lm[:, :2] += rng.normal(0.0, 1.0, (len(lm), 2)) * scale
        frames.append(PoseFrame(f.index, f.t_ms, lm, f.world))
    return replace(track, frames=frames, source=f"{track.source} (jitter {sigma_sw:g} SW)")


def dropouts(track: PoseTrack, share: float, seed: int) -> PoseTrack:
    """A `share` of the frames, at random, with nobody found: the model losing the archer for a frame."""
    rng = np.random.default_rng(seed)
    frames = [PoseFrame(f.index, f.t_ms, None, None) if rng.random() < share else f for f in track.frames]
    return replace(track, frames=frames, source=f"{track.source} (dropouts {share:g})")


def uneven_times(track: PoseTrack, share: float, seed: int) -> PoseTrack:
    """A camera whose frames are not evenly spaced (a phone's variable frame rate), each stamped with its true
    time: every frame taken up to `share` of the frame interval early or late (uniform, at random), its points where
    the archer was then (interpolated between the two frames around that time, where both found the archer)."""
    rng = np.random.default_rng(seed)
    step = 1000.0 / track.fps
    by_t = sorted(track.frames, key=lambda f: f.t_ms)
    frames = []
    for k, f in enumerate(by_t):
        t = f.t_ms + float(rng.uniform(-share, share)) * step
        j = k + 1 if t >= f.t_ms else k - 1
        other = by_t[j] if 0 <= j < len(by_t) else None
        lm = f.landmarks
        if lm is not None and other is not None and other.landmarks is not None and other.t_ms != f.t_ms:
            w = (t - f.t_ms) / (other.t_ms - f.t_ms)
            lm = lm + w * (other.landmarks - lm)
        frames.append(PoseFrame(f.index, t, lm, f.world))
    return replace(track, frames=frames, source=f"{track.source} (frame times uneven by {share:g})")


def hidden(track: PoseTrack, first: int, last: int) -> PoseTrack:
    """Nobody found over frames `first`..`last`: someone walking between the camera and the archer."""
    frames = [PoseFrame(f.index, f.t_ms, None, None) if first <= f.index <= last else f for f in track.frames]
    return replace(track, frames=frames, source=f"{track.source} (hidden {first}-{last})")


def someone_else(track: PoseTrack, first: int, last: int, away_sw: float = 3.0) -> PoseTrack:
    """Over frames `first`..`last` the pose model reads another person for the archer: someone standing as the archer
    stood in the track's first frame with a person, `away_sw` of the archer's shoulder widths to the side (the archer
    beside on the shooting line)."""
    standing = next((f.landmarks for f in track.frames if f.landmarks is not None), None)
    if standing is None:
        return track
    other = standing.copy()
    other[:, 0] += away_sw * _shoulder_width_px(track) / track.width
    frames = [PoseFrame(f.index, f.t_ms, other, None) if first <= f.index <= last else f for f in track.frames]
    return replace(track, frames=frames, source=f"{track.source} (someone else {first}-{last})")


def repeated(track: PoseTrack, every: int) -> PoseTrack:
    """Every `every`-th frame a copy of the one before: a phone that repeats a frame to keep its rate."""
    frames, before = [], None
    for f in track.frames:
        shown = before if before is not None and f.index % every == 0 else f
        frames.append(PoseFrame(f.index, f.t_ms, shown.landmarks, shown.world))
        before = f
    return replace(track, frames=frames, source=f"{track.source} (every {every}th frame repeated)")
