"""What the hand-labelled observations of the real archers in ../shared/realpose show passing: a fault on one of
these rules is one the footage contradicts. Only rules an observation speaks to are listed, with its words."""

from __future__ import annotations

OBSERVED_PASSING: dict[str, dict[str, str]] = {
    "real01_compound_front_oblique": {
        "cup_of_water": "draw elbow at or slightly above arrow height at full draw (150, 200, 250)",
        "stillness": "bow and draw hand steady (100-254)",
        "stillness_hold_time": "anchor ~87 -> release 255 (~5.6 s at full draw)",
        "follow_through_arm": "bow arm stays up and bow stays vertical (258-285)",
    },
    "real02_barebow_front": {
        "cup_of_water": "draw elbow slightly above arrow line at full draw (132-192)",
        "straight_bow_arm": "bow arm straight with arm guard (200)",
        "anchor_under_jaw": "under-jaw anchor",
        "draw_tempo": "draw 78 -> 118: 1.3 s",
        "stillness_hold_time": "very long hold until release at 308 (~6 s), hand steady",
        "hou_shou_xiao": "draw hand moves back along neck (308-311)",
    },
    "real03_recurve_front_bystanders": {
        "cup_of_water": "draw forearm roughly horizontal, elbow about level with the arrow (100, 135, 170)",
        "anchor_under_jaw": "settles down to an under-chin anchor (66-84)",
        "draw_tempo": "draw 58 -> 82: 0.8 s",
    },
    "real05_recurve_front_crowd": {
        "draw_tempo": "draw 104 -> 125: 0.7 s (an elite recurve archer)",
        "cup_of_water": "elbow at or slightly above arrow height (150-233)",
        "straight_bow_arm": "bow arm straight",
        "anchor_under_jaw": "under-chin anchor, string at the centre of nose and chin (124-233)",
        "hou_shou_xiao": "hand slides back along the neck (235-254)",
        "follow_through_arm": "bow arm stays up while the bow rolls forward in the sling (236-271)",
    },
    "real06_recurve_behind_handheld": {
        "straight_bow_arm": "bow arm straight, held level",
        "stillness_hold_time": "long hold at anchor (~64 frames, ~2.1 s)",
    },
    "real07_recurve_faceon_close_longhold": {
        "anchor_under_jaw": "anchor under the chin/jaw",
        "stillness_hold_time": "very long hold at anchor (~176 frames = 7 s at 25 fps)",
    },
    "real08_recurve_faceon_lowres": {
        "straight_bow_arm": "bow arm straight",
        "stillness_hold_time": "long hold at anchor (~77 frames, ~3 s)",
    },
}
