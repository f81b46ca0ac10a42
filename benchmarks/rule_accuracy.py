"""Rule accuracy on the synthetic clips: findings against the faults the `.truth.json` sidecars list.

    python benchmarks/rule_accuracy.py                       # every clip in sample_videos/
    python benchmarks/rule_accuracy.py --clips fault_hold,clean_rh_3shots --pose-cache /tmp/poses
    python benchmarks/rule_accuracy.py --pose-cache tests/golden   # the committed tracks: no model run

For each clip the coach's report (per shot: the rule findings) is compared with the sidecar: a report shot is
paired with the truth shot whose full draw (anchor to release) it overlaps most, or else whose release frame is
nearest (within --match-s seconds), and a fault finding
counts for its rule family (`Rule.reports_as`: e.g. stillness_hold_time → stillness) on that shot. A finding
matches a sidecar fault with the same rule id on the same shot. Printed: precision and recall per rule and
overall, every fault flagged on the clean clips (per shot and session), the session consistency faults, and
the release-frame error per shot, and every phase mark's error over all shots (raise, draw start, anchor,
release: median and sum of |report − truth| in frames). `--pose-cache DIR` saves the MediaPipe landmarks on the first run
(`coach analyze --save-pose`) and re-analyses them on later runs, so that threshold tuning takes seconds.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RELEASE_TOL_FRAMES = 2  # issue #4: the release within ±2 frames on >= 95% of shots


@dataclass
class ClipResult:
    name: str
    truth_faults: set[tuple[str, int]]
    found: set[tuple[str, int]]
    found_detail: dict[tuple[str, int], list[str]]
    not_assessable: set[tuple[str, int]]
    session_faults: list[str]
    release_errors: list[tuple[int, int | None, int | None]]  # truth shot, truth frame, error (frames)
    # per truth shot found: each phase mark's error (coach.results.SHOT_MARKS; report − truth, frames; None
    # where the report has no mark)
    mark_errors: list[dict[str, int | None]] = field(default_factory=list)
    unmatched_report_shots: list[int] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def clean(self) -> bool:
        return not self.truth_faults


def _truth_phase_report(track, truth: dict, pack, profile):
    """Judge the rules on the sidecar's own shot phases, so rule accuracy is measured apart from the phase
    tracker's (coach/phases.py) errors."""
    from types import SimpleNamespace

    from coach.analyzer import Analyzer

    a = Analyzer(track.fps, track.width, track.height, pack=pack, profile=profile, source=track.source)
    for pf in track.frames:
        a.push_pose(pf)
    a.finish()
    hand = a.handedness or "right"
    a.forget_shots()
    for s in truth["shots"]:
        # the truth's marks, with ShotPhases' defaults for what only the tracker or the sound can tell
        defaults = dict(
            hand_stayed=False,
            flight_time_s=None,
            release_confidence=1.0,
            release_evidence=(),
            shoulders_misread=False,
            hand_misread=False,
            anchor_from_frame=None,
            handedness=hand,
        )
        a._complete(SimpleNamespace(**defaults, marks_confidence={}, **s, complete=True, release_source="truth"))
    return a.report()


def _analyse(mp4: Path, cache: Path | None, pack, profile, truth: dict | None = None):
    from coach.pipeline import analyze_track, analyze_video
    from coach.pose_frame import load_posetrack

    if truth is not None:
        if cache is None:
            raise SystemExit("rule_accuracy: --truth-phases needs --pose-cache")
        track = cache / f"{mp4.stem}.pose.json"
        if not track.exists():
            cache.mkdir(parents=True, exist_ok=True)
            analyze_video(mp4, pack=pack, profile=profile, save_pose=track)
        return _truth_phase_report(load_posetrack(track), truth, pack, profile)
    if cache is not None:
        golden = cache / f"{mp4.stem}.pose.json.gz"
        if golden.exists():  # tests/golden: the committed tracks of the committed clips
            return analyze_track(golden, pack=pack, profile=profile)
        track = cache / f"{mp4.stem}.pose.json"
        if track.exists() and track.stat().st_mtime >= mp4.stat().st_mtime:
            return analyze_track(track, pack=pack, profile=profile)
        cache.mkdir(parents=True, exist_ok=True)
        return analyze_video(mp4, pack=pack, profile=profile, save_pose=track)
    return analyze_video(mp4, pack=pack, profile=profile)


def _pair_shots(report_shots, truth_shots, tol_frames: float) -> dict[int, int]:
    """Report shot index → truth shot index (each used once): the same shot is the same full draw, so shots
    pair by how much their anchor-to-release spans overlap, or else by the nearest release within tol_frames.
    A release found late (a dead release seen only when the arms come down) is then still that shot's, and
    its error counts where it belongs: in the release-frame errors, not as a fault on a shot of its own."""
    pairs: dict[int, int] = {}
    used: set[int] = set()
    cands = []
    for rs in report_shots:
        rf = rs.release_frame if rs.release_frame is not None else rs.end_frame
        for ti, ts in enumerate(truth_shots):
            overlap = min(rf, ts["release_frame"]) - max(rs.anchor_frame, ts["anchor_frame"])
            d = abs(rf - ts["release_frame"])
            if overlap > 0 or d <= tol_frames:
                cands.append((-max(overlap, 0), d, rs.index, ti))
    for _, _, ri, ti in sorted(cands):
        if ri not in pairs and ti not in used:
            pairs[ri] = ti
            used.add(ti)
    return pairs


def evaluate_clip(
    mp4: Path, cache: Path | None, pack, profile, match_s: float, truth_phases: bool = False
) -> ClipResult:
    from coach.results import FAULT, NOT_ASSESSABLE, SHOT_MARKS

    truth = json.loads(mp4.with_suffix(".truth.json").read_text(encoding="utf-8"))
    t0 = time.perf_counter()
    report = _analyse(mp4, cache, pack, profile, truth if truth_phases else None)
    secs = time.perf_counter() - t0
    by_id = pack.by_id
    fam = {r.id: r.reports_as for r in pack.rules}
    truth_shots = truth["shots"]
    pairs = _pair_shots(report.shots, truth_shots, match_s * truth["fps"])
    found: set[tuple[str, int]] = set()
    detail: dict[tuple[str, int], list[str]] = defaultdict(list)
    na: set[tuple[str, int]] = set()
    unmatched = []
    for s in report.shots:
        ti = pairs.get(s.index)
        if ti is None:
            unmatched.append(s.index)
            ti = -1 - s.index  # faults on a shot that is not in the truth are all false positives
        for f in s.findings:
            key = (fam.get(f.rule, f.rule), ti)
            if f.verdict == FAULT:
                found.add(key)
                unit = f.unit or ""
                v = "—" if f.value is None else f"{f.value:.3g}{unit}"
                detail[key].append(f"{f.rule}={v}")
            elif f.verdict == NOT_ASSESSABLE:
                na.add(key)
    session = [
        f"{f.rule}={f.value:.3g}" if f.value is not None else f.rule for f in report.consistency if f.verdict == FAULT
    ]
    errors = []
    marks = []
    inv = {ti: ri for ri, ti in pairs.items()}
    for ti, ts in enumerate(truth_shots):
        ri = inv.get(ti)
        rf = report.shots[ri].release_frame if ri is not None else None
        errors.append((ti, ts["release_frame"], None if rf is None else rf - ts["release_frame"]))
        if ri is not None:
            marks.append({m: _error(getattr(report.shots[ri], m), ts.get(m)) for m in SHOT_MARKS})
    tf = {(f["rule"], int(f["shot"])) for f in truth.get("faults", [])}
    del by_id
    return ClipResult(
        mp4.stem, tf, found, dict(detail), na, session, errors, marks, unmatched_report_shots=unmatched, seconds=secs
    )


def _error(found: int | None, truth: int | None) -> int | None:
    return None if found is None or truth is None else found - truth


def _median(v: list[int]) -> int:
    return sorted(v)[len(v) // 2]


def _ratio(a: int, b: int) -> str:
    return f"{a / b:.2f}" if b else "  — "


def summarise(results: list[ClipResult], families: list[str]) -> tuple[str, dict]:
    tp: dict[str, int] = defaultdict(int)
    fp: dict[str, int] = defaultdict(int)
    fn: dict[str, int] = defaultdict(int)
    lines = []
    for c in results:
        for key in c.found:
            (tp if key in c.truth_faults else fp)[key[0]] += 1
        for key in c.truth_faults - c.found:
            fn[key[0]] += 1
    lines.append(f"{'rule':24} {'TP':>3} {'FP':>3} {'FN':>3}  precision recall")
    rules = [r for r in families if tp[r] or fp[r] or fn[r]] + sorted({k for k in (*tp, *fp, *fn) if k not in families})
    for r in rules:
        p, n = tp[r] + fp[r], tp[r] + fn[r]
        lines.append(f"{r:24} {tp[r]:>3} {fp[r]:>3} {fn[r]:>3}  {_ratio(tp[r], p):>9} {_ratio(tp[r], n):>6}")
    T, F, N = sum(tp.values()), sum(fp.values()), sum(fn.values())
    lines.append(f"{'overall':24} {T:>3} {F:>3} {N:>3}  {_ratio(T, T + F):>9} {_ratio(T, T + N):>6}")
    lines.append("")
    lines.append("Per clip (FP = fault found, not in the truth; FN = truth fault missed; n/a = rule not assessable):")
    for c in results:
        fps_ = sorted(c.found - c.truth_faults, key=lambda k: (k[1], k[0]))
        fns = sorted(c.truth_faults - c.found, key=lambda k: (k[1], k[0]))
        tag = "clean" if c.clean else f"{len(c.truth_faults)} faults"
        lines.append(f"  {c.name} ({tag}, {c.seconds:.1f} s)")
        for k in fps_:
            lines.append(f"    FP shot {k[1]}: {k[0]} ({', '.join(c.found_detail.get(k, []))})")
        for k in fns:
            why = " (not assessable)" if k in c.not_assessable else ""
            lines.append(f"    FN shot {k[1]}: {k[0]}{why}")
        if c.session_faults:
            lines.append(f"    session faults: {', '.join(c.session_faults)}")
        if c.unmatched_report_shots:
            lines.append(f"    report shots with no truth shot: {c.unmatched_report_shots}")
        errs = ", ".join(f"{ti}:{'missed' if e is None else f'{e:+d}'}" for ti, _, e in c.release_errors)
        lines.append(f"    release frame error (report − truth) per shot: {errs}")
    clean = [c for c in results if c.clean]
    n_flags = sum(len(c.found) + len(c.session_faults) for c in clean)
    lines.append("")
    lines.append(f"Fault flags on the {len(clean)} clean clips: {n_flags}")
    errs = [abs(e) for c in results for _, _, e in c.release_errors if e is not None]
    missed = sum(1 for c in results for _, _, e in c.release_errors if e is None)
    n_truth = len(errs) + missed
    within = sum(1 for e in errs if e <= RELEASE_TOL_FRAMES)
    if errs:
        lines.append(
            f"Release frame |error|: median {sorted(errs)[len(errs) // 2]}, max {max(errs)} frames "
            f"over {len(errs)} shots; {missed} truth shots not found"
        )
    if n_truth:
        lines.append(
            f"Release within ±{RELEASE_TOL_FRAMES} frames: {within}/{n_truth} truth shots ({within / n_truth:.0%})"
        )
    from coach.results import SHOT_MARKS

    mark_errs = {m: [abs(e[m]) for c in results for e in c.mark_errors if e[m] is not None] for m in SHOT_MARKS}
    if any(mark_errs.values()):
        parts = [
            f"{m.removesuffix('_frame').removesuffix('_start')} {_median(v)}/{sum(v)}"
            for m, v in mark_errs.items()
            if v
        ]
        n_found = sum(len(c.mark_errors) for c in results)
        lines.append(
            f"Phase marks |error| (frames, median/sum over the {n_found} truth shots found): {', '.join(parts)}"
        )
    summary = {
        "per_rule": {r: {"tp": tp[r], "fp": fp[r], "fn": fn[r]} for r in rules},
        "overall": {"tp": T, "fp": F, "fn": N},
        "clean_clip_flags": n_flags,
        "release_abs_errors": errs,
        "missed_shots": missed,
        "release_within_tol": within,
        "truth_shots": n_truth,
        "mark_abs_errors": mark_errs,
    }
    return "\n".join(lines), summary


def run(
    videos: Path,
    clips: list[str] | None,
    cache: Path | None,
    match_s: float = 0.5,
    profile=None,
    truth_phases: bool = False,
) -> tuple[str, dict]:
    from posture_rules.pack import Profile, load_pack

    pack = load_pack()
    profile = profile or Profile()
    mp4s = sorted(p for p in videos.glob("*.mp4") if p.with_suffix(".truth.json").exists())
    if clips:
        want = set(clips)
        mp4s = [p for p in mp4s if p.stem in want]
        missing = want - {p.stem for p in mp4s}
        if missing:
            raise SystemExit(f"rule_accuracy: no clip with a truth sidecar named {', '.join(sorted(missing))}")
    if not mp4s:
        raise SystemExit(f"rule_accuracy: no *.mp4 with a .truth.json sidecar in {videos}")
    results = []
    for mp4 in mp4s:
        results.append(evaluate_clip(mp4, cache, pack, profile, match_s, truth_phases))
        print(f"analysed {mp4.name} in {results[-1].seconds:.1f} s", file=sys.stderr, flush=True)
    families = list(dict.fromkeys(r.reports_as for r in pack.observable))
    return summarise(results, families)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--videos", default=str(ROOT / "sample_videos"), help="folder of NAME.mp4 + NAME.truth.json")
    ap.add_argument("--clips", default=None, help="comma-separated clip names (default: all)")
    ap.add_argument("--pose-cache", default=None, metavar="DIR", help="save / reuse pose tracks here")
    ap.add_argument("--match-s", type=float, default=0.5, help="max release-time gap to pair a shot (s)")
    ap.add_argument(
        "--truth-phases",
        action="store_true",
        help="judge on the sidecar's shot phases instead of the phase tracker's (isolates rule accuracy)",
    )
    ap.add_argument("--json", default=None, metavar="OUT", help="also write the summary as JSON")
    args = ap.parse_args(argv)
    text, summary = run(
        Path(args.videos),
        [c for c in args.clips.split(",") if c] if args.clips else None,
        Path(args.pose_cache) if args.pose_cache else None,
        args.match_s,
        truth_phases=args.truth_phases,
    )
    print(text)
    if args.json:
        Path(args.json).write_text(json.dumps(summary, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
