"""Keeping a request inside the model's context window, or saying clearly that it cannot be.

A small local model has a context of 2,048 to 8,192 tokens; the executor's system prompt and
tool schemas alone take a few thousand, and tool results grow with every call. A request that
does not fit is refused by the server mid-session (an HTTP 400, or worse, a silently truncated
prompt), so before sending, ``fit`` makes room in this order, and says what it did:

1. the tool schemas with short descriptions (the first sentence; no per-field descriptions);
2. tool results, oldest first, cut to what a citation needs — the invocation's id, tool,
   arguments and evidence refs — with the cut named in the message itself;
3. if it still does not fit: ``LLMCallError`` kind ``context``, before anything is sent, with
   the sizes, so the session ends saying why and what to change.

Tokens are estimated, not counted (no tokenizer is loaded), generously (``estimate_tokens``),
so an estimate that errs, errs long.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from core.agents.llm.errors import LLMCallError

# Tokens the chat template adds per message (role markers), generously.
_PER_MESSAGE = 8
# Room left for the answer: a quarter of the window, at most this many tokens.
_ANSWER_TOKENS_MAX = 1536
_ANSWER_TOKENS_MIN = 256
CUT_MARK = "cut to its evidence refs to fit the model's context window"


def estimate_tokens(text: str) -> int:
    """A generous estimate of the tokens ``text`` takes: 3.5 ASCII letters a token, every
    digit and punctuation mark one (small models' tokenizers split numbers digit by digit,
    and JSON is mostly marks), every other character one and a half; spaces ride along.
    Checked against SmolLM2's tokenizer on the executor's requests: 5,800 estimated for
    5,200 real."""
    letters = digits_and_marks = other = 0
    for char in text:
        if char >= "\x80":
            other += 1
        elif char.isalpha():
            letters += 1
        elif not char.isspace():
            digits_and_marks += 1
    return int(letters / 3.5 + digits_and_marks + other * 1.5) + 1


def answer_room(context_tokens: int) -> int:
    """Tokens kept free for the model's answer in a window of ``context_tokens``."""
    return max(_ANSWER_TOKENS_MIN, min(_ANSWER_TOKENS_MAX, context_tokens // 4))


@dataclass(frozen=True)
class Fitted:
    """A request that fits: its messages and tools, what was done to fit it, the estimate."""

    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]] | None
    notes: tuple[str, ...]
    prompt_tokens: int


def fit(messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None,
        context_tokens: int | None, answer_tokens: int | None = None) -> Fitted:
    """The request made to fit ``context_tokens`` with ``answer_tokens`` left for the answer
    (default: ``answer_room``); unchanged when it fits or the window is unknown. Raises
    ``LLMCallError`` (``context``) when it cannot fit."""
    size = _size(messages, tools)
    if context_tokens is None:
        return Fitted(messages, tools, (), size)
    room = answer_tokens or answer_room(context_tokens)
    limit = context_tokens - room
    if size <= limit:
        return Fitted(messages, tools, (), size)
    notes: list[str] = []
    if tools:
        tools = [short_tool(tool) for tool in tools]
        notes.append(f"tool descriptions shortened for a {context_tokens}-token context")
        size = _size(messages, tools)
    cut_ids: list[str] = []
    messages = list(messages)
    for index, message in enumerate(messages):
        if size <= limit:
            break
        if message.get("role") != "tool":
            continue
        cut, invocation_id = cut_tool_result(str(message.get("content") or ""))
        if invocation_id is None:
            continue
        messages[index] = {**message, "content": cut}
        cut_ids.append(invocation_id)
        size = _size(messages, tools)
    if cut_ids:
        notes.append(f"tool result(s) of invocation(s) {', '.join(cut_ids)} {CUT_MARK} of "
                     f"{context_tokens} tokens")
    if size > limit:
        raise LLMCallError("context", _overflow_message(messages, tools, context_tokens, size,
                                                        room))
    return Fitted(messages, tools, tuple(notes), size)


def short_tool(tool: dict[str, Any]) -> dict[str, Any]:
    """A tool schema with its description cut to the first sentence and no per-field
    descriptions or examples (names, types and enums stay: they are the contract)."""
    function = dict(tool.get("function") or {})
    description = str(function.get("description") or "")
    function["description"] = description.split(". ")[0].split("\n")[0].rstrip(".") + "."
    if "parameters" in function:
        function["parameters"] = _without_descriptions(function["parameters"])
    return {**tool, "function": function}


def cut_tool_result(content: str) -> tuple[str, str | None]:
    """A tool message's invocation JSON cut to what a citation needs (id, tool, arguments,
    success, evidence refs), and the invocation id; ``(content, None)`` if it is not one."""
    try:
        invocation = json.loads(content)
    except json.JSONDecodeError:
        return content, None
    if not isinstance(invocation, dict) or "invocation_id" not in invocation:
        return content, None
    output = invocation.get("output")
    details = invocation.get("retrieval_details")
    refs = details.get("evidence_refs", []) if isinstance(details, dict) else []
    cut = {"invocation_id": invocation["invocation_id"],
           "tool_name": invocation.get("tool_name"), "arguments": invocation.get("arguments"),
           "output": {"success": output.get("success") if isinstance(output, dict) else None,
                      "note": f"output {CUT_MARK}"},
           "retrieval_details": {"evidence_refs": refs}}
    return json.dumps(cut, ensure_ascii=False), str(invocation["invocation_id"])


def _without_descriptions(node: Any) -> Any:
    if isinstance(node, list):
        return [_without_descriptions(item) for item in node]
    if not isinstance(node, dict):
        return node
    return {key: _without_descriptions(value) for key, value in node.items()
            if key not in ("description", "examples", "title")}


def _size(messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None) -> int:
    total = sum(_message_tokens(message) for message in messages)
    return total + (estimate_tokens(_compact(tools)) if tools else 0)


def _message_tokens(message: dict[str, Any]) -> int:
    content = message.get("content")
    text = content if isinstance(content, str) else _compact(content) if content else ""
    calls = message.get("tool_calls")
    return _PER_MESSAGE + estimate_tokens(text) + (estimate_tokens(_compact(calls)) if calls
                                                   else 0)


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _overflow_message(messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None,
                      context_tokens: int, size: int, room: int) -> str:
    system = sum(_message_tokens(message) for message in messages
                 if message.get("role") == "system")
    results = sum(_message_tokens(message) for message in messages
                  if message.get("role") == "tool")
    tool_schemas = estimate_tokens(_compact(tools)) if tools else 0
    rest = size - system - results - tool_schemas
    return (f"the request does not fit the model's context window of {context_tokens} tokens "
            f"even with short tool descriptions and tool results cut to their evidence refs: "
            f"about {size} tokens (system prompt {system}, tool schemas {tool_schemas}, tool "
            f"results {results}, the rest of the conversation {rest}) plus "
            f"{room} kept for the answer. Give the model a larger "
            f"context (e.g. llama_cpp.server --n_ctx 8192) and say so with "
            f"SUPERBIZ_LLM_CONTEXT, or ask a narrower question")
