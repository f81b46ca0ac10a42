"""A video file through the adaptive sampler (coach/sampling.py): decoded by PyAV on its own threads, each frame
held as the decoder gave it (YUV, half the bytes of BGR) and turned into a BGR picture only if the model looks
at it. Frame numbers and times are OpenCV's (coach/capture.py), so a full-rate run and an adaptive run of the
same file name the same frames."""

from __future__ import annotations

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


@dataclass(slots=True)
class Decoded:
    index: int
    t_ms: float
    frame: av.VideoFrame
    nbytes: int
    turns: int  # quarter turns counter-clockwise that make it upright (the container's display matrix)


def decoded_frames(path: str | os.PathLike, fps: float) -> Iterator[Decoded]:
    """Every frame of the file in presentation order, undecoded into pixels. A damaged stream ends the
    iteration, as OpenCV's reader does (the pipeline then notes a truncated video)."""
    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        stream.thread_type = "AUTO"
        start = stream.start_time or 0
        base = stream.time_base
        last = -1.0
        decode = container.decode(stream)
        i = 0
        while True:
            try:
                f = next(decode)
            except StopIteration:
                return
            except av.FFmpegError:
                return
            t = float((f.pts - start) * base * 1000) if f.pts is not None and base is not None else -1.0
            if t <= last:  # no or repeated time: the nominal rate (capture.py does the same)
                t = max(i * 1000.0 / fps, last + 1e-3)
            last = t
            turns = int(round(getattr(f, "rotation", 0) or 0)) // 90 % 4
            yield Decoded(i, t, f, sum(p.buffer_size for p in f.planes), turns)
            i += 1


def _picture(d: Decoded) -> np.ndarray:
    img = d.frame.to_ndarray(format="bgr24")
    return np.ascontiguousarray(np.rot90(img, d.turns)) if d.turns else img


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

    def estimate(d: Decoded) -> PoseFrame:
        return estimator.estimate(Frame(d.index, d.t_ms, _picture(d)))

    def estimate_sample(d: Decoded) -> PoseFrame:
        return scout.estimate(Frame(d.index, d.t_ms, _picture(d)))

    sampler: AdaptiveSampler[Decoded] = AdaptiveSampler(
        analyzer,
        estimate,
        index_of=lambda d: d.index,
        t_ms_of=lambda d: d.t_ms,
        nbytes_of=lambda d: d.nbytes,
        plan=plan,
        scout=estimate_sample if scout is not None else None,
    )
    try:
        for d in decoded_frames(path, analyzer.fps):
            sampler.push(d)
            if progress is not None:
                progress(d.index + 1, frame_count_hint)
        sampler.finish()
    finally:
        if scout is not None:
            scout.close()
    return sampler.log
