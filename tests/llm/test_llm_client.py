"""``OpenAIChatClient`` end to end through the real ``openai`` package, on an httpx2
MockTransport: what goes over the wire, what comes back, how each failure is reported."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx2
import pytest
from pydantic import SecretStr

from core.agents.llm.client import OpenAIChatClient
from core.agents.llm.errors import LLMCallError
from core.agents.llm.profiles import PROFILES
from core.agents.llm.settings import LLMSettings

API_KEY = "sk-test-0123456789abcdef"

Handler = Callable[[httpx2.Request], httpx2.Response]


def completion(message: dict[str, Any], finish_reason: str = "stop") -> dict[str, Any]:
    return {"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "m",
            "choices": [{"index": 0, "message": {"role": "assistant", **message},
                         "finish_reason": finish_reason}],
            "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}}


def make_client(handler: Handler, *, model: str | None = "test-model",
                backend: str = "vllm") -> OpenAIChatClient:
    settings = LLMSettings(base_url="http://llm.test/v1", api_key=SecretStr(API_KEY), model=model,
                           backend=backend, max_retries=0, timeout_s=2)
    return OpenAIChatClient(settings, PROFILES[backend],
                            http_client=httpx2.Client(transport=httpx2.MockTransport(handler)))


def test_request_carries_model_messages_tools_and_response_format() -> None:
    seen: list[httpx2.Request] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        seen.append(request)
        return httpx2.Response(200, json=completion({"content": '{"ok": true}'}))

    tools = [{"type": "function", "function": {"name": "query_logs", "parameters": {}}}]
    response_format = {"type": "json_object"}
    turn = make_client(handler).complete([{"role": "user", "content": "hi"}], tools=tools,
                                         response_format=response_format)

    body = json.loads(seen[0].content)
    assert seen[0].url.path == "/v1/chat/completions"
    assert seen[0].headers["authorization"] == f"Bearer {API_KEY}"
    assert body["model"] == "test-model"
    assert body["messages"] == [{"role": "user", "content": "hi"}]
    assert body["tools"] == tools
    assert body["response_format"] == response_format
    assert turn.content == '{"ok": true}' and turn.tool_calls == ()
    assert turn.finish_reason == "stop" and turn.usage["total_tokens"] == 5


def test_optional_parts_are_left_out_when_not_given() -> None:
    bodies: list[dict[str, Any]] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        bodies.append(json.loads(request.content))
        return httpx2.Response(200, json=completion({"content": "x"}))

    make_client(handler).complete([{"role": "user", "content": "hi"}])
    assert "tools" not in bodies[0] and "response_format" not in bodies[0]


def test_tool_calls_are_returned_with_ids_names_and_raw_arguments() -> None:
    message = {"content": None, "tool_calls": [
        {"id": "call_a", "type": "function",
         "function": {"name": "query_logs", "arguments": '{"service": "order-service"}'}},
        {"id": "call_b", "type": "function",
         "function": {"name": "query_metrics", "arguments": "{}"}}]}
    body = completion(message, "tool_calls")
    client = make_client(lambda request: httpx2.Response(200, json=body))
    turn = client.complete([{"role": "user", "content": "hi"}])
    assert [(c.id, c.name, c.arguments_json) for c in turn.tool_calls] == [
        ("call_a", "query_logs", '{"service": "order-service"}'),
        ("call_b", "query_metrics", "{}")]
    assert turn.content is None and turn.finish_reason == "tool_calls"


def _error_body(status: int, message: str) -> Handler:
    return lambda request: httpx2.Response(status, json={"error": {"message": message}})


def _timeout(request: httpx2.Request) -> httpx2.Response:
    raise httpx2.ReadTimeout("timed out", request=request)


def _refused(request: httpx2.Request) -> httpx2.Response:
    raise httpx2.ConnectError("connection refused", request=request)


def _reset(request: httpx2.Request) -> httpx2.Response:
    raise httpx2.ReadError("[Errno 104] Connection reset by peer", request=request)


@pytest.mark.parametrize(("handler", "kind", "fragment"), [
    (_timeout, "timeout", "within 2s"),
    (_refused, "connection", "cannot reach http://llm.test/v1"),
    (_error_body(500, "boom"), "http_error", "HTTP 500"),
    (_error_body(503, "overloaded"), "http_error", "overloaded"),
    (_error_body(429, "slow down"), "rate_limited", "HTTP 429"),
    (lambda request: httpx2.Response(429, json={"error": {"message": "slow down"}},
                                     headers={"retry-after": "7"}),
     "rate_limited", "slow down (Retry-After: 7)"),
    (_reset, "connection", "Connection reset by peer"),
    (lambda request: httpx2.Response(502, content=b"<html>Bad Gateway</html>"),
     "http_error", "HTTP 502 from http://llm.test/v1: Error code: 502 '<html>Bad Gateway</html>'"),
    (lambda request: httpx2.Response(200, content=b"<html>login</html>",
                                     headers={"content-type": "text/html"}),
     "invalid_output", "the body (text/html) is not JSON"),
    (lambda request: httpx2.Response(200, json={"id": "x", "object": "chat.completion"}),
     "invalid_output", "no 'choices'"),
    (_error_body(401, "bad key"), "auth", "HTTP 401"),
    (lambda request: httpx2.Response(200, content=b"{not json",
                                     headers={"content-type": "application/json"}),
     "invalid_output", "not a chat completion"),
    (lambda request: httpx2.Response(200, json={"id": "x", "object": "chat.completion",
                                                "choices": []}),
     "invalid_output", "without any choice"),
])
def test_each_transport_failure_maps_to_its_kind(handler: Handler, kind: str,
                                                 fragment: str) -> None:
    with pytest.raises(LLMCallError) as caught:
        make_client(handler).complete([{"role": "user", "content": "hi"}])
    assert caught.value.kind == kind
    assert fragment in str(caught.value)
    assert caught.value.__cause__ is None  # the openai exception (and its request) is not chained


def test_api_key_echoed_by_a_server_is_redacted_from_the_error() -> None:
    handler = _error_body(401, f"Incorrect API key provided: {API_KEY}. Bearer {API_KEY}")
    with pytest.raises(LLMCallError) as caught:
        make_client(handler).complete([{"role": "user", "content": "hi"}])
    assert API_KEY not in str(caught.value)
    assert "[REDACTED]" in str(caught.value)


def test_model_is_discovered_from_the_server_when_not_configured() -> None:
    paths: list[str] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        paths.append(request.url.path)
        if request.url.path.endswith("/models"):
            return httpx2.Response(200, json={"object": "list", "data": [
                {"id": "qwen2.5-7b", "object": "model", "created": 0, "owned_by": "vllm"}]})
        return httpx2.Response(200, json=completion({"content": json.loads(
            request.content)["model"]}))

    client = make_client(handler, model=None)
    assert client.complete([{"role": "user", "content": "which model?"}]).content == "qwen2.5-7b"
    client.complete([{"role": "user", "content": "again"}])
    assert paths.count("/v1/models") == 1  # asked once, then cached


def test_a_preset_default_model_needs_no_discovery() -> None:
    bodies: list[dict[str, Any]] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        bodies.append(json.loads(request.content))
        return httpx2.Response(200, json=completion({"content": "x"}))

    make_client(handler, model=None, backend="openai").complete([{"role": "user", "content": "x"}])
    assert bodies[0]["model"] == PROFILES["openai"].default_model
