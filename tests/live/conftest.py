"""Real Prometheus and Alertmanager servers for the live-source tests (one set per worker)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.live.live_servers import LiveDemo, require_binaries


@pytest.fixture(scope="session")
def live_demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveDemo]:
    """Prometheus + Alertmanager + exporters of the demo world, alerts already firing."""
    require_binaries()
    demo = LiveDemo.start(Path(tmp_path_factory.mktemp("live")))
    try:
        yield demo
    finally:
        demo.stop()
