"""The repair turn in process: what is fixable and what the executor is told, the events and
their fold, the stored attempts, replay, and the answers' partial and repaired lines.

Sessions come from the pipeline with the simulated model as the llm executor, in process
(``SimulatedModel.client()``); the HTTP path is ``tests/llm/test_llm_simulated.py``.
"""

from __future__ import annotations

from typing import Any

import pytest

from core.agents.llm.executor import LLMExecutor
from core.agents.llm.profiles import PROFILES
from core.agents.registry import Engines, build_engines
from core.agents.rules import RulesComposer, RulesPlanner, RulesVerifier
from core.contracts import RecommendedAction, SessionDocument
from core.events import RepairFinished, RepairRequested, parse_event
from core.gatekeeper import check_citations
from core.pipeline import ask, replay, run_investigation, verify_stage
from core.repair import retry_context
from core.store import Store
from core.store.repository import load_session_document
from core.views.repair import repair_summary
from core.views.timeline import view_from_document, view_from_events
from tests.doubles.sim_sessions import SEED_QUESTIONS
from tests.doubles.simulated import SimulatedModel

CPU, MEMORY = SEED_QUESTIONS[0], SEED_QUESTIONS[1]


def engines(**model: Any) -> Engines:
    """Rules roles around an llm executor played by the simulated model."""
    executor = LLMExecutor(SimulatedModel(**model).client(), PROFILES["stub"])
    return Engines(RulesPlanner(), executor, RulesVerifier(), RulesComposer())


def rejudged(document: SessionDocument) -> tuple[Any, Any]:
    """Gatekeeper and verifier again on the document's (edited) output."""
    gatekeeper = check_citations(session_id=document.session_id,
                                 invocations=document.invocations,
                                 executor_output=document.executor_output)
    assert document.plan is not None and document.executor_output_parse_status is not None
    _, result = verify_stage(build_engines(), document.plan, document.question,
                             document.executor_output, document.executor_output_parse_status,
                             gatekeeper, document.invocations)
    return gatekeeper, result


def test_a_wrong_index_is_told_with_what_the_ref_there_says_and_where_the_quote_is() -> None:
    document = ask(CPU)
    assert document.executor_output is not None
    binding = document.executor_output.claims[0].evidence_bindings[1]
    quoted, cited = binding.evidence_excerpt, binding.raw_path
    binding.raw_path = "$.logs[2]" if cited != "$.logs[2]" else "$.logs[3]"
    gatekeeper, result = rejudged(document)
    feedback = retry_context(document.executor_output, document.invocations, gatekeeper, result)
    assert feedback is not None and feedback.verdict == "REJECT"
    finding = feedback.findings[0]
    assert (finding.claim_id, finding.binding_index, finding.rule) == (
        "claim-1", 1, "evidence.excerpt_mismatch")
    assert finding.cited is not None and finding.cited.evidence_excerpt == quoted
    assert finding.ref_text and finding.ref_text != quoted  # the line actually at that path
    assert [place.raw_path for place in finding.found_at] == [cited]


@pytest.mark.parametrize("edit", ["repair_action", "root_cause", "passed"])
def test_no_repair_turn_for_what_a_better_citation_cannot_fix(edit: str) -> None:
    document = ask(MEMORY)
    output = document.executor_output
    assert output is not None
    if edit == "repair_action":
        output.recommended_actions.append(RecommendedAction(
            action_id="action-9", action_text="立即重启 order-service 并把堆内存扩容到 8GB"))
    elif edit == "root_cause":
        output.claims[0].claim_text += "；根因是内存泄漏。"
    gatekeeper, result = rejudged(document)
    assert (result.verdict == "PASS") == (edit == "passed")
    assert retry_context(output, document.invocations, gatekeeper, result) is None


def test_a_repaired_session_streams_stores_and_folds_both_attempts(tmp_store: Store) -> None:
    events = list(run_investigation(CPU, engines=engines(error="paraphrase"), store=tmp_store))
    kinds = [type(event) for event in events]
    assert kinds.count(RepairRequested) == 1 and kinds.count(RepairFinished) == 1
    for event in events:  # every event round-trips through its stored JSON
        assert parse_event(event.model_dump(mode="json")) == event
    finished = next(e for e in events if isinstance(e, RepairFinished))
    assert finished.repaired and finished.previous_verdict == "REJECT"
    document = events[-1].document
    assert document.verifier_result.repairs == 1 and len(document.attempts) == 1
    stored = load_session_document(tmp_store, session_id=document.session_id)
    assert stored is not None and stored.attempts == document.attempts
    assert stored.gatekeeper_result == document.gatekeeper_result

    for view in (view_from_events(events), view_from_document(stored)):
        summary = repair_summary(view)
        assert summary is not None and summary.headline == "repaired after 1 attempt"
        assert summary.tone == "green"
        rows = summary.attempts[0].rows
        assert rows and rows[0]["rule"] == "evidence.excerpt_mismatch"
        assert rows[0]["the evidence there says"]
        assert view.verdict == "PASS" and view.attempts[0].verifier_result is not None


def test_a_session_that_stays_wrong_says_so_and_keeps_what_held() -> None:
    document = ask(CPU, engines=engines(error="wrong_invocation", fixes=False))
    assert document.verifier_result is not None and document.composer_output is not None
    assert document.verifier_result.verdict == "REJECT"
    answer = document.composer_output.user_facing_answer
    assert "已单独通过核验的结论" in answer and "仍未全部通过核验" in answer
    summary = repair_summary(view_from_document(document))
    assert summary is not None and summary.headline == "repair tried after 1 attempt: still REJECT"
    # Verified on their own: entailed, and no binding of theirs failed.
    failed = {c.claim_id for c in document.gatekeeper_result.checked_bindings
              if c.status == "fail"}
    assert document.composer_output.passed_claim_ids
    assert not failed & set(document.composer_output.passed_claim_ids)


def test_replay_keeps_the_attempts_and_the_repaired_line() -> None:
    document = ask(MEMORY, engines=engines(error="missing_raw_path"))
    replayed = replay(document)
    assert replayed.attempts == document.attempts
    assert replayed.verifier_result is not None and replayed.verifier_result.repairs == 1
    assert replayed.composer_output is not None
    assert "修正说明" in replayed.composer_output.user_facing_answer


def test_the_rules_executor_takes_no_repair_turn() -> None:
    document = ask(CPU, executor_fault="fabricate_path")
    assert document.verifier_result is not None and document.verifier_result.verdict == "REJECT"
    assert document.attempts == [] and document.verifier_result.repairs == 0


def test_an_honest_nothing_found_with_an_error_only_query_passes_with_a_warning() -> None:
    document = ask(SEED_QUESTIONS[4], engines=engines(style="natural"))
    gatekeeper = document.gatekeeper_result
    assert gatekeeper is not None and document.verifier_result is not None
    assert document.verifier_result.verdict == "PASS" and not document.attempts
    assert [w.rule for w in gatekeeper.warnings] == ["evidence.negative_redundant"]
    graded = [c for c in gatekeeper.checked_bindings if c.rule == "evidence.negative_redundant"]
    assert len(graded) == 1 and graded[0].status == "fail" and graded[0].severity == "none"


def test_a_failed_call_in_the_repair_turn_ends_in_error_and_keeps_the_first_attempt(
        tmp_store: Store) -> None:
    from tests.doubles.chat_clients import ScriptedChatClient

    answer = {"claims": [{"claim_id": "claim-1", "claim_type": "observation",
                          "claim_text": "order-service 的 HikariCP 连接池已满：active=50/50",
                          "evidence_bindings": [{
                              "tool_name": "query_logs", "source_invocation_id": "{{inv:0}}",
                              "raw_path": "$.logs[3]",  # the pool-stats line is $.logs[0]
                              "evidence_excerpt": "HikariCP pool stats: active=50/50"}]}]}
    client = ScriptedChatClient.from_turns([], executor=[
        {"tool_calls": [{"name": "query_logs",
                         "arguments": {"service": "order-service", "query": "HikariCP"}}]},
        {"content": answer}, {"fault": "http_500"}])
    executor = LLMExecutor(client, PROFILES["stub"])
    document = ask(SEED_QUESTIONS[3], store=tmp_store,
                   engines=Engines(RulesPlanner(), executor, RulesVerifier(), RulesComposer()))
    assert document.status == "error" and document.error is not None
    assert document.error.startswith("repair: llm executor step failed (http_error)")
    assert len(document.attempts) == 1 and document.attempts[0].feedback is not None
    assert document.verifier_result is not None and document.verifier_result.verdict == "REJECT"
    stored = load_session_document(tmp_store, session_id=document.session_id)
    assert stored is not None and stored.status == "error" and stored.attempts == document.attempts
    # The re-ask named the binding, the rule and what the ref there says.
    reask = client.requests[-1].messages[-1]["content"]
    assert "claim-1, binding 0" in reask and "evidence.excerpt_mismatch" in reask
    assert "Your quote is found at: tool_name query_logs" in reask
