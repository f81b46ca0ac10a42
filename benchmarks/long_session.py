"""A whole training session on one video: full-rate vs adaptive analysis (issue #17), from one run.

    python benchmarks/long_session.py                 # 2 min, 3 shots, 720p (renders once, then reuses it)
    python benchmarks/long_session.py --ten           # the issue's 10 min, 12 shots, 720p (slow to render)
    python benchmarks/long_session.py --minutes 3 --shots 4 --no-replay
    python benchmarks/long_session.py --other-plan sparse_fps=3,preroll_s=3,settle_s=1   # two plans, one run

Renders (or reuses, from --out) a synthetic session with idle stretches (`coach.synth.scenarios.long_session`:
standing, nocking, walking out of the picture and back between shots), then analyses it twice, each run in its
own process so that its peak memory is its own: at the full rate, and adaptively (coach/sampling.py). Reports
both times, the speed-up, the frames the model analysed, the peak memory, the differences in shots, phase marks
and verdicts, and each run's release error against the clip's truth.

The pose model is stateful (its region of interest and landmark smoothing follow the last frames it saw), so
any change in the frames it has seen moves its landmarks a little for seconds afterwards, and where it can read
a pose two ways (the draw hand at the face) a tenth of a pixel can become tens of pixels
(benchmarks/model_history.py). --noise-floor runs the full rate a second time with the model seeing one frame
twice every 10 s (so within seconds before or during every shot, as a look-back changes its history), to show
how much the full-rate analysis itself moves for that. The sampler's own decisions are checked exactly by
replaying pose tracks (a track stands in for the model): every track of ../shared/realpose and the committed
golden tracks, as they are and with 30 s of idle before them (`coach.sampling_check`).
"""

from __future__ import annotations

import argparse
import json
import pickle
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from coach.sampling_check import differences  # noqa: E402

# The noise floor's model sees a frame twice this often: within seconds before or during every shot (shots are
# ~8 s from the raise to the follow-through's end), wherever they fall.
PERTURB_EVERY_S = 10.0
DEFAULT_OUT = Path(tempfile.gettempdir()) / "coach_long_session"


def render(minutes: float, shots: int, width: int, height: int, out: Path) -> Path:
    from coach.synth.generate import generate_clip
    from coach.synth.scenarios import long_session

    scn = long_session(minutes, shots, width, height)
    scn = replace(scn, name=f"long_session_{minutes:g}min_{shots}shots_{height}p")
    mp4 = out / f"{scn.name}.mp4"
    if mp4.exists() and mp4.with_suffix(".truth.json").exists():
        print(f"reusing {mp4}")
        return mp4
    print(f"rendering {mp4} ({minutes:g} min, {shots} shots, {width}x{height}) ...", flush=True)
    t0 = time.perf_counter()
    generate_clip(scn, out)
    print(f"  rendered in {time.perf_counter() - t0:.0f} s", flush=True)
    return mp4


def parse_plan(text: str):
    """A SamplingPlan from "sparse_fps=3,preroll_s=3,settle_s=1": those fields given, the others as they are."""
    from coach.sampling import SamplingPlan

    fields = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        key, _, value = part.partition("=")
        fields[key.strip()] = float(value)
    return SamplingPlan(**fields)


def child(mode: str, video: str, result: str) -> None:
    """One analysis in this process: the report, the wall time and the peak memory go to `result`. `mode`:
    full, perturbed, adaptive, or adaptive:<plan> (see parse_plan)."""
    from coach.pipeline import analyze_video

    kwargs = {"full_rate": not mode.startswith("adaptive")}
    if mode.startswith("adaptive:"):
        kwargs["sampling"] = parse_plan(mode.removeprefix("adaptive:"))
    if mode == "perturbed":
        import coach.pipeline as pipeline

        make = pipeline.make_estimator

        class FrameSeenTwice:
            """Every PERTURB_EVERY_S the model sees a frame twice: its history differs from a plain run's by one
            frame, seconds before or during each shot (as a look-back's does before it), while every frame still
            gets its own pose."""

            def __init__(self, model=None):
                self._e = make(model)
                self.model = self._e.model
                self._next_ms = 0.0

            def estimate(self, frame):
                if frame.t_ms >= self._next_ms:
                    self._next_ms = frame.t_ms + PERTURB_EVERY_S * 1000.0
                    self._e.estimate(frame)
                return self._e.estimate(frame)

            def reset(self):
                self._e.reset()

            def close(self):
                self._e.close()

        pipeline.make_estimator = FrameSeenTwice
    use = resource.getrusage(resource.RUSAGE_SELF)
    cpu0 = use.ru_utime + use.ru_stime
    t0 = time.perf_counter()
    report = analyze_video(video, **kwargs)
    dt = time.perf_counter() - t0
    use = resource.getrusage(resource.RUSAGE_SELF)
    cpu = use.ru_utime + use.ru_stime - cpu0
    out = {"report": report, "seconds": dt, "cpu_s": cpu, "peak_mb": use.ru_maxrss / 1024}
    Path(result).write_bytes(pickle.dumps(out))


def run(mode: str, video: Path) -> dict:
    with tempfile.NamedTemporaryFile(suffix=".pkl", delete=False) as f:
        out = Path(f.name)
    try:
        subprocess.run([sys.executable, __file__, "--child", mode, str(video), str(out)], check=True)
        return pickle.loads(out.read_bytes())
    finally:
        out.unlink(missing_ok=True)


def tally(diffs) -> str:
    """How many differences, and of what kind: the issue's aim is none in the shots found or the verdicts."""
    shots = sum(x.what == "shots" for x in diffs)
    verdicts = sum(x.what.startswith("verdict:") for x in diffs)
    return f"{len(diffs)} (shots {shots}, verdicts {verdicts}, marks {len(diffs) - shots - verdicts})"


def release_errors(report, truth: dict) -> list[str]:
    want = [s["release_frame"] for s in truth["shots"] if s.get("release_frame") is not None]
    got = [s.release_frame for s in report.shots if s.release_frame is not None]
    out = []
    for w in want:
        near = min(got, key=lambda g: abs(g - w), default=None)
        out.append("missed" if near is None or abs(near - w) > 15 else f"{near - w:+d}")
    return out


def replay_all() -> int:
    """Every real track and golden track through the sampler; returns the number of differences."""
    from coach.evaluate import labelled_clips
    from coach.pose_frame import load_posetrack
    from coach.sampling_check import padded, replay

    tracks = []
    real = ROOT.parent / "shared" / "realpose"
    if real.is_dir():
        tracks += [(c.name, load_posetrack(c.track), c.labels.get("handedness")) for c in labelled_clips(real)]
    else:
        print(f"  ({real} not found: real tracks skipped)")
    for p in sorted((ROOT / "tests" / "golden").rglob("*.pose.json.gz")):
        name = p.name.removesuffix(".pose.json.gz")
        truth = ROOT / "sample_videos" / f"{name}.truth.json"
        hand = json.loads(truth.read_text(encoding="utf-8"))["handedness"] if truth.exists() else None
        tracks.append((name, load_posetrack(p), hand))
    total = 0
    print(
        f"\nreplayed pose tracks (the track stands in for the model), {len(tracks)} tracks x (as is, 30 s idle before)"
    )
    for name, track, hand in tracks:
        first = track.frames[0] if track.frames else None
        row = []
        for label, tr in (("as is", track), ("idle", padded(track, 30.0, 10.0, rest=first))):
            full, adaptive, log = replay(tr, hand)
            d = differences(full, adaptive, tolerance=0)
            total += len(d)
            row.append(f"{label}: {len(full.shots)} shots, model on {log.model_runs}/{log.frames}, {len(d)} diffs")
            for x in d:
                row.append(f"    {x}")
        print(f"  {name[:34]:34s} " + "; ".join(r for r in row if not r.startswith("    ")))
        for r in row:
            if r.startswith("    "):
                print(r)
    print(f"  differences in shots, marks (exact) and verdicts over all replays: {total}")
    return total


def print_adaptive(label: str, full: dict, adaptive: dict) -> None:
    s = adaptive["report"].meta["sampling"]
    print(
        f"  {label}: {adaptive['seconds']:7.1f} s wall, {adaptive['cpu_s']:6.1f} s CPU; model on {s.get('model_runs')} "
        f"frames ({s.get('frames_sparse')} frames in {len(s.get('sparse_spans', []))} sparse stretches at "
        f"{s.get('sparse_fps')} fps, {s.get('dense_segments')} dense segments, ring peak "
        f"{s.get('ring_peak_frames')} frames / {s.get('ring_peak_mb')} MB, {s.get('frames_decoded_dense')} frames decoded "
        f"by the dense model's decoder), peak {adaptive['peak_mb']:.0f} MB"
    )
    print(
        f"    speed-up: {full['seconds'] / adaptive['seconds']:.2f}x wall, {full['cpu_s'] / adaptive['cpu_s']:.2f}x CPU "
        "(wall: what a coach waits for one video, the scout on the second core; CPU: the machine's work, what a "
        "batch with a worker on every core gains)"
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--minutes", type=float, default=2.0)
    ap.add_argument("--shots", type=int, default=3)
    ap.add_argument("--ten", action="store_true", help="the issue's session: 10 min, 12 shots")
    ap.add_argument("--width", type=int, default=1280)
    ap.add_argument("--height", type=int, default=720)
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"where the clip is rendered (default {DEFAULT_OUT})")
    ap.add_argument("--video", type=Path, help="analyse this video instead of the synthetic session")
    ap.add_argument("--noise-floor", action="store_true", help="also a full-rate run with the model's history moved")
    ap.add_argument("--no-replay", action="store_true", help="skip the pose-track replays")
    ap.add_argument(
        "--other-plan",
        metavar="FIELD=VALUE,...",
        help="also an adaptive run with these SamplingPlan fields, e.g. sparse_fps=3,preroll_s=3,settle_s=1 "
        "(compare two plans in one run: timings on a shared machine only compare within a run)",
    )
    ap.add_argument("--child", nargs=3, metavar=("MODE", "VIDEO", "RESULT"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(*args.child)
        return 0
    if args.ten:
        args.minutes, args.shots = 10.0, 12
    video = args.video or render(args.minutes, args.shots, args.width, args.height, args.out)
    truth_path = video.with_suffix(".truth.json")
    truth = json.loads(truth_path.read_text(encoding="utf-8")) if truth_path.exists() else None

    full = run("full", video)
    adaptive = run("adaptive", video)
    other = run(f"adaptive:{args.other_plan}", video) if args.other_plan else None
    fr, ad = full["report"], adaptive["report"]
    fps = fr.fps or 30.0
    print(
        f"\n{video.name}: {fr.frame_count} frames ({fr.frame_count / fps / 60:.1f} min at {fps:g} fps), "
        f"{fr.width}x{fr.height}"
    )
    runs = fr.meta.get("sampling", {}).get("model_runs", fr.frame_count)
    # The full-rate run is the sampler with every frame analysed: its scout runs on the samples too (the same
    # decisions, so the same model resets as the adaptive run), and counts in its model runs.
    print(
        f"  full rate : {full['seconds']:7.1f} s wall, {full['cpu_s']:6.1f} s CPU; model on {runs} frames "
        f"({fr.frame_count} + the scout's samples), peak {full['peak_mb']:.0f} MB"
    )
    print_adaptive("adaptive  ", full, adaptive)
    if other is not None:
        print_adaptive(f"plan {args.other_plan}", full, other)
        do = differences(fr, other["report"])
        print(f"    its differences from the full rate: {tally(do)}")
        for x in do:
            print(f"      {x}")
    d = differences(fr, ad)
    print(
        f"  shots: full {len(fr.shots)}, adaptive {len(ad.shots)}" + (f", truth {len(truth['shots'])}" if truth else "")
    )
    print(f"  differences (release within ±1 frame, other marks exact, every verdict): {tally(d)}")
    for x in d:
        print(f"    {x}")
    if truth:
        print(
            f"  release error vs truth (frames): full {release_errors(fr, truth)}, "
            f"adaptive {release_errors(ad, truth)}"
        )
    if args.noise_floor:
        pert = run("perturbed", video)
        dn = differences(fr, pert["report"])
        print(
            f"  noise floor: full rate with the model's history one frame different every {PERTURB_EVERY_S:g} s: "
            f"{tally(dn)}"
        )
        for x in dn:
            print(f"    {x}")
    if not args.no_replay:
        replay_all()
    return 0


if __name__ == "__main__":
    sys.exit(main())
