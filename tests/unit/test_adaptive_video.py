"""Adaptive analysis decodes no more than needed (coach/adaptive_video.py, issue #17), on a real H.264 file: while
sampling, the frames nothing refers to are left undecoded, yet every frame keeps OpenCV's number and time; a
frame left out comes back, pixel for pixel, from the look-back's own decoder."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from coach.adaptive_video import LookBack, decoded_frames
from coach.capture import FrameSource
from tests.support.paths import SAMPLES

CLIP = SAMPLES / "clean_rh_3shots.mp4"


@pytest.fixture(scope="module")
def straight() -> list[tuple[int, float]]:
    """Every frame's number and time as OpenCV reads them (the full-rate path)."""
    if not CLIP.is_file():
        pytest.skip(f"{CLIP} not present")
    with FrameSource(CLIP) as src:
        return [(f.index, f.t_ms) for f in src]


def test_frames_left_undecoded_keep_their_numbers_and_times(straight) -> None:
    fps = FrameSource(CLIP).fps
    wanted = set(range(0, len(straight), 10))
    got = list(decoded_frames(CLIP, fps, lambda n: n in wanted))
    assert [d.index for d in got] == [i for i, _ in straight]
    assert np.allclose([d.t_ms for d in got], [t for _, t in straight], atol=0.5)
    pictures = {d.index for d in got if d.frame is not None}
    assert wanted <= pictures  # every frame a sample falls on is decoded …
    assert len(pictures) < 0.8 * len(straight)  # … and many others are not


def test_the_look_back_gives_back_the_same_pixels(straight) -> None:
    fps = FrameSource(CLIP).fps
    left_out = [d for d in decoded_frames(CLIP, fps, lambda n: n % 10 == 0) if d.frame is None]
    assert left_out
    look_back = LookBack(CLIP)
    try:
        # a run of frames (decoded forward), then one behind it (a seek back to its keyframe)
        asked = left_out[20:30] + left_out[3:4]
        numbers = {d.index for d in asked}
        ref = {d.index: d.frame.to_ndarray(format="bgr24") for d in decoded_frames(CLIP, fps) if d.index in numbers}
        for d in asked:
            whole = look_back.picture(d)
            assert whole.frame is not None, d.index
            # the same picture as a straight decode of the file gives
            assert np.array_equal(whole.frame.to_ndarray(format="bgr24"), ref[d.index])
        assert look_back.seeks >= 2
    finally:
        look_back.close()


class _Failing:
    """A pose model that fails on its `at`-th run, as a broken model or an out-of-memory would."""

    name = model = "failing"

    def __init__(self, at: int):
        self.at, self.runs = at, 0

    def estimate(self, frame):
        self.runs += 1
        if self.runs == self.at:
            raise RuntimeError(f"model failed on frame {frame.index}")
        from coach.pose_frame import PoseFrame

        return PoseFrame(frame.index, frame.t_ms, None, None)

    def reset(self) -> None:
        pass

    def close(self) -> None:
        pass


def _analyzer():
    from coach.analyzer import Analyzer

    src = FrameSource(CLIP)
    return Analyzer(src.fps, src.width, src.height, mode="recorded")


def test_a_scout_failure_reaches_the_analysis_and_leaves_no_thread_behind(straight) -> None:
    """The scout runs on a thread of its own: its error is raised where the analysis runs, after the frames
    before it were analysed, and its thread ends."""
    from coach.adaptive_video import analyze_adaptive

    before = threading.active_count()
    covered: list[int] = []
    with pytest.raises(RuntimeError, match="model failed"):
        analyze_adaptive(CLIP, _analyzer(), _Failing(0), lambda: _Failing(5), progress=lambda n, _: covered.append(n))
    assert covered and covered[-1] >= 4 * 10  # the four samples before the failure, and their frames
    assert threading.active_count() == before


def test_an_analysis_failure_stops_the_scout(straight) -> None:
    """The analysis stops (here its progress callback fails, as a closed dashboard would): the scout's thread
    is told to stop and ends, however far ahead it ran."""
    from coach.adaptive_video import analyze_adaptive

    def progress(n: int, _total) -> None:
        if n == 30:
            raise KeyboardInterrupt

    before = threading.active_count()
    with pytest.raises(KeyboardInterrupt):
        analyze_adaptive(CLIP, _analyzer(), _Failing(0), lambda: _Failing(0), progress=progress)
    assert threading.active_count() == before


@pytest.fixture(scope="module")
def standing_then_shot(tmp_path_factory):
    """15 s of the archer standing still (short_1shot.mp4's first picture), then the clip: a sparse stretch,
    a trigger, a look-back and a shot, on real video through MediaPipe."""
    from coach.video_io import VideoWriter

    clip = SAMPLES / "short_1shot.mp4"
    if not clip.is_file():
        pytest.skip(f"{clip} not present")
    path = tmp_path_factory.mktemp("adaptive") / "standing_then_shot.mp4"
    with FrameSource(clip) as src:
        frames = [f.image for f in src]
        with VideoWriter(path, src.width, src.height, src.fps) as vw:
            for _ in range(int(15 * src.fps)):
                vw.write(frames[0])
            for img in frames:
                vw.write(img)
    return path


def test_how_far_the_scout_runs_ahead_changes_nothing(standing_then_shot) -> None:
    """The scout runs on a thread of its own, ahead of the analysis. In lockstep with it (one frame ahead) and
    two minutes ahead: the same samples, triggers, dense stretches, shots, marks and verdicts."""
    from coach.adaptive_video import analyze_adaptive
    from coach.analyzer import Analyzer
    from coach.pose import MediaPipePose

    runs = []
    for lead_s in (1 / 30, 120.0):
        src = FrameSource(standing_then_shot)
        analyzer = Analyzer(src.fps, src.width, src.height, mode="recorded")
        model = MediaPipePose()
        try:
            log = analyze_adaptive(standing_then_shot, analyzer, model, MediaPipePose, lead_s=lead_s)
        finally:
            model.close()
        report = analyzer.finish()
        shots = [
            (
                s.raise_start_frame,
                s.draw_start_frame,
                s.anchor_frame,
                s.release_frame,
                [(f.rule, f.verdict) for f in s.findings],
            )
            for s in report.shots
        ]
        runs.append((shots, log.summary()))
    (shots, log), again = runs
    assert shots and log["sparse_spans"][0][1] > 10 * 30  # the standing was sampled, the shot found
    assert log["dense_segments"] >= 1
    assert again == runs[0]


def test_the_full_rate_and_the_adaptive_run_read_a_shot_alike(standing_then_shot) -> None:
    """`coach analyze --full-rate` and the default adaptive run of the same file: every frame from where the
    adaptive run's model began (the look-back after 15 s of standing) has the same landmarks to the bit, and the
    shot the same marks and verdicts. Both start the model afresh there; the full-rate model once came to it
    from 12 s of frames the adaptive one never saw, and not one of those 312 frames read alike (up to 0.03 of
    the picture apart)."""
    from coach.pipeline import analyze_video

    runs = {}
    for full_rate in (True, False):
        poses = {}
        report = analyze_video(
            standing_then_shot,
            full_rate=full_rate,
            audio=False,
            on_pose=[lambda p, seen=poses: seen.setdefault(p.index, p)],
        )
        runs[full_rate] = (report, poses)
    (full, full_poses), (adaptive, adaptive_poses) = runs[True], runs[False]
    assert full.meta["sampling"]["mode"] == "full-rate" and adaptive.meta["sampling"]["mode"] == "adaptive"
    assert full.meta["sampling"]["model_resets"] == adaptive.meta["sampling"]["model_resets"] == 1
    assert full.meta["sampling"]["model_runs"] > len(full_poses) > adaptive.meta["sampling"]["model_runs"]
    ((_, last_sparse),) = adaptive.meta["sampling"]["sparse_spans"]
    dense = [i for i in adaptive_poses if i > last_sparse]
    assert len(dense) > 250

    def alike(a, f) -> bool:
        return (a is None and f is None) or (a is not None and f is not None and np.array_equal(a, f))

    differing = [i for i in dense if not alike(adaptive_poses[i].landmarks, full_poses[i].landmarks)]
    assert not differing, f"{len(differing)} of {len(dense)} frames read otherwise, the first {differing[0]}"

    def marks(report):
        return [
            (s.raise_start_frame, s.draw_start_frame, s.anchor_frame, s.release_frame, s.release_confidence)
            + tuple((f.rule, f.verdict, f.value) for f in s.findings)
            for s in report.shots
        ]

    assert len(full.shots) == 1 and marks(full) == marks(adaptive)


def test_the_scout_runs_ahead_no_further_than_its_bound(straight) -> None:
    """The scout's thread waits once `max_frames` frames wait for the analysis: memory stays flat however long
    the video and however slow the analysis."""
    from coach.adaptive_video import ScoutAhead
    from coach.sampling import SampleGrid

    class Seen(_Failing):
        def __init__(self):
            super().__init__(0)
            self.frames: list[int] = []

        def estimate(self, frame):
            self.frames.append(frame.index)
            return super().estimate(frame)

    scout = Seen()
    ahead = ScoutAhead(CLIP, FrameSource(CLIP).fps, SampleGrid(10), scout, max_frames=20, max_bytes=2**30)
    try:
        furthest = 0
        for d, sample in ahead:
            if d.index == 0:  # hold the first frame until the scout has filled its lead (or 10 s), whatever the load
                deadline = time.monotonic() + 10
                while (not scout.frames or scout.frames[-1] < 20) and time.monotonic() < deadline:
                    time.sleep(0.01)
            assert d.frame is None  # handed on without its picture
            assert (sample is not None) == (d.index % 10 == 0)
            furthest = max(furthest, scout.frames[-1] - d.index)
    finally:
        ahead.close()
    assert len(scout.frames) == len(range(0, len(straight), 10))
    assert 0 < furthest <= 20 + 10


@pytest.fixture(scope="module")
def raw_stream(tmp_path_factory):
    """The first shot of CLIP as a raw H.264 elementary stream (what a Raspberry Pi camera records): its frames
    carry no presentation times."""
    import av

    path = tmp_path_factory.mktemp("raw") / "first_shot.h264"
    with av.open(str(CLIP)) as src, av.open(str(path), "w", format="h264") as out:
        stream = src.streams.video[0]
        enc = out.add_stream("h264", rate=30)
        enc.width, enc.height, enc.pix_fmt = stream.width, stream.height, "yuv420p"
        for n, frame in enumerate(src.decode(stream)):
            if n == 240:
                break
            frame.pts = None
            out.mux(enc.encode(frame))
        out.mux(enc.encode())
    return path


def test_a_file_without_frame_times_is_analysed_at_the_full_rate(straight, raw_stream) -> None:
    """The look-back finds a frame again by its time; a raw stream gives none, so adaptive analysis would give
    the dense model no picture for the look-back (the raise found 16 frames late). Such a file runs at the full
    rate, and the report says why."""
    import json

    from coach.adaptive_video import gives_frame_times
    from coach.pipeline import analyze_video

    assert gives_frame_times(CLIP) and not gives_frame_times(raw_stream)
    report = analyze_video(raw_stream, audio=False)
    assert report.meta["sampling"] == {"mode": "full-rate", "why": "no frame times"}
    truth = json.loads(CLIP.with_suffix(".truth.json").read_text())["shots"][0]
    (shot,) = report.shots
    assert abs(shot.raise_start_frame - truth["raise_start_frame"]) <= 3
    assert abs(shot.draw_start_frame - truth["draw_start_frame"]) <= 8
    assert abs(shot.release_frame - truth["release_frame"]) <= 2


@pytest.fixture(scope="module")
def standing_then_shot_ts(standing_then_shot):
    """standing_then_shot in an MPEG-TS, as a camcorder records (.mts): its demuxer lands on the keyframe after a
    time it is asked to seek to."""
    import av

    path = standing_then_shot.with_suffix(".ts")
    with av.open(str(standing_then_shot)) as src, av.open(str(path), "w", format="mpegts") as out:
        stream = src.streams.video[0]
        copy = out.add_stream_from_template(stream)
        for packet in src.demux(stream):
            if packet.dts is not None:
                packet.stream = copy
                out.mux(packet)
    return path


def test_the_look_back_finds_its_frames_in_an_mpeg_ts(standing_then_shot_ts) -> None:
    """Frames the scout left undecoded come back, pixel for pixel, from a file whose demuxer seeks past the time
    asked for, behind where the look-back's decoder is and ahead of it."""
    path = standing_then_shot_ts
    fps = FrameSource(path).fps
    left_out = [d for d in decoded_frames(path, fps, lambda n: n % 10 == 0) if d.frame is None]
    asked = left_out[300:310] + left_out[20:25] + left_out[200:201]
    numbers = {d.index for d in asked}
    ref = {d.index: d.frame.to_ndarray(format="bgr24") for d in decoded_frames(path, fps) if d.index in numbers}
    look_back = LookBack(path)
    try:
        for d in asked:
            whole = look_back.picture(d)
            assert whole.frame is not None, d.index
            assert np.array_equal(whole.frame.to_ndarray(format="bgr24"), ref[d.index])
    finally:
        look_back.close()


def test_a_shot_after_standing_in_an_mpeg_ts(standing_then_shot_ts) -> None:
    """Adaptive analysis of the MPEG-TS finds the shot after 10 s of standing with its raise and release (it found
    no shot at all while the look-back's seeks landed past the frames it asked for)."""
    import json

    from coach.pipeline import analyze_video

    report = analyze_video(standing_then_shot_ts, audio=False)
    assert report.meta["sampling"]["mode"] == "adaptive"
    truth = json.loads((SAMPLES / "short_1shot.truth.json").read_text())["shots"][0]
    standing = 15 * 30
    (shot,) = report.shots
    assert abs(shot.raise_start_frame - (standing + truth["raise_start_frame"])) <= 3
    assert abs(shot.release_frame - (standing + truth["release_frame"])) <= 2
