"""Filters kept in the URL (core/views/urlfilters.py) and the Sessions page's filters read from
it (AppTest on the real page)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from streamlit.testing.v1 import AppTest

from core.contracts import SessionDocument
from core.views.sessions import SessionFilters, rule_choice_label, session_url_filters
from core.views.urlfilters import UrlFilter, params_from_values, values_from_url

PACK = UrlFilter("pack", "filter_pack", default="any", choices=("any", "demo", "other"))
TEXT = UrlFilter("text", "filter_text")


def test_the_url_wins_only_when_the_page_did_not_write_it() -> None:
    # A link opened (nothing written yet): the URL sets the widgets.
    assert values_from_url([PACK, TEXT], {"pack": "demo", "text": "cpu"}, {}) == {
        "filter_pack": "demo", "filter_text": "cpu"}
    # The page wrote pack=demo and the person has since picked another: the widget wins.
    assert values_from_url([PACK], {"pack": "demo"}, {"pack": "demo"}) == {}
    # A value the filter cannot hold is ignored, never handed to the widget.
    assert values_from_url([PACK], {"pack": "nope"}, {}) == {}
    # Written, then gone from the address: back to "any".
    assert values_from_url([PACK], {}, {"pack": "demo"}) == {"filter_pack": "any"}


def test_only_filters_off_their_default_go_into_the_url() -> None:
    assert params_from_values([PACK, TEXT], {"filter_pack": "any", "filter_text": "  "}) == {}
    assert params_from_values([PACK, TEXT], {"filter_pack": "demo", "filter_text": " cpu "}) == {
        "pack": "demo", "text": "cpu"}


def test_session_filters_from_url_values() -> None:
    now = datetime(2026, 7, 8, 12, 0, tzinfo=UTC)
    filters = SessionFilters.from_values({"pack": "demo", "outcome": "rejected", "fault": "any",
                                          "period": "24h", "origin": "eval", "bogus": "x"})
    query = filters.as_query(now)
    assert (query["pack"], query["outcome"], query["fault"], query["origin"]) == (
        "demo", "rejected", None, "eval")
    assert query["since"] == now - timedelta(days=1)
    assert filters.active and not SessionFilters.from_values({"pack": "any"}).active
    names = [item.param for item in session_url_filters(packs=["demo"], faults=["tamper_number"],
                                                        rules=["r"])]
    assert {"pack", "outcome", "fault", "origin", "period", "rule", "text"} <= set(names)
    assert rule_choice_label("evidence.raw_path", {"evidence.raw_path": 3}) == (
        "evidence.raw_path (3)")
    assert rule_choice_label("any", {}) == "any"


def test_sessions_filtered_by_url(open_app: Callable[..., AppTest],
                                  ask_session: Callable[..., SessionDocument]) -> None:
    passed = ask_session()
    faulty = ask_session(executor_fault="tamper_number")
    app = open_app()
    app.query_params.update({"outcome": "rejected", "fault": "tamper_number"})
    app.switch_page("pages/1_Sessions.py").run()
    assert not app.exception
    table = next(frame.value for frame in app.dataframe if "session" in frame.value.columns)
    assert list(table["session"]) == [faulty.session_id]
    assert list(table["fault"]) == ["tamper_number"] and list(table["origin"]) == ["manual"]
    assert list(table["outcome"]) == ["rejected"]
    assert app.selectbox(key="filter_outcome").value == "rejected"
    rule = faulty.gatekeeper_result.failed_rules[0]
    assert any(option == f"{rule} (1)" for option in app.selectbox(key="filter_rule").options)
    # Set back to "any" on the page: the URL drops it and both sessions show.
    app.selectbox(key="filter_outcome").set_value("any")
    app.selectbox(key="filter_fault").set_value("any").run()
    assert "outcome" not in app.query_params and "fault" not in app.query_params
    table = next(frame.value for frame in app.dataframe if "session" in frame.value.columns)
    assert set(table["session"]) == {passed.session_id, faulty.session_id}


def test_pack_fault_and_origin_come_before_the_question() -> None:
    from core.views.sessions import SESSION_COLUMNS

    question = SESSION_COLUMNS.index("question")
    assert all(SESSION_COLUMNS.index(name) < question for name in ("origin", "pack", "fault"))
