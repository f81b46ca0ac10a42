"""The shot-phase tracker on hand-labelled pose tracks of real archers (handheld phone videos)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from coach.body_stream import bodies_from_track
from coach.phases import track_shots
from coach.pose_frame import load_posetrack

REALPOSE = Path(__file__).resolve().parents[1].parent / "shared" / "realpose"

# Clips whose release cannot be found within the labelled tolerance yet, with the measured error.
KNOWN_MISSES = {
    "real04_recurve_behind_oblique": "no shot found: seen from behind, the draw wrist and elbow are hidden "
    "behind the head for the whole shot (visibility < 0.3), so no anchor can be seen",
    "real06_recurve_behind_handheld": "no shot found: seen from behind, the draw wrist is hidden for the whole "
    "shot (visibility 0.06-0.22); only the draw elbow is seen, and the camera swings away 5 frames after the "
    "release",
    "real07_recurve_faceon_close_longhold": "release 20 frames late (284 vs 264): the hand drops 0.2 U at the "
    "release and stays by the chin, under the 0.35 U confirmation distance, until it swings out at 276",
    "real08_recurve_faceon_lowres": "release 3 frames early (140 vs 143): a hold twitch at 25 fps opens the "
    "candidate the hand drop then confirms",
    "real09_recurve_obliquebehind_60fps_norelease": "a full draw never shot is returned as an incomplete shot "
    "(anchor 149, no release) instead of no shot",
    "real10_recurve_faceon_cuts_norelease": "false release at 123: the edit's dissolve moves the draw hand "
    "while the archer is still at full draw",
}


def _clips() -> list:
    if not REALPOSE.is_dir():
        return [pytest.param(None, id="missing")]
    out = []
    for p in sorted(REALPOSE.glob("*.labels.json")):
        name = p.name.removesuffix(".labels.json")
        marks = []
        if name in KNOWN_MISSES:
            marks.append(pytest.mark.xfail(strict=True, reason=KNOWN_MISSES[name]))
        out.append(pytest.param(name, id=name, marks=marks))
    return out


@pytest.mark.parametrize("name", _clips())
def test_real_clip(name: str | None) -> None:
    if name is None:
        pytest.skip(f"{REALPOSE} not found: real archer tracks are only available in the project workspace")
    labels = json.loads((REALPOSE / f"{name}.labels.json").read_text(encoding="utf-8"))
    track = load_posetrack(REALPOSE / labels["pose_track"])
    shots = track_shots(bodies_from_track(track, labels["handedness"], "recorded"), labels["handedness"])
    assert len(shots) == labels["n_shots"], shots
    for found, want in zip(shots, labels["shots"]):
        tol = want["tolerance_frames"]["release_frame"]
        assert found.release_frame is not None, found
        assert abs(found.release_frame - want["release_frame"]) <= tol, (found.release_frame, want)
