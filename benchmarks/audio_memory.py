"""Peak memory of the audio path (`coach.audio.audio_cues`, what `analyze_video` runs per file) vs track length.

    python benchmarks/audio_memory.py [--minutes 1,3,10] [--rate 48000]

For each length an audio-only AAC file (`coach.synth.audio.write_tone_track`: hum, hiss and a click every
2 s) is written to a temp folder, then `audio_cues` runs in a fresh process, twice: once for the peak RSS
above the process's RSS just before the call (`ru_maxrss`, includes FFmpeg's own buffers), once under
tracemalloc (NumPy/Python allocations only). The process then holds the returned cues, as the pipeline
does during the pose pass; their size is printed too.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CHILD = r"""
import json, resource, sys, time, tracemalloc
sys.path.insert(0, sys.argv[3])
import numpy as np
from coach.audio import audio_cues
audio_cues(sys.argv[2])  # warm-up on the small file: codecs, scipy, first allocations
mode, path = sys.argv[1], sys.argv[4]
def rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
if mode == "trace":
    tracemalloc.start()
before = rss_mb()
t0 = time.perf_counter()
cues = audio_cues(path)
wall = time.perf_counter() - t0
out = {"wall_s": wall, "onsets": len(cues.onsets), "sharp": sum(o.sharp for o in cues.onsets)}
if mode == "trace":
    cur, peak = tracemalloc.get_traced_memory()
    out.update(trace_peak_mb=peak / 2**20, trace_held_mb=cur / 2**20)
else:
    out.update(rss_before_mb=before, rss_delta_mb=rss_mb() - before)
print(json.dumps(out))
"""


def run(mode: str, warm: Path, path: Path) -> dict:
    r = subprocess.run(
        [sys.executable, "-c", CHILD, mode, str(warm), str(ROOT), str(path)], capture_output=True, text=True, check=True
    )
    return json.loads(r.stdout.strip().splitlines()[-1])


def main() -> None:
    from coach.synth.audio import write_tone_track

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--minutes", default="1,3,10", help="comma-separated track lengths")
    ap.add_argument("--rate", type=int, default=48000)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        warm = Path(tmp) / "warm.mp4"
        write_tone_track(warm, 5, a.rate)
        print(f"{'minutes':>7} {'rss +MB':>8} {'traced peak MB':>14} {'held MB':>8} {'wall s':>7} {'onsets':>6}")
        for m in (float(x) for x in a.minutes.split(",")):
            path = Path(tmp) / f"tone_{m:g}min.mp4"
            t0 = time.perf_counter()
            clicks = write_tone_track(path, m * 60, a.rate)
            gen = time.perf_counter() - t0
            rss, tr = run("rss", warm, path), run("trace", warm, path)
            print(
                f"{m:>7g} {rss['rss_delta_mb']:>8.1f} {tr['trace_peak_mb']:>14.1f} {tr['trace_held_mb']:>8.2f}"
                f" {rss['wall_s']:>7.2f} {rss['sharp']:>3}/{len(clicks)}   (file written in {gen:.1f} s)"
            )


if __name__ == "__main__":
    main()
