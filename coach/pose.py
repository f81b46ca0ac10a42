"""Pose estimators behind one small protocol, chosen from a registry.

- "mediapipe": the full model bundled in the mediapipe 0.10.21 wheel (legacy solutions API), offline.
- "tasks": MediaPipe Tasks PoseLandmarker with a user's `.task` file, in VIDEO mode.
Frames are never mirrored before inference: a mirrored frame swaps the archer's left and right hands.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from pathlib import Path
from types import MappingProxyType
from typing import Protocol

import cv2
import numpy as np

from .capture import Frame
from .errors import CoachError
from .landmarks import LEFT_SHOULDER, RIGHT_SHOULDER
from .pose_frame import PoseFrame
from .quiet import native_stderr_silenced

os.environ.setdefault("GLOG_minloglevel", "2")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")


class PoseEstimator(Protocol):
    name: str

    def estimate(self, frame: Frame) -> PoseFrame: ...

    def reset(self) -> None:
        """Forget the frames seen: the next one is read as a first frame (coach/sampling.py resets the dense
        model where a shot's frames begin after frames it did not see, in an adaptive and a full-rate run alike)."""

    def close(self) -> None: ...


class _RGB:
    """Reuses one RGB buffer per frame size: the BGR→RGB copy is the only per-frame image work we add."""

    def __init__(self) -> None:
        self._buf: np.ndarray | None = None

    def __call__(self, bgr: np.ndarray) -> np.ndarray:
        if self._buf is None or self._buf.shape != bgr.shape:
            self._buf = np.empty_like(bgr)
        cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB, dst=self._buf)
        return self._buf


class MediaPipePose:
    """The bundled full model (model_complexity=1). Its ROI tracking keeps following the same person."""

    name = "mediapipe"
    model = "mediapipe 0.10.21 pose_landmark_full (solutions.Pose, model_complexity=1, smooth_landmarks=True)"

    def __init__(self, model_complexity: int = 1, min_detection_confidence: float = 0.5):
        with native_stderr_silenced():
            import mediapipe as mp

            self._pose = mp.solutions.pose.Pose(
                static_image_mode=False,
                model_complexity=model_complexity,
                smooth_landmarks=True,
                min_detection_confidence=min_detection_confidence,
                min_tracking_confidence=0.5,
            )
        # The detector's and the landmark model's delegates announce themselves on their first runs, and the
        # landmark model first runs when a person is first found: stay quiet until a few frames after that.
        self._quiet_frames = 3
        self._person_seen = False
        self._rgb = _RGB()

    def estimate(self, frame: Frame) -> PoseFrame:
        if self._quiet_frames > 0:
            with native_stderr_silenced():
                res = self._pose.process(self._rgb(frame.image))
            self._person_seen = self._person_seen or res.pose_landmarks is not None
            self._quiet_frames -= self._person_seen
        else:
            res = self._pose.process(self._rgb(frame.image))
        if res.pose_landmarks is None:
            return PoseFrame(frame.index, frame.t_ms, None, None)
        lm = np.array([(p.x, p.y, p.z, p.visibility) for p in res.pose_landmarks.landmark])
        world = None
        if res.pose_world_landmarks is not None:
            world = np.array([(p.x, p.y, p.z) for p in res.pose_world_landmarks.landmark])
        return PoseFrame(frame.index, frame.t_ms, lm, world)

    def reset(self) -> None:
        # The graph's run restarts: no region followed, no smoothing history. Measured: the readings after a
        # reset are a fresh model's to the bit, and a reset takes ~3 ms.
        self._pose.reset()

    def close(self) -> None:
        self._pose.close()


def _centre(lm: np.ndarray) -> np.ndarray:
    return lm[[LEFT_SHOULDER, RIGHT_SHOULDER], :2].mean(axis=0)


def pick_archer(candidates: list[np.ndarray], previous: np.ndarray | None) -> int:
    """Index of the candidate to follow: the one nearest the archer of the last frame; at the start, the
    one whose wrists are highest relative to the shoulders and then the largest (the archer raises the bow;
    bystanders stand with arms down). Never simply the largest in one frame."""
    if previous is not None:
        pc = _centre(previous)
        return int(np.argmin([np.linalg.norm(_centre(c) - pc) for c in candidates]))

    def score(c: np.ndarray) -> float:
        sw = math.dist(c[LEFT_SHOULDER, :2], c[RIGHT_SHOULDER, :2]) or 1e-6
        arms_up = (c[[11, 12], 1].mean() - c[[15, 16], 1].min()) / sw
        return arms_up + 0.1 * sw

    return int(np.argmax([score(c) for c in candidates]))


class TasksPose:
    """MediaPipe Tasks PoseLandmarker from a `.task` file, VIDEO mode (timestamps must strictly increase)."""

    name = "tasks"

    def __init__(self, model_path: str | os.PathLike, num_poses: int = 2):
        p = Path(model_path)
        if not p.is_file():
            raise CoachError(p, "pose model file not found")
        from mediapipe.tasks.python import BaseOptions
        from mediapipe.tasks.python.vision import PoseLandmarker, PoseLandmarkerOptions, RunningMode

        self._options = PoseLandmarkerOptions(
            base_options=BaseOptions(model_asset_buffer=p.read_bytes()),
            running_mode=RunningMode.VIDEO,
            num_poses=num_poses,
        )
        self._create = PoseLandmarker.create_from_options
        try:
            with native_stderr_silenced():
                self._landmarker = self._create(self._options)
        except (RuntimeError, ValueError) as e:
            raise CoachError(p, f"not a usable MediaPipe pose .task model ({e})") from None
        import mediapipe as mp

        self._mp = mp
        self.model = f"mediapipe tasks PoseLandmarker ({p.name})"
        self._rgb = _RGB()
        self._last_ts = -1
        self._previous: np.ndarray | None = None

    def estimate(self, frame: Frame) -> PoseFrame:
        ts = max(int(round(frame.t_ms)), self._last_ts + 1)
        self._last_ts = ts
        image = self._mp.Image(image_format=self._mp.ImageFormat.SRGB, data=self._rgb(frame.image))
        res = self._landmarker.detect_for_video(image, ts)
        if not res.pose_landmarks:
            return PoseFrame(frame.index, frame.t_ms, None, None)
        cands = [np.array([(p.x, p.y, p.z, p.visibility) for p in person]) for person in res.pose_landmarks]
        k = pick_archer(cands, self._previous)
        self._previous = cands[k]
        world = None
        if res.pose_world_landmarks and len(res.pose_world_landmarks) > k:
            world = np.array([(p.x, p.y, p.z) for p in res.pose_world_landmarks[k]])
        return PoseFrame(frame.index, frame.t_ms, cands[k], world)

    def reset(self) -> None:
        # A landmarker in VIDEO mode has no reset of its own: a new one from the same options (timestamps go on).
        self._landmarker.close()
        with native_stderr_silenced():
            self._landmarker = self._create(self._options)
        self._previous = None

    def close(self) -> None:
        self._landmarker.close()


class _SamePicture:
    """Whether a picture is the one before it, pixel for pixel: a file that repeats a frame to keep its rate (a
    webcam's MJPEG recording in low light, a still scene on a lossless capture). One kept copy of the last picture;
    a sparse grid of pixels is compared first, so a different picture costs a few microseconds beside the copy."""

    def __init__(self) -> None:
        self._last: np.ndarray | None = None

    def __call__(self, image: np.ndarray) -> bool:
        last = self._last
        same = (
            last is not None
            and last.shape == image.shape
            and np.array_equal(last[::16, ::16], image[::16, ::16])
            and np.array_equal(last, image)
        )
        if last is None or last.shape != image.shape:
            self._last = np.empty_like(image)
        np.copyto(self._last, image)
        return same

    def forget(self) -> None:
        """The next picture is compared with none (a reset: once per dense stretch, so its buffer is made anew)."""
        self._last = None


class RepeatsSeen:
    """An estimator that gives a picture identical to the one before it that one's pose, to the bit. The model
    would read the copy a little differently (its smoothing moves on), and the hands would seem to move where
    nothing did; the same reading tells the body stream the frame is a repeat, no new look at the archer
    (`Body.repeat`). The model still runs on the copy: its history (the region it follows, its smoothing) stays
    that of a run without the check. A reset forgets the picture before too: the first frame after it is read."""

    def __init__(self, inner: PoseEstimator) -> None:
        self._inner = inner
        self.name = inner.name
        self.model = getattr(inner, "model", inner.name)
        self._same = _SamePicture()
        self._pose: PoseFrame | None = None

    def estimate(self, frame: Frame) -> PoseFrame:
        same = self._same(frame.image)
        pose = self._inner.estimate(frame)
        p = self._pose
        if same and p is not None:
            copy = None if p.landmarks is None else p.landmarks.copy()
            return PoseFrame(frame.index, frame.t_ms, copy, None if p.world is None else p.world.copy())
        self._pose = pose
        return pose

    def reset(self) -> None:
        self._inner.reset()
        self._same.forget()
        self._pose = None

    def close(self) -> None:
        self._inner.close()


ESTIMATORS: MappingProxyType[str, Callable[..., PoseEstimator]] = MappingProxyType(
    {"mediapipe": MediaPipePose, "tasks": TasksPose}
)


def make_estimator(model: str | os.PathLike | None = None) -> PoseEstimator:
    """The bundled model by default; the Tasks backend when the user passes a .task file; either one giving a
    repeated picture the pose of the picture before (`RepeatsSeen`)."""
    return RepeatsSeen(ESTIMATORS["mediapipe"]() if model is None else ESTIMATORS["tasks"](model))
