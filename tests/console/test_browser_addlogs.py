"""Logs made askable in a real browser (``streamlit run app.py`` headless, Debian's chromium):
a pack ``superbiz logs add`` makes while the console runs is in the picker after a reload, no
restart; the Data page imports an uploaded file with a progress bar and keeps the pack picked
across pages."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.console.console_helpers import REPO_ROOT
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

pytestmark = pytest.mark.browser

LOG = "".join(f"2024-03-01 10:00:{i:02d},000 {'ERROR' if i % 10 == 0 else 'INFO'} [m] shop.Db: "
              f"{'connection refused' if i % 10 == 0 else f'query {i} ok'}\n" for i in range(60))


@pytest.fixture
def console_url(tmp_path: Path) -> Iterator[str]:
    """A headless console on a free port, with the test's own audit store and user packs
    folder (the environment conftest sets); always stopped."""
    require_chromium()
    port = free_port()
    log = tmp_path / "streamlit.log"
    streamlit = Path(sys.executable).with_name("streamlit")
    with log.open("wb") as log_file:
        server = subprocess.Popen(
            [str(streamlit), "run", "app.py", "--server.headless", "true",
             "--server.port", str(port), "--server.address", "127.0.0.1",
             "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"],
            cwd=REPO_ROOT, env=dict(os.environ), stdout=log_file, stderr=subprocess.STDOUT)
        try:
            url = f"http://127.0.0.1:{port}"
            wait_healthy(url, server, log)
            yield url
        finally:
            stop(server)


def test_packs_added_while_the_console_runs(console_url: str, tmp_path: Path) -> None:
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=WAIT_MS)
    log = tmp_path / "shop.log"
    log.write_text(LOG, encoding="utf-8")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1440, "height": 1000})
            page.set_default_timeout(WAIT_MS)
            page.goto(console_url)
            settle(page, 0)
            picker = page.get_by_role("combobox", name="Scenario pack")
            expect(picker).to_have_value("demo")

            # `logs add` in another terminal; a reload of the page lists the pack.
            subprocess.run([sys.executable, "-m", "core", "logs", "add", str(log), "--pack", "shop"],
                           cwd=REPO_ROOT, check=True, capture_output=True)
            page.reload()
            settle(page, 0)
            picker.click()
            expect(page.get_by_role("option", name="shop")).to_be_visible()
            page.get_by_role("option", name="shop").click()
            settle(page, 0)
            expect(picker).to_have_value("shop")

            # The Data page: an uploaded file into a new pack, with a progress bar.
            page.goto(f"{console_url}/Data")
            settle(page, 0)
            pack_box = page.get_by_label("Pack", exact=True)
            pack_box.fill("web")
            pack_box.press("Enter")
            settle(page, 0)
            # The upload goes on after set_input_files returns; the run its end starts has the
            # pack's name too, and enables Import.
            page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(log))
            expect(page.locator('[data-testid="stSidebar"]').get_by_text(log.name)).to_be_visible()
            settle(page, 0)
            import_button = page.get_by_role("button", name="Import")
            expect(import_button).to_be_enabled()
            import_button.click()
            expect(page.get_by_text("60 log entries made pack web")).to_be_visible()
            expect(page.locator('[data-testid="stProgress"]')).to_be_visible()
            data_picker = page.get_by_role("combobox", name="Scenario pack")
            expect(data_picker).to_have_value("web")
            assert "pack=web" in page.url

            # Another page and back: the pack stays picked (it went back to demo before).
            page.get_by_role("link", name="Sessions").click()
            settle(page, 0)
            page.get_by_role("link", name="Data").click()
            settle(page, 0)
            expect(data_picker).to_have_value("web")
            expect(page.locator('[data-testid="stException"]')).to_have_count(0)
        finally:
            browser.close()
