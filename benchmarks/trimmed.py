"""The same shots from a video that begins a few frames later: every real track (../shared/realpose) and committed
golden track with its first 1-5 frames dropped, analysed as `coach analyze --pose-track` does, compared exactly
(every shot's raise, draw start, anchor and release frame, and every rule's verdict) with the whole track's.

    python benchmarks/trimmed.py

Two ways to begin later: `late` keeps the frame numbers (the archer came into the picture a few frames in, or a
pose track cut without renumbering, as coach/rejudge.py reads one), `cut` numbers the frames from the new first
one (a coach trimming the clip; marks compared n frames apart). Nothing about the shots changed, so neither
should the answer; a mark that moves shows an analysis that depends on where it started (the shoulder width's
window fills over the first 3 s, so a first shot inside them may still move). Printed per track: the trims whose
result is not the whole track's, and a summary line per kind.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from camera_motion import tracks  # noqa: E402

from coach.pipeline import analyze_track  # noqa: E402
from coach.pose_frame import PoseTrack, load_posetrack  # noqa: E402
from coach.results import SessionReport  # noqa: E402
from coach.track_transforms import clip  # noqa: E402

DROPPED = (1, 2, 3, 4, 5)
KINDS = {
    "late": lambda t, n: (replace(t, frames=t.frames[n:]), 0),
    "cut": lambda t, n: (clip(t, n, t.frames[-1].index), n),
}


def _answer(report: SessionReport, shift: int) -> list[tuple]:
    """Per shot: its marks in the whole track's numbers, and every rule's verdict."""
    out = []
    for s in report.shots:
        marks = (s.raise_start_frame, s.draw_start_frame, s.anchor_frame, s.release_frame)
        out.append((tuple(None if m is None else m + shift for m in marks), {f.rule: f.verdict for f in s.findings}))
    return out


def _differences(whole: list[tuple], trimmed: list[tuple]) -> str:
    if len(whole) != len(trimmed):
        return f"shots {len(whole)} -> {len(trimmed)}"
    said = []
    for i, ((marks, verdicts), (marks2, verdicts2)) in enumerate(zip(whole, trimmed), start=1):
        if marks != marks2:
            said.append(f"shot {i} marks {marks} -> {marks2}")
        changed = sorted(r for r in verdicts.keys() | verdicts2.keys() if verdicts.get(r) != verdicts2.get(r))
        if changed:
            said.append(f"shot {i} verdicts {', '.join(changed)}")
    return "; ".join(said)


def _trims(track: PoseTrack) -> dict[tuple[str, int], str]:
    """(kind, frames dropped) -> how the answer differs from the whole track's ("" where it does not)."""
    whole = _answer(analyze_track(track), 0)
    out = {}
    for kind, trim in KINDS.items():
        for n in DROPPED:
            trimmed, shift = trim(track, n)
            out[kind, n] = _differences(whole, _answer(analyze_track(trimmed), shift))
    return out


def main() -> int:
    same = dict.fromkeys(KINDS, 0)
    total = 0
    for path in tracks():
        got = _trims(load_posetrack(path))
        total += len(DROPPED)
        for (kind, _), diff in got.items():
            same[kind] += not diff
        differ = [f"{kind}/{n}: {diff}" for (kind, n), diff in got.items() if diff]
        print(f"{path.name.split('.pose')[0]:40} {'; '.join(differ) or 'the same however trimmed'}", flush=True)
    kinds = ", ".join(f"{kind} {same[kind]}/{total}" for kind in KINDS)
    print(f"trimmed: tracks begun 1-5 frames later give the whole track's marks and verdicts: {kinds}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
