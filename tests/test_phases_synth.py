"""The shot-phase tracker on MediaPipe pose tracks of the synthetic sample clips, against their exact truth.

tests/golden/NAME.pose.json.gz is the MediaPipe pose of sample_videos/NAME.mp4 (x, y to 4 decimals, z and
world landmarks dropped), with the clip's truth shots in its meta. MediaPipe misreads these clips in ways
real footage also shows: the upper body folding for 10-20 frames (shoulders together, wrists in the middle),
the archer read as facing away (left and right swapped, with the visibilities of that misreading), single
frame jumps. These are the cases coach.body_stream cleans up and the tracker has to survive.

Releases: within 2 frames recorded, 3 live (truth: the first frame after the string is let go). Anchors are
only checked to lie between the truth's draw start and the release: the tracker anchors where the span
comes within 0.2 SW of the hold's, which on these slowly easing draws is 0.3-0.8 s before the truth's
"full draw reached" (1.7 s on the 5.8 s dragging draw of fault_tempo), and after a MediaPipe fold that
hides the truth anchor (short_1shot) it anchors when the arms are seen again.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from coach.body_stream import bodies_from_track
from coach.phases import track_shots
from coach.pose_frame import load_posetrack

GOLDEN = Path(__file__).resolve().parent / "golden"
CLIPS = sorted(p.name.removesuffix(".pose.json.gz") for p in GOLDEN.glob("*.pose.json.gz"))
RELEASE_TOL = {"recorded": 2, "live": 3}


@pytest.fixture(scope="module", params=CLIPS)
def clip(request):
    track = load_posetrack(GOLDEN / f"{request.param}.pose.json.gz")
    return request.param, track, track.meta["truth"]


def test_golden_tracks_present() -> None:
    assert {"clean_rh_3shots", "clean_lh", "fault_tempo", "short_1shot", "downline"} <= set(CLIPS)


@pytest.mark.parametrize("mode", ["recorded", "live"])
def test_shots_and_releases(clip, mode: str) -> None:
    name, track, truth = clip
    hand = truth["handedness"]
    shots = track_shots(bodies_from_track(track, hand, mode), hand)
    got = [(s.anchor_frame, s.release_frame) for s in shots]
    want = [(t["anchor_frame"], t["release_frame"]) for t in truth["shots"]]
    assert len(shots) == len(want), (name, mode, got, want)
    for s, t in zip(shots, truth["shots"]):
        assert s.complete and s.handedness == hand, (name, mode, s)
        assert abs(s.release_frame - t["release_frame"]) <= RELEASE_TOL[mode], (name, mode, got, want)
        assert t["draw_start_frame"] <= s.anchor_frame < s.release_frame, (name, mode, s, t)
