"""The console in a real browser: ``streamlit run app.py`` headless, driven by Debian's chromium,
at a desktop width (1440 px, light theme) and a phone width (390 px, dark theme).

Desktop: asks a seed question, checks each outcome's styling, every click-through (Sessions,
Evals results and the Binding inspector open their sessions on Investigate, with the question
restored), tampers a citation, runs evals, switches the theme. Phone: a paced run whose events
arrive one by one while the timeline grows, then every page. Every page is checked for
Streamlit's exception box and screenshotted (into a temp dir, and into
``$SUPERBIZ_SCREENSHOTS_DIR`` when set, which is how ``docs/screenshots/`` is produced). Every
request the pages make is recorded: a request to any host that is not loopback fails the test
(a favicon from a CDN, usage statistics, or a beacon in data rendered as Markdown).
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
from urllib.parse import urlsplit

import pytest

from core.pipeline import ask
from core.store import open_store
from core.views.inspector import session_bindings
from tests.console.console_helpers import BEACON, REPO_ROOT, SEED_QUESTION, store_hostile_session
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
    from playwright.sync_api import Browser, BrowserContext, Page, ViewportSize

pytestmark = pytest.mark.browser

DESKTOP: ViewportSize = {"width": 1440, "height": 1000}
LAPTOP: ViewportSize = {"width": 1280, "height": 900}
PHONE: ViewportSize = {"width": 390, "height": 844}
LOOPBACK = {"127.0.0.1", "localhost", "::1"}
ABSENT_QUESTION = "确认 inventory-service 是否存在 HikariCP 连接池耗尽"
PAGES = ("", "Sessions", "Binding_inspector", "Evals", "Data", "Sources")


@pytest.fixture
def console_url(tmp_path: Path) -> Iterator[str]:
    """A headless console on a free port against a temporary audit store; always stopped."""
    require_chromium()
    port = free_port()
    log = tmp_path / "streamlit.log"
    env = {**os.environ, "SUPERBIZ_DB": str(_browser_db(tmp_path))}
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


def _browser_db(tmp_path: Path) -> Path:
    return tmp_path / "browser.db"


def _off_machine(urls: list[str]) -> list[str]:
    """The recorded requests to a host that is not loopback (data: and blob: stay local)."""
    return [url for url in urls if urlsplit(url).scheme not in ("data", "blob", "about")
            and (urlsplit(url).hostname or "") not in LOOPBACK]


def _shot_folders(tmp_path: Path) -> list[Path]:
    shots = [tmp_path / "screenshots"]
    if os.environ.get("SUPERBIZ_SCREENSHOTS_DIR"):
        shots.append(Path(os.environ["SUPERBIZ_SCREENSHOTS_DIR"]))
    return shots


def _no_exception(page: Page, name: str) -> None:
    exceptions = page.locator('[data-testid="stException"]')
    assert exceptions.count() == 0, f"{name}: {exceptions.first.inner_text()}"


def _check_and_shoot(page: Page, name: str, shots: list[Path], viewport: ViewportSize) -> None:
    settle(page)
    _no_exception(page, name)
    # Streamlit scrolls inside its main container, so a "full page" shot shows one viewport:
    # grow the viewport to the content (bounded) for the shot, then put it back.
    content_height = page.evaluate(
        "() => Math.max(...[...document.querySelectorAll('[data-testid=\"stMain\"], "
        "[data-testid=\"stMainBlockContainer\"]')].map(e => e.scrollHeight))")
    page.set_viewport_size({"width": viewport["width"],
                            "height": max(viewport["height"], min(int(content_height) + 60,
                                                                  4000))})
    page.evaluate("() => document.querySelector('[data-testid=\"stMain\"]').scrollTo(0, 0)")
    settle(page, 1200)
    for folder in shots:
        folder.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(folder / f"{name}.png"))
    page.set_viewport_size(viewport)


# Text cut off at the page's width: the main block scrolling sideways, an element reaching past
# its right edge, or one whose overflow is hidden (an ellipsis) while its content is wider.
# Tables and charts draw on a canvas and scroll on purpose; code, JSON and inputs scroll too.
_CLIPPED_JS = """() => {
  const main = document.querySelector('[data-testid="stMainBlockContainer"]');
  const right = main.getBoundingClientRect().right;
  const out = [];
  if (main.scrollWidth > main.clientWidth + 1) out.push(`page ${main.scrollWidth} > ${main.clientWidth}`);
  for (const el of main.querySelectorAll('*')) {
    if (['INPUT', 'TEXTAREA'].includes(el.tagName) || el.closest('[data-testid="stDataFrame"], '
        + '.js-plotly-plot, [data-testid="stCode"], pre, [data-testid="stJson"]')) continue;
    const style = getComputedStyle(el);
    const hidden = ['hidden', 'clip'].includes(style.overflowX) || style.textOverflow === 'ellipsis';
    const text = JSON.stringify((el.innerText || '').slice(0, 40));
    if (hidden && el.clientWidth > 0 && el.scrollWidth > el.clientWidth + 1)
      out.push(`${el.getAttribute('data-testid') || el.tagName} cut ${el.scrollWidth} > ${el.clientWidth} ${text}`);
    const box = el.getBoundingClientRect();
    if (box.width > 0 && box.right > right + 2)
      out.push(`${el.getAttribute('data-testid') || el.tagName} past the edge ${text}`);
  }
  return out.slice(0, 10);
}"""


def _nothing_clipped(page: Page, name: str) -> None:
    """No text of the page is cut at this width (``_CLIPPED_JS``)."""
    settle(page, 300)
    clipped = page.evaluate(_CLIPPED_JS)
    assert not clipped, f"{name}: {clipped}"


def _context(browser: Browser, requests: list[str], viewport: ViewportSize,
             scheme: str) -> BrowserContext:
    context = browser.new_context(viewport=viewport, color_scheme=scheme)  # type: ignore[arg-type]
    context.on("request", lambda request: requests.append(request.url))
    return context


def _background_is_dark(page: Page) -> bool:
    rgb = page.evaluate("() => getComputedStyle(document.querySelector("
                        "'[data-testid=\"stApp\"]')).backgroundColor")
    red, green, blue = (int(part) for part in re.findall(r"\d+", rgb)[:3])
    return (red + green + blue) / 3 < 100


def _ask(page: Page, question: str) -> None:
    """Ask with Ctrl+Enter in the box: the question form submits, as its Ask button would."""
    box = page.get_by_label("Question", exact=True)
    box.fill(question)
    box.press("Control+Enter")


def _open_session_link(context: BrowserContext, page: Page, table_index: int,
                       x_offset: float) -> Page:
    """Click the session link of the first row of a table; it opens Investigate in a tab."""
    table = page.locator('[data-testid="stDataFrame"]').nth(table_index)
    table.scroll_into_view_if_needed()
    settle(page, 300)
    box = table.bounding_box()
    assert box is not None
    x, y = box["x"] + x_offset, box["y"] + 36 + 36  # header, half a row
    page.mouse.move(x, y)  # the grid arms a link cell on hover
    page.wait_for_timeout(400)
    with context.expect_page() as opened:
        page.mouse.click(x, y)
    investigate = opened.value
    investigate.wait_for_load_state()
    return investigate


def test_desktop_light_styling_and_every_click_through(console_url: str, tmp_path: Path) -> None:
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=WAIT_MS)  # the first load of each page imports the engine
    shots = _shot_folders(tmp_path)
    store = open_store(str(_browser_db(tmp_path)))
    # Sessions read by the same store: a model-controlled beacon, an absence, a rejection.
    hostile = store_hostile_session(store).session_id
    absent = ask(ABSENT_QUESTION, store=store)
    rejected = ask(SEED_QUESTION, store=store, executor_fault="tamper_number")
    low = ask(ABSENT_QUESTION, store=store, executor_fault="drop_bindings")  # LOW_CONFID
    requests: list[str] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            context = _context(browser, requests, DESKTOP, "light")
            page = context.new_page()
            page.set_default_timeout(WAIT_MS)

            # Investigate: a verified finding is green and leads with its yes.
            page.goto(console_url)
            settle(page)
            assert not _background_is_dark(page)
            _ask(page, SEED_QUESTION)
            verdict = page.locator('[data-testid="stMetric"]', has_text="Verdict")
            expect(verdict).to_contain_text("PASS", timeout=WAIT_MS)
            expect(page.get_by_role("button", name="Ask")).to_be_enabled()  # run over: enabled
            # The box keeps the question asked (it used to empty after Ask).
            expect(page.get_by_label("Question", exact=True)).to_have_value(SEED_QUESTION)
            expect(page.locator(".sb-answer.sb-tone-green")).to_be_visible()
            expect(page.locator('[data-answer-kind="yes"]')).to_be_visible()
            timeline = page.locator('[data-testid="stExpander"]', has_text="Timeline")
            expect(timeline.locator(".js-plotly-plot")).to_be_visible()
            _check_and_shoot(page, "investigate", shots, DESKTOP)
            settle(page)
            for folder in shots:
                timeline.screenshot(path=str(folder / "timeline.png"))

            # A link restores the whole view; each outcome has its colour.
            for document, tone in ((absent, "gray"), (rejected, "red")):
                page.goto(f"{console_url}/?session={document.session_id}")
                expect(page.locator(f".sb-answer.sb-tone-{tone}")).to_be_visible()
                expect(page.get_by_label("Question", exact=True)).to_have_value(
                    document.question)
                _no_exception(page, f"session {document.session_id}")
            expect(page.get_by_role("combobox", name="Fault injection (demo)")).to_have_value(
                "tamper_number · gatekeeper")

            # Binding inspector: one comparison while unchanged, the raw output opened at the
            # cited path; a tampered digit marks the whole number; the session opens back.
            page.goto(f"{console_url}/Binding_inspector")
            expect(page.get_by_text("Tamper and re-check")).to_be_visible()
            settle(page)  # a widget typed into mid-run is redrawn and loses the text
            expect(page.get_by_text("Citation unchanged")).to_be_visible()
            assert page.locator(".sb-aligned").count() == 1
            expect(page.locator(".sb-cited").first).to_be_visible()
            expect(page.get_by_text("Score only locates the excerpt")).to_be_visible()
            excerpt = page.get_by_label("Excerpt", exact=True)
            tampered = re.sub(r"\d+", lambda m: m.group(0)[::-1] if m.group(0)[::-1] != m.group(0)
                              else str(int(m.group(0)) + 7), excerpt.input_value(), count=1)
            excerpt.fill(tampered)
            excerpt.press("Control+Enter")
            expect(page.get_by_text("fail / reject")).to_be_visible()
            expect(page.locator(".sb-diff").first).to_be_visible()
            _check_and_shoot(page, "binding_inspector", shots, DESKTOP)
            page.get_by_role("link", name=re.compile(r"^Open s-.* in Investigate$")).click()
            expect(page).to_have_url(re.compile(r"\?session=s-"))
            expect(page.get_by_label("Question", exact=True)).not_to_have_value("")

            # Evals: one run so far says so; a session id in the results opens it.
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
            expect(page.get_by_text(re.compile(r"^No trend yet for default"))).to_be_visible()
            expect(page.locator(".js-plotly-plot").first).to_be_visible()
            _check_and_shoot(page, "evals", shots, DESKTOP)
            # case, result, failed expectations, then the session link
            opened = _open_session_link(context, page, -1, 30 + 220 + 70 + 360 + 60)
            expect(opened).to_have_url(re.compile(r"/\?session=s-"))
            expect(opened.locator('[data-testid="stMetric"]', has_text="Verdict")).to_be_visible()
            opened.close()

            # Sessions: the id opens Investigate; a selected row links there too.
            page.goto(f"{console_url}/Sessions")
            table = page.locator('[data-testid="stDataFrame"]').first
            expect(table).to_be_visible()
            settle(page)
            opened = _open_session_link(context, page, 0, 30 + 150 + 60)
            expect(opened).to_have_url(re.compile(r"/\?session=s-"))
            expect(opened.get_by_label("Question", exact=True)).not_to_have_value("")
            opened.close()
            box = table.bounding_box()
            assert box is not None
            page.mouse.click(box["x"] + 16, box["y"] + 36 + 36)  # the first row's selection box
            expect(page.get_by_role("heading", name=re.compile(r"^Session s-"))).to_be_visible()
            _check_and_shoot(page, "sessions", shots, DESKTOP)
            page.get_by_role("link", name="Open in Investigate").click()
            expect(page).to_have_url(re.compile(r"\?session=s-"))
            expect(page.get_by_label("Question", exact=True)).not_to_have_value("")

            # Filters in the address: a link (or a reload) shows the same filtered list.
            page.goto(f"{console_url}/Sessions?fault=tamper_number&origin=manual")
            expect(page.get_by_text("1 session(s) match")).to_be_visible()
            expect(page.get_by_role("combobox", name="Injected fault")).to_have_value(
                "tamper_number")
            # One binding by link; an unknown id is an error, never another session.
            items = session_bindings(rejected)
            page.goto(f"{console_url}/Binding_inspector?session={rejected.session_id}&binding=1")
            expect(page.get_by_role("heading", name=f"{items[1].key.owner_id} · binding "
                                                    f"#{items[1].key.index}")).to_be_visible()
            page.goto(f"{console_url}/Binding_inspector?session=s-no-such-session")
            expect(page.get_by_text("No session s-no-such-session in this audit store")
                   ).to_be_visible()
            expect(page.get_by_text("Tamper and re-check")).to_have_count(0)
            # Nothing cut at a laptop's width: the verdict figure, the rule, the excerpts.
            page.set_viewport_size(LAPTOP)
            for path in (f"/?session={low.session_id}",
                         f"/Binding_inspector?session={rejected.session_id}"):
                page.goto(console_url + path)
                expect(page.locator('[data-testid="stMetric"]').first).to_be_visible()
                _nothing_clipped(page, f"{path} at {LAPTOP['width']} px")
            page.set_viewport_size(DESKTOP)

            page.goto(f"{console_url}/Data")
            expect(page.locator(".js-plotly-plot").first).to_be_visible()
            _check_and_shoot(page, "data", shots, DESKTOP)
            page.goto(f"{console_url}/Sources")
            settle(page)
            _no_exception(page, "Sources")

            # The theme switch: Dark, then back to the system's (light here).
            page.get_by_role("link", name="Dark", exact=True).click()
            page.wait_for_function("() => document.querySelector('[data-testid=\"stApp\"]')")
            settle(page)
            assert _background_is_dark(page)
            page.get_by_role("link", name="System", exact=True).click()
            settle(page)
            assert not _background_is_dark(page)

            # Data as text: the hostile session on the pages that show it, and a hostile link.
            for path in (f"/?session={hostile}", f"/Binding_inspector?session={hostile}",
                         f"/?session={BEACON}"):
                page.goto(console_url + path)
                settle(page)
                _no_exception(page, path)
                expect(page.get_by_text("beacon.invalid").first).to_be_visible()  # as text
                assert page.locator('img[src*="beacon"]').count() == 0
            _qa_journey(page, console_url, shots)
        finally:
            browser.close()
    assert requests, "the request recorder saw the pages load"
    assert not _off_machine(requests), f"requests left the machine: {_off_machine(requests)}"
    for name in ("investigate", "timeline", "binding_inspector", "sessions", "evals", "data"):
        assert (shots[0] / f"{name}.png").stat().st_size > 10_000
    shutil.rmtree(shots[0], ignore_errors=True)


def _qa_journey(page: Page, console_url: str, shots: list[Path]) -> None:
    """Ask, mark the PASS wrong, make it an eval case, run that suite on Evals and see it fail,
    then find the session on Sessions by its URL filter (last: it adds an eval run)."""
    from playwright.sync_api import expect

    page.goto(console_url)
    settle(page)
    _ask(page, SEED_QUESTION)
    expect(page.locator('[data-testid="stMetric"]', has_text="Verdict")).to_contain_text("PASS")
    expect(page.get_by_role("button", name="Ask")).to_be_enabled()
    review = page.locator('[data-testid="stExpander"]', has_text="Review (")
    review.locator("summary").click()
    review.get_by_role("radio", name="wrong", exact=True).click()
    review.get_by_label("Reviewer", exact=True).fill("qa-browser")
    review.get_by_label("Note", exact=True).fill("the alert had resolved before the question")
    review.get_by_role("button", name="Save annotation").click()
    expect(page.get_by_text("marked wrong by qa-browser")).to_be_visible()
    expect(page.get_by_text("reviewer: wrong")).to_be_visible()
    expect(review.get_by_label("Reviewer", exact=True)).to_have_value("qa-browser")  # kept
    page.get_by_role("button", name="Make an eval case").click()
    expect(page.get_by_text(re.compile(r"Eval case annotation-ann-\w+ added to"))).to_be_visible()
    _check_and_shoot(page, "annotate", shots, DESKTOP)

    page.goto(f"{console_url}/Evals")
    settle(page)
    page.get_by_role("radio", name="Annotations suite").click()
    settle(page)
    page.get_by_role("button", name="Run 1 case(s)").click()
    expect(page.get_by_text("0/1 case(s) passed")).to_be_visible(timeout=WAIT_MS * 2)
    _no_exception(page, "Evals: the annotations suite")

    page.goto(f"{console_url}/Sessions?annotation=wrong")
    expect(page.get_by_text("1 session(s) match")).to_be_visible()
    _no_exception(page, "Sessions ?annotation=wrong")


def _events_shown(page: Page) -> int:
    label = page.locator('[data-testid="stExpander"] summary',
                         has_text="Pipeline events (").first.inner_text()
    match = re.search(r"Pipeline events \((\d+)\)", label)
    return int(match.group(1)) if match else 0


def test_phone_dark_paced_run_and_every_page(console_url: str, tmp_path: Path) -> None:
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=WAIT_MS)
    shots = _shot_folders(tmp_path)
    store = open_store(str(_browser_db(tmp_path)))
    low = ask(ABSENT_QUESTION, store=store, executor_fault="drop_bindings")  # LOW_CONFID
    rejected = ask(SEED_QUESTION, store=store, executor_fault="tamper_number")
    requests: list[str] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = _context(browser, requests, PHONE, "dark").new_page()
            page.set_default_timeout(WAIT_MS)
            page.goto(console_url)
            settle(page)
            assert _background_is_dark(page)  # the OS says dark: so does the console
            _nothing_clipped(page, "Investigate (phone): the example questions")
            pace = page.get_by_role("combobox", name="Demo pace")
            pace.click()
            page.keyboard.type("demo ·")  # the picker filters as one types
            page.keyboard.press("Enter")
            settle(page, 200)
            expect(pace).to_have_value(re.compile(r"^demo · 1 s"))
            _ask(page, SEED_QUESTION)
            expect(page.get_by_text("Demo pace: one event every 1 s")).to_be_visible()
            # The events arrive one at a time while the timeline grows.
            seen: list[int] = []
            timeline = page.locator('[data-testid="stExpander"]', has_text="Timeline")
            while page.get_by_role("button", name="Ask").is_disabled():
                seen.append(_events_shown(page))
                if len(set(seen)) == 4:
                    # A rerun may briefly keep the previous chart (hidden) beside the new one.
                    expect(timeline.locator(".js-plotly-plot:visible").first).to_be_visible()
                    for folder in shots:
                        folder.mkdir(parents=True, exist_ok=True)
                        page.screenshot(path=str(folder / "investigate_phone_dark.png"))
                page.wait_for_timeout(250)
                assert len(seen) < 400, "the paced run never ended"
            counts = sorted(set(seen))
            assert len(counts) >= 5 and counts == sorted(counts)  # one by one, in order
            expect(page.locator('[data-testid="stMetric"]', has_text="Verdict")).to_contain_text(
                "PASS")
            expect(page.locator(".sb-answer.sb-tone-green")).to_be_visible()
            _no_exception(page, "paced run")
            for name in PAGES[1:]:
                page.goto(f"{console_url}/{name}")
                settle(page)
                _no_exception(page, f"{name} (phone, dark)")
                assert _background_is_dark(page)
            for path in (f"/?session={low.session_id}",
                         f"/Binding_inspector?session={rejected.session_id}"):
                page.goto(console_url + path)
                expect(page.locator('[data-testid="stMetric"]').first).to_be_visible()
                _nothing_clipped(page, f"{path} (phone)")
        finally:
            browser.close()
    assert not _off_machine(requests), f"requests left the machine: {_off_machine(requests)}"
    assert (shots[0] / "investigate_phone_dark.png").stat().st_size > 10_000
    shutil.rmtree(shots[0], ignore_errors=True)
