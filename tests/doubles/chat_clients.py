"""Test doubles for the ``ChatClient`` seam (outside the package: the wheel carries none).

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

from core.agents.llm.completion import ChatTurn, turn_from_message
from core.agents.llm.errors import FaultKind, LLMCallError
from core.agents.llm.transcript import (
    Transcript,
    finish_reason,
    load_transcript,
    pick_turn,
    rendered_message,
)

# Scripted fault -> the error ``OpenAIChatClient`` raises for the real thing.
SCRIPTED_FAULTS: dict[str, tuple[FaultKind, str]] = {
    "timeout": ("timeout", "no answer from scripted model in time"),
    "http_500": ("http_error", "HTTP 500 from scripted model: internal error"),
    "http_502": ("http_error", "HTTP 502 from scripted model: bad gateway"),
    "http_503": ("http_error", "HTTP 503 from scripted model: overloaded"),
    "rate_limit": ("rate_limited", "HTTP 429 from scripted model: rate limit"),
    "connection_reset": ("connection", "cannot reach scripted model: connection reset"),
    "invalid_json": ("invalid_output", "the answer from scripted model is not a chat "
                                       "completion: not JSON"),
    "no_choices": ("invalid_output", "the answer from scripted model is not a chat "
                                     "completion: no 'choices'"),
    "empty_choices": ("invalid_output", "the answer from scripted model is not a chat "
                                        "completion: an empty 'choices' list"),
    "error_body": ("invalid_output", "the answer from scripted model is not a chat "
                                     "completion: an error and no choice"),
}


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
        turn = pick_turn(self.transcript, messages, len(self.requests) - 1)
        if turn.fault in SCRIPTED_FAULTS:
            kind, detail = SCRIPTED_FAULTS[turn.fault]
            raise LLMCallError(kind, detail)
        if turn.fault == "empty":
            return ChatTurn(content="", finish_reason="stop")
        message = rendered_message(turn, messages)
        return turn_from_message(message, finish_reason=finish_reason(turn, message))


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
