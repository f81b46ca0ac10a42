"""How far each rule's limits lie from the readings they split, in units of how much a reading moves when the same
shot is filmed again: every real track (../shared/realpose) and committed golden track analysed as it is and
through the re-filming transforms of benchmarks/pose_noise.py and benchmarks/camera_motion.py (jitter, lost,
repeated and unevenly timed frames, pans, zooms, a rolled camera), mirrored and at half the frame rate.

    python benchmarks/rule_margins.py

Printed per rule: its spread (the 95th percentile of how far a shot's reading moved between the original and a
re-filmed copy of the same shot), and for each limit the original readings nearest to it on either side: the
nearest that passed and the nearest that faulted, each with its distance in spreads. A reading within one spread
of a limit is a knife-edge (marked `!`): filmed again, that shot may come out the other way. real08's still hold
read 0.0442 SW against stillness's old limit of 0.045 (0.2 spreads): zoomed, or with five of its frames hidden
by a passer-by, it read 0.046 and 0.045 and was a fault.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from camera_motion import TRANSFORMS as CAMERA  # noqa: E402
from camera_motion import tracks  # noqa: E402
from pose_noise import TRANSFORMS as NOISE  # noqa: E402

from coach.track_transforms import half_rate, mirror  # noqa: E402

TRANSFORMS = {**NOISE, **CAMERA, "mirror": mirror, "half_rate": half_rate}


@dataclass(frozen=True, slots=True)
class Reading:
    """One shot's reading of one rule (`rule`), and its verdict."""

    track: str
    release: int
    rule: str
    value: float
    verdict: str


def readings(report, track: str) -> list[Reading]:
    return [
        Reading(track, s.release_frame, f.rule, float(f.value), f.verdict)
        for s in report.shots
        if s.release_frame is not None
        for f in s.findings
        if f.value is not None and not math.isnan(f.value) and f.verdict in ("pass", "fault")
    ]


def moved(base: list[Reading], copy: list[Reading], rate: int) -> list[tuple[str, float]]:
    """(rule, |change|) for every reading of `base` whose shot the copy found again (release within 2 frames)."""
    by_shot = {(r.release, r.rule): r.value for r in copy}
    out = []
    for r in base:
        near = [v for (rel, rule), v in by_shot.items() if rule == r.rule and abs(rel * rate - r.release) <= 2 * rate]
        if near:
            out.append((r.rule, abs(near[0] - r.value)))
    return out


def nearest(originals: list[Reading], limit: float, side: str, verdict: str) -> Reading | None:
    """The reading nearest the limit among those with this verdict (a fault only on the limit's own side)."""
    beyond = (lambda v: v < limit) if side == "below" else (lambda v: v > limit)
    own = [r for r in originals if r.verdict == verdict and (verdict == "pass" or beyond(r.value))]
    return min(own, key=lambda r: abs(r.value - limit), default=None)


def describe(r: Reading | None, limit: float, spread: float) -> str:
    if r is None:
        return "—"
    gap = abs(r.value - limit) / spread if spread > 0 else math.inf
    mark = "!" if gap < 1 else " "
    return f"{mark}{r.value:.4g} ({gap:.1f}) {r.track}@{r.release}"


def main() -> int:
    from coach.pipeline import analyze_track
    from coach.pose_frame import load_posetrack
    from posture_rules.pack import load_pack

    originals: list[Reading] = []
    changes: dict[str, list[float]] = {}
    for path in tracks():
        track = load_posetrack(path)
        name = path.name.split(".pose")[0]
        base = readings(analyze_track(track), name)
        originals += base
        for key, transform in TRANSFORMS.items():
            copy = readings(analyze_track(transform(track)), name)
            for rule, change in moved(base, copy, 2 if key == "half_rate" else 1):
                changes.setdefault(rule, []).append(change)
        print(f"analysed {name}", flush=True)
    edges = 0
    print(f"\n{'rule':24} {'spread':>8}  limit: nearest pass (spreads) · nearest fault (spreads)")
    for rule in load_pack().rules:
        moves = changes.get(rule.id)
        if not moves:
            continue
        spread = float(np.percentile(moves, 95))
        own = [r for r in originals if r.rule == rule.id]
        sides = []
        for side, limit in (("below", rule.thresholds.enter_below), ("above", rule.thresholds.enter_above)):
            if limit is None:
                continue
            passing, faulting = nearest(own, limit, side, "pass"), nearest(own, limit, side, "fault")
            edges += any(r is not None and abs(r.value - limit) < spread for r in (passing, faulting))
            sides.append(f"{side} {limit:g}: {describe(passing, limit, spread)} · {describe(faulting, limit, spread)}")
        print(f"{rule.id:24} {spread:8.4g}  " + "  |  ".join(sides), flush=True)
    print(f"\nrule margins: {edges} limits with an original reading within one spread (knife-edges)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
