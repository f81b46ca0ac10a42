"""The same shots filmed another way, on the video itself: each sample clip re-encoded (MPEG-4 and H.264 at low
bit rates), downscaled to 480p and 270p, 30 % darker and brighter, cropped to the upper body, at half the frame
rate, mirrored and turned 8 deg off level, then analysed with MediaPipe as `coach analyze` does. Printed per clip
and transform: the releases (at the transformed rate), the faults per shot, and whether the result is the
original's (same shots, releases ±1 frame at the new rate, no fault the original lacks; a fault may only become
"not assessable"), or the same where the report says it is unsure ("same, uncertain: ..." with what it said: a
release said uncertain, a draw seen and not analysed, a fault the original could not judge and the clip's truth has).

    python benchmarks/metamorphic.py                            # every sample clip (about a minute a clip)
    python benchmarks/metamorphic.py --clips short_1shot --transforms mpeg4,half_rate
    python benchmarks/metamorphic.py --poses /tmp/meta_poses   # keep MediaPipe's tracks; a second run takes seconds

The pose-track transforms (mirror, half rate, crop) are also a test (tests/e2e/test_metamorphic.py); this one adds
what only the picture shows: compression, scale, light, and MediaPipe on a turned picture.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
Frame = np.ndarray


def _even(n: float) -> int:
    return max(2, int(round(n / 2)) * 2)


def _scale_to(height: int) -> Callable[[Frame], Frame]:
    def f(img: Frame) -> Frame:
        h, w = img.shape[:2]
        return cv2.resize(img, (_even(w * height / h), height), interpolation=cv2.INTER_AREA)

    return f


def _light(gain: float) -> Callable[[Frame], Frame]:
    def f(img: Frame) -> Frame:
        return cv2.convertScaleAbs(img, alpha=gain, beta=0)

    return f


def _upper_body(img: Frame) -> Frame:
    h, w = img.shape[:2]
    return img[: _even(h * 0.62), : _even(w)]


def _rolled(degrees: float) -> Callable[[Frame], Frame]:
    """The camera held `degrees` off level (counter-clockwise), the corners the turn uncovers black."""

    def f(img: Frame) -> Frame:
        h, w = img.shape[:2]
        turn = cv2.getRotationMatrix2D((w / 2, h / 2), degrees, 1.0)
        return cv2.warpAffine(img, turn, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)

    return f


# name -> (frame transform, codec, keep every n-th frame, bit-rate or quality note)
TRANSFORMS: dict[str, tuple[Callable[[Frame], Frame] | None, str, int]] = {
    "mpeg4": (None, "mpeg4", 1),  # MPEG-4 Part 2 at a low bit rate: ~33 dB PSNR, blocky
    "h264_low": (None, "h264", 1),  # H.264 at CRF 38
    "480p": (_scale_to(480), "h264", 1),
    "270p": (_scale_to(270), "h264", 1),
    "darker": (_light(0.7), "h264", 1),
    "brighter": (_light(1.3), "h264", 1),
    "upper_body": (_upper_body, "h264", 1),
    "half_rate": (None, "h264", 2),
    "mirrored": (lambda img: np.ascontiguousarray(img[:, ::-1]), "h264", 1),
    "rolled": (_rolled(-8.0), "h264", 1),  # a phone held 8 deg off level: MediaPipe on the turned picture itself
}


def transform_clip(src: Path, out: Path, name: str) -> Path:
    """Write the transformed copy of `src` to `out` (frames through OpenCV, encoded with PyAV)."""
    import av

    from coach.video_io import read_frames

    fn, codec, every = TRANSFORMS[name]
    cap = cv2.VideoCapture(str(src))
    fps = cap.get(cv2.CAP_PROP_FPS) or 30.0
    cap.release()
    frames = [f if fn is None else fn(f) for i, f in enumerate(read_frames(src)) if i % every == 0]
    h, w = frames[0].shape[:2]
    w, h = _even(w), _even(h)
    with av.open(str(out), "w") as c:
        s = c.add_stream("mpeg4" if codec == "mpeg4" else "libx264", rate=round(fps / every))
        s.width, s.height, s.pix_fmt = w, h, "yuv420p"
        if codec == "mpeg4":
            s.bit_rate = 250_000
        else:
            s.options = {"crf": "38" if name == "h264_low" else "26", "preset": "veryfast"}
        for img in frames:
            for p in s.encode(av.VideoFrame.from_ndarray(np.ascontiguousarray(img[:h, :w]), format="bgr24")):
                c.mux(p)
        for p in s.encode():
            c.mux(p)
    return out


def _faults(shot) -> set[str]:
    return {f.rule for f in shot.findings if f.verdict == "fault"}


def _unanalysed(report) -> list[tuple[int, int]]:
    """The frames of each draw the report says it saw but did not analyse (its session note, as the archer reads
    it: "the bow arm was up ... a shot there was not analysed")."""
    from coach.wording.machine import UNSEEN_DRAW

    return [(int(m["first"]), int(m["last"])) for m in map(UNSEEN_DRAW.match, report.notes) if m]


def _said_unanalysed(base, moved, moved_frame) -> tuple[list, list[str]]:
    """The original's shots less those whose release lies in a draw the transformed report says it did not analyse
    (a shot said uncertain, not lost unsaid), and what was said of them."""
    spans = _unanalysed(moved)
    kept, said = [], []
    for b in base.shots:
        at = moved_frame(b.release_frame) if b.release_frame is not None else None
        span = next((s for s in spans if at is not None and s[0] <= at <= s[1]), None)
        if span is None:
            kept.append(b)
        else:
            said.append(f"shot {b.index + 1} not analysed, said so (draw at frames {span[0]}–{span[1]})")
    return kept, said


def _truth_shot(truth: dict | None, base_shot) -> tuple[int | None, set[str]]:
    """The release and the faults the clip was made with, of the truth's shot whose release is nearest the
    original's (None and none without a truth; a labelled shot whose release was not seen is passed over)."""
    shots = [
        (k, s["release_frame"])
        for k, s in enumerate((truth or {}).get("shots", []))
        if s.get("release_frame") is not None
    ]
    if not shots or base_shot.release_frame is None:
        return None, set()
    k, release = min(shots, key=lambda kr: abs(kr[1] - base_shot.release_frame))
    return release, {f["rule"] for f in truth.get("faults", []) if f.get("shot") == k}


def _apart(got: int | None, want: int) -> bool:
    """A release `got` (None: not found) more than a frame from `want`."""
    return got is None or abs(got - want) > 1


def compare(base, moved, half_rate: bool, truth: dict | None = None) -> str:
    """'same' (or 'same, uncertain: ...' where either reading said the shot uncertain), or what differs. Uncertain
    goes both ways: the transform may hide what the original showed, and the original may be the reading the pose
    model lost (stance_high shot 2's draw hand, hidden in the original and seen at 480p); a fault against a pass,
    or a sure release moved, is a difference either way. A shot the transformed report leaves out is uncertain
    only where it says so (a draw seen, not analysed, over the original's release); a shot lost unsaid or an extra
    shot differs. Where the clip's truth is given (`truth`, the synthetic clip's `.truth.json`), a release within a
    frame of the truth's is the same, and a fault where the original could not judge the rule (not assessable) is
    uncertain if the truth has that fault: the copy saw what the original could not, and saw it right; without
    the truth, or against it, it differs."""
    from coach.engine import phase_uncertain_rules
    from coach.results import MIN_MARK_CONFIDENCE
    from coach.track_transforms import at_half_rate

    moved_frame = at_half_rate if half_rate else int

    base_shots, unsure = base.shots, []
    if len(moved.shots) != len(base.shots):
        base_shots, unsure = _said_unanalysed(base, moved, moved_frame)
        if len(moved.shots) != len(base_shots):
            return f"shots {len(base.shots)} -> {len(moved.shots)}"
    out, by_truth = [], []
    for b, m in zip(base_shots, moved.shots):
        true_release, true_faults = _truth_shot(truth, b)
        if b.release_frame is not None and _apart(m.release_frame, moved_frame(b.release_frame)):
            release = f"shot {b.index + 1} release {b.release_frame} -> {m.release_frame}"
            either = min(m.release_confidence or 0.0, b.release_confidence or 0.0)
            if true_release is not None and not _apart(m.release_frame, moved_frame(true_release)):
                # Within a frame of the truth's: the original's pose is off by one itself (real07: 263 for 264).
                by_truth.append(f"{release}, the truth's {true_release}")
            else:
                # Said uncertain (the transform hid the moment it left, or the original did), its rules not
                # judged: allowed, and shown.
                (unsure if either < MIN_MARK_CONFIDENCE else out).append(release)
        new, unjudged = _faults(m) - _faults(b), phase_uncertain_rules(b.findings)
        not_judged = {f.rule for f in b.findings if f.verdict == "not_assessable"} - unjudged
        seen_right = (new - unjudged) & not_judged & true_faults
        if new - unjudged - seen_right:
            out.append(f"shot {b.index + 1} new faults {sorted(new - unjudged - seen_right)}")
        if new & unjudged:
            unsure.append(
                f"shot {b.index + 1} faults where the original's phase was uncertain {sorted(new & unjudged)}"
            )
        if seen_right:
            unsure.append(
                f"shot {b.index + 1} faults the original could not judge, as the truth has them "
                f"{sorted(seen_right)}"
            )
        verdicts = {f.rule: f.verdict for f in m.findings}
        passing = [r for r in _faults(b) - _faults(m) if verdicts.get(r) != "not_assessable"]
        if passing:
            out.append(f"shot {b.index + 1} faults now passing {sorted(passing)}")
    if out:
        return "; ".join(out)
    said = "same" if not unsure else "same, uncertain: " + "; ".join(unsure)
    return said + (f" ({'; '.join(by_truth)})" if by_truth else "")


def _analyse(video: Path, poses: Path | None, make: Callable[[Path], Path] | None = None):
    """The report on `video` (made first by `make(path)` where given). With `poses`, from MediaPipe's track of it
    kept there (`<stem>.pose.json.gz`, made once, its sound left out), so that a change to the analysis is
    measured again in seconds instead of the model's ~50 minutes."""
    from coach.pipeline import analyze_track, analyze_video
    from coach.pose_frame import load_posetrack

    if poses is None:
        return analyze_video(make(video) if make else video)
    track = poses / f"{video.stem}.pose.json.gz"
    if not track.exists():
        poses.mkdir(parents=True, exist_ok=True)
        analyze_video(make(video) if make else video, save_pose=track, audio=False)
    return analyze_track(load_posetrack(track))


def _truth(clip: Path) -> dict | None:
    """The synthetic clip's truth (`<stem>.truth.json` beside it: its shots and the faults it was made with)."""
    path = clip.with_suffix(".truth.json")
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else None


def run(clips: list[Path], names: list[str], poses: Path | None = None) -> list[str]:
    lines = []
    same = total = 0
    with tempfile.TemporaryDirectory() as tmp:
        for clip in clips:
            t0 = time.perf_counter()
            base = _analyse(clip, poses)
            lines.append(
                f"{clip.stem}: releases {[s.release_frame for s in base.shots]}, faults "
                f"{[sorted(_faults(s)) for s in base.shots]} ({time.perf_counter() - t0:.0f} s)"
            )
            for name in names:
                moved = _analyse(
                    Path(tmp) / f"{clip.stem}-{name}.mp4", poses, lambda out, c=clip, n=name: transform_clip(c, out, n)
                )
                verdict = compare(base, moved, name == "half_rate", _truth(clip))
                total += 1
                same += verdict.startswith("same")
                lines.append(f"    {name:10} releases {[s.release_frame for s in moved.shots]}: {verdict}")
            print("\n".join(lines[-len(names) - 1 :]), flush=True)
    lines.append(f"metamorphic: {same}/{total} transformed clips give the original's shots and verdicts")
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--videos", default=str(ROOT / "sample_videos"))
    ap.add_argument("--clips", default=None, help="comma-separated clip names (default: every sample clip)")
    ap.add_argument("--transforms", default=",".join(TRANSFORMS), help=f"any of {', '.join(TRANSFORMS)}")
    ap.add_argument("--poses", type=Path, default=None, help="keep (and reuse) MediaPipe's tracks here")
    args = ap.parse_args(argv)
    clips = sorted(Path(args.videos).glob("*.mp4"))
    if args.clips:
        want = set(args.clips.split(","))
        clips = [c for c in clips if c.stem in want]
    names = [n for n in args.transforms.split(",") if n]
    unknown = set(names) - set(TRANSFORMS)
    if unknown or not clips:
        print(
            f"metamorphic: unknown transforms {sorted(unknown)}" if unknown else "metamorphic: no clips",
            file=sys.stderr,
        )
        return 2
    print(run(clips, names, args.poses)[-1])
    return 0


if __name__ == "__main__":
    sys.exit(main())
