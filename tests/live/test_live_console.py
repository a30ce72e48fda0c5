"""The console's Sources page against the real servers of a sources file."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from core.settings import get_settings
from tests.live.live_servers import LiveDemo
from tests.live.test_live_ask import sources_file

REPO_ROOT = Path(__file__).resolve().parents[2]


def test_the_sources_page_lists_each_server_with_what_it_holds(
        live_demo: LiveDemo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SUPERBIZ_SOURCES", str(sources_file(live_demo, tmp_path)))
    get_settings.cache_clear()
    app = AppTest.from_file(str(REPO_ROOT / "app.py"), default_timeout=30)
    app.run()
    app.switch_page("pages/5_Sources.py").run()
    box = app.selectbox(key="sources_world")
    box.select_index(next(i for i, option in enumerate(box.options) if option.startswith("sources file"))).run()
    assert not app.exception
    frame = next(f.value for f in app.dataframe if "capability" in f.value.columns)
    rows = {(row["kind"], row["status"]): row for row in frame.to_dict("records")}
    prometheus = rows[("prometheus", "answering")]
    assert prometheus["source"] == f"prometheus:{live_demo.prometheus.url}"
    assert "alerts " in prometheus["holds"] and "rules " in prometheus["holds"] and "series " in prometheus["holds"]
    assert "alerts " in rows[("alertmanager", "answering")]["holds"]
    assert not app.warning
