"""Fixtures of the console tests: AppTest on the real app, sessions made by the real pipeline."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from core.contracts import SessionDocument
from core.settings import DEFAULT_PACKS_DIR, get_settings
from core.store import Store
from tests.console.console_helpers import APP, SEED_QUESTION, XSS_LOG


@pytest.fixture
def open_app() -> Callable[..., AppTest]:
    """Open a page of the console (run once), the way Streamlit's multipage apps are tested."""

    def run(page: str | None = None, query: dict[str, str] | None = None) -> AppTest:
        app = AppTest.from_file(str(APP), default_timeout=30)
        app.query_params.update(query or {})
        app.run()
        if page is not None:
            app.switch_page(page).run()
        return app

    return run


@pytest.fixture
def ask_session(tmp_store: Store) -> Callable[..., SessionDocument]:
    """Store a session made by the real pipeline (offline rules engine)."""
    from core.pipeline import ask

    def make(question: str = SEED_QUESTION, **options: object) -> SessionDocument:
        return ask(question, store=tmp_store, **options)

    return make


@pytest.fixture
def xss_pack(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A copy of the demo pack whose first log line holds HTML and Markdown; through
    SUPERBIZ_PACKS_DIR it overrides the built-in ``demo``."""
    import json

    packs_dir = tmp_path / "packs"
    shutil.copytree(DEFAULT_PACKS_DIR / "demo", packs_dir / "demo")
    logs_file = packs_dir / "demo" / "logs.jsonl"
    lines = logs_file.read_text(encoding="utf-8").splitlines()
    first = json.loads(lines[0])
    first.update(service="payment-service", level="WARN", message=XSS_LOG)
    logs_file.write_text("\n".join([json.dumps(first, ensure_ascii=False), *lines[1:]]) + "\n",
                         encoding="utf-8")
    monkeypatch.setenv("SUPERBIZ_PACKS_DIR", str(packs_dir))
    get_settings.cache_clear()
    return "demo"
