"""An idle stretch between shots in a long session (issue #17, `ShotSpec.idle_before_s`): the archer stands,
walks out of the picture and back, and nocks the next arrow at the belt, as key poses for the timeline."""

from __future__ import annotations

import numpy as np

from coach.synth.pose import Key, Pose, with_


def idle_stretch(
    keys: list[Key], t: float, idle_s: float, walk_out_s: float, base: Pose, rng: np.random.Generator, snap
) -> float:
    """An idle stretch between shots (a long session): standing, walking out of the picture and back, and
    nocking the next arrow at the belt (the hands together, well below a raise's). Returns its end time."""
    end = t + idle_s
    walk = min(walk_out_s, max(0.0, idle_s - 12.0))
    stand = (idle_s - walk - 6.0) / 2.0 if walk else (idle_s - 3.0) / 2.0
    nock = with_(base, bow_el=-65.0, bow_az=35.0, bow_elbow=150.0, draw_x=0.05, draw_y=-0.52, draw_z=0.25)
    keys.append(Key(t, base))
    t = snap(t + max(stand, 0.5))
    keys.append(Key(t, with_(base, head_yaw=float(rng.uniform(-10, 40)))))
    if walk:
        away = with_(base, walk_x=6.0, head_yaw=-60.0)
        keys.append(Key(t + 3.0, away))  # out of the picture
        keys.append(Key(t + 3.0 + walk, away))
        t = snap(t + 6.0 + walk)
        keys.append(Key(t, base))
    t_nock = snap(max(t + 0.5, end - 3.0))
    keys.append(Key(t_nock, base))
    keys.append(Key(t_nock + 1.0, nock))
    keys.append(Key(t_nock + 2.0, nock))
    keys.append(Key(snap(end), base))
    return snap(end)
