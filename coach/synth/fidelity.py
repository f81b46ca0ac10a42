"""How well MediaPipe Pose recovers the rendered joints: the check that the synthetic archer is realistic."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from coach.video_io import read_frames

# Shoulders, elbows, wrists, hips, knees, ankles.
BODY_JOINTS: tuple[int, ...] = (11, 12, 13, 14, 15, 16, 23, 24, 25, 26, 27, 28)


@dataclass(frozen=True)
class Fidelity:
    frames: int
    detected: int
    median_error_sw: float  # over all body joints and detected frames
    per_joint_median_sw: dict[int, float]
    per_joint_bias_sw: dict[int, tuple[float, float]]  # median (dx, dy) of MediaPipe minus truth

    @property
    def detection_rate(self) -> float:
        return self.detected / self.frames if self.frames else 0.0


def measure(mp4: str | Path, truth_path: str | Path | None = None, model_complexity: int = 1) -> Fidelity:
    import mediapipe as mp  # imported here: slow to load, and only this check needs it

    mp4 = Path(mp4)
    truth_path = Path(truth_path) if truth_path else mp4.with_suffix(".truth.json")
    truth = json.loads(truth_path.read_text(encoding="utf-8"))
    lms = truth["landmarks_2d"]
    w, h = truth["width"], truth["height"]
    errs: dict[int, list[float]] = {k: [] for k in BODY_JOINTS}
    bias: dict[int, list[tuple[float, float]]] = {k: [] for k in BODY_JOINTS}
    n = detected = 0
    with mp.solutions.pose.Pose(static_image_mode=False, model_complexity=model_complexity) as pose:
        for i, frame in enumerate(read_frames(mp4, upright=True)):
            n += 1
            res = pose.process(cv2.cvtColor(frame, cv2.COLOR_BGR2RGB))
            if res.pose_landmarks is None:
                continue
            detected += 1
            t = lms[i]
            if t[11] is None or t[12] is None:
                continue
            sw = float(np.hypot(t[11][0] - t[12][0], t[11][1] - t[12][1]))
            if sw < 1.0:
                continue
            for k in BODY_JOINTS:
                if t[k] is None:
                    continue
                p = res.pose_landmarks.landmark[k]
                dx, dy = (p.x * w - t[k][0]) / sw, (p.y * h - t[k][1]) / sw
                errs[k].append(float(np.hypot(dx, dy)))
                bias[k].append((dx, dy))
    if n != len(lms):
        raise ValueError(f"{mp4}: decoded {n} frames but the sidecar has {len(lms)}")
    allerr = [e for v in errs.values() for e in v]
    return Fidelity(
        frames=n,
        detected=detected,
        median_error_sw=float(np.median(allerr)) if allerr else float("nan"),
        per_joint_median_sw={k: float(np.median(v)) if v else float("nan") for k, v in errs.items()},
        per_joint_bias_sw={
            k: (float(np.median([b[0] for b in v])), float(np.median([b[1] for b in v]))) if v else (0.0, 0.0)
            for k, v in bias.items()
        },
    )
