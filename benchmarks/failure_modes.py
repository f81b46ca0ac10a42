"""The failure modes real footage shows, as synthetic clips with exact truth, through the real pipeline.

Renders every `fm_*` scenario of coach.synth (thumb draw, clip cut after the release, clip starting at full
draw, 8 s hold with aiming micro-motion, let-down, handheld pan/zoom, 14 and 25 fps, rotated portrait), runs
`coach.pipeline.analyze_video` on each and prints per scenario: the true release frame(s), the found ones,
the error in frames, missed and extra shots, and the session notes.

    python benchmarks/failure_modes.py                          # render into a temp dir
    python benchmarks/failure_modes.py --out /tmp/fm            # keep the clips; re-runs reuse them
    python benchmarks/failure_modes.py --scenario fm_let_down --pose /tmp/fm-pose
    python benchmarks/failure_modes.py --golden tests/golden/failure_modes   # write the rounded pose tracks
    python benchmarks/failure_modes.py --tracks tests/golden/failure_modes   # re-analyse them, no MediaPipe
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from coach.pipeline import analyze_track, analyze_video  # noqa: E402
from coach.pose_frame import load_posetrack, save_posetrack  # noqa: E402
from coach.synth.scenarios import FAILURE_SCENARIOS  # noqa: E402
from coach.synth.scoring import match_releases, pose_errors, rounded_track  # noqa: E402

WINDOW_S = 1.0  # a found release further than this from every true one is an extra shot


def render(name: str, out: Path) -> tuple[Path, dict]:
    mp4, sidecar = out / f"{name}.mp4", out / f"{name}.truth.json"
    if not (mp4.exists() and sidecar.exists()):
        from coach.synth.generate import generate_clip

        print(f"rendering {name} ...", file=sys.stderr, flush=True)
        generate_clip(FAILURE_SCENARIOS[name], out)
    return mp4, json.loads(sidecar.read_text(encoding="utf-8"))


def mediapipe_line(truth: dict, track) -> str:
    """How MediaPipe read the archer: median body-joint error, the worst frame around each true release
    (2 before to 10 after), the frames misread by more than 0.2 SW and those read facing away (sides swapped),
    so that a tracker miss and a pose miss can be told apart."""
    pe = pose_errors(track, truth["landmarks_2d"])
    near = [
        f"{pe.worst(range(r - 2, r + 11)):.2f}" for s in truth["shots"] if (r := s.get("release_frame")) is not None
    ]

    def spans(sp: list[tuple[int, int]]) -> str:
        return ", ".join(f"{a}-{b}" if b > a else f"{a}" for a, b in sp) or "none"

    return (
        f"  MediaPipe: median error {pe.median():.3f} SW; worst near the release(s) {', '.join(near) or '-'} SW; "
        f"misread (> 0.2 SW) at {spans(pe.misread_spans())}; sides swapped at {spans(pe.swapped_spans())}"
    )


def describe(name: str, truth: dict, report) -> str:
    fps = truth["fps"]
    true_rel = [s["release_frame"] for s in truth["shots"] if s.get("release_frame") is not None]
    found = [s.release_frame for s in report.shots]
    m = match_releases(true_rel, found, round(WINDOW_S * fps))
    lines = [
        f"{name} ({fps} fps, {truth['n_frames']} frames): truth releases {true_rel}, found {found}, "
        f"error {m.errors} frames, missed {m.missed}, extra {m.extra}"
    ]
    for s in report.shots:
        na = sorted(f.rule for f in s.findings if f.verdict == "not_assessable")
        lines.append(
            f"  shot {s.index}: raise {s.raise_start_frame} draw {s.draw_start_frame} anchor {s.anchor_frame} "
            f"release {s.release_frame} end {s.end_frame} complete={s.complete} "
            f"release_confidence={s.release_confidence:.2f}; not assessable: {', '.join(na) or '-'}"
        )
    for n in report.notes:
        lines.append(f"  note: {n}")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=None, help="render (or reuse) the clips here (default: temp dir)")
    ap.add_argument("--scenario", action="append", choices=sorted(FAILURE_SCENARIOS), help="only these")
    ap.add_argument("--pose", type=Path, default=None, help="save each clip's full pose track here")
    ap.add_argument("--golden", type=Path, default=None, help="save rounded, gzipped pose tracks here")
    ap.add_argument("--tracks", type=Path, default=None, help="re-analyse NAME.pose.json.gz tracks from here")
    args = ap.parse_args()
    names = args.scenario or list(FAILURE_SCENARIOS)
    with tempfile.TemporaryDirectory() as tmp:
        out = args.out or Path(tmp)
        out.mkdir(parents=True, exist_ok=True)
        for name in names:
            t0 = time.perf_counter()
            if args.tracks is not None:
                track = load_posetrack(args.tracks / f"{name}.pose.json.gz")
                truth = {**track.meta["truth"]}
                report = analyze_track(track)
                extra = ""
            else:
                mp4, truth = render(name, out)
                pose = (args.pose or Path(tmp)) / f"{name}.pose.json.gz"
                pose.parent.mkdir(parents=True, exist_ok=True)
                report = analyze_video(mp4, save_pose=pose)
                extra = mediapipe_line(truth, load_posetrack(pose))
                if args.golden is not None:
                    args.golden.mkdir(parents=True, exist_ok=True)
                    note = (
                        f"MediaPipe pose of `coach synth --scenario {name}` (x, y to 4 decimals, z dropped, "
                        "visibility to 2); truth from its .truth.json"
                    )
                    track = rounded_track(load_posetrack(pose), truth, note)
                    track.source = f"{name}.mp4"
                    save_posetrack(track, args.golden / f"{name}.pose.json.gz")
            print(describe(name, truth, report) + f"  [{time.perf_counter() - t0:.0f} s]", flush=True)
            if extra:
                print(extra, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
