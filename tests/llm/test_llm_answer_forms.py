"""Answers in every form a real server or another team's stub may legitimately send: read
what is there, refuse what is not, never invent a citation."""

from __future__ import annotations

import json
from typing import Any

import pytest

from core.agents.llm import lenient, wire
from core.agents.llm.client import ChatTurn
from core.agents.llm.completion import (
    CompletionFormatError,
    turn_from_body,
    turn_from_completion,
)
from core.agents.llm.executor import UNDECODABLE_ARGUMENTS_KEY, decode_arguments
from core.agents.llm.profiles import PROFILES
from core.agents.llm.structured import request_structured
from core.contracts import ExecutorOutput, Plan, VerifierResult


def body(message: dict[str, Any], finish_reason: str = "stop") -> dict[str, Any]:
    return {"choices": [{"index": 0, "message": {"role": "assistant", **message},
                         "finish_reason": finish_reason}]}


# ---------------------------------------------------------------- completion bodies


def test_tool_calls_in_every_legitimate_shape() -> None:
    turn = turn_from_completion(body({"content": None, "tool_calls": [
        {"id": "a", "type": "function", "function": {"name": "query_logs", "arguments": ""}},
        {"type": "function", "function": {"name": "query_logs", "arguments": {"service": "x"}}},
        {"id": "c", "type": "function", "function": {"name": "query_metrics"}},
        {"id": "d", "type": "custom", "custom": {"name": "shell", "input": "ls"}},
    ]}, "tool_calls"))
    assert [(c.id, c.name, c.arguments_json) for c in turn.tool_calls[:3]] == [
        ("a", "query_logs", ""), ("call_1", "query_logs", '{"service": "x"}'),
        ("c", "query_metrics", "")]
    # Not a function call: kept, under a name no tool has, so it is recorded as a failed call.
    assert turn.tool_calls[3].name == "(custom tool call)"
    assert turn.content is None and turn.finish_reason == "tool_calls"


def test_legacy_function_call_is_one_tool_call() -> None:
    turn = turn_from_completion(body({"content": None, "function_call": {
        "name": "query_logs", "arguments": '{"service": "order-service"}'}}, "function_call"))
    assert [(c.id, c.name) for c in turn.tool_calls] == [("call_legacy_0", "query_logs")]


def test_content_parts_are_joined_and_a_refusal_is_kept() -> None:
    parts = turn_from_completion(body({"content": [{"type": "text", "text": '{"a":'},
                                                   {"type": "text", "text": " 1}"}]}))
    assert parts.content == '{"a": 1}'
    refused = turn_from_completion(body({"content": None, "refusal": "I can't help"}))
    assert refused.refusal == "I can't help" and not refused.is_empty
    assert turn_from_completion(body({"content": None})).is_empty


@pytest.mark.parametrize(("text", "reason"), [
    ("<html>502 Bad Gateway</html>", "is not JSON: '<html>502 Bad Gateway</html>'"),
    ("[1, 2]", "not an object"),
    ('{"id": "x"}', "without any choice (no 'choices')"),
    ('{"choices": []}', "an empty 'choices' list"),
    ('{"error": {"message": "model overloaded"}}', "an error and no choice: 'model overloaded'"),
    ('{"choices": [{"index": 0}]}', "first choice has no message"),
])
def test_bodies_that_are_not_completions_say_why(text: str, reason: str) -> None:
    with pytest.raises(CompletionFormatError) as caught:
        turn_from_body(text, "text/html")
    assert reason in str(caught.value)


# ---------------------------------------------------------------- answer text


@pytest.mark.parametrize(("content", "expected"), [
    ('Sure! Here it is:\n```json\n{"a": {"b": 2}}\n```\nAnything else? {x}', {"a": {"b": 2}}),
    ('```\n{"a": 1}```', {"a": 1}),
    ('The answer: {"a": [1, 2]} -- done {y}', {"a": [1, 2]}),
])
def test_json_is_found_in_fences_and_prose(content: str, expected: Any) -> None:
    assert wire.parse_json_answer(content) == expected


def test_a_truncated_answer_never_yields_an_inner_object() -> None:
    cut = '{"question": "q", "services": ["a"], "exclusions": {"services": ["b"]}, "tools": ['
    with pytest.raises(ValueError, match="not valid JSON"):
        wire.parse_json_answer(cut)


def test_arguments_encoded_twice_are_read_and_others_recorded_raw() -> None:
    assert decode_arguments(json.dumps('{"service": "a"}')) == ({"service": "a"}, "")
    assert decode_arguments("") == ({}, "")
    raw, problem = decode_arguments('"just text"')
    assert raw == {UNDECODABLE_ARGUMENTS_KEY: '"just text"'} and "JSON object" in problem


# ---------------------------------------------------------------- lenient reading


def test_forms_are_normalised_against_the_contract() -> None:
    data = {"claims": [{"claim_type": "Negative Observation", "claim_text": "nothing found",
                        "evidence_bindings": [{"source_invocation_id": "inv-12",
                                               "evidence_excerpt": 7}], "extra": 1},
                       {"claim_id": 2, "claim_type": "RootCause", "claim_text": "x",
                        "evidence_bindings": None}],
            "missing_info": ["no database metrics"], "hypotheses": None}
    output = ExecutorOutput.model_validate(lenient.normalise(data, ExecutorOutput))
    first, second = output.claims
    assert (first.claim_id, first.claim_type) == ("claim-1", "negative_observation")
    assert first.evidence_bindings[0].source_invocation_id == 12
    assert first.evidence_bindings[0].evidence_excerpt == "7"
    assert (second.claim_id, second.claim_type, second.evidence_bindings) == (
        "2", "root_cause", [])
    assert [(m.info_id, m.description) for m in output.missing_info] == [
        ("missing-1", "no database metrics")]


def test_forms_that_are_not_clear_are_left_for_validation_to_refuse() -> None:
    data = {"claims": [{"claim_id": "c", "claim_text": "t", "claim_type": "fact",
                        "evidence_bindings": [{"source_invocation_id": "call_0_0"}]}]}
    fixed = lenient.normalise(data, ExecutorOutput)
    assert fixed["claims"][0]["claim_type"] == "fact"
    assert fixed["claims"][0]["evidence_bindings"][0]["source_invocation_id"] == "call_0_0"
    # A bare string is never turned into a claim: a claim needs citations.
    assert lenient.normalise({"claims": ["it is broken"]}, ExecutorOutput) == {
        "claims": ["it is broken"]}


def test_wrappers_and_bare_lists_are_unwrapped() -> None:
    claim = {"claim_id": "c", "claim_text": "t"}
    assert lenient.normalise({"executor_output": {"claims": [claim]}}, ExecutorOutput) == {
        "claims": [claim]}
    assert lenient.normalise([claim], ExecutorOutput) == {"claims": [claim]}
    assert lenient.normalise({"verdict": "low confid"}, VerifierResult) == {
        "verdict": "LOW_CONFID"}


def _answers(*contents: str) -> Any:
    turns = iter(contents)
    return lambda messages, **options: ChatTurn(content=next(turns))


def test_an_answer_for_another_role_does_not_pass_as_an_empty_one() -> None:
    verdict = json.dumps({"verdict": "PASS", "groundedness_score": 1.0})
    output, status = request_structured(_answers(verdict, verdict), [], ExecutorOutput,
                                        name="executor_output", profile=PROFILES["vllm"])
    assert output is None and status.status == "invalid"
    assert "it is not a ExecutorOutput: none of its fields is there (groundedness_score, " \
           "verdict)" in status.detail


def test_a_cut_off_answer_says_so() -> None:
    def cut(messages: Any, **options: Any) -> ChatTurn:
        return ChatTurn(content='{"question": "q", "services": [', finish_reason="length")

    _, status = request_structured(cut, [], Plan, name="plan", profile=PROFILES["vllm"])
    assert "cut off: finish_reason=length" in status.detail
