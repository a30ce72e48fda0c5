"""The wire format: messages echoed exactly, response formats per backend, reading answers."""

from __future__ import annotations

import json
from typing import Any

import pytest

from core.agents.llm import wire
from core.agents.llm.client import ChatTurn, ToolCallRequest
from core.agents.llm.profiles import PROFILES, ModelProfile
from core.contracts import (
    EvidenceRef,
    ExecutorOutput,
    Invocation,
    Plan,
    RetrievalDetails,
    VerifierResult,
)


def _objects(node: Any) -> list[dict[str, Any]]:
    """Every object schema inside ``node``."""
    found: list[dict[str, Any]] = []
    if isinstance(node, dict):
        if node.get("type") == "object" and "properties" in node:
            found.append(node)
        for value in node.values():
            found += _objects(value)
    elif isinstance(node, list):
        for value in node:
            found += _objects(value)
    return found


def _keys(node: Any) -> set[str]:
    if isinstance(node, dict):
        return set(node) | {k for value in node.values() for k in _keys(value)}
    if isinstance(node, list):
        return {k for value in node for k in _keys(value)}
    return set()


@pytest.mark.parametrize("contract", [ExecutorOutput, VerifierResult, Plan])
def test_strict_schema_closes_every_object_and_requires_every_property(contract: Any) -> None:
    response_format = wire.response_format(contract, "x", PROFILES["openai"])
    assert response_format is not None
    schema = response_format["json_schema"]["schema"]
    assert response_format["json_schema"]["strict"] is True
    objects = _objects(schema)
    assert objects, "the contract has object schemas"
    for node in objects:
        assert node["additionalProperties"] is False
        assert sorted(node["required"]) == sorted(node["properties"])
    assert not {"$ref", "$defs", "default"} & _keys(schema)


def test_non_strict_backend_gets_the_plain_schema() -> None:
    response_format = wire.response_format(ExecutorOutput, "executor_output", PROFILES["vllm"])
    assert response_format is not None
    assert response_format["json_schema"]["strict"] is False
    assert response_format["json_schema"]["name"] == "executor_output"
    assert "$ref" not in _keys(response_format)  # inlined for grammar compilers


def test_json_mode_and_prompted_json_fallbacks() -> None:
    json_mode = ModelProfile("x", json_schema_output=False)
    prompted = ModelProfile("y", json_schema_output=False, json_object_output=False)
    assert wire.response_format(ExecutorOutput, "e", json_mode) == {"type": "json_object"}
    assert wire.response_format(ExecutorOutput, "e", prompted) is None


def test_assistant_message_echoes_tool_calls_exactly() -> None:
    turn = ChatTurn(content=None, tool_calls=(
        ToolCallRequest(id="call_0_0", name="query_logs", arguments_json='{"service":"a"}'),))
    assert wire.assistant_message(turn) == {
        "role": "assistant", "content": None,
        "tool_calls": [{"id": "call_0_0", "type": "function",
                        "function": {"name": "query_logs", "arguments": '{"service":"a"}'}}]}
    assert "tool_calls" not in wire.assistant_message(ChatTurn(content="done"))


def test_tool_message_is_the_session_document_invocation_json() -> None:
    invocation = Invocation(
        invocation_id=42, session_id="s-1", tool_name="query_logs",
        arguments={"service": "order-service"}, output={"success": True, "logs": []},
        retrieval_details=RetrievalDetails(evidence_status="supported", evidence_refs=[
            EvidenceRef(raw_path="$.logs[0]", text="[t][ERROR][order-service] boom")]),
        duration_ms=1.5)
    message = wire.tool_message("call_1", invocation)
    assert message["role"] == "tool" and message["tool_call_id"] == "call_1"
    assert json.loads(message["content"]) == invocation.model_dump(
        mode="json", include=wire.INVOCATION_FIELDS)
    assert json.loads(message["content"])["retrieval_details"]["evidence_refs"][0][
        "raw_path"] == "$.logs[0]"


@pytest.mark.parametrize(("content", "expected"), [
    ('{"a": 1}', {"a": 1}),
    ('```json\n{"a": 1}\n```', {"a": 1}),
    ('Here it is:\n{"a": {"b": 2}}\nThanks', {"a": {"b": 2}}),
])
def test_json_answers_are_read_bare_fenced_or_embedded(content: str, expected: Any) -> None:
    assert wire.parse_json_answer(content) == expected


@pytest.mark.parametrize(("content", "message"), [
    ("", "empty"), (None, "empty"), ('{"claims": [', "not valid JSON")])
def test_unreadable_answers_say_why(content: str | None, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        wire.parse_json_answer(content)
