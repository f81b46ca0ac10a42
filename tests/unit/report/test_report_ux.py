"""Reports as a new reader meets them (issue 15): what to work on first on page 1, the local time and the
video's name on top (the path and hash in a details block), dismissed faults struck through and not counted,
no empty charts, the HTML within a 1200 px window in Chromium. Stores filled from recorded pose tracks."""

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from coach.cli import main
from coach.report import gather, render
from coach.store import Store
from tests.support.paths import ROOT

GOLDEN = ROOT / "tests" / "golden"
ARCHER = "王小明"


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    """Two sessions of one archer: fault_elbow (cup_of_water faulted in shot 1; judged n/a in shot 2) and a
    clean one, for the trends."""
    path = tmp_path_factory.mktemp("report_ux") / "coach.db"
    for name in ("fault_elbow", "clean_rh_3shots"):
        track = GOLDEN / f"{name}.pose.json.gz"
        assert main(["analyze", "--pose-track", str(track), "--archer", ARCHER, "--db", str(path)]) == 0
    return path


def report(db: Path, fmt: str, sid: int = 1):
    with Store.open(db) as store:
        return render(gather(store, sid), fmt)


def test_a_dismissed_fault_is_struck_through_and_not_counted(db):
    with Store.open(db) as store:
        before = store.sessions()[0].faults
        trend_before = store.trend_rows(store.archer(ARCHER).id)[0].rules["cup_of_water"]["fault"]
        store.annotate(1, "dismiss", shot=0, rule="cup_of_water", comment="camera angle", author="李教練")
        after = store.sessions()[0].faults
        trend = store.trend_rows(store.archer(ARCHER).id)[0].rules["cup_of_water"]
        d = gather(store, 1)
    assert after == before - 1 and trend["fault"] == trend_before - 1 and trend["dismissed"] == 1
    assert "cup_of_water" not in [f.rule for f in d.focus()]
    assert all(f["rule"] != "cup_of_water" for x in d.shots for f in x.faults)
    html = report(db, "html")
    assert f"· {after} faults 病" in html
    row = next(r for r in html.split("<tr>") if "肘可措杯水" in r and "dismissed by the coach" in r)
    assert 'class="dismissed"' in row and "camera angle" in row
    rules_row = next(r for r in html.split("<tr>") if "<b>肘可措杯水</b>" in r)
    assert 'class="dismissed"' in rules_row and 'class="fault"' not in rules_row
    # the machine's own verdict is kept in the JSON
    js = report(db, "json")
    assert '"verdict": "fault"' in js and "cup_of_water" in js
    with Store.open(db) as store:  # an accept afterwards counts it again
        store.annotate(1, "accept", shot=0, rule="cup_of_water")
        assert store.sessions()[0].faults == before


def test_the_top_says_when_what_and_what_to_work_on(db):
    html = report(db, "html")
    top = html.split("<details>")[0]
    assert "fault_elbow.pose.json.gz" in top and str(GOLDEN) not in top
    assert "sha256" not in top and not re.search(r"\d{4}-\d\d-\d\dT\d\d:", top)  # no raw ISO time
    assert "What to work on first 先練" in top
    details = html.split("<details>")[1].split("</details>")[0]
    assert "sha256" in details and str(GOLDEN) in details


def test_no_chart_for_a_rule_the_shot_did_not_judge(db):
    html = report(db, "html")
    shot2 = html.split('<h2 id="shot-2">')[1].split('<h2 id="shot-3">')[0]
    assert "肘可措杯水" in shot2  # cup_of_water is listed, as not assessable …
    assert not re.search(r'aria-label="[^"]*肘可措杯水', shot2)  # … and not drawn as an empty chart
    assert "(draw_elbow_elevation)" not in html  # no internal metric names in chart titles


def test_pdf_page_one_is_the_summary(db, tmp_path):
    if not shutil.which("pdftotext"):
        pytest.skip("needs poppler's pdftotext")
    pdf = tmp_path / "r.pdf"
    pdf.write_bytes(report(db, "pdf"))
    page1 = subprocess.run(["pdftotext", "-f", "1", "-l", "1", str(pdf), "-"], capture_output=True, text=True).stdout
    assert "What to work on first" in page1 and "Shot 1" in page1
    assert "fault_elbow.pose.json.gz" in page1
    assert "Rules 射法" not in page1  # the list of every rule comes after the shots
    page2 = subprocess.run(["pdftotext", "-f", "2", "-l", "2", str(pdf), "-"], capture_output=True, text=True).stdout
    assert len(page2.strip().splitlines()) > 25  # not a page left two-thirds blank


@pytest.mark.browser
def test_html_fits_a_1200px_window_in_chromium(db, tmp_path, output_dir):
    from tests.support.browser import CHROMIUM, CHROMIUM_FLAGS

    if not CHROMIUM.exists():
        pytest.skip("needs Debian's chromium at /usr/bin/chromium")
    sync_api = pytest.importorskip("playwright.sync_api")
    page_file = tmp_path / "report.html"
    page_file.write_text(report(db, "html", sid=2), encoding="utf-8")  # sid 2 has the trends table
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_FLAGS, headless=True)
        try:
            page = browser.new_page(viewport={"width": 1200, "height": 900})
            page.goto(page_file.as_uri())
            width = page.evaluate("document.documentElement.scrollWidth")
            # no header cell squeezed to one character per line
            narrow = page.evaluate("Math.min(...[...document.querySelectorAll('th')].map(t => t.offsetWidth))")
            page.screenshot(path=str(output_dir / "report_1200px.png"), full_page=False)
        finally:
            browser.close()
    assert width <= 1200
    assert narrow >= 24
