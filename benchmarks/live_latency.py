"""Live latency: a clip fed as a camera at its real frame rate through `coach live`'s path, headless.

    python benchmarks/live_latency.py [VIDEO] [--rounds N] [--draw] [--fps-scale X]

Prints, per round, the latency from a frame's arrival (the capture thread releasing it at its container time)
to its FrameResult being ready for the overlay — p50 / p95 / max — with the pose + analysis time alone, and the
share of frames analysed (the rest were dropped by the 1-slot mailbox, never queued). `--draw` also renders
the window's picture (overlay, tally, card, replay) for every analysed frame in a third thread, as the window
would, and reports arrival → drawn. The machine's load average is printed: on a shared 2-core machine other
processes' CPU shows up directly in these figures. Aim: p95 ≤ 100 ms at 30 fps.
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from coach.live.mailbox import Closed  # noqa: E402
from coach.live.session import LiveSession  # noqa: E402

DEFAULT = ROOT / "sample_videos" / "clean_rh_3shots.mp4"


def _drawer(session: LiveSession, drawn_ms: list[float]) -> None:
    from coach.live.view import LiveView

    view = LiveView(session.pack, "zh")
    while True:
        try:
            lf = session.view.get(timeout=0.5)
        except Closed:
            return
        if lf is None or lf.result is None:
            continue
        clip = session.replays.get(timeout=0) if not session.replays.closed else None
        if clip is not None:
            view.replay(clip, time.monotonic())
        view.compose(lf, session.tally, time.monotonic())
        drawn_ms.append((time.monotonic() - lf.arrived) * 1000.0)


def run(path: Path, draw: bool) -> dict:
    session = LiveSession(str(path), keep_frames=draw)
    drawn: list[float] = []
    session.start()
    t = threading.Thread(target=_drawer, args=(session, drawn), daemon=True) if draw else None
    if t:
        t.start()
    t0 = time.monotonic()
    reports = session.wait()
    wall = time.monotonic() - t0
    if t:
        t.join(2)
    s = session.stats
    out = {
        "wall_s": wall,
        "released": s.released,
        "analysed": s.analysed,
        "share": s.analysed_share or 0.0,
        "p50": s.percentile(50),
        "p95": s.percentile(95),
        "max": s.percentile(100),
        "an50": s.percentile(50, "analysis_ms"),
        "an95": s.percentile(95, "analysis_ms"),
        "shots": len(reports[-1].shots) if reports else 0,
    }
    if drawn:
        out["d50"], out["d95"] = float(np.percentile(drawn, 50)), float(np.percentile(drawn, 95))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("video", nargs="?", default=str(DEFAULT))
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--draw", action="store_true", help="also draw the window's picture; report arrival → drawn")
    args = ap.parse_args()
    path = Path(args.video)
    if not path.exists():
        print(f"{path}: no such file (make one with `coach synth` or pass a video)", file=sys.stderr)
        return 2
    print(f"{path.name}: fed at its real frame rate; {os.cpu_count()} cores; load average {os.getloadavg()[0]:.1f}")
    for r in range(args.rounds):
        m = run(path, args.draw)
        line = (
            f"round {r + 1}: latency arrival→FrameResult p50 {m['p50']:.0f} ms, p95 {m['p95']:.0f} ms, "
            f"max {m['max']:.0f} ms; pose+analysis p50 {m['an50']:.0f} ms, p95 {m['an95']:.0f} ms; "
            f"analysed {m['analysed']}/{m['released']} frames ({m['share']:.0%}); {m['shots']} shots; "
            f"{m['wall_s']:.1f} s"
        )
        if "d50" in m:
            line += f"; arrival→drawn p50 {m['d50']:.0f} ms, p95 {m['d95']:.0f} ms"
        print(line, flush=True)
    print(f"load average after: {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
