"""Sessions page under AppTest: the history table, its filters, opening a row, exports."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from streamlit.testing.v1 import AppTest

from core.contracts import SessionDocument

if TYPE_CHECKING:
    import pandas as pd

SESSIONS = "pages/1_Sessions.py"


def _table(app: AppTest) -> pd.DataFrame:
    return next(frame.value for frame in app.dataframe if "session" in frame.value.columns)


def test_history_table_filters_and_row_selection(
        open_app: Callable[..., AppTest], ask_session: Callable[..., SessionDocument]) -> None:
    passed = ask_session()
    rejected = ask_session(executor_fault="fabricate_path")
    app = open_app(SESSIONS)
    assert not app.exception
    table = _table(app)
    assert list(table["session"]) == [rejected.session_id, passed.session_id]
    assert list(table["verdict"]) == ["REJECT", "PASS"]
    assert "evidence.raw_path" in table["failed rules"].iloc[0]
    downloads = [button.label for button in app.get("download_button")]
    assert any(label.startswith("Export 2 session(s)") for label in downloads)

    app.selectbox(key="filter_verdict").set_value("REJECT").run()
    assert list(_table(app)["session"]) == [rejected.session_id]
    app.selectbox(key="filter_verdict").set_value("any")
    app.selectbox(key="filter_rule").set_value("evidence.raw_path").run()
    assert list(_table(app)["session"]) == [rejected.session_id]
    app.selectbox(key="filter_rule").set_value("any")
    app.text_input(key="filter_text").input(passed.session_id).run()
    assert list(_table(app)["session"]) == [passed.session_id]
    app.text_input(key="filter_text").input("no such words anywhere").run()
    assert not app.exception
    assert any("No session matches" in info.value for info in app.info)

    app.text_input(key="filter_text").input("").run()
    app.session_state["sessions_table"] = {"selection": {"rows": [0], "columns": [], "cells": []}}
    app.run()
    assert not app.exception
    assert any(header.value == f"Session {rejected.session_id}" for header in app.subheader)
    labels = [button.label for button in app.get("download_button")]
    assert "Session document (JSON)" in labels


def test_sessions_empty_state(open_app: Callable[..., AppTest]) -> None:
    app = open_app(SESSIONS)
    assert not app.exception
    assert any("No sessions yet" in info.value for info in app.info)
