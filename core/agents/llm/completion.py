"""Reading a chat-completions response body into a ``ChatTurn``, tolerant of what real servers
and stubs legitimately send, strict about what cannot be a completion.

We read the JSON body ourselves (instead of the ``openai`` package's typed objects) so that
every shape is handled in one place, the same way for the HTTP client and the scripted test
doubles:

- ``content`` as a string, ``null``, or a list of content parts (``[{"type": "text", ...}]``);
- ``refusal`` kept, so an unusable answer says the model refused;
- ``tool_calls`` with ``arguments`` as JSON text, ``""``, or an object (sent as JSON text);
  a call without an id gets ``call_<n>``; a call that is not a function call keeps its type as
  its name, so it is recorded as an unknown tool instead of silently dropped;
- the legacy ``function_call`` field, read as one tool call;
- a 200 whose body is an ``{"error": ...}``, has no ``choices``, or is not JSON at all: a
  ``CompletionFormatError`` that says which.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from core.inputs.text import repair_tree

# How much of an unexpected body an error message quotes.
_QUOTE_CHARS = 200


@dataclass(frozen=True)
class ToolCallRequest:
    """One tool call the model asked for: its call id, tool name and raw JSON arguments."""

    id: str
    name: str
    arguments_json: str


@dataclass(frozen=True)
class ChatTurn:
    """One assistant turn: text content and/or tool calls, why it stopped, token usage, the
    model's refusal text if it refused, and ``notes``: how the client had to ask for it (a
    ``response_format`` the server refused, tool results cut to fit the context), which the
    role records with its output."""

    content: str | None
    tool_calls: tuple[ToolCallRequest, ...] = ()
    finish_reason: str | None = None
    usage: dict[str, Any] = field(default_factory=dict)
    refusal: str | None = None
    notes: tuple[str, ...] = ()

    @property
    def is_empty(self) -> bool:
        """No text, no tool call, no refusal: the model said nothing."""
        return not (self.content or "").strip() and not self.tool_calls and not self.refusal


class CompletionFormatError(ValueError):
    """The body is not a usable chat completion; the message says why."""


def turn_from_body(text: str, content_type: str | None = None) -> ChatTurn:
    """The turn in a raw response body (JSON text)."""
    try:
        body = json.loads(text)
    except (json.JSONDecodeError, TypeError):
        kind = f" ({content_type})" if content_type else ""
        raise CompletionFormatError(f"the body{kind} is not JSON: {_quote(text)}") from None
    except RecursionError:
        raise CompletionFormatError("the body is JSON nested too deeply to read") from None
    return turn_from_completion(repair_model_json(body, text))


def repair_model_json(value: Any, text: str) -> Any:
    """A model's JSON with lone surrogates (``\\ud800`` escapes) replaced by U+FFFD: model output
    is data to record, not input to refuse, but a lone surrogate would break every printer,
    export and page that meets it (``core.inputs``). ``text`` is the JSON it was parsed from."""
    if "\\u" not in text:
        return value  # no escape, so nothing to repair: the common case costs one search
    try:
        return repair_tree(value)
    except RecursionError:
        raise CompletionFormatError("the JSON is nested too deeply to read") from None


def turn_from_completion(body: Any) -> ChatTurn:
    """The turn in a decoded chat-completions body: ``choices[0].message`` and its reason."""
    if not isinstance(body, dict):
        raise CompletionFormatError(f"the body is JSON but not an object: {_quote(body)}")
    choices = body.get("choices")
    if not isinstance(choices, list) or not choices:
        error = body.get("error")
        if error:  # some gateways answer 200 with an error object
            message = error.get("message") if isinstance(error, dict) else error
            raise CompletionFormatError(f"the endpoint answered with an error and no choice: "
                                        f"{_quote(message)}")
        what = "an empty 'choices' list" if isinstance(choices, list) else "no 'choices'"
        raise CompletionFormatError(f"the endpoint answered without any choice ({what})")
    choice = choices[0]
    message = choice.get("message") if isinstance(choice, dict) else None
    if not isinstance(message, dict):
        raise CompletionFormatError("the endpoint's first choice has no message")
    usage = body.get("usage")
    return turn_from_message(message, finish_reason=_text_or_none(choice.get("finish_reason")),
                             usage=usage if isinstance(usage, dict) else {})


def turn_from_message(message: dict[str, Any], *, finish_reason: str | None = None,
                      usage: dict[str, Any] | None = None) -> ChatTurn:
    """The turn in one assistant ``message`` object."""
    calls = [_tool_call(raw, number) for number, raw in
             enumerate(message.get("tool_calls") or []) if isinstance(raw, dict)]
    legacy = message.get("function_call")
    if not calls and isinstance(legacy, dict):  # pre-tools protocol: one function call
        calls = [_function(legacy, call_id="call_legacy_0")]
    return ChatTurn(content=_content_text(message.get("content")), tool_calls=tuple(calls),
                    finish_reason=finish_reason, usage=usage or {},
                    refusal=_text_or_none(message.get("refusal")))


def _tool_call(raw: dict[str, Any], number: int) -> ToolCallRequest:
    call_id = _text_or_none(raw.get("id")) or f"call_{number}"
    function = raw.get("function")
    if isinstance(function, dict):
        return _function(function, call_id=call_id)
    # A custom / non-function tool call: keep it visible as a call to an unknown tool.
    kind = _text_or_none(raw.get("type")) or "unknown"
    return ToolCallRequest(id=call_id, name=f"({kind} tool call)",
                           arguments_json=json.dumps(raw, ensure_ascii=False, default=str))


def _function(function: dict[str, Any], *, call_id: str) -> ToolCallRequest:
    arguments = function.get("arguments")
    if arguments is None:
        arguments_json = ""
    elif isinstance(arguments, str):
        arguments_json = arguments
    else:  # an object where the protocol says JSON text: send it on as JSON text
        arguments_json = json.dumps(arguments, ensure_ascii=False)
    return ToolCallRequest(id=call_id, name=str(function.get("name") or ""),
                           arguments_json=arguments_json)


def _content_text(content: Any) -> str | None:
    """``content`` as text: parts are joined; anything else that is not text becomes JSON."""
    if content is None or isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = [part.get("text") if isinstance(part, dict) else part for part in content]
        return "".join(text for text in texts if isinstance(text, str))
    return json.dumps(content, ensure_ascii=False)


def _text_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _quote(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    text = " ".join(text.split())
    return repr(text[:_QUOTE_CHARS] + ("..." if len(text) > _QUOTE_CHARS else ""))
