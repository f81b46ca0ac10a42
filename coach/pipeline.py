"""Whole-file analysis: a video (or a saved pose track) in, a SessionReport out, shots handed on as they
complete. This is the streaming core run over a file; nothing here is specific to the command line."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path

from posture_rules.pack import Profile, RulePack

from .analyzer import Analyzer, FrameListener, PoseListener, ReleaseRefiner, ShotListener
from .capture import FrameSource
from .errors import CoachError
from .pose import make_estimator
from .pose_frame import PoseFrame, PoseTrack, load_posetrack, save_posetrack
from .results import SessionReport
from .sampling import SamplingPlan
from .session_notes import MIRRORED_NOTE

Progress = Callable[[int, int | None], None]


def analyze_video(
    path: str | os.PathLike,
    *,
    pack: RulePack | None = None,
    profile: Profile | None = None,
    model: str | os.PathLike | None = None,
    save_pose: str | os.PathLike | None = None,
    on_shot: Iterable[ShotListener] = (),
    on_frame: Iterable[FrameListener] = (),
    progress: Progress | None = None,
    audio: bool = True,
    on_pose: Iterable[PoseListener] = (),
    full_rate: bool = False,
    sampling: SamplingPlan | None = None,
) -> SessionReport:
    """`full_rate=False` (the default): the model samples the stretches where nobody draws and runs on every frame
    around each shot (coach/sampling.py); frame and pose listeners still get every frame, those the model skipped
    with nobody in them (re-analysing such a kept track gives the adaptive run's result again). `full_rate=True`:
    the model on every frame, through the same sampler (its decisions only start the model afresh where the
    adaptive run would, so both read a shot's frames alike). A saved pose track (--save-pose) needs every frame's
    landmarks, so it runs at the full rate; so does a file whose frames carry no presentation times (a raw .h264
    stream), which the look-back cannot find again (meta.sampling.why), in order from the first frame.

    A profile's hand that drew no shot, where full draws were drawn with the other: the video is analysed again
    with that hand (`_drawn_with_other_hand`). Shot listeners hear only that analysis's shots (the first found
    none), pose listeners the first's poses; frame listeners are handed every frame again, as analysed the second
    time (the overlay's `keep`, keyed by frame, ends with those)."""
    on_shot, on_frame = list(on_shot), list(on_frame)  # handed to a second analysis, perhaps
    src = FrameSource(path)
    every_frame = full_rate or save_pose is not None
    # A file goes through the sampler (coach/sampling.py), every frame or not: its full-rate run makes the same
    # decisions on the same samples and starts the model afresh where the adaptive run would, so the two read
    # a shot's frames alike. A file whose frames carry no times cannot be sampled (the look-back finds frames
    # by their time): every frame in order, as a camera's.
    sampled = src.is_file and _gives_frame_times(path)
    untimed = src.is_file and not every_frame and not sampled
    # The sound track is decoded once, before the pose runs (cheap); each completed shot's release is then
    # refined by the string's onset inside the window the pose allows (coach/audio/).
    cues = None
    if audio and src.is_file:
        from .audio import audio_cues

        cues = audio_cues(path)
    estimator = make_estimator(model)
    analyzer = Analyzer(
        src.fps,
        src.width,
        src.height,
        pack=pack,
        profile=profile,
        mode="recorded",
        source=str(path),
        on_shot=on_shot,
        on_frame=on_frame,
        release_refiner=cues.refiner(src.fps) if cues is not None else None,
        on_pose=on_pose,
    )
    poses: list[PoseFrame] | None = [] if save_pose else None
    if poses is not None:
        analyzer.pose_listeners.append(poses.append)
    log = None
    try:
        with src:
            if sampled:
                from .adaptive_video import analyze_adaptive

                log = analyze_adaptive(
                    path,
                    analyzer,
                    estimator,
                    lambda: make_estimator(model),
                    plan=sampling,
                    progress=progress,
                    frame_count_hint=src.frame_count_hint,
                    every_frame=every_frame,
                )
            for frame in () if sampled else src:
                analyzer.push_pose(estimator.estimate(frame))
                if progress is not None:
                    progress(frame.index + 1, src.frame_count_hint)
    finally:
        estimator.close()
    report = analyzer.finish()
    n = analyzer.frames_seen
    if src.frame_count_hint and n < src.frame_count_hint * 0.9:
        report.meta["truncated"] = {"frames": n, "expected": src.frame_count_hint}
        report.notes.append(
            f"video ended after {n} of {src.frame_count_hint} frames (truncated or corrupt); analysed what was readable"
        )
    report.meta["sampling"] = (
        log.summary("full-rate" if every_frame else "adaptive")
        if log is not None
        else {"mode": "full-rate", **({"why": "no frame times"} if untimed else {})}
    )
    if log is not None and log.sparse_spans:
        report.notes.append(log.note())
    report.meta["audio"] = {"used": audio, "track": cues is not None, **(cues.summary() if cues else {})}
    if poses is not None:
        save_posetrack(
            PoseTrack(src.fps, src.width, src.height, poses, source=str(path), model=estimator.model), save_pose
        )
    other = analyzer.other_hand_only
    if other is None:
        return report
    again = analyze_video(
        path,
        pack=pack,
        profile=replace(profile, handedness=other),
        model=model,
        on_shot=on_shot,
        on_frame=on_frame,
        progress=progress,
        audio=audio,
        full_rate=full_rate or save_pose is not None,  # as this run read it (a saved track is read at the full rate)
        sampling=sampling,
    )
    return _drawn_with_other_hand(again, profile)


def analyze_track(
    track: PoseTrack | str | os.PathLike,
    *,
    pack: RulePack | None = None,
    profile: Profile | None = None,
    on_shot: Iterable[ShotListener] = (),
    release_refiner: ReleaseRefiner | None = None,
    on_pose: Iterable[PoseListener] = (),
) -> SessionReport:
    """Re-analyse a saved pose track without running the model (threshold tuning, golden tests).
    `release_refiner`: e.g. `coach.audio.cues_from_envelope(load_envelope(...)).refiner(fps)`."""
    if not isinstance(track, PoseTrack):
        track = load_posetrack(track)
    on_shot = list(on_shot)  # handed to a second analysis, perhaps
    analyzer = Analyzer(
        track.fps,
        track.width,
        track.height,
        pack=pack,
        profile=profile,
        mode="recorded",
        source=track.source,
        on_shot=on_shot,
        release_refiner=release_refiner,
        on_pose=on_pose,
    )
    for pf in track.frames:
        analyzer.push_pose(pf)
    report = analyzer.finish()
    other = analyzer.other_hand_only
    if other is None:
        return report
    again = analyze_track(
        track, pack=pack, profile=replace(profile, handedness=other), on_shot=on_shot, release_refiner=release_refiner
    )
    return _drawn_with_other_hand(again, profile)


def _drawn_with_other_hand(report: SessionReport, profile: Profile) -> SessionReport:
    """The report of a video analysed again with the hand its picture shows (`Analyzer.other_hand_only`: the
    profile's hand drew no shot, the other drew full draws): a mirrored picture (a phone's front camera) or another
    archer. Its hand is the picture's; its profile and the first note say whose hand the profile gives."""
    other = report.handedness
    report.notes.insert(0, MIRRORED_NOTE.format(hand=profile.handedness, other=other))
    report.handedness_source = "picture"
    report.profile = profile.to_json()
    return report


def _gives_frame_times(path: str | os.PathLike) -> bool:
    from .adaptive_video import gives_frame_times  # PyAV only where a file is analysed adaptively

    return gives_frame_times(path)


def track_sound(path: str | os.PathLike, fps: float) -> ReleaseRefiner | None:
    """The sound of a saved pose track: the `NAME.audio.json` envelope beside `NAME.pose.json` (how the shared
    real-footage tracks carry theirs), as a release refiner; None if there is none."""
    from .audio import cues_from_envelope, envelope_beside, load_envelope

    env = envelope_beside(path)
    if env is None:
        return None
    try:
        return cues_from_envelope(load_envelope(env)).refiner(fps)
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise CoachError(env, f"not a readable sound envelope ({e.__class__.__name__})") from None


def require_person(report: SessionReport, path: str | os.PathLike) -> None:
    if report.frame_count == 0:
        raise CoachError(Path(path), "no frames could be decoded")
    if report.frames_with_person == 0:
        raise CoachError(Path(path), f"no person found in any of its {report.frame_count} frames")
