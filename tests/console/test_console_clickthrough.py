"""Every session id opens its session, a link restores the whole Investigate view, the raw output
opens at the cited path, long text is folded not cut, and the small pickers read well."""

from __future__ import annotations

from collections.abc import Callable

from streamlit.testing.v1 import AppTest

from core.contracts import SessionDocument
from core.store import Store, repository
from core.views.choices import NO_FAULT, fault_choices, fault_label, restored_inputs
from core.views.folding import FOLD_CHARS, fold_text
from core.views.inspector import session_bindings, support_rows
from core.views.rawjson import cited_json_lines, lines_html, parse_raw_path, value_at
from core.views.sessions import session_link, session_rows
from core.views.theme import theme_links
from tests.console.console_helpers import SEED_QUESTION, as_read


def test_a_link_restores_question_pack_fault_and_engines(
        open_app: Callable[..., AppTest], ask_session: Callable[..., SessionDocument]) -> None:
    document = ask_session(executor_fault="tamper_number")
    app = open_app(query={"session": document.session_id})
    assert not app.exception
    assert app.text_area(key="question").value == SEED_QUESTION
    assert app.selectbox(key="fault").value == "tamper_number"
    assert app.selectbox(key="pack").value == document.pack
    # Another link in the same tab replaces them all.
    other = ask_session("确认 inventory-service 是否存在 HikariCP 连接池耗尽")
    app.query_params["session"] = other.session_id
    app.run()
    assert not app.exception
    assert app.text_area(key="question").value == other.question
    assert app.selectbox(key="fault").value == NO_FAULT


def test_restored_inputs_keep_only_what_this_console_can_run() -> None:
    document = SessionDocument(session_id="s-1", question="q", pack="gone-pack",
                               executor_fault="not-a-fault",
                               engines={"planner": "llm", "executor": "rules"})
    inputs = restored_inputs(document, worlds=["demo"], llm_usable=False)
    assert inputs["question"] == "q" and "pack" not in inputs and inputs["fault"] == NO_FAULT
    assert inputs["engine_planner"] == "rules" and inputs["engine_executor"] == "rules"
    usable = restored_inputs(document, worlds=["gone-pack"], llm_usable=True)
    assert usable["engine_planner"] == "llm" and usable["pack"] == "gone-pack"


def test_session_ids_link_to_investigate(tmp_store: Store,
                                         ask_session: Callable[..., SessionDocument],
                                         open_app: Callable[..., AppTest]) -> None:
    document = ask_session()
    rows = session_rows(repository.list_sessions(tmp_store))
    assert rows[0]["open"] == f"./?session={document.session_id}"
    assert session_link("a b/c?d") == "./?session=a%20b%2Fc%3Fd"  # any id stays one parameter
    app = open_app("pages/1_Sessions.py")
    assert not app.exception
    table = next(frame.value for frame in app.dataframe if "open" in frame.value.columns)
    assert list(table["open"]) == [f"./?session={document.session_id}"]
    app.session_state["sessions_table"] = {"selection": {"rows": [0], "columns": [],
                                                         "cells": []}}
    app.run()
    links = [link.proto for link in app.get("page_link")]
    opened = [link for link in links if link.label == "Open in Investigate"]
    assert opened and f"session={document.session_id}" in opened[0].query_string


def test_raw_output_opens_at_the_cited_path(ask_session: Callable[..., SessionDocument]) -> None:
    document = ask_session()
    item = next(b for b in session_bindings(document)
                if b.binding.raw_path and b.invocation is not None)
    assert item.invocation is not None and item.binding.raw_path is not None
    steps = parse_raw_path(item.binding.raw_path)
    assert steps is not None
    found, cited = value_at(item.invocation.output, steps)
    assert found
    lines = cited_json_lines(item.invocation.output, item.binding.raw_path)
    marked = "\n".join(line.text for line in lines if line.cited)
    for value in cited.values() if isinstance(cited, dict) else [cited]:
        if isinstance(value, str):
            assert value.replace('"', '\\"') in marked  # the cited element, expanded
    assert "sb-cited" in lines_html(lines)


def test_raw_json_folds_around_the_citation_and_escapes() -> None:
    output = {"alerts": [{"n": index, "text": "<b>x</b>"} for index in range(40)]}
    lines = cited_json_lines(output, "$.alerts[20]")
    texts = [line.text for line in lines]
    assert any("19 more items" in text for text in texts)  # before it: 0..18 folded
    assert any("18 more items" in text for text in texts)  # after it: 22..39 folded
    cited = [line.text.strip() for line in lines if line.cited]
    assert cited[0] == "{" and '"n": 20,' in cited
    assert "<b>" not in lines_html(lines) and "&lt;b&gt;" in lines_html(lines)
    # A path that names nothing: shown whole, nothing marked.
    assert not any(line.cited for line in cited_json_lines(output, "$.alerts[99]"))
    assert parse_raw_path("$.alerts[0].labels") == ["alerts", 0, "labels"]
    assert parse_raw_path("alerts[0]") is None and parse_raw_path("$.a[x]") is None


def test_long_text_is_folded_never_cut() -> None:
    short = fold_text("short")
    assert short.head == "short" and not short.folded
    long = "word " * 4000
    folded = fold_text(long)
    assert folded.folded and len(folded.head) <= FOLD_CHARS + 2
    assert folded.head.endswith(" …") and not folded.head[:-2].endswith("wor")


def test_a_long_stored_question_is_folded_on_investigate(open_app: Callable[..., AppTest],
                                                         tmp_store: Store) -> None:
    question = "是否存在 HikariCP 连接池耗尽 " * 1000  # an older store held 20,000 characters
    repository.create_session(tmp_store, session_id="s-long", question=question, pack="demo",
                              engines={"planner": "rules"})
    repository.finish_session(tmp_store, session_id="s-long", status="completed",
                              composer_output=None, timings_ms={"total": 1.0})
    app = open_app(query={"session": "s-long"})
    assert not app.exception
    shown = [element.value for element in app.html if "HikariCP" in element.value]
    assert len(shown[0]) < FOLD_CHARS + 100  # the start of it at the top...
    folded = next(e for e in app.expander if as_read(e.label) == (
        f"Show all {len(question):,} characters of the question"))
    assert any(question in element.value for element in folded.get("html"))  # ...all of it here


def test_the_verifier_supports_are_listed_per_fact(
        ask_session: Callable[..., SessionDocument]) -> None:
    document = ask_session()
    item = next(b for b in session_bindings(document) if b.key.owner_kind == "claim")
    rows = support_rows(document, item.key)
    assert rows, "a verified claim has supported facts"
    assert {"fact", "role", "evidence", "binding", "where"} <= set(rows[0])
    assert any(row["binding"].endswith("(this one)") for row in rows)


def test_fault_labels_are_short_enough_to_read_whole() -> None:
    labels = [fault_label(name) for name in fault_choices()]
    assert labels[0] == "none · honest executor"
    assert all(len(label) <= 36 for label in labels)
    assert fault_label("tamper_number") == "tamper_number · gatekeeper"


def test_theme_links_keep_the_page_and_mark_the_one_shown() -> None:
    links = theme_links({"session": "s-1", "embed_options": "dark_theme"}, "dark")
    assert [(link.label, link.href, link.active) for link in links] == [
        ("System", "?session=s-1", False),
        ("Light", "?session=s-1&embed_options=light_theme", False),
        ("Dark", "?session=s-1&embed_options=dark_theme", True)]
    assert theme_links({}, None)[0].href == "?"
