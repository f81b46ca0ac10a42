"""Adaptive analysis of recorded video: the pose model runs on a few frames a second while nobody is drawing,
and on every frame from a little before a raise could start until the shot's follow-through is over.

    frame, with the scout's pose if a sample ─► ring (the last `preroll_s`, not yet analysed) ─► trigger?
                                                                  no ─► oldest frames leave the ring: the
                                                                         analyzer gets the sample's pose, or
                                                                         an empty frame for the frames between
                                                                  yes ─► model on every frame in the ring, then
                                                                         on every frame until the archer is
                                                                         back at rest (dense)

The samples (`SampleGrid`: every `step`-th frame) go to a model of their own, the scout, which sees every
sample in order, dense stretches included: what it finds does not depend on where the dense stretches fell, so
a video runs it on a thread of its own, ahead of the analysis (coach/adaptive_video.py), and a pose track's
replay runs it in line (`AdaptiveSampler.run`). A video source keeps no pictures in the ring: the scout's
decoder decodes the samples' frames (and those every other frame refers to), and the dense model's decoder the
ring's pictures again from the keyframe before them on a trigger, then every frame of the dense stretch.

Why the analyzer gets an empty PoseFrame (no person) for each frame the model skipped rather than no frame at
all: every frame-counted window downstream (the smoother, the despiker, the shoulder-width quantile and its
refresh, the view's every-15th-frame check, the engine's buffer) then stays aligned with a full-rate run, and
time keeps its frame numbers. Those windows hold valid samples only, so a few seconds into a dense stretch
they hold the samples of a full-rate run: the shot's marks (the look-back walks back from the anchor through
the raise to the rest before it, and the second before the draw start is the engine's baseline for the head)
and its verdicts come from the same numbers. `preroll_s` covers the frames between the last quiet sample and the
trigger, the setup second and the smoothers' warm-up.

The pose model itself is stateful (MediaPipe follows its region of interest and smooths its landmarks over the
last frames it saw), and where it can read a pose two ways (the draw hand at the face) a tenth of a pixel of
history can become tens (benchmarks/model_history.py). The sparse samples run on a model of their own (the
scout), and the dense model starts afresh (`reset`) where a dense stretch begins after frames it did not see as
dense. The full-rate run (`every_frame`) is this sampler too: the same scout on the same samples, the same
decisions, the idle stretches' frames through the dense model and to the analyzer with their own poses, and the
same resets. So the two runs read every dense frame alike, to the bit, and a shot's landmarks depend on nothing
the model watched before its dense stretch began (the idle minutes once moved marks by up to 30 frames and
verdicts between "pass" and "not assessable" on the 10-minute session). What still differs between the runs
is what the analyzer saw of the idle stretches (a sample every `step` frames against every frame). The
sampler's decisions are checked exactly on pose tracks (coach/sampling_check.py).

The trigger is cheap, body-relative and conservative (`could_be_raising`): missing a shot costs more than
analysing a few extra seconds. Live analysis never samples (a camera has no past to go back to).
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Generic, TypeVar

import numpy as np

from .analyzer import Analyzer
from .landmarks import INDEX, LEFT_HIP, LEFT_SHOULDER, RIGHT_HIP, RIGHT_SHOULDER
from .pose_frame import PoseFrame

VIS_MIN = 0.3  # as coach/body_stream.py: a wrist MediaPipe doubts is not there
LEFT_WRIST, RIGHT_WRIST = INDEX["left_wrist"], INDEX["right_wrist"]


@dataclass(frozen=True, slots=True)
class SamplingPlan:
    """How sparsely the idle stretches are sampled and how much is analysed around each raise."""

    sparse_fps: float = 3.0  # model runs per second while nobody draws
    # Dense analysis starts this long (and one sparse step) before the sample that triggered it (see the module
    # docstring). Measured by replaying the real and golden pose tracks after an idle stretch
    # (benchmarks/long_session.py): 2 s and more give the full rate's marks and verdicts on every one of them,
    # 1.5 s moves four marks by a frame.
    preroll_s: float = 3.0
    # Dense analysis ends once the archer has been at rest (no trigger, the tracker seeking) this long.
    settle_s: float = 1.0
    # Sparser and shorter (1.5 fps, 2 s, 0.3 s) replays exactly too and runs the model on 22 % fewer frames
    # (10-minute session: 3.15x less CPU than full rate against 2.50x), but on video the model, starting each
    # look-back from a state further from the full-rate run's, differed more from it: 35 differences (12
    # verdicts) against 30 (9) (`benchmarks/long_session.py --ten --other-plan sparse_fps=1.5,preroll_s=2,
    # settle_s=0.3`). At 2 fps alone, measured again with the fold and mirror guards of December: 33 differences
    # (14 verdicts) against 27 (6), 2.67x less CPU against 2.30x (`--ten --other-plan sparse_fps=2`). The same
    # verdicts as a full-rate run come first, so these stay. Measured again once the look-back found the set
    # wherever its buffer began (`--ten --other-plan sparse_fps=3,preroll_s=3` with 2 fps and 2 s as the
    # defaults, one run): 2 fps with a 2 s preroll, 2.96x less CPU than the full rate against 2.71x, but 31
    # differences (7 verdicts: five on the shot whose full-rate release MediaPipe's mirrored hold left
    # uncertain, two draw_tempo) against 25 (4). With the fresh starts (the default plan then 0 differences),
    # 1.5 fps, 2 s and 0.3 s: 4.19x less CPU against 3.27x, but 34 differences (16 verdicts) from the full-rate
    # run, whose fresh starts fall where the default plan's dense stretches begin (`--ten --other-plan
    # sparse_fps=1.5,preroll_s=2,settle_s=0.3`, one run).
    # A wrist above this share of the torso, measured down from the shoulder line, could be raising the bow
    # (arms hanging: ~1.0; the synthetic archer nocking at the belt: ~0.8; a raise passes 0.6 in its first
    # third).
    wrist_above_torso: float = 0.7
    # ... or a wrist that rose this share of the torso since the last sample (a raise on its way up).
    wrist_rise_torso: float = 0.15
    max_ring_bytes: int = 512 * 1024 * 1024  # the decoded frames held for the look-back, at most

    def step(self, fps: float) -> int:
        return max(1, int(round(fps / self.sparse_fps)))

    def preroll_frames(self, fps: float) -> int:
        return int(math.ceil(self.preroll_s * fps)) + self.step(fps)


def _wrist_heights(lm: np.ndarray, aspect: float) -> tuple[float, float, float] | None:
    """(left wrist, right wrist) height below the shoulder line in torso lengths (NaN when doubted), and the
    torso length; None without shoulders and hips. `aspect` = height / width of the image."""
    if min(lm[LEFT_SHOULDER, 3], lm[RIGHT_SHOULDER, 3], lm[LEFT_HIP, 3], lm[RIGHT_HIP, 3]) < VIS_MIN:
        return None
    sh_y = 0.5 * (lm[LEFT_SHOULDER, 1] + lm[RIGHT_SHOULDER, 1]) * aspect
    dx = 0.5 * (lm[LEFT_SHOULDER, 0] + lm[RIGHT_SHOULDER, 0] - lm[LEFT_HIP, 0] - lm[RIGHT_HIP, 0])
    dy = 0.5 * (lm[LEFT_SHOULDER, 1] + lm[RIGHT_SHOULDER, 1] - lm[LEFT_HIP, 1] - lm[RIGHT_HIP, 1]) * aspect
    torso = math.hypot(dx, dy)
    if not torso > 0:
        return None

    def below(w: int) -> float:
        return (lm[w, 1] * aspect - sh_y) / torso if lm[w, 3] >= VIS_MIN else math.nan

    return below(LEFT_WRIST), below(RIGHT_WRIST), torso


def could_be_raising(pf: PoseFrame, before: PoseFrame | None, plan: SamplingPlan, aspect: float) -> bool:
    """Could a raise be starting at this sparse sample? Cheap, body-relative, and yes when unsure: a person
    whose body the model only half found, a wrist at or above the belt, or a wrist on its way up."""
    if pf.landmarks is None:
        return False  # nobody in the picture
    h = _wrist_heights(pf.landmarks, aspect)
    if h is None:
        # Shoulders or hips doubted: an archer turned side-on, crouching, or half out of the picture. Arms
        # down in profile still show both; unsure means look.
        return bool(np.nanmax(pf.landmarks[[LEFT_SHOULDER, RIGHT_SHOULDER], 3]) >= VIS_MIN)
    left, right = h[0], h[1]
    if math.isnan(left) and math.isnan(right):
        return True  # both hands hidden: behind the body, or in front of the face
    if min(left if not math.isnan(left) else math.inf, right if not math.isnan(right) else math.inf) < (
        plan.wrist_above_torso
    ):
        return True
    if before is not None and before.landmarks is not None:
        h0 = _wrist_heights(before.landmarks, aspect)
        if h0 is not None:
            for a, b in ((h0[0], left), (h0[1], right)):
                if a - b > plan.wrist_rise_torso:  # NaN compares False
                    return True
    return False


Item = TypeVar("Item")


@dataclass
class SamplingLog:
    """What the sampler did, for the report: the frame spans sampled sparsely and the model's work."""

    fps: float
    step: int
    frames: int = 0
    model_runs: int = 0
    sparse_spans: list[list[int]] = field(default_factory=list)  # [first, last] frame, inclusive
    dense_segments: int = 0
    person_frames_estimated: int = 0  # frames the sparse samples with a person stand for, beyond themselves
    ring_peak_frames: int = 0
    ring_peak_bytes: int = 0
    dense_decoded: int = 0  # frames the dense model's decoder decoded: the look-backs' and the dense stretches'
    too_large: bool = False  # frames too large for the look-back's memory bound: analysed at the full rate
    model_resets: int = 0  # dense stretches the dense model began afresh (after frames it did not see as dense)

    def sparse(self, index: int) -> None:
        if self.sparse_spans and self.sparse_spans[-1][1] == index - 1:
            self.sparse_spans[-1][1] = index
        else:
            self.sparse_spans.append([index, index])

    def summary(self, mode: str = "adaptive") -> dict:
        sparse = sum(b - a + 1 for a, b in self.sparse_spans)
        return {
            "mode": mode,
            "sparse_fps": round(self.fps / self.step, 3),
            "frames": self.frames,
            "model_runs": self.model_runs,
            "frames_sparse": sparse,
            "dense_segments": self.dense_segments,
            "sparse_spans": [list(s) for s in self.sparse_spans],
            "ring_peak_frames": self.ring_peak_frames,
            "ring_peak_mb": round(self.ring_peak_bytes / 2**20, 1),
            "frames_decoded_dense": self.dense_decoded,
            "too_large_for_lookback": self.too_large,
            "model_resets": self.model_resets,
        }

    def note(self) -> str:
        s = self.summary()
        return (
            f"adaptive analysis: the pose model ran on {s['model_runs']} of {s['frames']} frames; "
            f"{s['frames_sparse']} frames in {len(self.sparse_spans)} stretches with nobody drawing were sampled at "
            f"{s['sparse_fps']:g} fps (meta.sampling.sparse_spans); --full-rate analyses every frame"
        )


class SampleGrid:
    """Where the sparse samples fall: the first frame with a picture at or after every `step`-th frame from
    the last sample. The one definition for a video's scout (coach/adaptive_video.py) and a pose track's replay
    (coach/sampling_check.py). It runs over every frame, dense stretches included, so the scout sees the same
    frames in the same order however far ahead of the analysis it runs: its landmarks, and so the triggers, do
    not depend on where the dense stretches fell (a video's scout runs on a thread of its own)."""

    def __init__(self, step: int):
        self.step = step
        self._next = 0

    def wants(self, index: int) -> bool:
        """Will frame `index` (a source's estimate, -1 unknown) be a sample? Asked by a decoder before it
        decodes, ahead of what it hands on, so it may be a sample or two ahead: every `step`-th from the next."""
        return index < 0 or (index >= self._next and (index - self._next) % self.step == 0)

    def take(self, index: int, has_picture: bool) -> bool:
        """Is this frame, as it comes, a sample? (the grid moves on from it)"""
        if index >= self._next and has_picture:
            self._next = index + self.step
            return True
        return False


def scouted(
    items: Iterable[Item],
    grid: SampleGrid,
    scout: Callable[[Item], PoseFrame],
    index_of: Callable[[Item], int],
    has_picture: Callable[[Item], bool] = lambda _: True,
) -> Iterator[tuple[Item, PoseFrame | None]]:
    """Each item with the scout's pose when it is a sample (None otherwise): what `AdaptiveSampler.push` takes."""
    for item in items:
        yield item, (scout(item) if grid.take(index_of(item), has_picture(item)) else None)


class AdaptiveSampler(Generic[Item]):
    """Feeds an Analyzer from a stream of items (decoded frames, or a pose track's frames), each with the
    scout's pose when it is a sparse sample (`scouted`), running `estimate` (the pose model of the dense
    stretches) only where it is needed. `index_of`/`t_ms_of` read an item's frame number and time;
    `nbytes_of` its size in memory (for the ring's bound)."""

    def __init__(
        self,
        analyzer: Analyzer,
        estimate: Callable[[Item], PoseFrame],
        *,
        index_of: Callable[[Item], int],
        t_ms_of: Callable[[Item], float],
        nbytes_of: Callable[[Item], int] = lambda _: 0,
        plan: SamplingPlan | None = None,
        has_picture: Callable[[Item], bool] = lambda _: True,
        without_picture: Callable[[Item], Item] = lambda item: item,
        with_picture: Callable[[Item], Item] = lambda item: item,
        every_frame: bool = False,
        reset: Callable[[], None] = lambda: None,
    ):
        self.analyzer = analyzer
        # A video source decodes no more than needed (coach/adaptive_video.py): items come without their
        # picture (the scout has seen the samples' pictures), the look-back ring holds items without theirs
        # (`without_picture`), and the dense model's items get it back (`with_picture`: decoded again). A pose
        # track's items always have theirs.
        self._has_picture, self._without, self._with = has_picture, without_picture, with_picture
        # The sparse samples come from a model of their own (the scout), so the model of the dense stretches
        # sees only dense frames, in order. MediaPipe follows its region of interest and smooths over the last
        # frames it saw; a sample run out of order would move them.
        self.plan = plan or SamplingPlan()
        # `every_frame`: the full-rate run. The same decisions on the same scout's samples, but the frames of the
        # idle stretches go through the dense model too, and to the analyzer with their own poses. `reset`
        # clears the dense model's history where a dense stretch begins after frames it did not see as dense
        # (`_go_dense`), in both runs: the full-rate and adaptive runs then read the dense frames alike, to the bit.
        self._every_frame, self._reset = every_frame, reset
        self._skipped = False  # frames went to the analyzer as idle since the dense model's last dense frame
        self._estimate = estimate
        self._index_of, self._t_ms_of, self._nbytes_of = index_of, t_ms_of, nbytes_of
        fps = analyzer.fps
        self._step = self.plan.step(fps)
        self._preroll = self.plan.preroll_frames(fps)
        self._settle = max(1, int(round(self.plan.settle_s * fps)))
        self._aspect = analyzer.height / analyzer.width if analyzer.width else 1.0
        self.log = SamplingLog(fps, self._step)
        self._ring: deque[Item] = deque()
        self._ring_bytes = 0
        self._poses: dict[int, PoseFrame] = {}  # sparse samples' poses still in the ring
        self._last_sample: PoseFrame | None = None  # the scout's last pose (a wrist rising since then: a raise)
        # The dense model's last pose: "at rest" in a dense stretch is judged frame to frame, on the dense model's
        # own landmarks, never against a scout sample (another model, up to a step away).
        self._last_dense: PoseFrame | None = None
        self._dense = False
        self._quiet = 0  # dense frames in a row with the archer at rest
        self._looking_back = False

    def grid(self) -> SampleGrid:
        """Where this sampler's samples fall, for the source that runs the scout."""
        return SampleGrid(self._step)

    # ---- input -----------------------------------------------------------------------------------------
    def push(self, item: Item, sample: PoseFrame | None = None) -> None:
        """The next frame; `sample`: the scout's pose when the frame is a sparse sample (it ran on every sample,
        dense stretches included, and counts as a model run wherever it falls)."""
        self.log.frames += 1
        before = self._last_sample
        if sample is not None:
            self.log.model_runs += 1
            self._last_sample = sample
        if self._dense:
            self._push_dense(item)
            return
        held = self._without(item)  # what the ring keeps of it
        nbytes = self._nbytes_of(held)
        if nbytes * self._preroll > self.plan.max_ring_bytes:
            # The look-back does not fit in memory (frames this large): every frame, as at the full rate.
            self.log.too_large = True
            self._go_dense(item)
            return
        while self._ring and (len(self._ring) >= self._preroll or self._ring_bytes + nbytes > self.plan.max_ring_bytes):
            self._commit_idle()
        if sample is not None:
            if could_be_raising(sample, before, self.plan, self._aspect):
                self._go_dense(item)
                return
            self._poses[self._index_of(item)] = sample
        self._ring.append(held)
        self._ring_bytes += nbytes
        self.log.ring_peak_frames = max(self.log.ring_peak_frames, len(self._ring))
        self.log.ring_peak_bytes = max(self.log.ring_peak_bytes, self._ring_bytes)

    def finish(self) -> None:
        """The video ended: what is still held goes to the analyzer as idle (sampled, or read by the model in a
        full-rate run)."""
        while self._ring:
            self._commit_idle()
        extra = self.log.person_frames_estimated
        self.analyzer.frames_with_person += extra

    def run(self, items: Iterable[Item], scout: Callable[[Item], PoseFrame]) -> SamplingLog:
        """Every item, the scout running on the samples (a pose track's replay; a video runs its scout on a
        thread of its own, coach/adaptive_video.py)."""
        for item, sample in scouted(items, self.grid(), scout, self._index_of, self._has_picture):
            self.push(item, sample)
        self.finish()
        return self.log

    # ---- sparse ----------------------------------------------------------------------------------------
    def _run(self, item: Item) -> PoseFrame:
        self.log.model_runs += 1
        return self._estimate(item)

    def _commit_idle(self) -> None:
        item = self._ring.popleft()
        self._ring_bytes -= self._nbytes_of(item)
        i = self._index_of(item)
        pf = self._poses.pop(i, None)
        self._skipped = True  # the dense model's next dense frame will not follow its last
        if self._every_frame:
            self.analyzer.push_pose(self._run(self._with(item)))
            return
        if pf is None:
            pf = PoseFrame(i, self._t_ms_of(item), None, None)
        elif pf.landmarks is not None:
            self.log.person_frames_estimated += self._step - 1
        self.log.sparse(i)
        self.analyzer.push_pose(pf)

    # ---- dense -----------------------------------------------------------------------------------------
    def _go_dense(self, item: Item) -> None:
        """A raise could be starting at `item`: the model goes back over every frame still held (the
        look-back), then on to `item` and stays on every frame."""
        self._dense = True
        self._quiet = 0
        self.log.dense_segments += 1
        if self._skipped:  # the model's history is not this stretch's: it starts afresh, as in the other run
            self._reset()
            self._skipped = False
            self.log.model_resets += 1
        self._poses.clear()
        ring, self._ring = self._ring, deque()
        self._ring_bytes = 0
        # The look-back is the rest before the raise: its quiet frames must not end the dense stretch the
        # trigger just began (that ended it at once and the next sample triggered again, a second look-back).
        self._looking_back = True
        while ring:  # each held frame let go as soon as the model has seen it (its picture was decoded again)
            self._push_dense(ring.popleft())
        self._looking_back = False
        self._quiet = 0
        self._push_dense(item)

    def _push_dense(self, item: Item) -> None:
        if not self._has_picture(item):
            item = self._with(item)
        pf = self._run(item)
        results = self.analyzer.push_pose(pf)
        at_rest = not could_be_raising(pf, self._last_dense, self.plan, self._aspect)
        at_rest = at_rest and all(r.phase == "setup" and r.shot is None for r in results)
        self._last_dense = pf
        self._quiet = self._quiet + 1 if at_rest else 0
        if self._quiet >= self._settle and not self.log.too_large and not self._looking_back:
            self._dense = False
