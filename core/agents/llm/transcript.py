"""Scripted model turns: the file format the stub server (and the tests' scripted client) replays,
and how a turn is picked.

A transcript is JSON or YAML::

    name: honest-hikaricp
    description: cites the real HikariCP log lines
    roles:                      # turns per role; a role not listed uses ``turns``
      executor:
        - tool_calls:
            - {name: query_logs, arguments: {service: order-service, query: HikariCP}}
        - content: {claims: [{claim_id: claim-1, ..., evidence_bindings: [
              {tool_name: query_logs, source_invocation_id: "{{inv:0}}", raw_path: "$.logs[0]",
               evidence_excerpt: "..."}]}]}
      verifier:
        - content: {verdict: PASS, groundedness_score: 1.0, claim_results: [...]}
    turns: []                   # turns for any conversation whose role has none above

A turn is ``content`` (text, or an object/array sent as JSON text), ``tool_calls`` (``name``,
``arguments`` as an object or raw text, optional ``id``), a raw assistant ``message`` sent as
is (to script wire forms: ``refusal``, a legacy ``function_call``, content parts, arguments as
an object, ...), or a ``fault``: ``timeout`` (sleep ``seconds``, then HTTP 504), ``http_500``,
``http_502``, ``http_503``, ``rate_limit`` (HTTP 429 with ``Retry-After: retry_after``),
``connection_reset`` (the connection closes without an answer), ``invalid_json`` (a body that
is not JSON), ``no_choices`` (a JSON body without ``choices``), ``empty_choices``
(``choices: []``), ``error_body`` (HTTP 200 with an ``error`` object) or ``empty`` (no content,
no tool call).

Which turn answers a request is decided by the request alone, so replays need no state: the
conversation's role (named on the first line of each role's system prompt) and the number of
assistant messages already in it (turn 0 first, then 1 after one model answer, ...).

A transcript may instead give a ``sequence``: turns answered strictly in arrival order, whatever
the conversation, the way a stub that knows nothing of our roles answers. That needs state
(the number of requests so far), so a server replays it for one session.

Placeholders: invocation ids exist only at run time, so ``{{inv:N}}`` stands for the id of the
N-th invocation (0-based; ``-1`` is the latest) whose JSON came back in this conversation's
tool messages. A string that is exactly a placeholder becomes the number; inside longer text the
number is substituted.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from core.errors import EngineError, InputError, first_error

FaultName = Literal["timeout", "http_500", "http_502", "http_503", "rate_limit",
                    "connection_reset", "invalid_json", "no_choices", "empty_choices",
                    "error_body", "empty"]
ROLE_MARKER = re.compile(r"superbiz (planner|executor|verifier|composer) prompt")
PLACEHOLDER = re.compile(r"\{\{\s*inv\s*:\s*(-?\d+)\s*\}\}")


class TranscriptError(EngineError):
    """A transcript cannot be read, has no turn for a request, or names a missing invocation."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ScriptedToolCall(_Strict):
    """A tool call the scripted model makes."""

    id: str | None = None
    name: str
    arguments: dict[str, Any] | str = Field(default_factory=dict)


class ScriptedTurn(_Strict):
    """One scripted model turn (or fault)."""

    content: str | dict[str, Any] | list[Any] | None = None
    tool_calls: list[ScriptedToolCall] = Field(default_factory=list)
    message: dict[str, Any] | None = None
    fault: FaultName | None = None
    seconds: float = 30.0
    retry_after: int | None = None
    finish_reason: str | None = None


class Transcript(_Strict):
    """Turns per role (``roles``) and for any other conversation (``turns``)."""

    name: str = ""
    description: str = ""
    roles: dict[Literal["planner", "executor", "verifier", "composer"], list[ScriptedTurn]] = \
        Field(default_factory=dict)
    turns: list[ScriptedTurn] = Field(default_factory=list)
    sequence: list[ScriptedTurn] = Field(default_factory=list)

    def turns_for(self, role: str | None) -> list[ScriptedTurn]:
        """The script of a conversation of ``role``."""
        return next((script for name, script in self.roles.items() if name == role), self.turns)


def load_transcript(path: str | Path) -> Transcript:
    """Read a transcript file (``.json``, ``.yaml`` or ``.yml``)."""
    from core.inputs.yamldoc import parse_yaml

    file = Path(path)
    try:  # YAML is a superset of JSON; parse_yaml bounds aliases and nesting (billion laughs)
        data = parse_yaml(file.read_text(encoding="utf-8"), source=str(file))
    except (OSError, UnicodeDecodeError, InputError) as exc:
        raise TranscriptError(f"{file}: cannot read transcript: {exc}") from None
    try:
        return Transcript.model_validate(data)
    except ValidationError as exc:
        raise TranscriptError(f"{file}: {first_error(exc)}") from None


def conversation_role(messages: list[dict[str, Any]]) -> str | None:
    """The role named by the conversation's system prompt, if any."""
    for message in messages:
        if message.get("role") == "system":
            found = ROLE_MARKER.search(str(message.get("content") or ""))
            return found.group(1) if found else None
    return None


def turn_index(messages: list[dict[str, Any]]) -> int:
    """How many times the model has already answered in this conversation."""
    return sum(1 for message in messages if message.get("role") == "assistant")


def invocation_ids(messages: list[dict[str, Any]]) -> list[int]:
    """Ids of the invocations returned in tool messages, in order."""
    ids: list[int] = []
    for message in messages:
        if message.get("role") != "tool":
            continue
        try:
            payload = json.loads(message.get("content") or "")
        except (TypeError, json.JSONDecodeError):
            continue
        if isinstance(payload, dict) and isinstance(payload.get("invocation_id"), int):
            ids.append(payload["invocation_id"])
    return ids


def pick_turn(transcript: Transcript, messages: list[dict[str, Any]],
              arrival: int | None = None) -> ScriptedTurn:
    """The turn that answers this request (see the module docstring); ``arrival`` is the
    0-based number of this request, used only by a ``sequence`` transcript."""
    if transcript.sequence:
        number = arrival or 0
        if number >= len(transcript.sequence):
            raise TranscriptError(f"transcript {transcript.name or '(unnamed)'} has no turn "
                                  f"{number} in its sequence ({len(transcript.sequence)} "
                                  f"scripted)")
        return transcript.sequence[number]
    role = conversation_role(messages)
    script = transcript.turns_for(role)
    index = turn_index(messages)
    if index >= len(script):
        raise TranscriptError(f"transcript {transcript.name or '(unnamed)'} has no turn "
                              f"{index} for the {role or 'unknown'} conversation "
                              f"({len(script)} scripted)")
    return script[index]


def resolve_placeholders(value: Any, ids: list[int]) -> Any:
    """``value`` with every ``{{inv:N}}`` replaced by the N-th invocation id."""
    def lookup(index_text: str) -> int:
        index = int(index_text)
        if not -len(ids) <= index < len(ids):
            raise TranscriptError(f"placeholder {{{{inv:{index}}}}} but only {len(ids)} "
                                  f"invocation(s) came back in this conversation")
        return ids[index]

    if isinstance(value, str):
        whole = PLACEHOLDER.fullmatch(value.strip())
        if whole:
            return lookup(whole.group(1))
        return PLACEHOLDER.sub(lambda m: str(lookup(m.group(1))), value)
    if isinstance(value, list):
        return [resolve_placeholders(item, ids) for item in value]
    if isinstance(value, dict):
        return {key: resolve_placeholders(item, ids) for key, item in value.items()}
    return value


def rendered_turn(turn: ScriptedTurn, messages: list[dict[str, Any]]) -> tuple[
        str | None, list[tuple[str, str, str]]]:
    """The turn's content text and tool calls ``(id, name, arguments_json)``, placeholders
    resolved against this conversation; call ids default to ``call_<turn>_<n>``."""
    ids = invocation_ids(messages)
    content = resolve_placeholders(turn.content, ids)
    if content is not None and not isinstance(content, str):
        content = json.dumps(content, ensure_ascii=False)
    index = turn_index(messages)
    calls = []
    for number, call in enumerate(turn.tool_calls):
        arguments = resolve_placeholders(call.arguments, ids)
        arguments_json = arguments if isinstance(arguments, str) else json.dumps(
            arguments, ensure_ascii=False)
        calls.append((call.id or f"call_{index}_{number}", call.name, arguments_json))
    return content, calls


def rendered_message(turn: ScriptedTurn, messages: list[dict[str, Any]]) -> dict[str, Any]:
    """The assistant ``message`` object a server sends for ``turn`` (placeholders resolved):
    the raw ``message`` when the turn scripts one, else ``content`` and ``tool_calls``."""
    if turn.message is not None:
        raw = resolve_placeholders(turn.message, invocation_ids(messages))
        return {"role": "assistant", **raw}
    content, calls = rendered_turn(turn, messages)
    message: dict[str, Any] = {"role": "assistant", "content": content, "refusal": None}
    if calls:
        message["tool_calls"] = [
            {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}
            for call_id, name, arguments in calls]
    return message


def finish_reason(turn: ScriptedTurn, message: dict[str, Any]) -> str:
    """The ``finish_reason`` sent with ``message``: the scripted one, else ``tool_calls`` when
    it calls tools, else ``stop``."""
    return turn.finish_reason or ("tool_calls" if message.get("tool_calls") else "stop")
