"""The llm executor with a scripted model over the demo pack: tool loop, citations, re-ask,
invalid calls recorded, bounded steps, parse status."""

from __future__ import annotations

import json
from typing import Any

import pytest

from core.agents.llm import wire
from core.agents.llm.errors import LLMCallError
from core.agents.llm.executor import UNDECODABLE_ARGUMENTS_KEY, LLMExecutor
from core.agents.llm.profiles import ModelProfile
from core.contracts import Plan
from core.events import ToolCalled, ToolReturned
from core.gatekeeper import check_citations
from core.recorder import Recorder
from tests.doubles.chat_clients import ScriptedChatClient
from tests.llm.llm_helpers import STUB, VLLM, drive, final_claims, profile_without_schemas, scripted

QUESTION = "确认 order-service 是否存在 HikariCP 连接池耗尽"
HIKARI_CALL = {"tool_calls": [{"name": "query_logs",
                               "arguments": {"service": "order-service", "query": "HikariCP"}}]}
HONEST_CLAIM = dict(
    claim_id="claim-1", claim_type="observation",
    claim_text="order-service 出现 HikariPool-1 获取连接超时 request timed out after 30000ms",
    evidence_bindings=[{"tool_name": "query_logs", "source_invocation_id": "{{inv:-1}}",
                        "raw_path": "$.logs[1]",
                        "evidence_excerpt": "HikariPool-1 - Connection is not available, "
                                            "request timed out after 30000ms"}])


@pytest.fixture
def recorder(demo_world: Any) -> Recorder:
    return Recorder(world=demo_world, session_id="s-llm-test")


def plan() -> Plan:
    return Plan(question=QUESTION, services=["order-service"], topics=["connection_pool"],
                narrow=True, tools=["query_logs"])


def executor(client: ScriptedChatClient, profile: Any = VLLM, **options: Any) -> LLMExecutor:
    return LLMExecutor(client, profile, **options)


def test_honest_transcript_cites_what_the_recorder_recorded(recorder: Recorder) -> None:
    client = scripted("honest_hikaricp")
    events, output, status = drive(executor(client).run(plan(), recorder))

    assert [type(event) for event in events] == [ToolCalled, ToolReturned]
    invocation = recorder.invocations[0]
    assert status.status == "valid" and "executor.v1" in status.detail
    assert output is not None
    bindings = output.claims[0].evidence_bindings
    assert {b.source_invocation_id for b in bindings} == {invocation.invocation_id}
    gatekeeper = check_citations(session_id="s-llm-test", invocations=recorder.invocations,
                                 executor_output=output, parse_status=status)
    assert (gatekeeper.status, gatekeeper.severity) == ("pass", "none")


def test_tool_message_is_the_invocation_json_and_the_call_is_echoed(recorder: Recorder) -> None:
    client = scripted("honest_hikaricp")
    drive(executor(client).run(plan(), recorder))

    second = client.requests[1].messages
    assistant, tool = second[-2], second[-1]
    assert assistant["role"] == "assistant" and assistant["content"] is None
    call = assistant["tool_calls"][0]
    assert call["type"] == "function" and call["function"]["name"] == "query_logs"
    assert json.loads(call["function"]["arguments"]) == {"service": "order-service",
                                                         "query": "HikariCP"}
    assert tool == {"role": "tool", "tool_call_id": call["id"],
                    "content": wire.invocation_json(recorder.invocations[0])}
    assert json.loads(tool["content"])["retrieval_details"]["evidence_refs"][1]["raw_path"] \
        == "$.logs[1]"


def test_prompt_carries_the_seed_rules_and_the_tools(recorder: Recorder) -> None:
    client = scripted("honest_hikaricp")
    drive(executor(client).run(plan(), recorder))
    first = client.requests[0]
    system = first.messages[0]["content"]
    assert "单一职责与输出边界" in system and "窄范围问题 HARD-GATE" in system
    assert "source_invocation_id" in system and "raw_path" in system
    assert QUESTION in first.messages[1]["content"]
    assert [tool["function"]["name"] for tool in first.tools or []] == [
        "query_metrics", "query_logs", "lookup_knowledge"]
    assert first.response_format is None  # vLLM: tools and a schema are not mixed


def test_strict_backend_constrains_the_answer_inside_the_loop(recorder: Recorder) -> None:
    client = scripted("honest_hikaricp")
    drive(executor(client, STUB).run(plan(), recorder))
    response_format = client.requests[0].response_format or {}
    assert response_format["json_schema"]["name"] == "executor_output"
    assert response_format["json_schema"]["strict"] is True


def test_broken_json_is_re_asked_once_then_reported_invalid(recorder: Recorder) -> None:
    client = scripted("broken_json")
    _, output, status = drive(executor(client).run(plan(), recorder))
    assert output is None and status.status == "invalid"
    assert "after one re-ask" in status.detail and "not valid JSON" in status.detail
    assert len(client.requests) == 3
    reask = client.requests[2]
    last = reask.messages[-1]
    assert last["role"] == "user" and "could not be used" in last["content"]
    assert reask.response_format is not None  # the re-ask asks for the schema explicitly


def test_one_bad_answer_then_a_good_one_is_repaired(recorder: Recorder) -> None:
    client = ScriptedChatClient.from_turns(
        [], executor=[HIKARI_CALL, {"content": '{"claims": "not a list"}'},
                      final_claims(**HONEST_CLAIM)])
    _, output, status = drive(executor(client).run(plan(), recorder))
    assert output is not None and status.status == "repaired"
    assert "claims: Input should be a valid list" in status.detail


def test_empty_answers_are_missing(recorder: Recorder) -> None:
    _, output, status = drive(executor(scripted("fault_empty_answer")).run(plan(), recorder))
    assert output is None and status.status == "missing"


@pytest.mark.parametrize(("transcript", "error"), [
    ("fault_unknown_tool", "unknown tool 'query_database'"),
    ("fault_invented_arguments", "time_range: unknown argument"),
])
def test_invalid_calls_are_recorded_answered_and_never_trusted(recorder: Recorder,
                                                               transcript: str, error: str) -> None:
    client = scripted(transcript)
    events, output, status = drive(executor(client).run(plan(), recorder))

    failed, good = recorder.invocations
    assert failed.retrieval_details is not None
    assert failed.retrieval_details.evidence_status == "error"
    assert error in failed.output["error"]
    assert len([e for e in events if isinstance(e, ToolReturned)]) == 2
    tool_reply = client.requests[1].messages[-1]
    assert json.loads(tool_reply["content"])["output"]["error"] == failed.output["error"]
    assert output is not None and output.claims[0].evidence_bindings[0].source_invocation_id \
        == good.invocation_id
    assert status.status == "invalid" and error in status.detail


def test_arguments_that_are_not_json_are_recorded_raw(recorder: Recorder) -> None:
    client = ScriptedChatClient.from_turns([], executor=[
        {"tool_calls": [{"name": "query_logs", "arguments": '{"service": "order-service"'}]},
        final_claims(**HONEST_CLAIM)])
    _, _, status = drive(executor(client).run(plan(), recorder))
    failed = recorder.invocations[0]
    assert failed.arguments == {UNDECODABLE_ARGUMENTS_KEY: '{"service": "order-service"'}
    assert failed.output["success"] is False
    assert status.status == "invalid" and "arguments are not valid JSON" in status.detail


def test_tool_steps_are_bounded(recorder: Recorder) -> None:
    client = ScriptedChatClient.from_turns([], executor=[
        HIKARI_CALL, HIKARI_CALL, final_claims(**HONEST_CLAIM)])
    _, output, status = drive(executor(client, max_tool_steps=2).run(plan(), recorder))
    assert len(recorder.invocations) == 2
    last = client.requests[-1]
    assert last.tools is None and "tool budget is spent" in last.messages[-1]["content"]
    assert output is not None and status.status == "invalid"
    assert "still calling tools after 2 step(s)" in status.detail


def test_prompted_json_backend_gets_the_schema_in_the_prompt(recorder: Recorder) -> None:
    client = scripted("honest_hikaricp")
    _, output, status = drive(executor(client, profile_without_schemas()).run(plan(), recorder))
    assert output is not None and status.status == "valid"
    assert '"evidence_bindings"' in client.requests[0].messages[1]["content"]
    assert all(request.response_format is None for request in client.requests)


def test_transport_failure_raises_with_the_role_named(recorder: Recorder) -> None:
    with pytest.raises(LLMCallError) as caught:
        drive(executor(scripted("fault_timeout")).run(plan(), recorder))
    assert caught.value.kind == "timeout"
    assert str(caught.value).startswith("llm executor step failed (timeout)")


class QuotesTheFirstRef:
    """A model that cannot call tools: it quotes the first evidence ref in its prompt."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []

    def complete(self, messages: list[dict[str, Any]], *, tools: Any = None,
                 response_format: Any = None) -> Any:
        from core.agents.llm.client import ChatTurn

        self.requests.append({"messages": messages, "tools": tools})
        prompt = messages[-1]["content"]
        first = json.loads(next(line for line in prompt.splitlines()
                                if line.startswith('{"invocation_id"')))
        ref = first["retrieval_details"]["evidence_refs"][0]
        return ChatTurn(content=json.dumps(final_claims(claim_type="observation",
            claim_text=ref["text"], evidence_bindings=[{
                "tool_name": first["tool_name"], "source_invocation_id": first["invocation_id"],
                "raw_path": ref["raw_path"], "evidence_excerpt": ref["text"]}])["content"]))


def test_a_backend_without_tool_calling_gets_the_results_in_its_prompt(
        recorder: Recorder) -> None:
    model = QuotesTheFirstRef()
    no_tools = ModelProfile("completion-only", tool_calling=False, json_schema_output=False)
    events, output, status = drive(LLMExecutor(model, no_tools).run(plan(), recorder))
    assert recorder.invocations and len(events) == 2 * len(recorder.invocations)
    assert all(request["tools"] is None for request in model.requests)
    assert output is not None and status.status == "valid"
    assert "the server does not call tools" in status.detail
    gate = check_citations(session_id="s-llm-test", invocations=recorder.invocations,
                           executor_output=output, parse_status=status)
    assert not gate.failed_rules  # what it cited is what the code called
