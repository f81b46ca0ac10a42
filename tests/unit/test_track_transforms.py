"""Where a frame of a track lands once the track is transformed: the metamorphic benchmark and tests compare
releases through it."""

from __future__ import annotations

from coach.pose_frame import PoseFrame, PoseTrack
from coach.track_transforms import at_half_rate, half_rate


def test_a_frame_lands_on_the_first_frame_half_rate_keeps_at_or_after_it() -> None:
    track = PoseTrack(30.0, 640, 480, [PoseFrame(i, i * 1000 / 30, None, None) for i in range(12)])
    kept = half_rate(track).frames
    origin = {f.index: round(f.t_ms * 30 / 1000) for f in kept}  # output frame -> the input frame it shows
    for r in range(11):
        first = min(k for k, i in origin.items() if i >= r)
        assert at_half_rate(r) == first, (r, first)
