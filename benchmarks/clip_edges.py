"""Real shots in clips cut where real videos are cut: every labelled shot of ../shared/realpose in a clip that
begins at full draw, one that ends a few frames after the release, at half the frame rate, and through a converter
that keeps two frames of every three.

    python benchmarks/clip_edges.py
    python benchmarks/clip_edges.py --cuts start+0.2s,end+2,half_odd -v

A camera started late finds the archer already drawn; a phone clip stops 2-10 frames after the arrow left (or
holds the shot alone, both); a GIF or a cheap camera runs at 12-15 fps; a converter takes 30 fps to 20. None of
these needs new labels: the labelled release is still where it was.
Each cut clip is analysed as `coach analyze --pose-track` does (the labels' handedness, the clip's sound cut the
same way where it has one, as benchmarks/real_footage.py) and counts when it gives one shot with a release within
±2 frames of the labelled one (at a lower rate, ±1 of the frame the release is first seen on). A clip whose uncut
analysis misses its release is not cut: a cut cannot find what the whole clip does not.

A cut can hide a phase (the draw, the follow-through), so a rule may become not assessable; it must never give a
fault the uncut clip does not. Printed per clip: the cuts that did not give the labelled release (`0`: no shot,
`n shots`, or the frame found) or gave a new fault, and the summary line `clip edges: N/M cut clips give the
labelled release; faults the uncut clip lacks: K`.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from coach.evaluate import RELEASE_TOL_FRAMES, LabelledClip, analyse_clip, labelled_clips  # noqa: E402
from coach.track_transforms import at_half_rate, at_nth_dropped, clip, every_nth_dropped, half_rate  # noqa: E402

REALPOSE = ROOT.parent / "shared" / "realpose"
START_AFTER_ANCHOR_S = (0.0, 0.2, 0.4, 0.7, 1.0)  # the clip begins this long after the labelled anchor
END_AFTER_RELEASE = (2, 3, 5, 10)  # the clip ends this many frames after the labelled release
SHORT_CLIP = (0.4, 3)  # both: begins this long (s) after the anchor, ends this many frames after the release


@dataclass(frozen=True, slots=True)
class Cut:
    """How a clip is cut: frames `first`..`last` of the track (None: to its end), half of its frames, or every
    third frame dropped."""

    first: int = 0
    last: int | None = None
    half: str | None = None  # "even" or "odd"
    dropped: int | None = None  # the frames numbered this modulo 3 dropped (a converter from 30 fps to 20)

    def apply(self, track, env):
        """The track and its sound envelope (None: no sound) cut (`coach.evaluate.analyse_clip`'s transform)."""
        return self.track(track), self.envelope(env, track.fps)

    def track(self, track):
        if self.half is not None:
            return half_rate(track, odd=self.half == "odd")
        if self.dropped is not None:
            return every_nth_dropped(track, 3, self.dropped)
        last = self.last if self.last is not None else max(f.index for f in track.frames)
        return clip(track, self.first, last)

    def release(self, frame: int) -> tuple[int, int]:
        """Where the labelled release lands in the cut clip, and how far from it a found one may be."""
        if self.half is not None:
            return at_half_rate(frame, odd=self.half == "odd"), 1
        if self.dropped is not None:
            return at_nth_dropped(frame, 3, self.dropped), 1
        return frame - self.first, RELEASE_TOL_FRAMES

    def envelope(self, env, fps: float):
        """The sound cut the same way: its clock starts at the clip's first frame, and it ends with its last."""
        if env is None or self.half is not None or self.dropped is not None:
            return env  # the frames keep their times
        t_first = self.first / fps
        t_end = (self.last + 1) / fps if self.last is not None else float("inf")
        times = env.times()
        keep = (times + env.hop_s > t_first) & (times < t_end)
        k0 = int(keep.argmax()) if keep.any() else 0
        return replace(env, log_energy=env.log_energy[keep], t0_s=float(times[k0]) - t_first, wide_log_energy=None)


def cuts(shot: dict, fps: float) -> dict[str, Cut]:
    anchor, release = shot["anchor_frame"], shot["release_frame"]
    out = {f"start+{s:g}s": Cut(first=anchor + round(s * fps)) for s in START_AFTER_ANCHOR_S}
    out |= {f"end+{n}": Cut(last=release + n) for n in END_AFTER_RELEASE}
    # A phone clip of the shot alone: begun in the hold, stopped just after the arrow left.
    out["hold_only"] = Cut(first=anchor + round(SHORT_CLIP[0] * fps), last=release + SHORT_CLIP[1])
    out |= {f"half_{h}": Cut(half=h) for h in ("even", "odd")}
    out |= {f"drop3rd_{k}": Cut(dropped=k) for k in range(3)}
    return out


def analyse(lc: LabelledClip, cut: Cut | None):
    """The cut clip's report, with its sound cut the same way where it has one."""
    return analyse_clip(lc, transform=None if cut is None else cut.apply)


def outcome(report, want: int, tol: int) -> str | None:
    """None when the report gives the one shot released within `tol` of `want`; else what it gave."""
    found = [s.release_frame for s in report.shots if s.release_frame is not None]
    if len(found) == 1 and abs(found[0] - want) <= tol:
        return None
    return "0" if not found else f"{len(found)} shots" if len(found) > 1 else f"{found[0]} (want {want})"


def faults(report) -> set[str]:
    return {f.rule for s in report.shots for f in s.faults}


@dataclass(slots=True)
class Row:
    """One labelled clip's line: its cut clips, those that gave the labelled release, and the faults they gave
    that the uncut clip does not (a cut hides a phase, so a rule may become not assessable, never a fault)."""

    line: str
    good: int = 0
    total: int = 0
    new_faults: int = 0


def run(folder: Path, wanted: set[str] = frozenset(), verbose: bool = False):
    """Yields a Row per labelled clip."""
    for lc in labelled_clips(folder):
        if len(lc.shots) != 1:
            continue  # a negative (no shot), or several: a cut keeps one shot whole
        shot = lc.shots[0]
        whole = analyse(lc, None)
        if outcome(whole, shot["release_frame"], RELEASE_TOL_FRAMES) is not None:
            yield Row(f"{lc.name:40} not cut: the uncut clip does not give its release")
            continue
        row, misses = Row(""), []
        for name, cut in cuts(shot, float(lc.labels["fps"])).items():
            if wanted and name not in wanted:
                continue
            report = analyse(lc, cut)
            got = outcome(report, *cut.release(shot["release_frame"]))
            new = sorted(faults(report) - faults(whole))
            row.total += 1
            row.good += got is None
            row.new_faults += len(new)
            said = ([got] if got else []) + ([f"new faults {new}"] if new else [])
            if said or verbose:
                misses.append(f"{name}: {', '.join(said) or 'ok'}")
        row.line = f"{lc.name:40} {'; '.join(misses) or 'the labelled release in every cut, no new fault'}"
        yield row


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--folder", type=Path, default=REALPOSE)
    ap.add_argument("--cuts", default="", help="comma-separated cut names (default: all), e.g. start+0.2s,end+2")
    ap.add_argument("-v", "--verbose", action="store_true", help="print the cuts that gave the release too")
    args = ap.parse_args(argv)
    if not args.folder.is_dir():
        print(f"{args.folder}: no such folder (the real pose tracks live in ../shared/realpose)")
        return 1
    good = total = new = 0
    for row in run(args.folder, set(filter(None, args.cuts.split(","))), args.verbose):
        print(row.line, flush=True)
        good, total, new = good + row.good, total + row.total, new + row.new_faults
    print(f"clip edges: {good}/{total} cut clips give the labelled release; faults the uncut clip lacks: {new}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
