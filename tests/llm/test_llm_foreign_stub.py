"""Stubs that know nothing of our role markers: they answer by the last message, or by turn
order. An honest exchange still ends PASS where it should; a step the stub cannot play is
recorded and never PASS."""

from __future__ import annotations

import json
from typing import Any

import pytest

from core.agents.llm.client import ChatTurn, ToolCallRequest
from core.agents.llm.composer import LLMComposer
from core.agents.llm.errors import LLMCallError
from core.agents.llm.planner import LLMPlanner
from core.agents.llm.transcript import Transcript, TranscriptError
from core.agents.registry import build_engines
from core.contracts import ClaimResult, Plan, VerifierResult
from core.pipeline import ask
from tests.doubles.chat_clients import FunctionChatClient, ScriptedChatClient
from tests.llm.llm_helpers import VLLM, executor_stage

HIKARI = "确认 order-service 是否存在 HikariCP 连接池耗尽"
EXCERPT = ("[ERROR][order-service] HikariPool-1 - Connection is not available, request timed "
           "out after 30000ms")


def last_message_stub(messages: list[dict[str, Any]], tools: Any, response_format: Any) -> ChatTurn:
    """A stub scripted for the executor only: 'after a tool result, answer; else call a tool'."""
    last = messages[-1]
    if last["role"] != "tool":
        return ChatTurn(content=None, tool_calls=(ToolCallRequest(
            id="call_1", name="query_logs",
            arguments_json='{"service": "order-service", "query": "HikariCP"}'),),
            finish_reason="tool_calls")
    invocation_id = json.loads(last["content"])["invocation_id"]
    claim = {"claim_id": "claim-1", "claim_type": "observation",
             "claim_text": "order-service 出现 HikariPool-1 获取连接超时 (request timed out "
                           "after 30000ms)",
             "evidence_bindings": [{"tool_name": "query_logs",
                                    "source_invocation_id": invocation_id,
                                    "raw_path": "$.logs[1]", "evidence_excerpt": EXCERPT}]}
    return ChatTurn(content=json.dumps({"claims": [claim]}), finish_reason="stop")


def test_executor_only_stub_passes_with_the_executor_alone_on_llm(demo_world: Any,
                                                                  tmp_store: Any) -> None:
    client = FunctionChatClient(last_message_stub)
    engines = build_engines({"executor": "llm"}, client=client, profile=VLLM)
    document = ask(HIKARI, pack=demo_world, engines=engines, store=tmp_store)
    assert document.status == "completed" and document.verifier_result is not None
    assert document.verifier_result.verdict == "PASS"
    assert len(client.requests) == 2  # one tool turn, then the final answer


def test_executor_only_stub_with_every_role_on_llm_is_recorded_and_never_pass(
        demo_world: Any, tmp_store: Any) -> None:
    client = FunctionChatClient(last_message_stub)
    engines = build_engines("llm", client=client, profile=VLLM)
    document = ask(HIKARI, pack=demo_world, engines=engines, store=tmp_store)
    # The planner's tool calls are not a plan: the rules plan is used, and says why.
    assert document.plan is not None
    assert "it called tools instead of giving the final JSON answer" in document.plan.notes[0]
    # The verifier cannot be played by this stub: the rules verifier judges, nothing is PASS.
    assert document.status == "completed" and document.verifier_result is not None
    assert document.verifier_result.verdict != "PASS"
    assert any("llm verifier step failed (invalid_output)" in reason
               for reason in document.verifier_result.reasons)
    assert len(document.invocations) == 1  # the executor's call is kept


def test_planner_transport_failures_are_not_forgiven(demo_world: Any) -> None:
    client = ScriptedChatClient.from_turns([{"fault": "http_503"}])
    with pytest.raises(LLMCallError) as caught:
        LLMPlanner(client, VLLM).plan(HIKARI, demo_world)
    assert str(caught.value).startswith("llm planner step failed (http_error)")


def test_an_unusable_composer_answer_is_replaced_by_the_rules_composer(demo_world: Any) -> None:
    plan = Plan(question=HIKARI, services=["order-service"], topics=["connection_pool"],
                narrow=True, tools=["query_logs"])
    verifier_input = executor_stage("honest_hikaricp", demo_world, plan)
    verdict = VerifierResult(verdict="PASS", groundedness_score=1.0, claim_results=[
        ClaimResult(claim_id="claim-1", entailed=True)])
    client = ScriptedChatClient.from_turns([{"content": "Sure, the pool is exhausted."},
                                            {"fault": "empty"}])
    output = LLMComposer(client, VLLM).compose(plan, verifier_input, verdict)
    assert output.status == "valid" and output.passed_claim_ids == ["claim-1"]
    assert "its answer was not usable (invalid)" in output.notes[0]
    assert len(client.requests) == 2  # the answer and one re-ask


def test_a_sequence_transcript_is_answered_in_arrival_order() -> None:
    sequence = ScriptedChatClient(Transcript.model_validate(
        {"sequence": [{"content": "first"}, {"content": "second"}]}))
    system = {"role": "system", "content": "<!-- superbiz planner prompt (planner.v1) -->"}
    assert sequence.complete([system]).content == "first"
    assert sequence.complete([{"role": "user", "content": "other"}]).content == "second"
    with pytest.raises(TranscriptError, match="no turn 2 in its sequence"):
        sequence.complete([system])
