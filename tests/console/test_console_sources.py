"""The Sources page and what Investigate shows of each call's source, request and failure."""

from __future__ import annotations

import socket
from collections.abc import Callable
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from core.settings import get_settings
from core.sources.base import World
from core.sources.pack import load_world
from core.sources.prometheus import PrometheusSource
from core.store import Store
from tests.console.console_helpers import SEED_QUESTION

SOURCES = "pages/5_Sources.py"


def _closed_url() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{probe.getsockname()[1]}"


def _table(app: AppTest) -> list[dict[str, str]]:
    frame = next(f.value for f in app.dataframe if "capability" in f.value.columns)
    return [{str(key): str(value) for key, value in row.items()} for row in frame.to_dict("records")]


def _texts(app: AppTest) -> str:
    parts = [getattr(e, "value", "") for kind in ("markdown", "caption", "warning", "error", "info",
                                                  "code", "text") for e in app.get(kind)]
    parts += [str(f.value.to_dict()) for f in app.dataframe]
    return "\n".join(str(part) for part in parts)


def test_the_demo_worlds_sources_answer(open_app: Callable[..., AppTest]) -> None:
    app = open_app(SOURCES)
    assert not app.exception
    rows = _table(app)
    assert [(r["capability"], r["kind"], r["status"]) for r in rows] == [
        ("metrics", "pack", "answering"), ("logs", "pack", "answering"),
        ("knowledge", "pack", "answering")]
    assert rows[0]["holds"] == "alerts 3 · series 3"
    assert not app.warning


def test_an_unreachable_server_is_shown_without_its_credentials(
        open_app: Callable[..., AppTest], monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    closed = _closed_url()
    monkeypatch.setenv("SUPERBIZ_PROMETHEUS_URL", closed.replace("http://", "http://ops:pw-Zx81-secret@"))
    sources = tmp_path / "team.yaml"
    sources.write_text("name: team\npack: demo\nknowledge: {pack: demo, rules: [./rules]}\n")
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "r.yml").write_text(
        "groups: [{name: g, rules: [{alert: QueueStuck, expr: 'queue_depth > 10'}]}]\n")
    monkeypatch.setenv("SUPERBIZ_SOURCES", str(sources))
    get_settings.cache_clear()
    app = open_app(SOURCES)
    assert not app.exception
    rows = _table(app)
    assert (rows[0]["kind"], rows[0]["status"], rows[0]["source"]) == (
        "prometheus", "unreachable", f"prometheus:{closed}")
    assert "connection refused" in rows[0]["problem"]
    assert any("do not answer" in w.value for w in app.warning)
    assert "pw-Zx81-secret" not in _texts(app) and "ops:" not in _texts(app)
    # The sources file is a world of its own in the picker.
    choices = app.selectbox(key="sources_world").options
    assert any(choice.endswith("team.yaml") for choice in choices)
    app.selectbox(key="sources_world").select_index(len(choices) - 1).run()
    rows = _table(app)
    knowledge = next(r for r in rows if r["capability"] == "knowledge")
    assert knowledge["kind"] == "files" and "rules 1" in knowledge["holds"]


def test_investigate_shows_each_calls_request_and_a_failure(
        open_app: Callable[..., AppTest], tmp_store: Store) -> None:
    from core.pipeline import ask

    closed = _closed_url()
    demo = load_world("demo")
    world = World(name="half-down", now=demo.now, metrics=PrometheusSource(closed), logs=demo.logs,
                  knowledge=demo.knowledge)
    document = ask(SEED_QUESTION, pack=world, store=tmp_store)
    app = open_app(query={"session": document.session_id})
    assert not app.exception
    codes = [code.value for code in app.code]
    assert any(f"GET {closed}/api/v1/alerts" in code for code in codes)  # the live call
    assert any('"service": "payment-service"' in code and '"limit": 20' in code
               for code in codes)  # the pack's request: the validated arguments
    failures = [error.value for error in app.error if "The call failed" in error.value]
    assert failures and "connection refused" in failures[0]
    captions = " ".join(caption.value for caption in app.caption)
    assert f"source prometheus:{closed}" in captions.replace("\\", "")
