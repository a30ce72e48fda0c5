"""What an endpoint turned out to accept, learned from its refusals, remembered for the run.

A backend preset (``profiles``) is a guess. When the server refuses part of a request — a
``response_format`` it does not know (llama-cpp-python answers HTTP 500 "response_format.type:
Input should be 'text' or 'json_object'" to a ``json_schema``), or ``tools`` and
``response_format`` together — the client steps down one rung and sends the request again:
``json_schema`` → ``json_object`` (the schema then goes into the prompt) → no
``response_format`` at all (schema in the prompt, the answer validated as always). What
worked is kept per endpoint for the rest of the process, so later requests and sessions do not
pay the refusal again, and every answer that was asked for differently says so (``notes``), so
the session records how its model was asked.

A server that says the request is longer than its context teaches the context size too.
"""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass, field
from typing import Any, Literal

from core.agents.llm.profiles import ModelProfile
from core.agents.llm.wire import schema_without_prose

OutputMode = Literal["json_schema", "json_object", "prompt"]
Refusal = Literal["format", "tools_with_format", "tools"]

# Statuses with which servers refuse a request they cannot parse or do not support.
_REFUSAL_STATUSES = frozenset({400, 404, 415, 422, 500, 501})
_FORMAT_WORDS = ("response_format", "json_schema", "json_object", "structured output",
                 "guided_json", "grammar")
_TOOL_WORDS = ("tool", "function")
# "maximum context length is 4096 tokens" (OpenAI, vLLM, llama-cpp-python), "context window
# of 2048" (llama-cpp-python), "n_ctx: 4096" / "context size (4096)" (llama-server).
_CONTEXT_SIZE = re.compile(r"(?:maximum context length is|context window of|n_ctx\D{0,4}|"
                           r"context size\D{0,4})\s*(\d{3,7})", re.IGNORECASE)


def refusal_of(status: int | None, message: str, *, sent_tools: bool,
               sent_format: dict[str, Any] | None) -> Refusal | None:
    """Which part of the request the server refused, judged from its error, or ``None`` when
    the error is not a refusal of an optional part (then it is reported as it is)."""
    if status not in _REFUSAL_STATUSES or context_overflow(message) is not False:
        return None
    text = message.lower()
    about_format = sent_format is not None and any(word in text for word in _FORMAT_WORDS)
    about_tools = sent_tools and any(word in text for word in _TOOL_WORDS)
    if sent_tools and sent_format is not None and (about_format or about_tools):
        return "tools_with_format"  # cheapest first: tool turns do without a format
    if about_format:
        return "format"
    if about_tools:
        return "tools"
    return None


def context_overflow(message: str) -> int | Literal[False] | None:
    """``False`` when the error is not about the context; else the context size it names
    (``None`` when it names none)."""
    text = message.lower()
    if "context" not in text and "token" not in text:
        return False
    match = _CONTEXT_SIZE.search(message)
    if match:
        return int(match.group(1))
    if "context_length_exceeded" in text or (
            "context" in text and any(word in text for word in ("exceed", "too long"))):
        return None
    return False


@dataclass
class EndpointCapabilities:
    """What one endpoint accepts, as far as the run has found out (starts from the preset)."""

    output: OutputMode
    tools_with_format: bool
    context_tokens: int | None
    found: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def request_format(self, response_format: dict[str, Any] | None, *,
                       with_tools: bool) -> dict[str, Any] | None:
        """``response_format`` as this endpoint takes it (``None``: leave it out)."""
        if response_format is None or (with_tools and not self.tools_with_format):
            return None
        kind = response_format.get("type")
        if kind == "json_schema" and self.output != "json_schema":
            return {"type": "json_object"} if self.output == "json_object" else None
        if kind == "json_object" and self.output == "prompt":
            return None
        return response_format

    def learn(self, refused: Refusal, message: str) -> bool:
        """Step down after a refusal; ``False`` when there is nothing left to step down to
        (then the error stands)."""
        reason = " ".join(message.split())[:160]
        with self.lock:
            if refused == "tools_with_format" and self.tools_with_format:
                self.tools_with_format = False
                self.found.append(f"tools and response_format in one request refused "
                                  f"({reason}): tool turns sent without response_format")
                return True
            if refused in ("format", "tools_with_format") and self.output != "prompt":
                before = self.output
                self.output = "json_object" if before == "json_schema" else "prompt"
                shown = "the schema in the prompt" if self.output == "prompt" else \
                    "json_object with the schema in the prompt"
                self.found.append(f"response_format {before} refused ({reason}): {shown}")
                return True
            return False

    def learn_context(self, size: int) -> None:
        """The server named its context size (in an error): requests are fitted to it."""
        with self.lock:
            if self.context_tokens != size:
                self.context_tokens = size
                self.found.append(f"context window {size} tokens (named by the server)")

    def notes(self) -> tuple[str, ...]:
        """What was found so far, oldest first."""
        with self.lock:
            return tuple(self.found)


_endpoints: dict[tuple[str, str], EndpointCapabilities] = {}
_endpoints_lock = threading.Lock()


def for_endpoint(base_url: str, profile: ModelProfile) -> EndpointCapabilities:
    """The capabilities of the endpoint at ``base_url`` (public form), one object per endpoint
    and preset for the whole process: what one role's request taught serves every role. The
    roles build requests from the preset; this only ever takes away what was refused."""
    key = (base_url, profile.name)
    with _endpoints_lock:
        found = _endpoints.get(key)
        if found is None:
            # Nothing refused yet: requests go as the roles built them (from the preset).
            found = _endpoints[key] = EndpointCapabilities(
                output="json_schema", tools_with_format=True, context_tokens=None)
        return found


def forget_endpoints() -> None:
    """Forget what every endpoint taught (tests start each case from the presets)."""
    with _endpoints_lock:
        _endpoints.clear()


def schema_in_prompt(messages: list[dict[str, Any]],
                     response_format: dict[str, Any]) -> list[dict[str, Any]]:
    """``messages`` with the JSON schema of a ``json_schema`` response format written into the
    conversation, for an endpoint that does not take it as ``response_format``: added to the
    last user message, or to the system message when a tool result came last."""
    schema = (response_format.get("json_schema") or {}).get("schema")
    if schema is None:
        return messages
    instruction = ("Answer with one JSON object, and nothing else, that matches this JSON "
                   "schema:\n" + json.dumps(schema_without_prose(schema), ensure_ascii=False,
                                             separators=(",", ":")))
    copied = list(messages)
    for index in [len(copied) - 1, 0]:
        message = copied[index] if copied else None
        if message and message.get("role") in ("user", "system") and \
                isinstance(message.get("content"), str):
            copied[index] = {**message, "content": f"{message['content']}\n\n{instruction}"}
            return copied
    return [*copied, {"role": "user", "content": instruction}]
