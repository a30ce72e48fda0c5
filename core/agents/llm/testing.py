"""Test doubles for the ``ChatClient`` seam: first-class, so any test (or a demo) can use them.

``ScriptedChatClient`` replays a transcript (see ``transcript`` for the format and the
``{{inv:N}}`` placeholders) the same way the stub server does, raising the same
``LLMCallError`` kinds for scripted faults that ``OpenAIChatClient`` raises for real ones.
``FunctionChatClient`` answers with a function. Both keep every request they received, so
tests can assert what went over the wire (tool messages carrying the invocation JSON, the
response format, the re-ask).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.agents.llm.client import ChatTurn, ToolCallRequest
from core.agents.llm.errors import LLMCallError
from core.agents.llm.transcript import (
    Transcript,
    load_transcript,
    pick_turn,
    rendered_turn,
)


@dataclass(frozen=True)
class RecordedRequest:
    """One request a test double received, copied so later mutation does not change it."""

    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]] | None
    response_format: dict[str, Any] | None


class _RecordingClient:
    def __init__(self) -> None:
        self.requests: list[RecordedRequest] = []

    def _record(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None,
                response_format: dict[str, Any] | None) -> None:
        self.requests.append(RecordedRequest(copy.deepcopy(messages), copy.deepcopy(tools),
                                             copy.deepcopy(response_format)))


class ScriptedChatClient(_RecordingClient):
    """Replays a transcript: the turn for each request is chosen by the request itself."""

    def __init__(self, transcript: Transcript | str | Path) -> None:
        super().__init__()
        self.transcript = (transcript if isinstance(transcript, Transcript)
                           else load_transcript(transcript))

    @classmethod
    def from_turns(cls, turns: list[dict[str, Any]], **roles: list[dict[str, Any]]
                   ) -> ScriptedChatClient:
        """A client from inline turns (``turns`` for any role, keyword lists per role)."""
        return cls(Transcript.model_validate({"turns": turns, "roles": roles}))

    def complete(self, messages: list[dict[str, Any]], *, tools: list[dict[str, Any]] | None = None,
                 response_format: dict[str, Any] | None = None) -> ChatTurn:
        """The scripted turn for this conversation, or the scripted fault raised."""
        self._record(messages, tools, response_format)
        turn = pick_turn(self.transcript, messages)
        if turn.fault == "timeout":
            raise LLMCallError("timeout", f"scripted timeout ({turn.seconds:g}s)")
        if turn.fault == "http_500":
            raise LLMCallError("http_error", "HTTP 500 from scripted model: internal error")
        if turn.fault == "rate_limit":
            raise LLMCallError("rate_limited", "HTTP 429 from scripted model: rate limit")
        if turn.fault == "invalid_json":
            raise LLMCallError("invalid_output", "the answer from scripted model is not a chat "
                                                 "completion: not JSON")
        if turn.fault == "empty":
            return ChatTurn(content="", finish_reason="stop")
        content, calls = rendered_turn(turn, messages)
        return ChatTurn(
            content=content,
            tool_calls=tuple(ToolCallRequest(id=id_, name=name, arguments_json=arguments)
                             for id_, name, arguments in calls),
            finish_reason=turn.finish_reason or ("tool_calls" if calls else "stop"))


ChatFunction = Callable[[list[dict[str, Any]], list[dict[str, Any]] | None,
                         dict[str, Any] | None], ChatTurn]


class FunctionChatClient(_RecordingClient):
    """Answers each request with ``fn(messages, tools, response_format)``."""

    def __init__(self, fn: ChatFunction) -> None:
        super().__init__()
        self.fn = fn

    def complete(self, messages: list[dict[str, Any]], *, tools: list[dict[str, Any]] | None = None,
                 response_format: dict[str, Any] | None = None) -> ChatTurn:
        """Whatever the function returns (or raises)."""
        self._record(messages, tools, response_format)
        return self.fn(messages, tools, response_format)
