"""The console in a real browser: ``streamlit run app.py`` headless, driven by Debian's chromium.

Asks a seed question on Investigate, waits for the verdict, opens every other page, screenshots
each one (into a temp dir, and into ``$SUPERBIZ_SCREENSHOTS_DIR`` when set, which is how
``docs/screenshots/`` is produced) and fails on any Streamlit exception box.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.console.console_helpers import REPO_ROOT, SEED_QUESTION
from tests.streamlit_server import (
    CHROMIUM,
    CHROMIUM_ARGS,
    WAIT_MS,
    free_port,
    require_chromium,
    settle,
    stop,
    wait_healthy,
)

if TYPE_CHECKING:
    from playwright.sync_api import Page, ViewportSize

pytestmark = pytest.mark.browser

VIEWPORT: ViewportSize = {"width": 1440, "height": 1000}


@pytest.fixture
def console_url(tmp_path: Path) -> Iterator[str]:
    """A headless console on a free port against a temporary audit store; always stopped."""
    require_chromium()
    port = free_port()
    log = tmp_path / "streamlit.log"
    env = {**os.environ, "SUPERBIZ_DB": str(tmp_path / "browser.db")}
    streamlit = Path(sys.executable).with_name("streamlit")
    with log.open("wb") as log_file:
        server = subprocess.Popen(
            [str(streamlit), "run", "app.py", "--server.headless", "true",
             "--server.port", str(port), "--server.address", "127.0.0.1",
             "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"],
            cwd=REPO_ROOT, env=env, stdout=log_file, stderr=subprocess.STDOUT)
        try:
            url = f"http://127.0.0.1:{port}"
            wait_healthy(url, server, log)
            yield url
        finally:
            stop(server)


def _check_and_shoot(page: Page, name: str, shots: list[Path]) -> None:
    settle(page)
    exceptions = page.locator('[data-testid="stException"]')
    assert exceptions.count() == 0, f"{name}: {exceptions.first.inner_text()}"
    # Streamlit scrolls inside its main container, so a "full page" shot shows one viewport:
    # grow the viewport to the content (bounded) for the shot, then put it back.
    content_height = page.evaluate(
        "() => (document.querySelector('[data-testid=\"stMain\"]') || document.body).scrollHeight")
    page.set_viewport_size({"width": VIEWPORT["width"],
                            "height": max(VIEWPORT["height"], min(int(content_height), 3200))})
    page.wait_for_timeout(500)
    for folder in shots:
        folder.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(folder / f"{name}.png"))
    page.set_viewport_size(VIEWPORT)


def test_console_pages_in_a_real_browser(console_url: str, tmp_path: Path) -> None:
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=WAIT_MS)  # the first load of each page imports the engine
    shots = [tmp_path / "screenshots"]
    if os.environ.get("SUPERBIZ_SCREENSHOTS_DIR"):
        shots.append(Path(os.environ["SUPERBIZ_SCREENSHOTS_DIR"]))
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport=VIEWPORT)
            page.set_default_timeout(WAIT_MS)

            page.goto(console_url)
            settle(page)
            question = page.get_by_label("Question", exact=True)
            question.fill(SEED_QUESTION)
            question.press("Control+Enter")  # commit the text before the click
            page.get_by_role("button", name="Ask").click()
            verdict = page.locator('[data-testid="stMetric"]', has_text="Verdict")
            expect(verdict).to_contain_text("PASS", timeout=WAIT_MS)
            expect(page.locator(".sb-answer")).to_be_visible()
            expect(page.get_by_role("button", name="Ask")).to_be_enabled()  # run over: enabled
            _check_and_shoot(page, "investigate", shots)

            page.goto(f"{console_url}/Binding_inspector")
            expect(page.get_by_text("Tamper and re-check")).to_be_visible()
            expect(page.locator(".sb-aligned").first).to_be_visible()
            settle(page)  # a widget typed into mid-run is redrawn and loses the text
            excerpt = page.get_by_label("Excerpt", exact=True)
            tampered = re.sub(r"\d+", lambda m: m.group(0)[::-1] if m.group(0)[::-1] != m.group(0)
                              else str(int(m.group(0)) + 7), excerpt.input_value(), count=1)
            excerpt.fill(tampered)
            excerpt.press("Control+Enter")
            expect(page.get_by_text("fail / reject")).to_be_visible()
            expect(page.locator(".sb-diff").first).to_be_visible()
            _check_and_shoot(page, "binding_inspector", shots)

            page.goto(f"{console_url}/Evals")
            run_button = page.get_by_role("button", name=re.compile(r"^Run \d+ case"))
            expect(run_button).to_be_visible()
            settle(page)
            if len(shots) == 1:  # a check, not the docs' pictures: the acceptance matrix suffices
                page.locator('[data-testid="stMultiSelect"]').click()
                page.keyboard.type("seed")
                page.keyboard.press("Enter")
                page.keyboard.press("Escape")
                expect(page.get_by_text(re.compile(r"^\d+ of \d+ case\(s\) selected"))
                       ).not_to_contain_text(re.compile(r"^(\d+) of \1 "))
            run_button.click()
            expect(page.get_by_role("heading", name="Results matrix")).to_be_visible(
                timeout=WAIT_MS * 2)
            expect(page.locator(".js-plotly-plot")).to_have_count(4)
            _check_and_shoot(page, "evals", shots)

            page.goto(f"{console_url}/Sessions")  # now holds the question and the eval cases
            table = page.locator('[data-testid="stDataFrame"]').first
            expect(table).to_be_visible()
            settle(page)
            box = table.bounding_box()
            assert box is not None
            page.mouse.click(box["x"] + 16, box["y"] + 54)  # the first row's selection box
            expect(page.get_by_role("heading", name=re.compile(r"^Session s-"))).to_be_visible()
            _check_and_shoot(page, "sessions", shots)

            page.goto(f"{console_url}/Data")
            expect(page.locator(".js-plotly-plot").first).to_be_visible()
            _check_and_shoot(page, "data", shots)
        finally:
            browser.close()
    for name in ("investigate", "binding_inspector", "sessions", "evals", "data"):
        assert (shots[0] / f"{name}.png").stat().st_size > 10_000
    shutil.rmtree(shots[0], ignore_errors=True)
