"""Benchmark: the console's memory and first render against a bare Streamlit app, same run.

Each round starts two fresh ``streamlit run`` servers one after the other, a bare app (a title
and a line of text: what Streamlit itself costs) and the console (``app.py``, the Investigate
page, against a temporary audit store), and opens one real browser session on each (Debian's
``/usr/bin/chromium`` through playwright). For each it measures:

- **first render**: from the browser's request of the page until the page's title is shown
  (the server is fresh, so this includes every module the first page imports), and until the
  whole page is drawn (**settled**: the script run over, Streamlit's running icon and widget
  skeletons gone; each widget kind the page uses is a script the browser fetches and compiles
  once, so a page with a form settles later than a title and a line of text, whatever the
  server does);
- **RSS**: the server process's resident memory (``VmRSS``) once that session is on screen.

Prints the medians over ``--runs`` rounds and the console's ratios to the bare app (goal: RSS
<= 1.5x, first render <= 2x), then a README row. On a busy machine the times move a lot, the
ratio of one round much less (both apps in the same minute); RSS hardly moves. No assertions.

    .venv/bin/python bench/console.py [--runs 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from _common import REPO_ROOT  # also puts the checkout on the path: tests.streamlit_server

from tests.streamlit_server import (
    CHROMIUM,
    CHROMIUM_ARGS,
    free_port,
    settle,
    stop,
    wait_healthy,
)

if TYPE_CHECKING:
    from playwright.sync_api import Browser

BARE_APP = '''import streamlit as st

st.title("Bare app", anchor=False)
st.write("Streamlit alone: the baseline of bench/console.py.")
'''
RSS_GOAL = 1.5
RENDER_GOAL = 2.0


@dataclass(frozen=True)
class Figures:
    """One session on one fresh server."""

    render_s: float  # the title shown
    settled_s: float  # the whole page drawn
    rss_mb: float


def rss_mb(pid: int) -> float:
    """The resident memory of process ``pid`` now, in MB (``/proc``: Linux)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for {pid}")


def measure(browser: Browser, script: Path, title: str, env: dict[str, str],
            folder: Path) -> Figures:
    """Start ``streamlit run script``, open it once, time the first render, read the RSS."""
    port = free_port()
    log = folder / f"{script.stem}-{port}.log"
    command = [sys.executable, "-m", "streamlit", "run", str(script),
               "--server.headless", "true", "--server.port", str(port),
               "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false",
               "--server.fileWatcherType", "none"]
    with log.open("wb") as log_file:
        server = subprocess.Popen(command, cwd=script.parent, env=env, stdout=log_file,
                                  stderr=subprocess.STDOUT)
        try:
            url = f"http://127.0.0.1:{port}"
            wait_healthy(url, server, log)
            context = browser.new_context(viewport={"width": 1440, "height": 1000})
            page = context.new_page()
            started = time.perf_counter()
            page.goto(url)
            page.get_by_role("heading", name=title).wait_for(timeout=120_000)
            render_s = time.perf_counter() - started
            settle(page, paint_ms=0)
            settled_s = time.perf_counter() - started
            exceptions = page.locator('[data-testid="stException"]').count()
            if exceptions:
                raise AssertionError(f"{script}: the page shows an exception")
            time.sleep(1.0)  # let the session's last deltas and caches land
            memory = rss_mb(server.pid)
            context.close()
            return Figures(render_s, settled_s, memory)
        finally:
            stop(server)


def main() -> int:
    """Run the rounds and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="rounds (each: bare, then console)")
    parser.add_argument("--figures", type=Path, default=None, metavar="PATH",
                        help="keep the figures (JSON) for bench/report.py (the README's row)")
    args = parser.parse_args()
    if not CHROMIUM.exists():
        # Skipped, not failed: `make bench` runs every bench, and the others need no browser.
        print(f"{CHROMIUM} is missing (apt-get install chromium): nothing measured")
        return 0
    from playwright.sync_api import sync_playwright

    bare: list[Figures] = []
    console: list[Figures] = []
    with tempfile.TemporaryDirectory() as temp, sync_playwright() as playwright:
        folder = Path(temp)
        bare_script = folder / "bare_app.py"
        bare_script.write_text(BARE_APP)
        env = {**os.environ, "SUPERBIZ_DB": f"sqlite:///{folder / 'audit.db'}",
               "PYTHONPATH": str(REPO_ROOT)}
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            for round_number in range(1, max(1, args.runs) + 1):
                bare.append(measure(browser, bare_script, "Bare app", env, folder))
                console.append(measure(browser, REPO_ROOT / "app.py", "Investigate", env, folder))
                base, ours = bare[-1], console[-1]
                print(f"round {round_number}: bare {base.render_s:.2f} s (settled "
                      f"{base.settled_s:.2f} s) {base.rss_mb:.0f} MB; console {ours.render_s:.2f} s"
                      f" (settled {ours.settled_s:.2f} s) {ours.rss_mb:.0f} MB: "
                      f"{ours.render_s / base.render_s:.1f}x, settled "
                      f"{ours.settled_s / base.settled_s:.1f}x, RSS {ours.rss_mb / base.rss_mb:.2f}x",
                      flush=True)
        finally:
            browser.close()
    figures = report(bare, console)
    if args.figures is not None:
        from _common import write_figures

        write_figures(args.figures, figures)
    return 0


def report(bare: list[Figures], console: list[Figures]) -> dict[str, float]:
    """Print the medians and the ratios against the goals; return them (``bench/report.py``
    writes the README's row of them)."""
    bare_rss = statistics.median(item.rss_mb for item in bare)
    console_rss = statistics.median(item.rss_mb for item in console)
    bare_render = statistics.median(item.render_s for item in bare)
    console_render = statistics.median(item.render_s for item in console)
    pairs = list(zip(bare, console, strict=True))
    round_ratios = sorted(ours.render_s / base.render_s for base, ours in pairs)
    settled_ratios = sorted(ours.settled_s / base.settled_s for base, ours in pairs)
    rss_ratio = console_rss / bare_rss
    render_ratio = statistics.median(round_ratios)
    settled_ratio = statistics.median(settled_ratios)
    print(f"RSS after one session: bare {bare_rss:.0f} MB, console {console_rss:.0f} MB: "
          f"{rss_ratio:.2f}x (goal <= {RSS_GOAL}x)")
    print(f"first render: bare {bare_render:.2f} s, console {console_render:.2f} s: median "
          f"ratio of a round {render_ratio:.1f}x ({round_ratios[0]:.1f}-{round_ratios[-1]:.1f}x;"
          f" goal <= {RENDER_GOAL}x); settled {settled_ratio:.1f}x "
          f"({settled_ratios[0]:.1f}-{settled_ratios[-1]:.1f}x)")
    return {"console.rounds": float(len(bare)), "console.rss_mb": console_rss,
            "console.bare_rss_mb": bare_rss, "console.rss_vs_bare": rss_ratio,
            "console.render_s": console_render, "console.bare_render_s": bare_render,
            "console.render_vs_bare": render_ratio, "console.render_vs_bare_low": round_ratios[0],
            "console.render_vs_bare_high": round_ratios[-1], "console.settled_vs_bare": settled_ratio,
            "console.settled_vs_bare_low": settled_ratios[0],
            "console.settled_vs_bare_high": settled_ratios[-1]}

if __name__ == "__main__":
    sys.exit(main())
