"""Release-frame error per shot, pose only vs sound+pose (coach/audio/).

    python benchmarks/release_timing.py                       # sample_videos/*.mp4 + ../shared/realpose/*.audio.json
    python benchmarks/release_timing.py --render clean_rh_3shots,fault_release   # render synth clips first
    python benchmarks/release_timing.py --pose-cache /tmp/poses   # keep the pose tracks; re-runs take seconds

Videos: every `*.mp4` with a `*.truth.json` beside it. One without an audio track is first copied into a
temp folder with a synthetic sound track (`coach.synth.audio.add_soundtrack`; background cycling through
none / noise / speech, with an impact). MediaPipe runs once per video (pose track saved); the pose-only
result is the same track re-analysed without the sound. Real footage: each `*.audio.json` envelope in
../shared/realpose with its pose track and labels.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from coach.audio import audio_cues, cues_from_envelope, load_audio, load_envelope  # noqa: E402
from coach.pipeline import analyze_track, analyze_video  # noqa: E402
from coach.pose_frame import load_posetrack  # noqa: E402
from coach.synth.audio import NOISES, add_soundtrack  # noqa: E402


def _match(truth_frames: list[int], shots) -> list:
    """For each true release, the found shot whose release is nearest (None if none within 1 s)."""
    out = []
    for tf in truth_frames:
        best = min(
            (s for s in shots if s.release_frame is not None),
            key=lambda s: abs(s.release_frame - tf),
            default=None,
        )
        out.append(best if best is not None and abs(best.release_frame - tf) <= 30 else None)
    return out


def _rows(name: str, truth_frames: list[int], pose_shots, fused_shots, audio: str) -> list[dict]:
    rows = []
    for i, (tf, p, f) in enumerate(
        zip(truth_frames, _match(truth_frames, pose_shots), _match(truth_frames, fused_shots))
    ):
        rows.append(
            {
                "clip": name,
                "shot": i,
                "audio": audio,
                "truth": tf,
                "pose": None if p is None else p.release_frame,
                "fused": None if f is None else f.release_frame,
                "source": None if f is None else f.release_source,
                "flight_s": None if f is None else f.flight_time_s,
            }
        )
    return rows


def render(names: list[str], out: Path) -> None:
    from coach.synth.generate import generate_clip
    from coach.synth.scenarios import SCENARIOS

    for n in names:
        print(f"rendering {n} ...", file=sys.stderr, flush=True)
        generate_clip(SCENARIOS[n], out)


def run_videos(folder: Path, tmp: Path, model: str | None, cache: Path | None = None) -> list[dict]:
    rows = []
    for k, mp4 in enumerate(sorted(folder.glob("*.mp4"))):
        truth_path = mp4.parent / (mp4.stem + ".truth.json")
        if not truth_path.exists():
            continue
        truth = json.loads(truth_path.read_text(encoding="utf-8"))
        video = mp4  # the clip as committed, before any sound track is added
        audio = "recorded"
        if load_audio(mp4) is None:
            noise = NOISES[k % len(NOISES)]
            sound = tmp / mp4.name
            add_soundtrack(mp4, truth, sound, seed=100 + k, impact=True, noise=noise)
            mp4, audio = sound, f"synth:{noise}"
        print(f"analysing {mp4.name} ({audio}) ...", file=sys.stderr, flush=True)
        model_tag = f".{Path(model).stem}" if model else ""
        cached = cache / f"{mp4.stem}{model_tag}.pose.json" if cache is not None else None
        cues = audio_cues(mp4)
        if cached is not None and cached.exists() and cached.stat().st_mtime >= video.stat().st_mtime:
            # The same pose, timed with the same sound as analyze_video would: seconds, not minutes.
            track = load_posetrack(cached)
            fused = analyze_track(track, release_refiner=cues.refiner(track.fps) if cues else None)
        else:
            track = cached if cached is not None else tmp / (mp4.stem + ".pose.json")
            if cached is not None:
                cache.mkdir(parents=True, exist_ok=True)
            fused = analyze_video(mp4, model=model, save_pose=track, audio=True)
        pose = analyze_track(track)
        rel = [s["release_frame"] for s in truth["shots"]]
        rows += _rows(mp4.stem, rel, pose.shots, fused.shots, audio if cues else "none")
    return rows


def run_real(folder: Path) -> list[dict]:
    rows = []
    for env_path in sorted(folder.glob("*.audio.json")):
        name = env_path.name.removesuffix(".audio.json")
        labels_path = folder / f"{name}.labels.json"
        if not labels_path.exists():
            continue
        labels = json.loads(labels_path.read_text(encoding="utf-8"))
        track = folder / labels["pose_track"]
        cues = cues_from_envelope(load_envelope(env_path))
        pose = analyze_track(track)
        fused = analyze_track(track, release_refiner=cues.refiner(labels["fps"]))
        rel = [s["release_frame"] for s in labels["shots"]]
        rows += _rows(name, rel, pose.shots, fused.shots, "real envelope")
    return rows


def _err(a: int | None, b: int) -> str:
    return "miss" if a is None else f"{a - b:+d}"


def report(rows: list[dict]) -> str:
    lines = [
        f"{'clip':34} {'shot':>4} {'audio':>14} {'truth':>5} {'pose':>5} {'err':>4} {'fused':>5} {'err':>4} "
        f"{'source':>10} {'flight':>6}"
    ]
    for r in rows:
        fl = "" if r["flight_s"] is None else f"{r['flight_s']:.2f}"
        lines.append(
            f"{r['clip'][:34]:34} {r['shot']:>4} {r['audio'][:14]:>14} {r['truth']:>5} {str(r['pose']):>5} "
            f"{_err(r['pose'], r['truth']):>4} {str(r['fused']):>5} {_err(r['fused'], r['truth']):>4} "
            f"{str(r['source']):>10} {fl:>6}"
        )
    with_audio = [r for r in rows if r["audio"] != "none"]
    n = len(with_audio)
    if n:

        def ok(key: str) -> int:
            return sum(r[key] is not None and abs(r[key] - r["truth"]) <= 1 for r in with_audio)

        def exact(key: str) -> int:
            return sum(r[key] == r["truth"] for r in with_audio)

        lines.append("")
        lines.append(f"shots with audio: {n}")
        for key, label in (("pose", "pose only"), ("fused", "sound+pose")):
            lines.append(
                f"  {label:11} within ±1 frame: {ok(key)}/{n} ({100 * ok(key) / n:.0f}%), exact: {exact(key)}/{n}"
            )
        by_sound = sum(r["source"] == "sound+pose" for r in with_audio)
        lines.append(f"  timed by sound: {by_sound}/{n}")
        # Sound only moves a release the pose found, within ±0.25 s: judge it on those shots.
        found = [r for r in with_audio if r["pose"] is not None and abs(r["pose"] - r["truth"]) <= 7]
        m = len(found)
        if m:
            f_ok = sum(r["fused"] is not None and abs(r["fused"] - r["truth"]) <= 1 for r in found)
            p_ok = sum(abs(r["pose"] - r["truth"]) <= 1 for r in found)
            lines.append(
                f"  of the {m} shots the pose found within ±7 frames: pose ±1 {p_ok}/{m}, sound+pose ±1 {f_ok}/{m} "
                f"({100 * f_ok / m:.0f}%), exact {sum(r['fused'] == r['truth'] for r in found)}/{m}"
            )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--samples", default=str(ROOT / "sample_videos"), help="folder of *.mp4 + *.truth.json")
    ap.add_argument("--realpose", default=str(ROOT.parent / "shared" / "realpose"))
    ap.add_argument("--render", default="", help="comma-separated synth scenarios to render and include")
    ap.add_argument("--model", default=None)
    ap.add_argument("--json", default=None, help="write the rows here")
    ap.add_argument("--pose-cache", default=None, metavar="DIR", help="save / reuse the clips' pose tracks here")
    args = ap.parse_args(argv)
    cache = Path(args.pose_cache) if args.pose_cache else None
    rows: list[dict] = []
    with tempfile.TemporaryDirectory(prefix="release_timing_") as t:
        tmp = Path(t)
        samples = Path(args.samples)
        if samples.is_dir():
            rows += run_videos(samples, tmp, args.model, cache)
        if args.render:
            rendered = tmp / "rendered"
            render([n.strip() for n in args.render.split(",") if n.strip()], rendered)
            (tmp / "sound").mkdir()
            rows += run_videos(rendered, tmp / "sound", args.model)
    real = Path(args.realpose)
    if real.is_dir():
        rows += run_real(real)
    print(report(rows))
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
