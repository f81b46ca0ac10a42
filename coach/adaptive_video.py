"""A video file through the adaptive sampler (coach/sampling.py), decoding no more than the model needs.

    main decoder ──► every frame in presentation order: a picture, or only its number and time
      (skips the frames no other frame refers to while nobody draws: H.264/HEVC non-reference pictures)
    sparse sample ─► the first picture at or after the sample's frame number goes to the scout model
    look-back     ─► the ring holds frame numbers and times only; on a trigger a second decoder seeks to the
                     keyframe before the look-back's first frame and decodes that span again, frame by frame

Why re-decode the look-back rather than hold the pictures: a held look-back is ~100 decoded 720p frames
(~130 MB) for the whole video; a re-decode costs the frames from the keyframe before it (a GOP, ~0.2 s) once
per trigger, and decoding from a keyframe gives the very pixels of a straight decode. Frames the main decoder
skipped just before it was told to stop skipping come from the second decoder too.

Frame numbers and times are OpenCV's (coach/capture.py) for every frame, decoded or skipped: the demuxer gives
every packet's presentation time, and a frame's number is the count of presentation times before it (a
decoder outputs frames in presentation order, and it has seen every earlier one's packet by then). So a
full-rate run and an adaptive run of the same file name the same frames."""

from __future__ import annotations

import heapq
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import av
import numpy as np

from .analyzer import Analyzer
from .capture import Frame
from .pose import PoseEstimator
from .pose_frame import PoseFrame
from .sampling import AdaptiveSampler, SamplingLog, SamplingPlan

SEEK_AHEAD_FRAMES = 150  # a refill further ahead than this seeks instead of decoding its way there


@dataclass(slots=True)
class Decoded:
    index: int
    t_ms: float
    pts: int | None  # the stream's presentation time (None: the file gives none)
    frame: av.VideoFrame | None  # None: not decoded (skipped, or dropped from the look-back ring)
    nbytes: int
    turns: int  # quarter turns counter-clockwise that make it upright (the container's display matrix)


def _turns(f: av.VideoFrame) -> int:
    return int(round(getattr(f, "rotation", 0) or 0)) // 90 % 4


def _nbytes(f: av.VideoFrame) -> int:
    return sum(p.buffer_size for p in f.planes)


class _Clock:
    """Frame times as coach/capture.py gives them: the presentation time, or the nominal rate where the file
    has none or repeats one."""

    def __init__(self, stream: av.video.stream.VideoStream, fps: float):
        self.start = stream.start_time or 0
        self.base = stream.time_base
        self.fps = fps
        self.last = -1.0

    def t_ms(self, i: int, pts: int | None) -> float:
        t = float((pts - self.start) * self.base * 1000) if pts is not None and self.base is not None else -1.0
        if t <= self.last:
            t = max(i * 1000.0 / self.fps, self.last + 1e-3)
        self.last = t
        return t


def decoded_frames(
    path: str | os.PathLike, fps: float, wanted: Callable[[int], bool] = lambda _: True
) -> Iterator[Decoded]:
    """Every frame of the file in presentation order. `wanted(n)` is asked before each frame's packet is
    decoded, `n` the frame's number as its presentation time at the nominal rate gives it (-1: no time): a
    frame not wanted that no other frame refers to is left undecoded and comes without a picture. A damaged
    stream ends the iteration, as OpenCV's reader does (the pipeline then notes a truncated video)."""
    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        stream.thread_type = "AUTO"
        codec = stream.codec_context
        clock = _Clock(stream, fps)
        pending: list[int] = []  # presentation times demuxed but not yet numbered (a heap)
        i = 0
        turns = 0
        skipping = False

        def numbered(f: av.VideoFrame | None) -> Iterator[Decoded]:
            nonlocal i, turns
            pts = f.pts if f is not None else None
            if i == 0 and pts is not None:
                # Packets before the first picture the decoder gives (a file cut after a keyframe) are frames
                # OpenCV never counts either: frame 0 is the first picture.
                while pending and pending[0] < pts:
                    heapq.heappop(pending)
            while pending and (f is None or (pts is not None and pending[0] < pts)):
                p = heapq.heappop(pending)  # a frame the decoder skipped (or could not decode)
                yield Decoded(i, clock.t_ms(i, p), p, None, 0, turns)
                i += 1
            if f is None:
                return
            if pending and pending[0] == pts:
                heapq.heappop(pending)
            turns = _turns(f)
            yield Decoded(i, clock.t_ms(i, pts), pts, f, _nbytes(f), turns)
            i += 1

        try:
            for packet in container.demux(stream):
                if packet.pts is None:  # no time: a skipped frame could not be numbered, so decode it
                    skip = False
                else:
                    heapq.heappush(pending, packet.pts)
                    skip = not wanted(int(round(float((packet.pts - clock.start) * clock.base) * fps)))
                if skip != skipping:
                    codec.skip_frame = "NONREF" if skip else "DEFAULT"
                    skipping = skip
                for f in codec.decode(packet):
                    yield from numbered(f)
        except av.FFmpegError:
            pending.clear()  # the video ends at its last picture, as OpenCV's reader stops there
        yield from numbered(None)


class LookBack:
    """The pictures of frames the main decoder did not keep, decoded again by a decoder of its own: forward
    from where it is, or from the keyframe at or before the frame asked for."""

    def __init__(self, path: str | os.PathLike):
        self._path = str(path)
        self._container: av.container.InputContainer | None = None
        self._frames: Iterator[av.VideoFrame] | None = None
        self._last_pts: int | None = None
        self._frame_pts = 1  # a frame's duration in time-base units (for "far ahead")
        self.decoded = 0
        self.seeks = 0

    def picture(self, d: Decoded) -> Decoded:
        """`d` with its picture, or as it is if the file does not give that frame again."""
        if d.frame is not None or d.pts is None:
            return d
        try:
            f = self._find(d.pts)
        except av.FFmpegError:
            f = None
        if f is not None:
            d.frame, d.nbytes, d.turns = f, _nbytes(f), _turns(f)
        return d

    def _find(self, pts: int) -> av.VideoFrame | None:
        if self._container is None:
            self._container = av.open(self._path)
            stream = self._container.streams.video[0]
            stream.thread_type = "AUTO"
            rate = stream.average_rate or stream.guessed_rate
            if rate and stream.time_base:
                self._frame_pts = max(1, int(1 / (rate * stream.time_base)))
        stream = self._container.streams.video[0]
        far = (
            self._last_pts is None
            or pts <= self._last_pts
            or pts - self._last_pts > SEEK_AHEAD_FRAMES * self._frame_pts
        )
        if far or self._frames is None:
            self._container.seek(pts, stream=stream, backward=True, any_frame=False)
            self._frames = self._container.decode(stream)
            self.seeks += 1
        for f in self._frames:
            self.decoded += 1
            if f.pts is None:
                continue
            self._last_pts = f.pts
            if f.pts >= pts:
                return f if f.pts == pts else None
        self._frames = None
        return None

    def close(self) -> None:
        if self._container is not None:
            self._container.close()
            self._container = None


def _picture(d: Decoded) -> np.ndarray:
    img = d.frame.to_ndarray(format="bgr24")
    return np.ascontiguousarray(np.rot90(img, d.turns)) if d.turns else img


def _without_picture(d: Decoded) -> Decoded:
    # A new record, not `d` changed: the sampler still shows `d` to the scout after taking what the ring keeps.
    return Decoded(d.index, d.t_ms, d.pts, None, 0, d.turns) if d.frame is not None else d


def analyze_adaptive(
    path: str | os.PathLike,
    analyzer: Analyzer,
    estimator: PoseEstimator,
    *,
    plan: SamplingPlan | None = None,
    progress=None,
    frame_count_hint: int | None = None,
    new_estimator: Callable[[], PoseEstimator] | None = None,
) -> SamplingLog:
    """Feed `analyzer` from the file, the model running where coach/sampling.py says. `progress(frames
    covered, total)` counts the video's time covered, not the frames the model saw. `new_estimator` makes the
    sparse samples' own model (coach/sampling.py, `scout`); the caller closes `estimator`."""
    scout = new_estimator() if new_estimator is not None else None  # the sparse samples' own model
    look_back = LookBack(path)

    def run(model: PoseEstimator, d: Decoded) -> PoseFrame:
        if d.frame is None:  # the file did not give this frame's picture again: nobody seen, as a failed decode
            return PoseFrame(d.index, d.t_ms, None, None)
        return model.estimate(Frame(d.index, d.t_ms, _picture(d)))

    sampler: AdaptiveSampler[Decoded] = AdaptiveSampler(
        analyzer,
        lambda d: run(estimator, d),
        index_of=lambda d: d.index,
        t_ms_of=lambda d: d.t_ms,
        nbytes_of=lambda d: d.nbytes,
        plan=plan,
        scout=(lambda d: run(scout, d)) if scout is not None else None,
        has_picture=lambda d: d.frame is not None,
        without_picture=_without_picture,
        with_picture=look_back.picture,
    )
    try:
        for d in decoded_frames(path, analyzer.fps, sampler.wants_picture):
            sampler.push(d)
            if progress is not None:
                progress(d.index + 1, frame_count_hint)
        sampler.finish()
    finally:
        look_back.close()
        if scout is not None:
            scout.close()
    sampler.log.redecoded = look_back.decoded
    return sampler.log
