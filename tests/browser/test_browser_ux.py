"""The dashboard as a new user meets it, in headless Chromium (issue 15): no developer chrome, the language
chosen stays through an analysis and every picker follows a switch, and the review and Live pages at a
390 px phone viewport. Screenshots in test-output/."""

import pytest

from tests.support.browser import CHROMIUM, CHROMIUM_FLAGS, streamlit_app
from tests.support.dashboard import sample_folder

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    if not CHROMIUM.exists():
        pytest.skip("needs Debian's chromium at /usr/bin/chromium (scripts/test installs it)")
    pytest.importorskip("playwright.sync_api")
    tmp = tmp_path_factory.mktemp("browser_ux")
    samples = sample_folder(tmp)
    with streamlit_app(tmp, {"COACH_SAMPLES": str(samples)}) as url:
        yield url, tmp


def _heading(page, name: str):
    return page.get_by_role("heading", name=name, exact=True)


def test_language_stays_through_an_analysis_and_pickers_follow_it(server, output_dir):
    from playwright.sync_api import sync_playwright

    url, tmp = server
    with sync_playwright() as p:
        browser = p.chromium.launch_persistent_context(
            str(tmp / "chromium-profile"),
            executable_path=str(CHROMIUM),
            args=CHROMIUM_FLAGS,
            headless=True,
            viewport={"width": 1280, "height": 1600},
        )
        try:
            page = browser.pages[0] if browser.pages else browser.new_page()
            page.goto(f"{url}/analyze")
            _heading(page, "分析").wait_for(timeout=60_000)
            # 16: no "Deploy" button or developer menu in front of coaches
            page.wait_for_load_state("networkidle")
            assert page.locator('[data-testid="stAppDeployButton"]').count() == 0
            assert page.get_by_text("Deploy", exact=True).count() == 0
            # 2: English chosen before the analysis …
            page.get_by_text("English", exact=True).first.click()
            _heading(page, "Analyze").wait_for(timeout=30_000)
            assert "lang=en" in page.url  # … and kept in the URL
            page.get_by_label("Archer's name").fill("Test Archer")
            page.keyboard.press("Tab")
            page.get_by_role("button", name="Analyse").click()
            _heading(page, "Session review").wait_for(timeout=300_000)
            page.get_by_text("Key frames").first.wait_for(timeout=60_000)
            page.wait_for_timeout(3000)  # the progress fragment's last reruns
            assert _heading(page, "Session review").count() == 1 and _heading(page, "回顧").count() == 0
            # a switch on the review: the Session picker follows
            page.get_by_text("中文", exact=True).first.click()
            _heading(page, "回顧").wait_for(timeout=30_000)
            page.wait_for_timeout(1500)
            # the shown choice is the combobox input's value
            picker = page.locator('[data-testid="stSelectbox"] input').first.input_value()
            assert "箭" in picker and "shots" not in picker, picker
            page.screenshot(path=str(output_dir / "ux_review_zh.png"))
        finally:
            browser.close()


@pytest.mark.parametrize("path, heading", [("", "Session review"), ("live", "Live")])  # the review is the default
def test_phone_viewport(server, output_dir, path, heading):
    from playwright.sync_api import sync_playwright

    url, tmp = server
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_FLAGS, headless=True)
        try:
            page = browser.new_page(viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True)
            page.goto(f"{url}/{path}?lang=en")
            _heading(page, heading).wait_for(timeout=60_000)
            if not path and page.get_by_text("No sessions yet").count() == 0:
                page.locator(".vega-embed").first.wait_for(timeout=30_000)
            page.wait_for_load_state("networkidle")
            page.wait_for_timeout(1500)
            body = page.evaluate("document.body.innerText")
            width = page.evaluate("document.documentElement.scrollWidth")
            # the timeline's lanes: each lane's name sits above its bars, so on a phone they cannot overlap
            lanes = page.locator(".vega-embed").count()
            page.screenshot(path=str(output_dir / f"ux_{path or 'review'}_phone.png"), full_page=True)
        finally:
            browser.close()
    assert "Traceback" not in body and "Error" not in body and "Page not found" not in body
    assert width <= 390
    assert path or lanes
