"""The frame player in a real browser (headless Debian Chromium through Playwright, `streamlit run app.py` on a
free port with a temporary store). Sessions are recorded from real pose tracks (tests/golden) and their video
shows each frame's own number as a bar code, so every check compares the frame the player says with the frame
the browser really has on screen.

Review: step a clip frame by frame (buttons and arrow keys), jump to a release from the "jump to" menu and to
an anchor from its tick, with the frame it rests on reaching the correction panel. Compare: two shots side by side land on their releases together, step together, and
stay together through playback at 1/4 speed and a change of the synchronising mark."""

import re
import time
from pathlib import Path

import pytest

from coach.dashboard.i18n import t
from tests.support.browser import CHROMIUM, CHROMIUM_FLAGS, streamlit_app
from tests.support.player import record_track, settled_on_screen, wait_frame, wait_moved, wait_video_ready

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    if not CHROMIUM.exists():
        pytest.skip("needs Debian's chromium at /usr/bin/chromium (scripts/system-deps installs it)")
    pytest.importorskip("playwright.sync_api")
    tmp = tmp_path_factory.mktemp("player")
    db, media = tmp / "coach.db", tmp / "media"
    sessions = {
        "fault_release": record_track(db, media, "測試射手", "fault_release"),
        "fault_elbow": record_track(db, media, "Second Archer", "fault_elbow"),
    }
    with streamlit_app(tmp, {"COACH_SAMPLES": str(tmp / "none")}) as url:
        yield url, tmp, sessions


def browser(p, tmp: Path):
    return p.chromium.launch_persistent_context(
        str(tmp / "chromium-profile"),
        executable_path=str(CHROMIUM),
        args=CHROMIUM_FLAGS,
        headless=True,
        viewport={"width": 1280, "height": 1800},
    )


def open_review(ctx, url: str):
    """The review page with its player shown: (page, the player's frame readout, its video)."""
    page = ctx.pages[0] if ctx.pages else ctx.new_page()
    page.goto(url)
    readout = page.locator(".cp-readout").first
    readout.wait_for(timeout=60_000)
    return page, readout, page.locator("video.cp-video").first


def wait_settled(readout) -> int:
    """The frame the player rests on once it has stopped moving."""
    last = None
    for _ in range(50):
        now = readout.get_attribute("data-frame")
        if now == last:
            return int(now)
        last = now
        readout.page.wait_for_timeout(200)
    return int(last)


def panel_follows(page, frame: int) -> None:
    """The frame the player rests on reaches Python (st.session_state["review_frame"]): the correction panel's
    "current frame" follows it (one deadline for the whole wait: each read used to wait up to 30 s on its own)."""
    from playwright.sync_api import expect

    panel = page.get_by_role("spinbutton", name=t("corr_frame", "zh"))
    expect(panel, "the player's frame did not reach the correction panel").to_have_value(str(frame), timeout=60_000)


def wait_wrapped(readout, timeout_s: float = 60.0) -> bool:
    """While a looping player plays: True once its frame goes back (the loop wrapped), False by the deadline."""
    deadline = time.monotonic() + timeout_s
    last = int(readout.get_attribute("data-frame"))
    while time.monotonic() < deadline:
        now = int(readout.get_attribute("data-frame"))
        if now < last:
            return True
        last = now
        time.sleep(0.05)
    return False


def check(readout, video, expected: int, what: str) -> None:
    shown = wait_frame(readout, expected)
    assert shown == expected, f"{what}: the player shows frame {shown}, expected {expected}"
    screen = settled_on_screen(video, expected)
    assert screen == expected, f"{what}: the player says frame {expected} but frame {screen} is on screen"


def test_review_steps_frame_by_frame_and_jumps_to_the_exact_release(server, output_dir):
    from playwright.sync_api import sync_playwright

    url, tmp, sessions = server
    sid, shots = sessions["fault_elbow"]  # the latest session: the review opens on it
    release = shots[0].result.release_frame
    anchor = shots[1].result.anchor_frame
    with sync_playwright() as p:
        ctx = browser(p, tmp)
        try:
            page, readout, video = open_review(ctx, url)
            wait_video_ready(video)
            check(readout, video, 0, "opening")
            fwd = page.locator(".cp-fwd")
            for k in range(1, 4):  # the ▶1 button
                fwd.click()
                check(readout, video, k, f"after {k} step(s) forward")
            page.locator(".cp-readout").first.click()  # focus the player: the arrow keys step it
            page.keyboard.press("ArrowRight")
            check(readout, video, 4, "after the → key")
            page.keyboard.press("ArrowRight")
            check(readout, video, 5, "after the → key twice")
            page.keyboard.press("ArrowLeft")
            check(readout, video, 4, "after the ← key")
            page.locator(".cp-back").click()
            check(readout, video, 3, "after the ◀1 button")

            # jump to shot 1's release from the menu above the player
            page.get_by_role("combobox", name=t("pl_jump", "zh")).click()
            label = f"{t('shot', 'zh', n=1)} · {t('mark_release', 'zh')} · #{release}"
            page.get_by_role("option", name=label).click()
            check(readout, video, release, "after 'jump to release'")
            page.locator(".cp-back").click()
            check(readout, video, release - 1, "one frame before the release")
            panel_follows(page, release - 1)
            fwd.click()
            check(readout, video, release, "back on the release")

            # slow motion: played until it has moved 2 frames, at 1/8 speed (3.75 frames/s) it must not have gone
            # faster than twice that (a busy browser plays slower, never faster). A shot looped: played at full
            # speed from the release until the frame goes back, the loop keeps it inside the shot
            page.locator(".cp-speed").select_option("0.125")
            t0 = time.monotonic()
            page.locator(".cp-play").click()
            wait_moved(readout, release + 1)
            page.locator(".cp-play").click()
            played_s = time.monotonic() - t0
            slow = wait_settled(readout) - release
            assert slow >= 2 and slow / played_s <= 30 / 8 * 2, f"{played_s:.2f} s at 1/8 speed moved {slow} frames"
            page.locator(".cp-loop").check()
            page.locator(".cp-speed").select_option("1")
            page.locator(".cp-play").click()
            wrapped = wait_wrapped(readout)
            page.locator(".cp-play").click()
            looped = wait_settled(readout)
            span = (shots[0].result.raise_start_frame, shots[0].result.end_frame)
            assert wrapped, f"looping shot 1 {span}: the player never went back (on frame {looped})"
            assert span[0] <= looped <= span[1], f"looping shot 1 {span}, the player is on frame {looped}"
            assert settled_on_screen(video, looped) == looped
            page.locator(".cp-loop").uncheck()

            # a tick on the scrub bar: shot 2's anchor
            page.locator(f".cp-tick[data-kind=anchor][data-frame='{anchor}']").click()
            check(readout, video, anchor, "after a click on shot 2's anchor tick")
            page.wait_for_timeout(800)
            page.screenshot(path=str(output_dir / "player_review.png"))
            assert "Traceback" not in page.evaluate("document.body.textContent")
        finally:
            ctx.close()


def test_compare_plays_two_shots_side_by_side_synchronised_at_the_release(server, output_dir):
    from playwright.sync_api import expect, sync_playwright

    url, tmp, sessions = server
    (_, shots_a), (sid_b, shots_b) = sessions["fault_release"], sessions["fault_elbow"]
    a, b = shots_a[0].result, shots_b[0].result
    with sync_playwright() as p:
        ctx = browser(p, tmp)
        try:
            page = ctx.pages[0] if ctx.pages else ctx.new_page()
            page.goto(f"{url}/compare")
            page.locator(".cp-readout").first.wait_for(timeout=60_000)
            # shot B: the other archer's first shot
            page.get_by_role("combobox", name=t("shot_b", "zh")).click()
            page.get_by_role("option").filter(has_text=f"#{sid_b} ").filter(has_text=t("shot", "zh", n=1)).click()
            ra, rb = page.locator("[data-testid=cp-frame-a]"), page.locator("[data-testid=cp-frame-b]")
            va = page.locator("[data-clip=a] video")
            vb = page.locator("[data-clip=b] video")
            for v in (va, vb):
                wait_video_ready(v)
            check(ra, va, a.release_frame, "shot A at the release")
            check(rb, vb, b.release_frame, "shot B at the release")
            for k in (1, 2):
                page.locator(".cp-fwd").click()
                check(ra, va, a.release_frame + k, f"shot A {k} frame(s) after the release")
                check(rb, vb, b.release_frame + k, f"shot B {k} frame(s) after the release")

            # synchronised at the anchor instead
            page.get_by_text(t("mark_anchor", "zh"), exact=True).click()
            check(ra, va, a.anchor_frame, "shot A at the anchor")
            check(rb, vb, b.anchor_frame, "shot B at the anchor")

            # both play at 1/4 speed and stay together
            page.locator(".cp-speed").select_option("0.25")
            page.locator(".cp-play").click()
            wait_moved(ra, a.anchor_frame + 2)
            page.locator(".cp-play").click()
            fa, fb = wait_settled(ra), wait_settled(rb)
            assert fa > a.anchor_frame, "shot A did not play"
            assert abs((fa - a.anchor_frame) - (fb - b.anchor_frame)) <= 2, (fa, fb)
            assert settled_on_screen(va, fa) == fa and settled_on_screen(vb, fb) == fb

            # the ghost: shot B's skeleton over shot A, from the stored poses
            page.locator(".cp-ghost").check()
            page.get_by_text(t("mark_release", "zh"), exact=True).click()
            check(ra, va, a.release_frame, "shot A back at the release")
            canvas = page.locator("[data-clip=a] canvas")
            expect(canvas, "no ghost drawn at the release").to_have_attribute("data-ghost-frame", re.compile(r"."))
            page.wait_for_timeout(500)
            page.screenshot(path=str(output_dir / "player_compare.png"))
            assert "Traceback" not in page.evaluate("document.body.textContent")
        finally:
            ctx.close()


def test_a_coach_moves_a_release_in_the_player_and_the_review_and_report_say_so(server, output_dir):
    """Issue 14's loop in the browser: land on shot 2's release, step back two frames, set the release there
    in the correction panel, save under a coach's name; the page shows the re-judged verdicts and "corrected by",
    the store holds the new release, and the HTML report names the coach. (Last in this file: it changes the
    session the other tests read.)"""
    from playwright.sync_api import sync_playwright

    from coach.cli import main
    from coach.store import Store

    url, tmp, sessions = server
    sid, shots = sessions["fault_elbow"]
    release = shots[1].result.release_frame
    with sync_playwright() as p:
        ctx = browser(p, tmp)
        try:
            page, readout, video = open_review(ctx, url)
            shot_box = page.get_by_role("combobox", name=t("corr_shot", "zh"))
            shot_box.scroll_into_view_if_needed()  # its list opens inside the viewport (Streamlit scrolls its main)
            shot_box.click()
            option = page.get_by_role("option", name=t("shot", "zh", n=2), exact=True)
            option.scroll_into_view_if_needed()
            option.click()
            page.locator(f".cp-tick[data-kind=release][data-frame='{release}']").click()
            check(readout, video, release, "on shot 2's release tick")
            page.locator(".cp-back").click()
            page.locator(".cp-back").click()
            check(readout, video, release - 2, "two frames before the release")
            panel_follows(page, release - 2)
            page.get_by_role("button", name=t("corr_set", "zh", mark=t("mark_release", "zh"))).click()
            by = page.get_by_role("textbox", name=t("corr_by", "zh"))
            by.fill("李教練")
            by.press("Tab")
            page.wait_for_timeout(500)
            page.get_by_role("button", name=t("corr_save", "zh")).click()
            note = t("corrected_by", "zh", by="李教練")
            page.get_by_text(note).first.wait_for(state="attached", timeout=60_000)  # in shot 2's tab
            body = page.evaluate("document.body.textContent")
            done = t("corr_done", "zh", by="李教練", secs=0, faults=0).split("，")[0]
            assert done in body, "the re-judged verdicts are not shown"
            assert "Traceback" not in body
            page.screenshot(path=str(output_dir / "player_correction.png"))
        finally:
            ctx.close()
    db = tmp / "coach.db"
    with Store.open(db) as s:
        shot = s.shots(sid)[1]
    assert shot.result.release_frame == release - 2
    out = tmp / "corrected.html"
    assert main(["report", str(sid), "--format", "html", "--out", str(out), "--db", str(db)]) == 0
    html = out.read_text(encoding="utf-8")
    assert "corrected by 李教練" in html and f"{release} → {release - 2}" in html
