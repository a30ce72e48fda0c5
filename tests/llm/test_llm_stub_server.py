"""The stub server speaks chat completions well enough for the real ``openai`` client."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any, get_args

import pytest
from pydantic import SecretStr

from core.agents.llm.client import OpenAIChatClient
from core.agents.llm.errors import LLMCallError
from core.agents.llm.profiles import PROFILES
from core.agents.llm.settings import LLMSettings
from core.agents.llm.stub_server import StubServer
from core.agents.llm.transcript import FaultName, Transcript
from tests.doubles.chat_clients import SCRIPTED_FAULTS, ScriptedChatClient

REPO_ROOT = Path(__file__).resolve().parents[2]
SYSTEM = {"role": "system", "content": "<!-- superbiz executor prompt (executor.v1) -->"}

TRANSCRIPT = Transcript.model_validate({"name": "stub-test", "roles": {"executor": [
    {"tool_calls": [{"name": "query_logs", "arguments": {"service": "order-service"}}]},
    {"content": {"source_invocation_id": "{{inv:0}}"}},
]}, "turns": [{"fault": "rate_limit"}]})


@pytest.fixture
def stub(tmp_path: Path) -> Iterator[StubServer]:
    with StubServer(TRANSCRIPT, api_key="stub-key", log_requests=tmp_path / "req.jsonl") as server:
        yield server


def client_for(server: StubServer, key: str = "stub-key", timeout_s: float = 5) -> OpenAIChatClient:
    settings = LLMSettings(base_url=server.base_url, api_key=SecretStr(key), model="m",
                           backend="stub", max_retries=0, timeout_s=timeout_s)
    return OpenAIChatClient(settings, PROFILES["stub"])


def test_tool_call_then_answer_with_resolved_invocation_id(stub: StubServer) -> None:
    client = client_for(stub)
    messages: list[dict[str, Any]] = [SYSTEM, {"role": "user", "content": "q"}]
    first = client.complete(messages, tools=[{"type": "function", "function": {
        "name": "query_logs", "parameters": {"type": "object", "properties": {}}}}])
    assert first.finish_reason == "tool_calls"
    call = first.tool_calls[0]
    assert (call.name, json.loads(call.arguments_json)) == ("query_logs",
                                                            {"service": "order-service"})
    messages += [{"role": "assistant", "content": None, "tool_calls": [
        {"id": call.id, "type": "function",
         "function": {"name": call.name, "arguments": call.arguments_json}}]},
        {"role": "tool", "tool_call_id": call.id,
         "content": json.dumps({"invocation_id": 31337, "tool_name": "query_logs"})}]
    second = client.complete(messages, response_format={"type": "json_object"})
    assert json.loads(second.content or "") == {"source_invocation_id": 31337}
    logged = [json.loads(line) for line in stub.log_requests.read_text().splitlines()]
    assert logged[1]["response_format"] == {"type": "json_object"}
    assert logged[1]["messages"][-1]["role"] == "tool"


def test_conversation_without_role_script_gets_the_generic_turns(stub: StubServer) -> None:
    with pytest.raises(LLMCallError) as caught:
        client_for(stub).complete([{"role": "user", "content": "no system prompt"}])
    assert caught.value.kind == "rate_limited"


def test_wrong_api_key_is_refused_without_echoing_it(stub: StubServer) -> None:
    with pytest.raises(LLMCallError) as caught:
        client_for(stub, key="sk-wrong-key-123456").complete([SYSTEM])
    assert caught.value.kind == "auth" and "sk-wrong" not in str(caught.value)


@pytest.mark.parametrize(("fault", "kind"), [
    ("http_500", "http_error"), ("rate_limit", "rate_limited"),
    ("invalid_json", "invalid_output"), ("timeout", "timeout")])
def test_fault_turns_look_like_failing_servers(fault: str, kind: str) -> None:
    script = Transcript.model_validate({"turns": [{"fault": fault, "seconds": 5}]})
    with StubServer(script) as server, pytest.raises(LLMCallError) as caught:
        client_for(server, timeout_s=0.5).complete([{"role": "user", "content": "q"}])
    assert caught.value.kind == kind


@pytest.mark.parametrize("fault", sorted(set(get_args(FaultName)) - {"empty"}))
def test_scripted_client_raises_what_the_real_client_raises_against_the_stub(fault: str) -> None:
    """``ScriptedChatClient`` stands in for ``OpenAIChatClient`` + stub server: every scripted
    fault must fail with the same kind both ways."""
    script = Transcript.model_validate({"turns": [{"fault": fault, "seconds": 5}]})
    messages = [{"role": "user", "content": "q"}]
    with StubServer(script) as server, pytest.raises(LLMCallError) as over_http:
        client_for(server, timeout_s=0.5).complete(messages)
    with pytest.raises(LLMCallError) as scripted:
        ScriptedChatClient(script).complete(messages)
    assert scripted.value.kind == over_http.value.kind == SCRIPTED_FAULTS[fault][0]


def test_empty_fault_is_a_completion_with_nothing_in_it() -> None:
    script = Transcript.model_validate({"turns": [{"fault": "empty"}]})
    with StubServer(script) as server:
        turn = client_for(server).complete([{"role": "user", "content": "q"}])
    assert turn.is_empty
    assert ScriptedChatClient(script).complete([{"role": "user", "content": "q"}]).is_empty


def test_models_route_lists_the_model(stub: StubServer) -> None:
    request = urllib.request.Request(f"{stub.base_url}/models",
                                     headers={"Authorization": "Bearer stub-key"})
    with urllib.request.urlopen(request, timeout=5) as response:
        assert json.load(response)["data"][0]["id"] == "stub-model"


def test_command_line_prints_its_url_and_serves(tmp_path: Path) -> None:
    transcript = tmp_path / "t.json"
    transcript.write_text(json.dumps({"turns": [{"content": "hello"}]}), encoding="utf-8")
    process = subprocess.Popen(
        [sys.executable, "-m", "core.agents.llm.stub_server", "--transcript", str(transcript),
         "--port", "0"], cwd=REPO_ROOT, stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        line = process.stdout.readline().strip()
        assert line.startswith("listening on http://127.0.0.1:") and line.endswith("/v1")
        settings = LLMSettings(base_url=line.removeprefix("listening on "), model="m",
                               backend="stub", max_retries=0, timeout_s=5)
        turn = OpenAIChatClient(settings).complete([{"role": "user", "content": "hi"}])
        assert turn.content == "hello"
    finally:
        process.terminate()
        process.wait(timeout=5)
