"""The dashboard's live runs, without Streamlit: what the worker threads hand to the page.

    run = CameraRun(db, "王小明", "0").start()        # a camera, file (fed at its real rate) or URL on this machine
    run = BrowserRun(db, "王小明")                     # the browser's camera: run.callback is streamlit-webrtc's
    snap = run.board.snapshot()                        # the page's view: faults, shots, tally, figures (any thread)
    image = run.board.image("zh")                      # the newest analysed frame, annotated

Both are `LiveSession`s — capture into a 1-slot mailbox, `Analyzer(mode="live")` in its own analysis thread, every
completed shot committed to the session store the moment it completes. The browser's frames come through a
`PushSource`: streamlit-webrtc's callback leaves each frame (timed by its pts) in a 1-slot mailbox and returns at
once with the frame annotated with the newest analysis, so the callback never waits for the pose model.

Worker threads write only to a run's `Board` (a lock-protected object); the page reads snapshots of it. Nothing
here touches `st.session_state`. Runs live in `REGISTRY`, a module-level registry that also stops runs nobody
looks at any more (a closed tab): a camera run when no page has polled it for `IDLE_STOP_S`, a browser run when
its frames stopped coming for `NO_FRAMES_STOP_S`. Stopping loses nothing: shots are already in the store, and the
session is closed with its report.

    board.py        Board (what the threads post, what the page reads), Snapshot, Figures, FaultEvent
    runs.py         a live run for an archer; CameraRun (a camera, file or URL on this machine)
    browser_run.py  BrowserRun (the browser's camera) and PushSource, the mailbox its frames are pushed into
    hub.py          REGISTRY: the runs by key, and the watchdog that stops the ones nobody watches
"""

from __future__ import annotations

import os
import threading
import time

from .browser_run import BrowserRun
from .runs import LiveRun

IDLE_STOP_S = float(os.environ.get("COACH_LIVE_IDLE_S", "120"))
NO_FRAMES_STOP_S = 15.0


class Registry:
    """The dashboard's live runs by key, and a watchdog stopping the ones nobody watches."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._runs: dict[str, LiveRun] = {}
        self._watchdog: threading.Thread | None = None

    def get(self, key: str) -> LiveRun | None:
        with self._lock:
            return self._runs.get(key)

    def put(self, key: str, run: LiveRun) -> LiveRun:
        with self._lock:
            old = self._runs.get(key)
            self._runs[key] = run
            if self._watchdog is None:
                self._watchdog = threading.Thread(target=self._watch, name="coach-live-watchdog", daemon=True)
                self._watchdog.start()
        if old is not None and old is not run:
            old.stop()
        return run

    def pop(self, key: str) -> LiveRun | None:
        with self._lock:
            run = self._runs.pop(key, None)
        if run is not None:
            run.stop()
        return run

    def runs(self) -> list[LiveRun]:
        with self._lock:
            return list(self._runs.values())

    def reap(self, now: float | None = None) -> list[LiveRun]:
        """Stop the runs nobody is looking at any more; returns them."""
        now = time.monotonic() if now is None else now
        stopped = []
        for run in self.runs():
            if not run.running:
                continue
            if isinstance(run, BrowserRun):
                idle = run.last_frame and now - run.last_frame > NO_FRAMES_STOP_S
            else:
                idle = now - run.board.last_seen > IDLE_STOP_S
            if idle:
                run.stop()
                stopped.append(run)
        return stopped

    def _watch(self) -> None:
        while True:
            time.sleep(2.0)
            try:
                self.reap()
            except Exception:  # the watchdog must outlive any one run's trouble
                pass


REGISTRY = Registry()
