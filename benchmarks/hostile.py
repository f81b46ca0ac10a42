"""The hostile corpus of issue 18 through every command-line entry point, as a user runs them.

    python benchmarks/hostile.py [--timeout S] [--quick] [-v]

Builds the corpus in a temporary folder (tests/support/hostile_corpus.py: nothing binary is committed), runs
each input through `coach …` in a fresh process, bounded by a timeout, and prints: inputs tried, clear errors
(non-zero exit, exactly one stderr line), expected successes, tracebacks, hangs, crashes (killed by a signal)
and stores changed (bytes of a store that should not change, compared before and after). The last four must
be 0; the exit status is 1 otherwise. `--quick` leaves out the cases that run the pose model.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import sqlite3
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.hostile_corpus import (  # noqa: E402
    NON_UTF8,
    PACK_HEAD,
    PACK_RULE,
    SHORT_CLIP,
    Outcome,
    audio_only,
    make_store,
    pose_track_doc,
    run_coach,
    snapshot,
    wall_clip,
    write_json,
)


@dataclass
class Case:
    name: str
    args: list
    expect: str = "clear"  # clear | ok | any (any non-crashing, non-hanging, traceback-free end)
    stores: list[Path] = field(default_factory=list)  # must be byte-identical after the run
    model: bool = False  # runs the pose model (slow)
    env: dict | None = None


@dataclass
class Tally:
    tried: int = 0
    clear: int = 0
    ok: int = 0
    other: int = 0
    tracebacks: int = 0
    hangs: int = 0
    crashes: int = 0
    stores_changed: int = 0
    wrong: list[str] = field(default_factory=list)


def corpus(d: Path) -> list[Case]:
    """Every hostile input of the audit this corpus reproduces, with the store it must not touch."""
    cases: list[Case] = []
    add = cases.append
    store = make_store(d / "store")
    db = ["--db", store]

    def new_store(name: str) -> Path:
        return make_store(d / name)

    # ---- videos, recorded for an archer into a healthy store (item 3, 4, 7, 10)
    (d / "empty.mp4").write_bytes(b"")
    (d / "text.mp4").write_text("not a video\n" * 50)
    audio_only(d / "audio.mp4")
    wall_clip(d / "wall.mp4")
    data = SHORT_CLIP.read_bytes()
    (d / "cut.mp4").write_bytes(data[: len(data) * 2 // 3])
    (d / "head.mp4").write_bytes(data[:2000])
    os.mkfifo(d / "fifo.mp4")
    os.symlink(d / "loop.mp4", d / "loop.mp4")
    (d / "folder.mp4").mkdir()
    bad_name = os.path.join(os.fsencode(d), NON_UTF8)
    shutil.copy(SHORT_CLIP, bad_name)
    for name in ("empty.mp4", "text.mp4", "audio.mp4", "head.mp4", "fifo.mp4", "loop.mp4", "folder.mp4", "nope.mp4"):
        add(Case(f"analyze {name} --archer", ["analyze", d / name, "--archer", "X", *db], stores=[store]))
    add(Case("analyze /dev/urandom --archer", ["analyze", "/dev/urandom", "--archer", "X", *db], stores=[store]))
    add(Case("analyze non-UTF-8 name", ["analyze", bad_name, "--archer", "X", *db], stores=[store]))
    add(Case("live non-UTF-8 name", ["live", "--source", bad_name, "--no-window", "--no-sound"]))
    add(Case("live FIFO", ["live", "--source", d / "fifo.mp4", "--no-window", "--no-sound"]))
    add(Case("analyze nobody --archer", ["analyze", d / "wall.mp4", "--archer", "X", *db], stores=[store], model=True))
    add(Case("analyze truncated", ["analyze", d / "cut.mp4", "--no-audio"], expect="any", model=True))

    # ---- outputs (item 1)
    track = write_json(d / "track.json", pose_track_doc())
    existing = d / "existing.json"
    existing.write_text("precious")
    for target, force in ((store, False), (store, True), (Path(f"{store}-wal"), True), (Path(f"{store}-shm"), True)):
        extra = ["--force"] if force else []
        add(Case(f"--json {target.name} {extra}", ["analyze", "--pose-track", track, "--archer", "A", *db,
                                                   "--json", target, *extra], stores=[store]))  # fmt: skip
    add(Case("--json existing", ["analyze", "--pose-track", track, "--json", existing], stores=[existing]))
    add(Case("--json the input", ["analyze", "--pose-track", track, "--json", track, "--force"], stores=[track]))
    add(Case("report --out store", ["report", "1", *db, "--out", store, "--force"], stores=[store]))
    add(Case("report --out existing", ["report", "1", *db, "--out", existing], stores=[store, existing]))
    add(Case("batch --out store", ["batch", d / "wall.mp4", *db, "--out", store, "--force"], stores=[store]))
    add(Case("batch --out existing", ["batch", d / "wall.mp4", *db, "--out", existing], stores=[store, existing]))
    add(Case("render --out the input", ["render", d / "wall.mp4", "--out", d / "wall.mp4", "--force"]))

    # ---- pose tracks (items 6, 7, 8, 10)
    deep = d / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    tracks = {
        "fps text": pose_track_doc(fps="fast"),
        "fps 0": pose_track_doc(fps=0),
        "frames not a list": pose_track_doc(frames={"0": 1}),
        "width 0": pose_track_doc(width=0),
        "top level list": [1, 2, 3],
        "not the schema": {"schema": "other/1"},
    }
    vis = pose_track_doc()
    vis["frames"][2]["landmarks"][0][3] = 7
    tracks["visibility 7"] = vis
    for i, (name, doc) in enumerate(tracks.items()):
        p = write_json(d / f"track{i}.json", doc)
        add(Case(f"pose track: {name}", ["analyze", "--pose-track", p, "--archer", "X", *db], stores=[store]))
    add(Case("pose track: deep nesting", ["analyze", "--pose-track", deep]))
    from coach.pose_frame import MAX_TRACK_BYTES

    huge = d / "huge.json"
    with open(huge, "wb") as f:  # sparse: beyond the limit without costing disk
        f.truncate(MAX_TRACK_BYTES + 1)
    add(Case("pose track: beyond the size limit", ["analyze", "--pose-track", huge]))
    zeros = d / "zeros.json"
    with open(zeros, "wb") as f:
        f.truncate(1_200_000_000)
    add(Case("pose track: 1.2 GB of zero bytes", ["analyze", "--pose-track", zeros]))
    bomb = d / "bomb.json.gz"
    with gzip.open(bomb, "wb") as z:
        for _ in range(260):
            z.write(b" " * (1 << 20))
    add(Case("pose track: 260 MB of whitespace in a small gzip", ["analyze", "--pose-track", bomb]))
    add(Case("pose track: FIFO", ["analyze", "--pose-track", d / "fifo.mp4"]))

    # ---- rule packs (items 6, 7, 10)
    packs = {
        "rules = [1, 2]": PACK_HEAD + "rules = [1, 2]\n",
        "deep TOML": "a = " + "[" * 3000 + "]" * 3000 + "\n",
        "inverted thresholds": PACK_HEAD + PACK_RULE + "[rules.thresholds]\nenter_above = 1.0\nenter_below = 2.0\n",
        "unknown body part": PACK_HEAD + PACK_RULE + 'body_parts = ["tail"]\n[rules.thresholds]\nenter_below = 1.0\n',
        "visibility 7": PACK_HEAD + PACK_RULE + "min_visibility = 7\n[rules.thresholds]\nenter_below = 1.0\n",
        "not TOML": "this is = = not toml",
    }
    for i, (name, text) in enumerate(packs.items()):
        p = d / f"pack{i}.toml"
        p.write_text(text)
        add(Case(f"rules --check: {name}", ["rules", "--check", p]))
    add(Case("rules --check FIFO", ["rules", "--check", d / "fifo.mp4"]))
    add(Case("rules --check /dev/urandom", ["rules", "--check", "/dev/urandom"]))

    # ---- stores (items 5, 6)
    corrupt = new_store("corrupt")
    c = sqlite3.connect(corrupt)
    c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    c.close()
    raw = bytearray(corrupt.read_bytes())
    raw[8192 + 8 : 8192 + 400] = b"\xa5" * 392
    corrupt.write_bytes(bytes(raw))
    add(Case("corrupt store: analyze --archer", ["analyze", "--pose-track", track, "--archer", "A", "--db", corrupt],
             stores=[corrupt]))  # fmt: skip
    dropped = new_store("dropped")
    c = sqlite3.connect(dropped)
    c.execute("DROP TABLE annotations")
    c.close()
    for args in (["sessions"], ["show", "1"], ["annotate", "1", "--comment", "x"]):
        add(Case(f"dropped table: {args[0]}", [*args, "--db", dropped], stores=[dropped]))
    badjson = new_store("badjson")
    c = sqlite3.connect(badjson)
    c.execute("UPDATE sessions SET report_json = '{not json'")
    c.commit()
    c.close()
    for args in (["show", "1"], ["report", "1", "--format", "json", "--out", d / "bj.json"]):
        add(Case(f"bad JSON field: {args[0]}", [*args, "--db", badjson], stores=[badjson]))
    foreign = d / "foreign.db"
    c = sqlite3.connect(foreign)
    c.execute("CREATE TABLE t (x)")
    c.close()
    add(Case("foreign SQLite", ["analyze", "--pose-track", track, "--archer", "A", "--db", foreign], stores=[foreign]))
    add(Case("show 99999999999999999999", ["show", "99999999999999999999", *db], stores=[store]))
    add(Case("show of ANSI names", ["show", "1", "--db", new_store("ansi")], expect="ok"))

    # ---- batch (items 3, 7, 10)
    club = d / "club" / "A"
    club.mkdir(parents=True)
    os.mkfifo(club / "stuck.mp4")
    os.symlink(club / "loop.mp4", club / "loop.mp4")
    (club / "text.mp4").write_text("not a video")
    add(Case("batch: FIFO, loop, text", ["batch", club.parent, "--archer-from-folder", "--db", d / "b1.db", "--quiet"],
             expect="any"))  # fmt: skip
    named = d / "named" / "A"
    named.mkdir(parents=True)
    shutil.copy(SHORT_CLIP, os.path.join(os.fsencode(named), b"a" + NON_UTF8))
    shutil.copy(SHORT_CLIP, named / "b_good.mp4")
    add(Case("batch: non-UTF-8 name and a good copy",
             ["batch", named.parent, "--archer-from-folder", "--db", d / "b2.db", "--quiet", "--workers", "1"],
             expect="any", model=True))  # fmt: skip
    add(Case("batch --workers 0", ["batch", d / "wall.mp4", "--workers", "0", "--db", d / "b3.db"]))
    add(Case("batch --out non-UTF-8", ["batch", d / "wall.mp4", *db, "--out", bad_name + b".csv"], stores=[store]))
    return cases


def run(cases: list[Case], timeout: float, quick: bool, verbose: bool) -> Tally:
    t = Tally()
    for case in cases:
        if quick and case.model:
            continue
        before = {p: snapshot(p) if p.suffix == ".db" else p.read_bytes() for p in case.stores}
        t0 = time.monotonic()
        o: Outcome = run_coach(*case.args, timeout=timeout, env=case.env)
        after = {p: snapshot(p) if p.suffix == ".db" else p.read_bytes() for p in case.stores}
        t.tried += 1
        kind = o.kind
        if kind == "traceback":
            t.tracebacks += 1
        elif kind == "hang":
            t.hangs += 1
        elif kind == "crash":
            t.crashes += 1
        elif kind == "clear":
            t.clear += 1
        elif kind == "ok":
            t.ok += 1
        else:
            t.other += 1
        changed = [p.name for p in case.stores if before[p] != after[p]]
        t.stores_changed += bool(changed)
        wrong = case.expect != "any" and kind != case.expect
        if wrong or changed or kind in ("traceback", "hang", "crash"):
            t.wrong.append(f"{case.name}: {kind}{' — changed ' + ', '.join(changed) if changed else ''}")
        if verbose:
            line = o.stderr.strip().splitlines()[-1:] or [""]
            print(f"{kind:9} {time.monotonic() - t0:5.1f}s  {case.name}: {line[0][:140]}", flush=True)
    return t


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--timeout", type=float, default=120, help="seconds before a run counts as a hang")
    ap.add_argument("--quick", action="store_true", help="leave out the cases that run the pose model")
    ap.add_argument("-v", "--verbose", action="store_true", help="one line per input")
    args = ap.parse_args()
    d = Path(tempfile.mkdtemp(prefix="coach-hostile-"))
    try:
        cases = corpus(d)
        ansi = d / "ansi" / "s.db"
        c = sqlite3.connect(ansi)
        c.execute("UPDATE archers SET name = ?", ("\x1b[2J\x1b]0;pwned\x07A",))
        c.commit()
        c.close()
        t = run(cases, args.timeout, args.quick, args.verbose)
    finally:
        shutil.rmtree(d, ignore_errors=True)
    print(
        json.dumps(
            {
                "inputs tried": t.tried,
                "clear errors": t.clear,
                "expected successes": t.ok,
                "failures listed in a batch summary": t.other,
                "tracebacks": t.tracebacks,
                "hangs": t.hangs,
                "crashes": t.crashes,
                "stores changed": t.stores_changed,
            },
            indent=1,
            ensure_ascii=False,
        )
    )
    for w in t.wrong:
        print("  not as expected:", w)
    return 1 if (t.tracebacks or t.hangs or t.crashes or t.stores_changed or t.wrong) else 0


if __name__ == "__main__":
    sys.exit(main())
