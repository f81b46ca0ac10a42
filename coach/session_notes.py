"""The session notes the analysis writes (coach/analyzer.py), in English and in a fixed form: the report keeps
them as written, and coach/wording/machine.py recognises each form and words it in Chinese and English. A note's
wording changes here and in machine.py's pattern together."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from statistics import median

from posture_rules.pack import other_hand

# A full draw that was not shot is no shot: the report says so (coach/phases/shot.py LetDown.reason).
LET_DOWN_NOTES = {
    "let_down": "frames {a}–{b} ({ta:.1f}–{tb:.1f} s): a let-down — full draw, then the bow arm came down without "
    "a release; not judged as a shot",
    "video_ended": "frames {a}–{b} ({ta:.1f}–{tb:.1f} s): full draw until the video ended (or cut away), no "
    "release seen; not judged as a shot",
    "view_lost": "frames {a}–{b} ({ta:.1f}–{tb:.1f} s): full draw, then the picture changed as the hand moved (an "
    "edit's cut or the camera swung away): whether an arrow left cannot be told; not judged as a shot",
}
# A shot judged from an oblique view because its arrow pointed into the depth (coach/shot_view.py).
ALONG_DEPTH_NOTE = (
    "shot {n}: the arrow pointed into the depth (the bow arm seen at {pct} % of its length at full draw): the rules "
    "measured in the picture's plane were not judged, and its draw start and anchor are uncertain; film square to "
    "the arrow to have them judged"
)
# A shot seen face-on whose bow arm was too little seen at full draw to tell where its arrow pointed.
ARROW_UNSEEN_NOTE = (
    "shot {n}: the bow arm was hardly seen at full draw, so whether the arrow lay square to the camera cannot be "
    "told: the rules measured in the picture's plane were not judged; keep the bow hand in the picture to have "
    "them judged"
)
# A hold the pose saw no full draw in, whose release the string's sound told (coach/phases/heard.py).
HEARD_NOTE = (
    "frames {a}–{b} ({ta:.1f}–{tb:.1f} s): the draw hand was not seen, but the string was heard at {t:.2f} s: "
    "counted as shot {n}, timed by its sound; its other phases are unknown and its form was not judged"
)
HEARD_LOST_NOTE = (
    "frames {a}–{b} ({ta:.1f}–{tb:.1f} s): full draw, then the picture lost the archer, but the string was heard "
    "at {t:.2f} s: counted as shot {n}, its release timed by its sound"
)
UNSEEN_NOTE = (
    "frames {a}–{b} ({ta:.1f}–{tb:.1f} s): the bow arm was up for {dur:.1f} s but no full draw was seen (the draw "
    "hand hidden or misplaced by the pose model); a shot there was not analysed"
)
# A shot whose archer was already at full draw when first seen (coach/phases/tracker.py: the clip starts there).
FIRST_SEEN_NOTE = (
    "shot {n}: the archer was already at full draw when first seen (frame {a}): the raise and the draw were not seen, "
    "and neither the rules of the draw nor the hold's length were judged"
)
# A shot whose shoulders the pose read at a width the follow-through never shows, the torso unchanged (frames.py
# ViewAfter.MISREAD): the same archer, misread through the hold.
MISREAD_NOTE = (
    "shot {n}: the pose read the archer's shoulders in the hold at a width the follow-through never shows, the torso "
    "unchanged (the pose misread the archer): its anchor and release are uncertain, and the rules timed from them "
    "were not judged"
)
# A shot whose draw hand the pose misread in the hold and snapped back as the arrow left (phases/anchor.py
# draw_leapt).
HAND_MISREAD_NOTE = (
    "shot {n}: the pose misread the draw hand in the hold (read at the bow hand, then snapped back as the arrow "
    "left): its anchor and release are uncertain, and the rules timed from them were not judged"
)
# The camera held off level (coach/engine.py setup_camera_roll, the median over the session's shots): the rules read
# against the picture's level took it out, and the coach is told.
CAMERA_ROLL_NOTE = (
    "the camera was held about {deg} deg off level (as the archer's standing trunk shows before each raise): the "
    "hands' level and the follow-through hand's height were read with that roll taken out"
)
# A shot read as drawn with the other hand than most of the session's (tracker.py learns the hand from each shot).
OTHER_HAND_NOTE = (
    "shot {n}: read as drawn with the {side} hand, unlike the session's other shots (the pose model may have read "
    "its picture mirrored): it was judged as a {side}-handed draw"
)
# The profile gives the hand, and every full draw was drawn with the other (PhaseTracker.other_hand_draws): none was
# a shot. coach/pipeline.py then analyses the file again with the hand the picture shows (MIRRORED_NOTE); a live
# run says so.
OTHER_HAND_ONLY_NOTE = (
    "no full draw with the {hand} hand, which the archer's profile gives, but with the {other} hand (first at frame "
    "{a}, {ta:.1f} s): the picture may be mirrored (a phone's front camera) or show another archer; analyse it with "
    "the {other} hand"
)
MIRRORED_NOTE = (
    "every full draw was drawn with the {other} hand, though the archer's profile gives the {hand} hand: the picture "
    "is mirrored (a phone's front camera) or shows another archer; its shots were judged as drawn with the {other} "
    "hand"
)
HIDDEN_HAND_NOTE = (
    "the archer's {side} hand was hidden in {pct} % of the frames they were seen in (a view from behind, or the hand "
    "out of the picture): a shot may have gone unseen; film from the front to have every shot found"
)


# No shot found, and one hand hidden (under the visibility the analysis keeps) in at least this share of the frames
# the archer was seen in: from behind, the draw hand is behind the head for the whole shot (real04: 96 %) and no
# draw can be followed. Said, so that "no shots found" is not read as "the archer did not shoot".
HIDDEN_HAND_SHARE = 0.5
# A standing trunk reads within ±2 deg of the picture's vertical from a level camera, and up to 5 from a high one (the
# picture's perspective: stance_high 2.4-4.8) [O]: beyond that the camera was held off level, and the coach is told.
ROLL_NOTE_DEG = 6.0


def hidden_hand_note(hidden: Mapping[str, int], frames_with_person: int) -> list[str]:
    """HIDDEN_HAND_NOTE for the hand hidden in most frames (`hidden`: side -> frames with the archer but not that
    hand), where that is HIDDEN_HAND_SHARE of the frames or more."""
    side, n = max(hidden.items(), key=lambda kv: kv[1])
    share = n / frames_with_person
    return [HIDDEN_HAND_NOTE.format(side=side, pct=round(100 * share))] if share >= HIDDEN_HAND_SHARE else []


def roll_note(rolls: Sequence[float]) -> list[str]:
    """CAMERA_ROLL_NOTE where the shots' median camera roll (deg; NaN where no standing setup was seen) is
    ROLL_NOTE_DEG or more."""
    seen = [r for r in rolls if not math.isnan(r)]
    roll = abs(median(seen)) if seen else 0.0
    return [CAMERA_ROLL_NOTE.format(deg=round(roll))] if roll >= ROLL_NOTE_DEG else []


def other_hand_note(hand: str, frame: int, t_s: float) -> str:
    """OTHER_HAND_ONLY_NOTE: the profile gives `hand`; the first full draw, with the other, was at `frame`."""
    return OTHER_HAND_ONLY_NOTE.format(hand=hand, other=other_hand(hand), a=frame, ta=t_s)
