"""Every string that comes from data or a model is shown as text, never as Markdown or HTML.

A session whose model-controlled claim ids, raw paths and claim text are image beacons is
opened on every page that shows it; no element that renders Markdown may hold a beacon
unescaped (an escaped one reads ``\\!\\[b\\]\\(...``, which renders as the literal text).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from core.store import Store
from tests.console.console_helpers import BEACON, HTML_BEACON, store_hostile_session
from ui.render import escape_markdown

# Element kinds whose text Streamlit renders as Markdown (labels, values, bodies).
MARKDOWN_KINDS = {"markdown", "caption", "title", "header", "subheader", "metric", "expander",
                  "page_link", "button_group", "button", "error", "warning", "info", "success",
                  "toast", "tab", "popover", "radio", "checkbox", "exception"}
RAW = ("](http://", "<img")


def _nodes(node: Any) -> Iterator[Any]:
    yield node
    children = getattr(node, "children", {})
    for child in children.values() if isinstance(children, dict) else children:
        yield from _nodes(child)


def markdown_sources(app: AppTest) -> list[tuple[str, str]]:
    """(kind, protobuf text) of every element whose text is rendered as Markdown."""
    found = []
    for node in _nodes(app._tree):
        kind = getattr(node, "type", None) or type(node).__name__.lower()
        proto = getattr(node, "proto", None)
        if kind in MARKDOWN_KINDS and proto is not None:
            found.append((kind, str(proto)))
    return found


def shows_escaped(source: str, text: str) -> bool:
    """Whether a protobuf dump holds ``text`` escaped (protobuf text doubles backslashes)."""
    return escape_markdown(text).replace("\\", "\\\\") in source


def assert_no_raw_beacon(app: AppTest) -> None:
    assert not app.exception, app.exception
    for kind, source in markdown_sources(app):
        for raw in RAW:
            assert raw not in source, f"{kind} renders data as Markdown/HTML: {source[:300]}"


def test_escape_markdown_leaves_nothing_to_interpret() -> None:
    for hostile in (BEACON, HTML_BEACON, "**bold** _it_ `code` :red[x] $x^2$ [l](http://h)",
                    "# heading\n- item", "<script>alert(1)</script>"):
        escaped = escape_markdown(hostile)
        assert all(f"\\{char}" in escaped for char in "![]()<>*_`:$#" if char in hostile)
        assert escaped.replace("\\", "") == hostile.replace("\\", "")


@pytest.fixture
def hostile_session(tmp_store: Store) -> str:
    return store_hostile_session(tmp_store).session_id


def test_investigate_shows_a_hostile_session_as_text(
        open_app: Callable[..., AppTest], hostile_session: str) -> None:
    app = open_app(query={"session": hostile_session})
    assert_no_raw_beacon(app)
    shown = [source for kind, source in markdown_sources(app) if kind == "markdown"]
    assert any(shows_escaped(source, BEACON) for source in shown), "the claim id, escaped"


def test_binding_inspector_shows_a_hostile_session_as_text(
        open_app: Callable[..., AppTest], hostile_session: str) -> None:
    app = open_app("pages/2_Binding_inspector.py", query={"session": hostile_session})
    assert_no_raw_beacon(app)
    assert any(shows_escaped(source, BEACON) for _, source in markdown_sources(app))


def test_a_session_link_is_text(open_app: Callable[..., AppTest], tmp_store: Store) -> None:
    app = open_app(query={"session": BEACON})
    assert_no_raw_beacon(app)
    assert any(escape_markdown(BEACON) in info.value for info in app.error)


def test_damaged_rows_never_break_a_page(open_app: Callable[..., AppTest], tmp_store: Store) -> None:
    """The store gives back what an older version left (a lone surrogate) or a row that does not
    validate; every page shows what it can and says what it cannot."""
    from sqlalchemy import text

    from core.store import repository

    repository.create_session(tmp_store, session_id="s-lone", question="only \ud800 CPU",
                              pack="demo", engines={})
    repository.finish_session(tmp_store, session_id="s-lone", status="completed",
                              composer_output=None, timings_ms={}, error="bad \udcff text")
    repository.create_session(tmp_store, session_id="s-broken", question="q", pack="demo",
                              engines={})
    repository.finish_session(tmp_store, session_id="s-broken", status="completed",
                              composer_output=None, timings_ms={})
    with tmp_store.engine.begin() as connection:
        connection.execute(text("UPDATE sessions SET status = 'exploded' WHERE id = 's-broken'"))

    for page, query in ((None, {"session": "s-lone"}), (None, {"session": "s-broken"}),
                        ("pages/1_Sessions.py", {}),
                        ("pages/2_Binding_inspector.py", {"session": "s-lone"}),
                        ("pages/2_Binding_inspector.py", {"session": "s-broken"})):
        app = open_app(page, query=query)
        assert not app.exception, (page, query, app.exception)
    app = open_app(query={"session": "s-broken"})
    assert any("cannot be read back" in error.value for error in app.error)


def test_the_question_box_refuses_what_the_cli_refuses(open_app: Callable[..., AppTest],
                                                       tmp_store: Store) -> None:
    from core.inputs.text import MAX_QUESTION_CHARS
    from core.store import repository

    app = open_app()
    app.text_area(key="question").input("CPU " * MAX_QUESTION_CHARS)
    app.button(key="ask").click().run()
    assert not app.exception
    assert any("characters long" in error.value for error in app.error)
    assert repository.list_sessions(tmp_store) == []
