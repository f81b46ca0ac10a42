"""A mirrored picture under an archer's profile. The profile gives the hand the archer draws with, and only that
hand's full draws are sought (a hold MediaPipe reads mirrored is no shot: test_handedness_relearned.py). A phone's
front camera mirrors the whole picture: every full draw is then drawn with the other hand, and none was a shot.
A recorded video is then analysed again with the hand the picture shows, and said to be mirrored; a live run says
so. Every shot and verdict is the unmirrored video's."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import cv2
import pytest

from coach.analyzer import Analyzer
from coach.pipeline import analyze_track
from coach.pose_frame import load_posetrack
from coach.track_transforms import mirror
from coach.wording.machine import note_text
from posture_rules.pack import Profile
from tests.support.paths import GOLDEN, REALPOSE, SAMPLES

OTHER = {"right": "left", "left": "right"}
# Where the archer draws with their hand hidden (behind views), the other hand's draws are not watched: the draw
# elbow stands in for the profile's hand only (coach/phases/elbow.py).
HAND_HIDDEN = {"real04_recurve_behind_oblique", "real06_recurve_behind_handheld"}


def _tracks() -> list:
    paths = sorted(GOLDEN.glob("*.pose.json.gz"))
    if REALPOSE.is_dir():
        paths += [p for p in sorted(REALPOSE.glob("*.pose.json")) if p.name.split(".")[0] not in HAND_HIDDEN]
    return [pytest.param(p, id=p.name.split(".pose")[0]) for p in paths]


def _hand(path: Path) -> str:
    labels = path.with_name(path.name.replace(".pose.json", ".labels.json"))
    if labels.is_file():
        return json.loads(labels.read_text(encoding="utf-8"))["handedness"]
    return load_posetrack(path).meta["truth"]["handedness"]


def _verdicts(report) -> list[dict[str, str]]:
    return [{f.rule: f.verdict for f in s.findings} for s in report.shots]


@pytest.mark.parametrize("path", _tracks())
def test_a_mirrored_picture_gives_the_archers_shots(path: Path) -> None:
    hand = _hand(path)
    track = load_posetrack(path)
    base = analyze_track(track, profile=Profile(handedness=hand))
    moved = analyze_track(mirror(track), profile=Profile(handedness=hand))
    assert [s.release_frame for s in moved.shots] == [s.release_frame for s in base.shots]
    assert [s.anchor_frame for s in moved.shots] == [s.anchor_frame for s in base.shots]
    assert _verdicts(moved) == _verdicts(base)
    # Said, in both languages: the hand is the picture's, the profile stays the archer's.
    assert (moved.handedness, moved.handedness_source) == (OTHER[hand], "picture")
    assert moved.profile["handedness"] == hand
    assert moved.notes[0].startswith(f"every full draw was drawn with the {OTHER[hand]} hand")
    assert note_text(moved.notes[0], "zh").startswith(f"每一次滿弓都是以{'左' if hand == 'right' else '右'}手開弓")
    # ... and never of a picture that is not mirrored.
    assert base.handedness_source == "profile"
    assert not [n for n in base.notes if "drawn with the" in n and "profile" in n]


@pytest.mark.parametrize("path", _tracks())
def test_the_other_hand_is_never_noted_in_a_picture_that_is_not_mirrored(path: Path) -> None:
    """The watch for the other hand's full draws fires on no track as filmed: the bow hand is never taken for a
    draw hand at the face."""
    track = load_posetrack(path)
    analyzer = Analyzer(track.fps, track.width, track.height, mode="recorded", profile=Profile(handedness=_hand(path)))
    for pf in track.frames:
        analyzer.push_pose(pf)
    analyzer.finish()
    assert analyzer.tracker.other_hand_draws == []


def test_a_live_run_says_the_other_hand_drew() -> None:
    """Live, the shots are kept as they come, so nothing is analysed again: the report says which hand drew."""
    track = mirror(load_posetrack(GOLDEN / "short_1shot.pose.json.gz"))
    analyzer = Analyzer(track.fps, track.width, track.height, mode="live", profile=Profile(handedness="right"))
    for pf in track.frames:
        analyzer.push_pose(pf)
    report = analyzer.finish()
    assert report.shots == []
    (note,) = [n for n in report.notes if n.startswith("no full draw with the right hand")]
    assert "but with the left hand (first at frame" in note
    assert note_text(note, "zh").startswith("射手設定為右手開弓，卻沒有看到右手的滿弓，只看到左手的（第一次在第 ")


def _front_camera(tmp_path: Path) -> Path:
    """short_1shot mirrored left to right, as a phone's front camera saves it (a Chinese file name)."""
    clip = tmp_path / "前鏡頭_鏡像.mp4"
    cap = cv2.VideoCapture(str(SAMPLES / "short_1shot.mp4"))
    size = (int(cap.get(cv2.CAP_PROP_FRAME_WIDTH)), int(cap.get(cv2.CAP_PROP_FRAME_HEIGHT)))
    out = cv2.VideoWriter(str(clip), cv2.VideoWriter_fourcc(*"mp4v"), cap.get(cv2.CAP_PROP_FPS), size)
    while (read := cap.read())[0]:
        out.write(cv2.flip(read[1], 1))
    out.release()
    cap.release()
    return clip


def _release_truth() -> int:
    return json.loads((SAMPLES / "short_1shot.truth.json").read_text(encoding="utf-8"))["shots"][0]["release_frame"]


@pytest.mark.e2e
def test_a_video_from_a_front_camera(tmp_path: Path) -> None:
    """Analysed for a right-handed archer (`coach analyze --handedness right`): its shot is found, and said to be
    drawn with the left hand in the picture."""
    clip = _front_camera(tmp_path)
    res = subprocess.run(
        [
            sys.executable,
            "-m",
            "coach",
            "analyze",
            str(clip),
            "--handedness",
            "right",
            "--json",
            str(tmp_path / "r.json"),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert res.returncode == 0, res.stderr
    report = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    (shot,) = report["shots"]
    assert abs(shot["release_frame"] - _release_truth()) <= 2
    assert (report["handedness"], report["handedness_source"], report["profile"]["handedness"]) == (
        "left",
        "picture",
        "right",
    )
    assert report["notes"][0].startswith("every full draw was drawn with the left hand")


@pytest.mark.e2e
def test_the_dashboards_overlay_shows_the_shot_of_a_front_camera(tmp_path: Path) -> None:
    """The dashboard's analysis (`render.analyze_with_poses`: every frame's pose and phase kept for the overlay)
    of the same video for a right-handed archer: the frames are those of the second analysis, the shot's among
    them."""
    from coach.render import analyze_with_poses

    report, poses = analyze_with_poses(_front_camera(tmp_path), profile=Profile(handedness="right"))
    (shot,) = report.shots
    assert abs(shot.release_frame - _release_truth()) <= 2
    assert len(poses) == report.frame_count
    assert poses[shot.release_frame].shot == 0 and poses[shot.anchor_frame].phase in ("full_draw", "hold")
