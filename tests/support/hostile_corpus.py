"""The hostile corpus of issue 18, generated on the spot (no binaries are committed), and the one way every
entry point is run and judged: exit code, exactly one stderr line, no traceback, no hang, no crash, store
bytes unchanged where nothing should change. Used by tests/hostile/ and benchmarks/hostile.py."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tests.support.paths import ROOT, SAMPLES  # noqa: F401  (ROOT: for the tests that import it from here)

SHORT_CLIP = SAMPLES / "short_1shot.mp4"
NON_UTF8 = b"x\xe9.mp4"  # Latin-1 "xé.mp4": not UTF-8; OpenCV's VideoCapture segfaulted on it


@dataclass(slots=True)
class Outcome:
    args: tuple
    rc: int | None  # None: killed after the timeout (a hang)
    stdout: str
    stderr: str

    @property
    def kind(self) -> str:
        """ok | clear (one line, non-zero exit) | traceback | hang | crash (killed by a signal) | noisy."""
        if self.rc is None:
            return "hang"
        if self.rc < 0:
            return "crash"
        if "Traceback (most recent call last)" in self.stderr:
            return "traceback"
        if self.rc == 0:
            return "ok"
        lines = self.stderr.strip().splitlines()
        return "clear" if len(lines) == 1 and lines[0].startswith("coach: error:") else "noisy"


def run_coach(*args, timeout: float = 180, cwd=None, env=None, stdin=None, preexec_fn=None) -> Outcome:
    """`coach ARGS` in a fresh interpreter, as a user runs it; bytes arguments pass undecoded."""
    argv = [sys.executable, "-m", "coach", *(a if isinstance(a, bytes) else str(a) for a in args)]
    full_env = {**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})}
    try:
        r = subprocess.run(
            argv,
            capture_output=True,
            timeout=timeout,
            cwd=cwd,
            env=full_env,
            stdin=stdin if stdin is not None else subprocess.DEVNULL,
            preexec_fn=preexec_fn,
        )
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode("utf-8", "replace")
        return Outcome(tuple(args), None, out, (e.stderr or b"").decode("utf-8", "replace"))
    return Outcome(tuple(args), r.returncode, r.stdout.decode("utf-8", "replace"), r.stderr.decode("utf-8", "replace"))


def assert_clear(o: Outcome, *needles: str) -> str:
    """Exactly one line naming the problem, a non-zero exit, no traceback, no hang, no crash."""
    assert o.kind == "clear", f"{o.kind}: rc={o.rc}\n{o.stderr[-3000:]}"
    line = o.stderr.strip()
    for n in needles:
        assert n in line, line
    return line


def snapshot(db: Path) -> dict[str, bytes | None]:
    """The store's bytes and its write-ahead log: what 'unchanged' is measured on. The -shm file is an index
    any reader rebuilds, and a reader may create an empty -wal; neither is a change of the data."""
    out = {}
    for suffix in ("", "-wal", "-journal"):
        p = db.with_name(db.name + suffix)
        out[suffix] = (p.read_bytes() or None) if p.exists() else None
    return out


# ---- inputs ------------------------------------------------------------------------------------------------
def pose_track_doc(n: int = 30, person: bool = True, **over) -> dict:
    lm = np.full((33, 4), 0.5)
    lm[:, 3] = 0.9
    doc = {
        "schema": "coach.posetrack/1",
        "fps": 30.0,
        "width": 640,
        "height": 480,
        "frames": [
            {"index": i, "t_ms": i * 33.3, "landmarks": lm.tolist() if person else None, "world": None}
            for i in range(n)
        ],
    }
    doc.update(over)
    return doc


def write_json(path: Path, doc) -> Path:
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def wall_clip(path: Path, w: int = 96, h: int = 64, n: int = 12) -> Path:
    """A real H.264 clip of a plain wall: a video with nobody in it."""
    from coach.video_io import VideoWriter

    with VideoWriter(path, w, h, 30, preset="ultrafast") as vw:
        for i in range(n):
            vw.write(np.full((h, w, 3), 80 + i, np.uint8))
    return path


def audio_only(path: Path) -> Path:
    """An MP4 with a sound track and no video."""
    import av

    with av.open(str(path), "w", format="mp4") as c:
        s = c.add_stream("aac", rate=16000)
        for i in range(10):
            f = av.AudioFrame.from_ndarray(np.zeros((1, 1024), np.float32), format="fltp", layout="mono")
            f.sample_rate, f.pts = 16000, i * 1024
            for pkt in s.encode(f):
                c.mux(pkt)
        for pkt in s.encode(None):
            c.mux(pkt)
    return path


def make_store(folder: Path, archer: str = "A") -> Path:
    """A healthy store with one complete session, made from a pose track (no model run)."""
    from coach.cli import main

    folder.mkdir(parents=True, exist_ok=True)
    db = folder / "s.db"
    track = write_json(folder / "track.json", pose_track_doc())
    with contextlib.redirect_stdout(io.StringIO()):  # the report printed by `analyze` is not wanted here
        assert main(["analyze", "--pose-track", str(track), "--archer", archer, "--db", str(db)]) == 0
    return db


# A minimal valid rule pack (header and one rule, thresholds added by the caller), for the pack validators.
PACK_HEAD = 'schema = "coach.rulepack/1"\nid = "t"\nversion = "1"\ntitle = "t"\n'


_PACK_RULE = """
[[rules]]
id = "r1"
name_zh = "甲"
name_en = "a"
section = "總訣"
quote = "q"
meaning_zh = "m"
meaning_en = "m"
cue_zh = "c"
cue_en = "c"
metric = "bow_elbow_angle"
phases = ["hold"]
views = ["any"]
"""


def pack_rule(views: str = "any") -> str:
    """The one rule of the minimal pack, seen from `views` (a view name, or "any")."""
    return _PACK_RULE.replace('views = ["any"]', f'views = ["{views}"]')


PACK_RULE = pack_rule()
