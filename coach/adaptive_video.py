"""A video file through the adaptive sampler (coach/sampling.py), decoding no more than the models need, the
scout on a thread of its own.

    scout's thread ─► every frame in presentation order; decoded: the samples and the frames others refer to
      (ScoutAhead)     (H.264/HEVC non-reference pictures are skipped); the scout model on each sample; each
                       frame handed on without its picture, with the sample's pose
    analysis       ─► the sampler; the ring holds frame numbers and times only; on a trigger the dense model's
      (LookBack)       decoder seeks to the keyframe before the look-back's first frame and decodes from there,
                       frame by frame, to the end of the dense stretch

Why re-decode the look-back rather than hold the pictures: a held look-back is ~100 decoded 720p frames
(~130 MB) for the whole video; a re-decode costs the frames from the keyframe before it (a GOP, ~0.2 s) once
per trigger, and decoding from a keyframe gives the very pixels of a straight decode.

Frame numbers and times are OpenCV's (coach/capture.py) for every frame, decoded or skipped: the demuxer gives
every packet's presentation time, and a frame's number is the count of presentation times before it (a
decoder outputs frames in presentation order, and it has seen every earlier one's packet by then). So a
full-rate run and an adaptive run of the same file name the same frames."""

from __future__ import annotations

import heapq
import itertools
import os
import threading
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass

import av
import numpy as np

from .analyzer import Analyzer
from .capture import Frame
from .pose import PoseEstimator
from .pose_frame import PoseFrame
from .sampling import AdaptiveSampler, SampleGrid, SamplingLog, SamplingPlan, scouted

SEEK_AHEAD_FRAMES = 150  # a refill further ahead than this seeks instead of decoding its way there
# The scout may run this far (video time) ahead of the analysis: past a dense stretch (~10 s of video, ~7 s of
# work) and the idle stretch after it, so the two models keep both cores busy. Its items are small (no pictures).
LEAD_S = 120.0


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


def gives_frame_times(path: str | os.PathLike, packets: int = 30) -> bool:
    """The file gives its frames' presentation times (its first `packets` video packets each carry one), so the
    look-back can find a frame again by its time. A raw elementary stream (a Raspberry Pi camera's .h264) gives
    none: adaptive analysis would hand the dense model no picture for the look-back, and a shot after an idle
    stretch would lose its raise and draw start, so such a file is analysed at the full rate."""
    try:
        with av.open(str(path)) as container:
            stream = container.streams.video[0]
            for n, packet in enumerate(container.demux(stream)):
                if n >= packets:
                    break
                if packet.pts is None and packet.size > 0:  # the flush packet at the end carries nothing
                    return False
    except (av.FFmpegError, IndexError):
        return False  # unreadable here: the full-rate reader says what is wrong with it
    return True


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
            self._frames = self._seek(stream, pts)
        for f in self._frames:
            self.decoded += 1
            if f.pts is None:
                continue
            self._last_pts = f.pts
            if f.pts >= pts:
                return f if f.pts == pts else None
        self._frames = None
        return None

    def _seek(self, stream: av.video.stream.VideoStream, pts: int) -> Iterator[av.VideoFrame]:
        """Frames decoded from a keyframe at or before `pts`. Some demuxers land on the keyframe after the time
        asked for (MPEG-TS, a camcorder's .mts: the look-back then found no frame at all, and the dense model saw
        nobody); they are asked again for a time further back, twice as far each time, down to time 0."""
        # Not the stream's start time: an MPEG-TS's clock starts after 0, and a seek to its start lands after it too.
        floor = min(stream.start_time or 0, 0)
        one_s = max(1, int(1 / stream.time_base)) if stream.time_base else 1
        back = 0
        while True:
            at = max(pts - back, floor)
            self._container.seek(at, stream=stream, backward=True, any_frame=False)
            self.seeks += 1
            frames = self._container.decode(stream)
            first = next(frames, None)  # None: it landed past the last keyframe, at the end
            if at == floor or (first is not None and (first.pts is None or first.pts <= pts)):
                return frames if first is None else itertools.chain((first,), frames)
            if first is not None:
                self.decoded += 1
            back = 2 * back if back else one_s

    def close(self) -> None:
        if self._container is not None:
            self._container.close()
            self._container = None


def _picture(d: Decoded) -> np.ndarray:
    img = d.frame.to_ndarray(format="bgr24")
    return np.ascontiguousarray(np.rot90(img, d.turns)) if d.turns else img


def _without_picture(d: Decoded) -> Decoded:
    return Decoded(d.index, d.t_ms, d.pts, None, 0, d.turns) if d.frame is not None else d


def _run(model: PoseEstimator, d: Decoded) -> PoseFrame:
    if d.frame is None:  # the file did not give this frame's picture again: nobody seen, as a failed decode
        return PoseFrame(d.index, d.t_ms, None, None)
    return model.estimate(Frame(d.index, d.t_ms, _picture(d)))


class ScoutAhead:
    """The main decoder and the scout model on a thread of their own, running ahead of the analysis: every
    frame in order, each with the scout's pose when it is a sample (coach/sampling.py, `scouted`), handed on
    without its picture (the dense model's decoder, `LookBack`, finds a frame again by its time; a frame
    without one keeps its picture). The scout sees every sample, dense stretches included, in the same order
    however far ahead it runs, so what it finds does not depend on the threads' timing. Items wait here, at
    most `max_frames` of them and `max_bytes` of pictures: memory stays flat in the video's length.

    Why a thread: the model's runs on the samples (a third of its runs on a session) then take the second core
    while the dense model takes the first; MediaPipe and the decoder release the GIL while they work."""

    def __init__(
        self,
        path: str | os.PathLike,
        fps: float,
        grid: SampleGrid,
        scout: PoseEstimator,
        *,
        max_frames: int,
        max_bytes: int,
    ):
        self._max_frames, self._max_bytes = max(1, max_frames), max_bytes
        self._items: deque[tuple[Decoded, PoseFrame | None]] = deque()
        self._bytes = 0
        self._cond = threading.Condition()
        self._stopped = self._done = False
        self._error: BaseException | None = None
        self._thread = threading.Thread(
            target=self._work, args=(path, fps, grid, scout), name="coach-scout", daemon=True
        )
        self._thread.start()

    def _work(self, path: str | os.PathLike, fps: float, grid: SampleGrid, scout: PoseEstimator) -> None:
        frames = decoded_frames(path, fps, grid.wants)
        try:
            for d, sample in scouted(
                frames, grid, lambda d: _run(scout, d), lambda d: d.index, lambda d: d.frame is not None
            ):
                if not self._put(_without_picture(d) if d.pts is not None else d, sample):
                    return
        except BaseException as e:  # handed to the analysis' thread, after the items before it
            self._error = e
        finally:
            frames.close()
            with self._cond:
                self._done = True
                self._cond.notify_all()

    def _put(self, d: Decoded, sample: PoseFrame | None) -> bool:
        with self._cond:
            while (
                not self._stopped
                and self._items
                and (len(self._items) >= self._max_frames or self._bytes + d.nbytes > self._max_bytes)
            ):
                self._cond.wait()
            if self._stopped:
                return False
            self._items.append((d, sample))
            self._bytes += d.nbytes
            self._cond.notify_all()
            return True

    def __iter__(self) -> Iterator[tuple[Decoded, PoseFrame | None]]:
        while True:
            with self._cond:
                while not self._items and not self._done:
                    self._cond.wait()
                if not self._items:
                    if self._error is not None:
                        raise self._error
                    return
                d, sample = self._items.popleft()
                self._bytes -= d.nbytes
                self._cond.notify_all()
            yield d, sample

    def close(self) -> None:
        with self._cond:
            self._stopped = True
            self._cond.notify_all()
        self._thread.join()


def analyze_adaptive(
    path: str | os.PathLike,
    analyzer: Analyzer,
    estimator: PoseEstimator,
    new_estimator: Callable[[], PoseEstimator],
    *,
    plan: SamplingPlan | None = None,
    progress=None,
    frame_count_hint: int | None = None,
    lead_s: float = LEAD_S,
    every_frame: bool = False,
) -> SamplingLog:
    """Feed `analyzer` from the file, the model running where coach/sampling.py says. `progress(frames
    covered, total)` counts the video's time covered, not the frames the model saw. `new_estimator` makes the
    sparse samples' own model (the scout, on its own thread); the caller closes `estimator`. `lead_s`: how far
    ahead of the analysis the scout may run (the result does not depend on it). `every_frame`: the full-rate run
    (`AdaptiveSampler`), the idle stretches' frames decoded again by the look-back's decoder, in order."""
    look_back = LookBack(path)
    sampler: AdaptiveSampler[Decoded] = AdaptiveSampler(
        analyzer,
        lambda d: _run(estimator, d),
        index_of=lambda d: d.index,
        t_ms_of=lambda d: d.t_ms,
        nbytes_of=lambda d: d.nbytes,
        plan=plan,
        has_picture=lambda d: d.frame is not None,
        without_picture=_without_picture,
        with_picture=look_back.picture,
        every_frame=every_frame,
        reset=estimator.reset,
    )
    with ExitStack() as running:  # on the way out: the scout's thread stops, then its model and decoders close
        running.callback(look_back.close)
        scout = new_estimator()
        running.callback(scout.close)
        ahead = ScoutAhead(
            path,
            analyzer.fps,
            sampler.grid(),
            scout,
            max_frames=int(lead_s * analyzer.fps),
            max_bytes=sampler.plan.max_ring_bytes,
        )
        running.callback(ahead.close)
        for d, sample in ahead:
            sampler.push(d, sample)
            if progress is not None:
                progress(d.index + 1, frame_count_hint)
        sampler.finish()
    sampler.log.dense_decoded = look_back.decoded
    return sampler.log
