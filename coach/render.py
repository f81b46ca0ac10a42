"""`coach render VIDEO --out annotated.mp4`: the video with the skeleton, the current phase and every flagged
fault highlighted on the body with its cue; H.264 (browsers play it), the same frame count as the source.

Two passes: the analysis first (so each fault is drawn over exactly the frames the rule engine found it in,
not only from the moment it was confirmed), then the drawing, re-decoding the video."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from posture_rules.pack import Profile, RulePack, load_pack

from .capture import FrameSource
from .errors import CoachError
from .overlay import Overlay, PoseView
from .pipeline import analyze_video
from .report.output import NOTHING, atomic_path
from .results import SessionReport
from .safe_io import os_problem
from .video_io import VideoWriter

Progress = Callable[[str, int, int | None], None]


@dataclass(slots=True)
class Rendered:
    path: Path
    frames: int
    report: SessionReport


def fault_windows(report: SessionReport, n: int) -> list[list[str]]:
    """Per frame, the rule ids whose fault spans it."""
    per: list[list[str]] = [[] for _ in range(n)]
    for shot in report.shots:
        for f in shot.faults:
            a = f.start_frame if f.start_frame is not None else shot.anchor_frame
            b = f.end_frame if f.end_frame is not None else shot.release_frame
            if a is None or b is None:
                continue
            for i in range(max(a, 0), min(b, n - 1) + 1):
                per[i].append(f.rule)
    return per


def analyze_with_poses(
    video: str | os.PathLike,
    *,
    pack: RulePack | None = None,
    profile: Profile | None = None,
    model: str | os.PathLike | None = None,
    on_shot=(),
    progress: Progress | None = None,
    on_pose=(),
) -> tuple[SessionReport, dict[int, PoseView]]:
    """`coach analyze`'s analysis of a video (sound included), keeping every frame's pose and phase for the
    overlay — the last frames that `Analyzer.finish()` flushes included."""
    poses: dict[int, PoseView] = {}

    def keep(r) -> None:
        poses[r.index] = PoseView(
            np.asarray(r.xy, dtype=np.float32),
            np.asarray(r.vis, dtype=np.float32),
            r.phase,
            r.shot,
            tuple(r.active_faults),
        )

    report = analyze_video(
        video,
        pack=pack,
        profile=profile,
        model=model,
        on_shot=list(on_shot),
        on_frame=[keep],
        on_pose=list(on_pose),
        progress=(lambda done, total: progress("analyse", done, total)) if progress else None,
    )
    return report, poses


MAX_ENCODED_PIXELS = 3840 * 2160  # x264's buffers grow with the frame: 8K peaked at 6.8 GB, 4K stays near 1 GB


def encoded_size(w: int, h: int) -> tuple[int, int]:
    """The size written: the video's own, or scaled down (even sides) to at most 4K UHD's pixel count."""
    if w * h <= MAX_ENCODED_PIXELS:
        return w, h
    s = (MAX_ENCODED_PIXELS / (w * h)) ** 0.5
    return max(2, int(w * s) // 2 * 2), max(2, int(h * s) // 2 * 2)


def draw_video(
    video: str | os.PathLike,
    out: str | os.PathLike,
    report: SessionReport,
    poses: dict[int, PoseView],
    pack: RulePack,
    *,
    progress: Progress | None = None,
    crf: int = 23,
    preset: str = "medium",
) -> int:
    """Re-decode `video` and write it to `out` (H.264) with the overlay drawn; returns the frames written."""
    hand = report.handedness if report.handedness in ("left", "right") else "right"
    overlay = Overlay(pack, hand)
    n = report.frame_count
    faults = fault_windows(report, n)
    written = 0
    with FrameSource(video) as src:
        w, h = src.width + src.width % 2, src.height + src.height % 2
        canvas = np.zeros((h, w, 3), np.uint8) if (w, h) != (src.width, src.height) else None
        size = encoded_size(w, h)
        with VideoWriter(out, *size, src.fps, crf=crf, preset=preset) as writer:
            for frame in src:
                img = frame.image
                if canvas is not None:  # odd sizes: pad one pixel (yuv420p needs even sizes)
                    canvas[: img.shape[0], : img.shape[1]] = img
                    img = canvas
                pv = poses.get(frame.index)
                if pv is not None:
                    overlay.draw(img, pv, faults[frame.index] if frame.index < n else [])
                if size != (w, h):  # drawn at full size (the pose is in its pixels), encoded smaller
                    img = cv2.resize(img, size, interpolation=cv2.INTER_AREA)
                writer.write(img)
                written += 1
                if progress:
                    progress("render", written, n)
    return written


def render_video(
    video: str | os.PathLike,
    out: str | os.PathLike,
    *,
    pack: RulePack | None = None,
    profile: Profile | None = None,
    model: str | os.PathLike | None = None,
    force: bool = False,
    progress: Progress | None = None,
    protect: Mapping[Path, str] = NOTHING,
) -> Rendered:
    pack = pack or load_pack()
    profile = profile or Profile()
    protect = {**protect, Path(video): "the input video"}
    with atomic_path(out, force, protect) as tmp:
        report, poses = analyze_with_poses(video, pack=pack, profile=profile, model=model, progress=progress)
        try:
            written = draw_video(video, tmp, report, poses, profile.apply(pack), progress=progress)
        except OSError as e:  # a full disk: the temporary file goes (atomic_path), the target is untouched
            raise CoachError(out, f"cannot be written ({os_problem(e)})") from None
    return Rendered(Path(out), written, report)
