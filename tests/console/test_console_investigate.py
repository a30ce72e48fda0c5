"""Investigate (``app.py``) under AppTest: ask, watch the run land, read it back by session id."""

from __future__ import annotations

from collections.abc import Callable

from streamlit.testing.v1 import AppTest

from core.contracts import SessionDocument
from core.store import Store, repository
from tests.console.console_helpers import SEED_QUESTION, XSS_LOG, as_read, wait_until_finished


def _metrics(app: AppTest) -> dict[str, str]:
    return {metric.label: metric.value for metric in app.metric}


def _html(app: AppTest) -> str:
    return "\n".join(element.value for element in app.html)


def test_empty_state_says_what_to_do(open_app: Callable[..., AppTest]) -> None:
    app = open_app()
    assert not app.exception
    assert any("Type a question" in info.value for info in app.info)
    assert app.button(key="ask").disabled is False
    examples = app.get("button_group")[0]
    labels = [option.replace("\\", "") for option in examples.options]
    assert SEED_QUESTION in labels  # the pack's example questions, Markdown-escaped as labels
    examples.set_value(SEED_QUESTION).run()
    assert app.text_area(key="question").value == SEED_QUESTION  # picking one fills the box


def test_ask_shows_plan_tools_claims_verdict_and_answer(
        open_app: Callable[..., AppTest], tmp_store: Store) -> None:
    app = open_app()
    app.text_area(key="question").input(SEED_QUESTION)
    app.button(key="ask").click().run()
    assert not app.exception
    session_id = app.session_state["session_id"]
    assert app.query_params["session"] == [session_id] or app.query_params["session"] == session_id
    document = wait_until_finished(tmp_store, session_id)
    app.run()
    assert not app.exception

    assert document.verifier_result is not None and document.composer_output is not None
    metrics = _metrics(app)
    assert metrics["Verdict"] == document.verifier_result.verdict == "PASS"
    assert metrics["Groundedness"] == f"{document.verifier_result.groundedness_score:.2f}"
    assert metrics["Tool calls"] == str(len(document.invocations))
    html = _html(app)
    assert "sb-answer" in html
    assert document.composer_output.user_facing_answer.split("\n")[0][:20] in html
    expanders = [expander.label for expander in app.expander]
    assert any(label.startswith("Plan") for label in expanders)
    assert any(label.startswith(f"Tool calls ({len(document.invocations)})") for label in expanders)
    assert any(label.startswith(f"Claims ({len(document.executor_output.claims)})")
               for label in expanders)
    # Every term of the question, with its fate: a PASS accounts for each.
    assert "Question terms — every one accounted for" in expanders
    terms_table = next(frame.value for frame in app.dataframe if "fate" in frame.value.columns)
    assert list(terms_table["term"]) == [term.text for term in document.verifier_result.question_terms]
    assert set(terms_table["accounted"]) == {"accounted"}
    # Every evidence ref of every invocation is in a refs table, verbatim.
    tables = [frame.value for frame in app.dataframe]
    ref_texts = {text for table in tables if "raw_path" in table.columns and "text" in table.columns
                 for text in table["text"]}
    for invocation in document.invocations:
        for ref in invocation.retrieval_details.evidence_refs:
            assert ref.text in ref_texts
    # Each binding row carries the gatekeeper's verdict as a coloured label.
    binding_tables = [t for t in tables if "gatekeeper" in t.columns and "excerpt" in t.columns]
    assert binding_tables and all(v == "pass" for t in binding_tables
                                  for v in t["gatekeeper"])
    assert any(label.startswith("Pipeline events (") for label in expanders)
    # Inputs are enabled again once the run is over.
    assert app.button(key="ask").disabled is False


def test_inputs_are_disabled_while_a_run_is_going(open_app: Callable[..., AppTest],
                                                  tmp_store: Store) -> None:
    from ui.runs import RunHandle, _registry

    # What start_run leaves mid-run: the session row, its first event, and a live handle.
    repository.create_session(tmp_store, session_id="s-running", question=SEED_QUESTION,
                              pack="demo", engines={"planner": "rules"})
    repository.append_event(tmp_store, session_id="s-running", seq=0, kind="session_started",
                            payload={"session_id": "s-running", "seq": 0,
                                     "kind": "session_started", "question": SEED_QUESTION,
                                     "pack": "demo", "engines": {"planner": "rules"}})
    handle = RunHandle(session_id="s-running")
    _registry()["s-running"] = handle
    try:
        app = open_app(query={"session": "s-running"})
        assert not app.exception
        assert app.button(key="ask").disabled
        # The question box stays enabled: a disabled one is redrawn empty in a browser (the
        # browser test checks the question is still there after the run).
        assert not app.text_area(key="question").disabled
        assert app.selectbox(key="fault").disabled
        assert any(info.value.startswith("Running — planning") for info in app.info)
        assert any(e.label == "Pipeline events (1)" for e in app.expander)
    finally:
        handle.done.set()
        _registry().pop("s-running", None)


def test_a_session_link_reads_the_stored_session_back(
        open_app: Callable[..., AppTest], ask_session: Callable[..., SessionDocument]) -> None:
    document = ask_session(executor_fault="tamper_number")
    app = open_app(query={"session": document.session_id})
    assert not app.exception
    assert _metrics(app)["Verdict"] == "REJECT"
    tables = [frame.value for frame in app.dataframe]
    labels = [v for t in tables if "gatekeeper" in t.columns for v in t["gatekeeper"]]
    assert any(label == "reject" for label in labels)


def test_unknown_session_link_says_what_to_do(open_app: Callable[..., AppTest]) -> None:
    app = open_app(query={"session": "s-nope"})
    assert not app.exception
    assert any("No session s-nope" in as_read(info.value) for info in app.error)


def test_empty_question_is_refused_without_a_session(
        open_app: Callable[..., AppTest], tmp_store: Store) -> None:
    app = open_app()
    app.button(key="ask").click().run()
    assert not app.exception
    assert any("Type a question first" in error.value for error in app.error)
    assert repository.list_sessions(tmp_store) == []


def test_tool_text_is_shown_literally(open_app: Callable[..., AppTest], tmp_store: Store,
                                      xss_pack: str) -> None:
    app = open_app()
    app.text_area(key="question").input(SEED_QUESTION)
    app.button(key="ask").click().run()
    wait_until_finished(tmp_store, app.session_state["session_id"])
    app.run()
    assert not app.exception
    html = _html(app)
    assert "<script>" not in html  # only ever escaped
    refs = {text for frame in app.dataframe if "text" in frame.value.columns
            for text in frame.value["text"]}
    assert any(XSS_LOG in text for text in refs)  # verbatim in the refs table
    assert not any("<script>" in markdown.value for markdown in app.markdown)


def test_a_repaired_session_says_so_with_what_its_first_attempt_got_wrong(
        open_app: Callable[..., AppTest], ask_session: Callable[..., object]) -> None:
    from core.agents.llm.executor import LLMExecutor
    from core.agents.llm.profiles import PROFILES
    from core.agents.registry import Engines
    from core.agents.rules import RulesComposer, RulesPlanner, RulesVerifier
    from tests.doubles.simulated import SimulatedModel

    executor = LLMExecutor(SimulatedModel(error="paraphrase").client(), PROFILES["stub"])
    document = ask_session(engines=Engines(RulesPlanner(), executor, RulesVerifier(),
                                           RulesComposer()))
    app = open_app(query={"session": document.session_id})  # type: ignore[attr-defined]
    assert not app.exception
    assert _metrics(app)["Verdict"] == "PASS"
    assert any("repaired after 1 attempt" in markdown.value for markdown in app.markdown)
    attempt = next(e for e in app.expander if e.label.replace("\\", "").startswith("Attempt 1: REJECT"))
    rows = attempt.dataframe[0].value
    assert list(rows["rule"]) == ["evidence.excerpt_mismatch"]
    assert rows["the evidence there says"].iloc[0]  # what the cited ref actually says
