"""Pose backends: the bundled model loads offline; the Tasks backend rejects what it cannot use; the
archer is followed, not whoever is largest."""

import numpy as np
import pytest

from coach.capture import Frame
from coach.errors import CoachError
from coach.pose import MediaPipePose, TasksPose, make_estimator, pick_archer


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
    assert isinstance(est, MediaPipePose)
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
