"""Pose backends: the bundled model loads offline; the Tasks backend rejects what it cannot use; the
archer is followed, not whoever is largest."""

import numpy as np
import pytest

from coach.capture import Frame
from coach.errors import CoachError
from coach.pose import MediaPipePose, RepeatsSeen, TasksPose, make_estimator, pick_archer


def _person(cx, scale, arms_up):
    lm = np.zeros((33, 4))
    lm[:, 3] = 1.0
    lm[11, :2] = (cx + 0.05 * scale, 0.4)
    lm[12, :2] = (cx - 0.05 * scale, 0.4)
    wy = 0.4 if arms_up else 0.6
    lm[15, :2] = (cx + 0.2 * scale, wy)
    lm[16, :2] = (cx - 0.02 * scale, wy)
    return lm


def test_pick_archer_prefers_the_drawing_person_then_keeps_following_them():
    bystander_big = _person(0.2, 2.0, arms_up=False)
    archer = _person(0.7, 1.0, arms_up=True)
    first = pick_archer([bystander_big, archer], None)
    assert first == 1
    # next frame: the archer lowered the bow, the bystander is still larger — keep the archer
    archer_rest = _person(0.71, 1.0, arms_up=False)
    assert pick_archer([bystander_big, archer_rest], archer) == 1


def test_bundled_model_runs_offline_and_reports_no_person_on_an_empty_frame():
    est = make_estimator()
    assert isinstance(est, RepeatsSeen) and est.name == "mediapipe"
    pf = est.estimate(Frame(3, 100.0, np.full((240, 320, 3), 128, np.uint8)))
    est.close()
    assert pf.index == 3 and pf.t_ms == 100.0 and pf.landmarks is None


def test_tasks_backend_names_a_bad_model_file(tmp_path):
    with pytest.raises(CoachError, match="not found"):
        TasksPose(tmp_path / "missing.task")
    bad = tmp_path / "bad.task"
    bad.write_bytes(b"not a model")
    with pytest.raises(CoachError, match="bad.task"):
        TasksPose(bad)


def _archer_pictures(n: int) -> list[np.ndarray]:
    import cv2

    from tests.support.paths import SAMPLES

    cap = cv2.VideoCapture(str(SAMPLES / "short_1shot.mp4"))
    pictures = [cap.read()[1] for _ in range(n)]
    cap.release()
    return pictures


def test_a_repeated_picture_gets_the_pose_of_the_one_before_to_the_bit():
    # A file that repeats a frame (an MJPEG recording in low light, a still scene in a lossless capture): the
    # model run again on the copy reads it a little differently (its smoothing moves on); the estimator gives
    # it the same pose, so the body stream knows the frame for a repeat (Body.repeat). The model still saw the
    # copy: the next picture is read as without the check.
    a, b = _archer_pictures(2)
    plain, repeats = MediaPipePose(), make_estimator()
    try:
        seen = [plain.estimate(Frame(i, i * 33.3, img)) for i, img in enumerate((a, a, b))]
        assert not np.array_equal(seen[0].landmarks, seen[1].landmarks)  # what the copy costs without the check
        first = repeats.estimate(Frame(0, 0.0, a))
        copy = repeats.estimate(Frame(1, 33.3, a.copy()))
        assert copy.index == 1 and copy.t_ms == 33.3
        assert np.array_equal(copy.landmarks, first.landmarks) and copy.landmarks is not first.landmarks
        other = repeats.estimate(Frame(2, 66.7, b))
        assert np.array_equal(other.landmarks, seen[2].landmarks)
    finally:
        plain.close()
        repeats.close()


def test_a_reset_model_reads_as_a_fresh_one_to_the_bit():
    # Where a shot's frames begin after frames the dense model did not see, it is reset (coach/sampling.py), in
    # the adaptive and the full-rate run alike: what it read before must leave no trace, the picture before
    # included (a repeat of it right after the reset is read, not handed the old pose).
    pictures = _archer_pictures(12)
    seen, fresh = make_estimator(), make_estimator()
    try:
        before = [seen.estimate(Frame(i, i * 33.3, img)) for i, img in enumerate(pictures[:8])]
        seen.reset()
        again = [seen.estimate(Frame(7 + i, (7 + i) * 33.3, img)) for i, img in enumerate(pictures[7:])]
        first = [fresh.estimate(Frame(7 + i, (7 + i) * 33.3, img)) for i, img in enumerate(pictures[7:])]
        for a, b in zip(again, first):
            assert np.array_equal(a.landmarks, b.landmarks), a.index
        # without the reset the same picture read otherwise: the history it clears is there
        assert not np.array_equal(before[7].landmarks, first[0].landmarks)
    finally:
        seen.close()
        fresh.close()


def test_a_video_that_repeats_pictures_reads_each_repeat_as_the_one_before(tmp_path):
    # A lossless file (FFV1, as capture software keeps it) with every 4th picture repeated, analysed as `coach
    # analyze` does: each repeat carries the pose read on the picture before, to the bit. Intra-coded files repeat the picture exactly (MJPEG once its rate control settles); H.264 codes
    # a repeat with a residual, so it is a new picture to the model.
    import av

    from coach.pipeline import analyze_video

    path = tmp_path / "repeats.mkv"
    with av.open(str(path), "w") as out:
        stream = out.add_stream("ffv1", rate=30)
        pictures = _archer_pictures(24)
        stream.height, stream.width = pictures[0].shape[:2]
        stream.pix_fmt = "yuv420p"
        for i, img in enumerate(pictures):
            for _ in range(2 if i % 4 == 3 else 1):
                for packet in stream.encode(av.VideoFrame.from_ndarray(img, format="bgr24")):
                    out.mux(packet)
        for packet in stream.encode():
            out.mux(packet)
    poses = []
    analyze_video(path, full_rate=True, audio=False, on_pose=[poses.append])
    assert len(poses) == 30
    repeated = [b.index for a, b in zip(poses, poses[1:]) if np.array_equal(a.landmarks, b.landmarks)]
    assert repeated == [4, 9, 14, 19, 24, 29]
