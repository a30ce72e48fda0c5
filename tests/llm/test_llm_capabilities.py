"""What a server refuses is found at run time, stepped down from and remembered; requests are
kept inside the model's context window, and one that cannot fit fails before it is sent.

The server here is the project's stub taught to refuse as llama-cpp-python's server does
(HTTP 500 ``response_format.type: Input should be 'text' or 'json_object'``; HTTP 400 "This
model's maximum context length is N tokens").
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr

from core.agents.llm import budget
from core.agents.llm.capabilities import context_overflow, forget_endpoints, refusal_of
from core.agents.llm.client import OpenAIChatClient
from core.agents.llm.errors import LLMCallError
from core.agents.llm.profiles import PROFILES
from core.agents.llm.settings import LLMSettings
from core.agents.llm.stub_server import StubServer
from core.agents.llm.transcript import Transcript
from tests.doubles.sim_sessions import ask_simulated, pointed_at
from tests.doubles.simulated import SimulatedModel

LLAMA_CPP_PYTHON = frozenset({"text", "json_object"})
SCHEMA_FORMAT = {"type": "json_schema", "json_schema": {
    "name": "plan", "schema": {"type": "object", "properties": {"ok": {"type": "boolean"}}},
    "strict": False}}
ANSWER = Transcript.model_validate({"name": "answer", "turns": [{"content": {"ok": True}}]})
SYSTEM = {"role": "system", "content": "<!-- superbiz planner prompt (planner.v1) -->"}


@pytest.fixture(autouse=True)
def _fresh_endpoints() -> Iterator[None]:
    forget_endpoints()
    yield
    forget_endpoints()


def requests_of(log: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]


def client_for(server: StubServer, **settings: Any) -> OpenAIChatClient:
    values = {"base_url": server.base_url, "api_key": SecretStr("k"), "model": "m",
              "backend": "vllm", "timeout_s": 5, **settings}
    return OpenAIChatClient(LLMSettings(**values), PROFILES[str(values["backend"])])


def test_a_refused_json_schema_steps_down_to_json_object_with_the_schema_in_the_prompt(
        tmp_path: Path) -> None:
    log = tmp_path / "requests.jsonl"
    with StubServer(ANSWER, log_requests=log, response_formats=LLAMA_CPP_PYTHON) as server:
        messages = [SYSTEM, {"role": "user", "content": "plan this"}]
        turn = client_for(server).complete(messages, response_format=SCHEMA_FORMAT)
        assert json.loads(turn.content or "") == {"ok": True}
        assert turn.notes and "json_schema refused" in turn.notes[0]
        assert "Input should be 'text' or 'json_object'" in turn.notes[0]
        # A second client of the same endpoint (another role) asks the right way at once.
        again = client_for(server).complete(messages, response_format=SCHEMA_FORMAT)
        assert again.notes  # still said: every session records how it was asked
    sent = requests_of(log)
    # The refused request is logged by the stub before it refuses; then two that worked.
    assert [r["response_format"]["type"] for r in sent] == ["json_schema", "json_object",
                                                            "json_object"]
    assert '"ok"' in sent[1]["messages"][-1]["content"]  # the schema went into the prompt
    assert messages[-1]["content"] == "plan this"        # the caller's messages are untouched


def test_json_object_refused_too_leaves_the_schema_in_the_prompt_alone(tmp_path: Path) -> None:
    log = tmp_path / "requests.jsonl"
    with StubServer(ANSWER, log_requests=log, response_formats=frozenset({"text"})) as server:
        turn = client_for(server).complete([SYSTEM, {"role": "user", "content": "q"}],
                                           response_format=SCHEMA_FORMAT)
    assert json.loads(turn.content or "") == {"ok": True}
    sent = requests_of(log)
    assert [r.get("response_format", {}).get("type") for r in sent] == [
        "json_schema", "json_object", None]
    assert "schema in the prompt" in turn.notes[0]


def test_an_error_that_is_not_a_refusal_is_not_retried(tmp_path: Path) -> None:
    log = tmp_path / "requests.jsonl"
    failing = Transcript.model_validate({"name": "f", "turns": [{"fault": "http_500"}]})
    with StubServer(failing, log_requests=log) as server, pytest.raises(LLMCallError) as caught:
        client_for(server).complete([SYSTEM, {"role": "user", "content": "q"}],
                                    response_format=SCHEMA_FORMAT)
    assert caught.value.kind == "http_error" and len(requests_of(log)) == 1


def test_a_request_longer_than_the_window_fails_before_it_is_sent(tmp_path: Path) -> None:
    log = tmp_path / "requests.jsonl"
    with StubServer(ANSWER, log_requests=log) as server, pytest.raises(LLMCallError) as caught:
        client_for(server, context_tokens=512).complete(
            [SYSTEM, {"role": "user", "content": "why? " * 2000}])
    assert caught.value.kind == "context"
    assert "context window of 512 tokens" in str(caught.value)
    assert "SUPERBIZ_LLM_CONTEXT" in str(caught.value)
    assert not log.exists()  # nothing was sent


def test_the_servers_context_error_is_a_clear_context_failure_and_is_learned(
        tmp_path: Path) -> None:
    with StubServer(ANSWER, context_tokens=300) as server:
        client = client_for(server)
        with pytest.raises(LLMCallError) as caught:
            client.complete([SYSTEM, {"role": "user", "content": "x " * 1000}])
        assert caught.value.kind == "context" and "maximum context length is 300" in str(
            caught.value)
        assert client.context_tokens == 300  # the next request is fitted to it
        with pytest.raises(LLMCallError) as again:
            client.complete([SYSTEM, {"role": "user", "content": "x " * 1000}])
        assert "does not fit" in str(again.value)


def tool_message(invocation_id: int, lines: int) -> dict[str, Any]:
    refs = [{"raw_path": f"output.entries[{n}]", "text": f"line {n}"} for n in range(3)]
    invocation = {"invocation_id": invocation_id, "tool_name": "query_logs",
                  "arguments": {"service": "order-service"},
                  "output": {"success": True, "entries": ["x" * 90] * lines},
                  "retrieval_details": {"evidence_refs": refs}}
    return {"role": "tool", "tool_call_id": f"c{invocation_id}", "content": json.dumps(invocation)}


def test_fit_shortens_tools_then_cuts_the_oldest_results_to_their_refs() -> None:
    tools = [{"type": "function", "function": {
        "name": "query_logs", "description": "Search logs. " + "Long explanation. " * 80,
        "parameters": {"type": "object", "properties": {
            "service": {"type": "string", "description": "the service " * 40}}}}}]
    messages = [SYSTEM, {"role": "user", "content": "q"}, tool_message(7, 40),
                tool_message(8, 40)]
    whole = budget.fit(messages, tools, None)
    fitted = budget.fit(messages, tools, whole.prompt_tokens // 2 + 600)
    assert fitted.tools is not None
    assert fitted.tools[0]["function"]["description"] == "Search logs."
    assert "description" not in fitted.tools[0]["function"]["parameters"]["properties"][
        "service"]
    first = json.loads(fitted.messages[2]["content"])
    assert first["retrieval_details"]["evidence_refs"][2]["raw_path"] == "output.entries[2]"
    assert "entries" not in first["output"] and budget.CUT_MARK in first["output"]["note"]
    assert any("invocation(s) 7" in note for note in fitted.notes)
    assert messages[2]["content"] == tool_message(7, 40)["content"]  # the caller's copy stays


@pytest.mark.parametrize(("status", "message", "tools", "expected"), [
    (500, "response_format.type: Input should be 'text' or 'json_object'", False, "format"),
    (400, "tools are not supported together with response_format", True, "tools_with_format"),
    (400, "this model does not support tools", False, None),  # no tools were sent
    (500, "CUDA out of memory", False, None),
    (503, "response_format overloaded", False, None),
])
def test_refusals_are_told_apart_from_other_errors(status: int, message: str, tools: bool,
                                                   expected: str | None) -> None:
    fmt = {"type": "json_object"} if expected != "tools" else None
    assert refusal_of(status, message, sent_tools=tools, sent_format=fmt) == expected


@pytest.mark.parametrize(("message", "expected"), [
    ("Requested tokens (3000) exceed context window of 2048", 2048),
    ("This model's maximum context length is 8192 tokens. However, you requested 9000", 8192),
    ("the request exceeds the available context size, try increasing it", None),
    ("response_format.type: Input should be 'text' or 'json_object'", False),
])
def test_context_errors_name_their_size(message: str, expected: int | bool | None) -> None:
    assert context_overflow(message) == expected


def test_a_session_against_a_server_that_refuses_json_schema_completes_and_says_so() -> None:
    model = SimulatedModel(style="strict")
    question = "只确认 payment-service 当前是否存在 CPU 使用率过高告警。"
    with StubServer(double=model, response_formats=LLAMA_CPP_PYTHON) as server, \
            pointed_at(server.base_url, backend="stub"):
        outcome = ask_simulated(model, question)
    assert outcome.status == "completed" and outcome.verdict == "PASS"
    detail = outcome.document["executor_output_parse_status"]["detail"]
    assert "llm endpoint: asked with no response_format" in detail
    assert "tools and response_format in one request refused" in detail


class LlamaCppPythonLike(StubServer):
    """The stub signing its model list as llama-cpp-python's server does."""

    def models(self) -> dict[str, Any]:
        return {"object": "list", "data": [{"id": "/models/smol.gguf", "object": "model",
                                            "owned_by": "me", "permissions": []}]}


def test_a_url_that_says_nothing_is_told_apart_by_its_model_list() -> None:
    from core.agents.llm.executor import LLMExecutor

    with LlamaCppPythonLike(ANSWER, port=0) as server:
        settings = LLMSettings(base_url=server.base_url, timeout_s=None)
        executor = LLMExecutor(settings=settings)
    assert executor.profile.name == "llama-cpp-python"
    assert executor.profile.context_tokens == 2048 and executor.profile.timeout_s == 600
    # Told by a preset, nothing is asked.
    assert LLMExecutor(settings=LLMSettings(base_url="http://127.0.0.1:9/v1",
                                            backend="vllm")).profile.name == "vllm"


def test_the_answer_is_bounded_when_the_window_is_known(tmp_path: Path) -> None:
    log = tmp_path / "requests.jsonl"
    messages = [SYSTEM, {"role": "user", "content": "q"}]
    with StubServer(ANSWER, log_requests=log) as server:
        client_for(server, context_tokens=4096).complete(messages)
        client_for(server, context_tokens=4096, max_answer_tokens=300).complete(messages)
        client_for(server).complete(messages)  # vllm, no window known: the server decides
    assert [r.get("max_tokens") for r in requests_of(log)] == [1024, 300, None]
