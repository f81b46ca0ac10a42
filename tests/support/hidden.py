"""stance_high with shot 2's draw hand hidden from its anchor through its follow-through: a full draw the pose never
shows, whose release it cannot see either (the hand seen again flown back would tell of one: coach/phases/elbow.py).
The tracker owns up to it ("no full draw was seen"); its sound can make it a shot (coach/phases/heard.py)."""

from __future__ import annotations

from coach.landmarks import INDEX
from coach.pose_frame import PoseTrack, load_posetrack

from .paths import GOLDEN

HIDDEN_SHOT = 1
# The right-handed archer's draw hand: MediaPipe names its points left_* in this clip (checked: hiding them leaves
# the analysis no draw hand from the anchor on).
DRAW_HAND = [INDEX[f"left_{p}"] for p in ("wrist", "pinky", "index", "thumb")]


def stance_high_hand_hidden() -> PoseTrack:
    track = load_posetrack(GOLDEN / "stance_high.pose.json.gz")
    shot = track.meta["truth"]["shots"][HIDDEN_SHOT]
    for f in track.frames:
        if f.landmarks is not None and shot["anchor_frame"] <= f.index <= shot["end_frame"] + 15:
            f.landmarks[DRAW_HAND, 3] = 0.0
    return track
