"""Live latency: a clip fed as a camera at its real frame rate through `coach live`'s path, headless.

    python benchmarks/live_latency.py [VIDEO] [--rounds N] [--draw] [--compare]

Prints, per round, the latency from a frame's arrival (the capture thread releasing it at its container time)
to its FrameResult being ready for the overlay — p50 / p95 / max — with the pose + analysis time alone, and the
share of frames analysed (the rest were dropped by the 1-slot mailbox, never queued). `--draw` also renders
the window's picture (overlay, tally, card, replay) for every analysed frame in a third thread, as the window
would, and reports arrival → drawn. The machine's load average is printed: on a shared 2-core machine other
processes' CPU shows up directly in these figures. Aim: p95 ≤ 100 ms at 30 fps.

`--compare` runs the same clip, one after the other, through `coach live`'s path (in this process: a window's
frame ring, no store) and the dashboard Live page's (`streamlit run app.py` on a temporary store, the page open
in headless Chromium, the clip given as "this computer's camera"; the figures read back from the stored session's
report), and prints frames analysed / dropped side by side with the CPU seconds of the dashboard's process and
of Chromium. Without Chromium and Playwright the dashboard side is `runs.CameraRun` driven in this process with a
page thread doing what the page does every `REFRESH_S` (snapshot, picture); that misses Streamlit's own rerun
cost, which is what the real page paid. On a loaded machine compare within one run, not across runs.
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


def _proc_cpu_s(pid: int | str) -> float:
    """CPU seconds of a process (all its threads, ended ones too) from /proc (Linux); 0 elsewhere."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return 0.0


def _processes() -> dict[int, tuple[str, int]]:
    """pid → (command line, parent pid) of every process we can read."""
    out = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                cmd = Path(f"/proc/{d}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
                ppid = int(Path(f"/proc/{d}/stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            out[int(d)] = (cmd, ppid)
    return out


def _descends(pid: int, root: int, procs: dict) -> bool:
    while pid > 1 and pid in procs:
        if pid == root:
            return True
        pid = procs[pid][1]
    return False


def run_cli_path(path: Path) -> dict:
    """`coach live --source FILE` with a window: the frame ring kept, nothing recorded."""
    t0 = time.process_time()
    session = LiveSession(str(path), keep_frames=True)
    session.start()
    session.wait()
    s = session.stats
    return {"released": s.released, "analysed": s.analysed, "dropped": s.dropped, "cpu_s": time.process_time() - t0}


def run_dashboard_in_process(path: Path) -> dict:
    """The Live page's CameraRun on this file, with the page's poll (snapshot + picture) every REFRESH_S."""
    import tempfile

    from coach.dashboard.live_page import REFRESH_S
    from coach.live.runs import CameraRun

    t0 = time.process_time()
    with tempfile.TemporaryDirectory() as tmp:
        run = CameraRun(Path(tmp) / "coach.db", "基準 bench", str(path)).start()

        def page() -> None:
            while run.running:
                run.board.snapshot()
                run.board.jpeg("zh")
                time.sleep(REFRESH_S)

        threading.Thread(target=page, daemon=True).start()
        run.join()
        s = run.session.stats
    return {"released": s.released, "analysed": s.analysed, "dropped": s.dropped, "cpu_s": time.process_time() - t0}


def run_dashboard_in_browser(path: Path) -> dict | None:
    """The real page: the dashboard served, the Live page open in headless Chromium, the clip as the camera."""
    import tempfile

    try:
        from playwright.sync_api import sync_playwright

        from tests.support.browser import CHROMIUM, CHROMIUM_FLAGS, streamlit_app
    except ImportError:
        return None
    if not CHROMIUM.exists():
        return None
    from coach.dashboard.i18n import t
    from coach.store import Store

    with tempfile.TemporaryDirectory() as tmp, streamlit_app(Path(tmp), {}) as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_FLAGS, headless=True)
        page = browser.new_page(viewport={"width": 1280, "height": 1600})
        page.goto(f"{url}/live")
        page.get_by_label(t("archer_name", "zh")).fill("基準")
        page.keyboard.press("Tab")
        time.sleep(2.0)  # the page reruns with the archer chosen
        page.get_by_role("textbox", name=t("live_source", "zh")).first.fill(str(path))
        page.keyboard.press("Tab")
        time.sleep(1.5)
        page.get_by_role("button", name=t("live_start", "zh")).first.click()
        stopped = t("live_stopped", "zh", source="").split("：")[0]
        end = time.monotonic() + 180
        while time.monotonic() < end:
            time.sleep(2.0)
            if stopped in page.evaluate("document.body.innerText"):
                break
        procs = _processes()
        port = url.rsplit(":", 1)[1]
        server = sum(_proc_cpu_s(p) for p, (c, _) in procs.items() if "streamlit run app.py" in c and port in c)
        me = os.getpid()
        chromium = sum(_proc_cpu_s(p) for p, (c, _) in procs.items() if "chrom" in c and _descends(p, me, procs))
        browser.close()
        with Store.open(Path(tmp) / "coach.db") as store:
            live = [(store.session(s.id).report or {}).get("meta", {}).get("live") for s in store.sessions()]
    live = [x for x in live if x]
    if not live:
        return None
    m = live[0]
    return {
        "released": m["frames_released"],
        "analysed": m["frames_analysed"],
        "dropped": m["frames_dropped"],
        "cpu_s": server,
        "chromium_s": chromium,
    }


def compare(path: Path) -> None:
    browser = run_dashboard_in_browser
    for name, fn in (("coach live", run_cli_path), ("dashboard Live", browser)):
        m = fn(path)
        if m is None:
            name, m = "dashboard (in process, no browser)", run_dashboard_in_process(path)
        share = m["analysed"] / m["released"] if m["released"] else 0.0
        line = f"{name:15s} analysed {m['analysed']}/{m['released']} frames ({share:.0%}), dropped {m['dropped']}; "
        line += f"process {m['cpu_s']:.1f} CPU s"
        if "chromium_s" in m:
            line += f", Chromium {m['chromium_s']:.1f} CPU s"
        print(line + f"; load {os.getloadavg()[0]:.1f}", flush=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("video", nargs="?", default=str(DEFAULT))
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--draw", action="store_true", help="also draw the window's picture; report arrival → drawn")
    ap.add_argument("--compare", action="store_true", help="coach live's path and the dashboard's, side by side")
    args = ap.parse_args()
    path = Path(args.video)
    if not path.exists():
        print(f"{path}: no such file (make one with `coach synth` or pass a video)", file=sys.stderr)
        return 2
    print(f"{path.name}: fed at its real frame rate; {os.cpu_count()} cores; load average {os.getloadavg()[0]:.1f}")
    for r in range(args.rounds):
        if args.compare:
            compare(path)
            continue
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
