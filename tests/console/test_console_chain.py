"""The Sessions page shows the audit chain's state: intact after real asks, broken (with the
first problem) once a stored verdict is changed behind the store's back."""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import text
from streamlit.testing.v1 import AppTest

from core.contracts import SessionDocument
from core.store import Store
from core.store.audit import verify_chain
from core.views.chain import chain_state, store_chain_state
from tests.console.console_helpers import as_read

SESSIONS = "pages/1_Sessions.py"


def _page_text(app: AppTest) -> str:
    """The page's Markdown (badges are ``:color-badge[...]``) and HTML lines."""
    return " ".join([as_read(markdown.value) for markdown in app.markdown]
                    + [str(element.proto) for element in app.get("html")])


def test_the_sessions_page_shows_the_chain_intact_then_broken(
        open_app: Callable[..., AppTest], ask_session: Callable[..., SessionDocument],
        tmp_store: Store) -> None:
    first, second = ask_session(), ask_session(executor_fault="fabricate_path")
    state = store_chain_state(tmp_store)
    assert state.badge.tone == "green" and state.badge.label == "audit chain intact: 2 sealed"
    assert verify_chain(tmp_store).head[:16] in state.line
    app = open_app(SESSIONS)
    assert not app.exception
    assert "audit chain intact: 2 sealed" in _page_text(app)

    with tmp_store.engine.begin() as connection:
        connection.execute(text("UPDATE sessions SET verdict = 'PASS' WHERE id = :id"),
                           {"id": second.session_id})
    broken = store_chain_state(tmp_store)
    assert broken.badge.tone == "red" and second.session_id in broken.line
    app = open_app(SESSIONS)
    assert not app.exception
    page = _page_text(app)
    assert "audit chain broken" in page and second.session_id in page
    assert first.session_id not in broken.line


def test_an_empty_chain_says_records_are_sealed_as_they_close(tmp_store: Store) -> None:
    state = chain_state(verify_chain(tmp_store))
    assert state.badge.tone == "gray" and "sealed as it closes" in state.line
