"""Adaptive analysis on the files cameras write: one clip in many containers and codecs, adaptively and at the
full rate, and whether the two find the same shot.

    python benchmarks/containers.py                      # every container (about 15 s each)
    python benchmarks/containers.py --only ts_h264,mpg_mpeg2 --out /tmp/containers   # keep the files

The clip is 10 s of the archer standing (short_1shot.mp4's first picture) and then short_1shot: a sparse stretch,
a trigger, a look-back and a shot, so the adaptive path must find the look-back's frames again in each file.
Written with PyAV (no ffmpeg binary needed). Printed per file: whether the look-back gives back every frame the
straight decode gives, pixel for pixel (frames asked for behind and ahead of where its decoder is), the mode the
analysis chose, and the shot's raise, draw start, anchor and release in both runs.

MPEG-TS and MPEG-PS demuxers land after the time a seek asks for, and a raw H.264 stream carries no frame
times: before coach/adaptive_video.py handled them, the first two gave no shot at all adaptively and the third
found each raise 16 frames late. Both runs start the pose model afresh where the shot's dense stretch begins
(coach/sampling.py), so they read its frames alike: marks that differ would be the file's doing.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import av
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from coach.adaptive_video import Decoded, LookBack, decoded_frames  # noqa: E402
from coach.capture import FrameSource  # noqa: E402
from coach.pipeline import analyze_video  # noqa: E402

STANDING_S = 10
# name: (container format, codec, file suffix, codec options)
CONTAINERS = {
    "mp4_h264": ("mp4", "libx264", "mp4", {}),
    "mkv_h264": ("matroska", "libx264", "mkv", {}),
    "mov_h264": ("mov", "libx264", "mov", {}),
    "ts_h264": ("mpegts", "libx264", "ts", {}),
    "mpg_mpeg2": ("mpeg", "mpeg2video", "mpg", {}),
    "flv_h264": ("flv", "libx264", "flv", {}),
    "mp4_hevc": ("mp4", "libx265", "mp4", {"x265-params": "log-level=error"}),
    "mp4_mpeg4": ("mp4", "mpeg4", "mp4", {}),
    "webm_vp9": ("webm", "libvpx-vp9", "webm", {"deadline": "realtime", "cpu-used": "8"}),
    "avi_mjpeg": ("avi", "mjpeg", "avi", {}),
    "wmv_wmv2": ("asf", "wmv2", "wmv", {}),
    "raw_h264": ("h264", "libx264", "h264", {}),
}


def write(pictures: list[np.ndarray], fps: float, name: str, out_dir: Path) -> Path:
    fmt, codec, suffix, options = CONTAINERS[name]
    path = out_dir / f"{name}.{suffix}"
    if path.is_file():
        return path
    h, w = pictures[0].shape[:2]
    with av.open(str(path), "w", format=fmt) as out:
        stream = out.add_stream(codec, rate=round(fps), options=options)
        stream.width, stream.height = w, h
        stream.pix_fmt = "yuvj420p" if codec == "mjpeg" else "yuv420p"
        for img in pictures:
            frame = av.VideoFrame.from_ndarray(img, format="bgr24")
            if fmt == "h264":
                frame.pts = None  # an elementary stream: no frame times, as a Raspberry Pi camera writes
            out.mux(stream.encode(frame))
        out.mux(stream.encode())
    return path


def look_back_misses(path: Path, fps: float) -> int:
    """Frames the look-back does not give back as the straight decode does: every 7th frame, asked for forward
    from the middle of the file, then a run from its start (a seek behind where its decoder is)."""
    straight = {d.index: d for d in decoded_frames(path, fps)}
    n = len(straight)
    asked = list(range(n // 2, n, 7)) + list(range(5, n // 4, 7))
    look_back = LookBack(path)
    misses = 0
    try:
        for i in asked:
            d = straight[i]
            blank = Decoded(d.index, d.t_ms, d.pts, None, 0, d.turns)  # as the scout hands it on
            got = look_back.picture(blank).frame
            if got is None or not np.array_equal(got.to_ndarray(format="bgr24"), d.frame.to_ndarray(format="bgr24")):
                misses += 1
    finally:
        look_back.close()
    return misses


def marks(path: Path, full_rate: bool) -> tuple[str, list[tuple]]:
    report = analyze_video(path, audio=False, full_rate=full_rate)
    sampling = report.meta["sampling"]
    mode = sampling["mode"] + (f" ({sampling['why']})" if "why" in sampling else "")
    shots = [(s.raise_start_frame, s.draw_start_frame, s.anchor_frame, s.release_frame) for s in report.shots]
    return mode, shots


def _compare(adaptive: list[tuple], full: list[tuple]) -> str:
    if adaptive == full:
        return "same"
    if len(adaptive) == len(full) and all(abs(a[3] - f[3]) <= 1 for a, f in zip(adaptive, full)):
        return "same shots, marks moved"
    return "DIFFERENT SHOTS"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", default=",".join(CONTAINERS), help=f"any of {', '.join(CONTAINERS)}")
    ap.add_argument("--out", type=Path, default=None, help="write (and reuse) the files here")
    args = ap.parse_args()
    names = [n for n in args.only.split(",") if n]
    unknown = [n for n in names if n not in CONTAINERS]
    if unknown:
        raise SystemExit(f"unknown container(s): {', '.join(unknown)}")
    out_dir = args.out or Path(tempfile.mkdtemp(prefix="containers_"))
    out_dir.mkdir(parents=True, exist_ok=True)
    with FrameSource(ROOT / "sample_videos" / "short_1shot.mp4") as src:
        fps = src.fps
        clip = [f.image for f in src]
    pictures = [clip[0]] * int(STANDING_S * fps) + clip
    print(
        f"clip: {STANDING_S} s standing, then short_1shot ({len(pictures)} frames at {fps:g} fps); files in {out_dir}"
    )
    print("shots as (raise, draw start, anchor, release)")
    same = shot_same = 0
    for name in names:
        path = write(pictures, fps, name, out_dir)
        misses = look_back_misses(path, FrameSource(path).fps)
        mode, adaptive = marks(path, full_rate=False)
        _, full = marks(path, full_rate=True)
        verdict = _compare(adaptive, full)
        same += verdict == "same"
        shot_same += verdict != "DIFFERENT SHOTS"
        print(
            f"{name:10} look-back misses {misses:3d}; {mode:30} adaptive {adaptive}  full rate {full}  {verdict}",
            flush=True,
        )
    print(
        f"containers: {shot_same}/{len(names)} give the full rate's shots adaptively (releases within 1 frame), "
        f"{same}/{len(names)} its marks exactly"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
