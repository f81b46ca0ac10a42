"""The dashboard in a real browser: `streamlit run app.py` on a free local port with a temporary store, driven by
headless Debian Chromium through Playwright. A sample fault clip is analysed through the Analyze page, and the
review must show a fault of that clip's ground truth with its classical quote. Screenshot: test-output/."""

import json
import os
import shutil
import warnings
from pathlib import Path

import pytest

from coach.store import Store
from posture_rules.pack import load_pack
from tests.support.browser import CHROMIUM, CHROMIUM_FLAGS, streamlit_app
from tests.support.paths import SAMPLES

pytestmark = pytest.mark.browser

SAMPLE_DIR = Path(os.environ.get("COACH_TEST_SAMPLES") or SAMPLES)


def shortest_fault_clip() -> tuple[Path, dict] | None:
    best = None
    for truth_path in sorted(SAMPLE_DIR.glob("fault_*.truth.json")):
        clip = truth_path.with_name(truth_path.name.replace(".truth.json", ".mp4"))
        if not clip.is_file():
            continue
        truth = json.loads(truth_path.read_text(encoding="utf-8"))
        if truth.get("faults") and (best is None or truth["n_frames"] < best[1]["n_frames"]):
            best = (clip, truth)
    return best


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    if not CHROMIUM.exists():
        pytest.skip("needs Debian's chromium at /usr/bin/chromium (scripts/test installs it)")
    pytest.importorskip("playwright.sync_api")
    picked = shortest_fault_clip()
    if picked is None:
        pytest.skip(f"no fault_* sample clip with a truth sidecar in {SAMPLE_DIR}")
    clip, truth = picked
    tmp = tmp_path_factory.mktemp("browser")
    samples = tmp / "samples"
    samples.mkdir()
    shutil.copy(clip, samples / clip.name)
    with streamlit_app(tmp, {"COACH_SAMPLES": str(samples)}) as url:
        yield url, clip, truth, tmp


def test_analyse_a_fault_clip_and_see_the_fault_with_its_quote(server, output_dir):
    from playwright.sync_api import sync_playwright

    url, clip, truth, tmp = server
    pack = load_pack()
    with sync_playwright() as p:
        # a fresh profile for this run (Playwright passes it as --user-data-dir)
        browser = p.chromium.launch_persistent_context(
            str(tmp / "chromium-profile"),
            executable_path=str(CHROMIUM),
            args=CHROMIUM_FLAGS,
            headless=True,
            viewport={"width": 1280, "height": 1800},  # Streamlit scrolls inside the page: a tall window
        )
        try:
            page = browser.pages[0] if browser.pages else browser.new_page()
            page.goto(f"{url}/analyze")
            page.get_by_text("範例影片").first.wait_for(timeout=60_000)
            # no archers yet: the page offers a new one; name it in Chinese
            page.get_by_label("射手姓名").fill("測試射手")
            page.keyboard.press("Tab")
            page.get_by_role("button", name="開始分析").click()
            # the analysis runs with a progress bar, then the review opens by itself
            page.get_by_role("heading", name="回顧").wait_for(timeout=300_000)
            page.get_by_text("關鍵畫面").first.wait_for(timeout=60_000)
            page.locator("video").first.wait_for(timeout=30_000)  # the annotated video
            page.locator(".vega-embed").first.wait_for(timeout=30_000)  # the timeline
            page.wait_for_load_state("networkidle")
            body = page.evaluate("document.body.textContent")
            with Store.open(tmp / "coach.db") as store:
                (session,) = store.sessions()
                flagged = {f.rule for f in store.findings(session.id) if f.verdict == "fault"}
            truth_rules = {f["rule"] for f in truth["faults"]}
            expected = sorted(truth_rules & flagged)
            if not expected:  # the rules do not (yet) flag this clip's own fault: any flagged fault, with its quote
                warnings.warn(
                    f"{clip.name}: truth faults {sorted(truth_rules)} not flagged; flagged {sorted(flagged)}",
                    stacklevel=1,
                )
                expected = sorted(flagged)
            assert expected, f"{clip.name}: the analysis flagged no fault at all"
            shown = [r for r in expected if r in pack.by_id and pack.by_id[r].quote in body]
            assert shown, f"{clip.name}: none of {expected} is shown with its classical quote"
            page.wait_for_timeout(1500)  # let the data grid and the video's first frame paint
            page.screenshot(path=str(output_dir / "dashboard_review.png"))
            assert "Traceback" not in body
        finally:
            browser.close()
