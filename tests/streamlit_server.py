"""Helpers of the tests that start a real Streamlit server and drive it with Debian's chromium."""

from __future__ import annotations

import os
import socket
import subprocess
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync"]
SERVER_START_TIMEOUT_S = 60
WAIT_MS = 30_000


def require_chromium() -> None:
    """Skip when chromium is missing; fail instead under SUPERBIZ_REQUIRE_BROWSER (CI)."""
    if CHROMIUM.exists():
        return
    if os.environ.get("SUPERBIZ_REQUIRE_BROWSER"):
        pytest.fail(f"{CHROMIUM} is missing and SUPERBIZ_REQUIRE_BROWSER is set")
    pytest.skip(f"{CHROMIUM} is missing (apt-get install chromium; CI installs it)")


def free_port() -> int:
    """A loopback port nobody listens on (right now)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_healthy(url: str, server: subprocess.Popen[bytes], log: Path) -> None:
    """Poll ``/_stcore/health`` until it answers 200; fail with the log if the server dies."""
    deadline = time.monotonic() + SERVER_START_TIMEOUT_S
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise AssertionError(f"streamlit exited with {server.returncode}:\n{log.read_text()}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.25)
    raise AssertionError(
        f"streamlit not healthy after {SERVER_START_TIMEOUT_S}s:\n{log.read_text()}")


def stop(server: subprocess.Popen[bytes]) -> None:
    """Stop a server started by the test, by its PID (terminate, then kill)."""
    server.terminate()
    try:
        server.wait(timeout=10)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait(timeout=10)


def settle(page: Any, paint_ms: int = 800) -> None:
    """Wait until Streamlit has finished the current script run (bounded), then ``paint_ms``
    more for charts and fonts (screenshots need it; checks for exceptions do not)."""
    page.wait_for_function(
        "() => !document.querySelector('[data-testid=\"stStatusWidgetRunningIcon\"]')",
        timeout=WAIT_MS)
    # Widgets load lazily: wait for the placeholders to be replaced.
    page.wait_for_function(
        "() => !document.querySelector('[data-testid=\"stSkeleton\"], "
        "[data-testid=\"stSkeletonElement\"]')", timeout=WAIT_MS)
    if paint_ms:
        page.wait_for_timeout(paint_ms)  # charts and fonts paint after the last delta
