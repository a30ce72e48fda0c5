"""The chat-completions wire format, and nothing else.

Messages (``system`` / ``user`` / ``assistant`` with ``tool_calls`` / ``tool``), tool schemas
built from the tools' pydantic argument models, and ``response_format`` payloads built from the
contracts. A tool message's content is the invocation JSON exactly as in the session document,
so whatever the model cites (``source_invocation_id``, ``raw_path``, text) is what the
gatekeeper will look up.
"""

from __future__ import annotations

import copy
import json
import re
from typing import Any

from pydantic import BaseModel, ValidationError

from core.agents.llm.completion import ChatTurn, repair_model_json
from core.agents.llm.profiles import ModelProfile
from core.contracts import Invocation

Message = dict[str, Any]
# The invocation fields a session document shows (docs/design.md §9).
INVOCATION_FIELDS: set[str] = {"invocation_id", "tool_name", "arguments", "output",
                               "retrieval_details"}


def system_message(text: str) -> Message:
    """``{"role": "system", "content": text}``."""
    return {"role": "system", "content": text}


def user_message(text: str) -> Message:
    """``{"role": "user", "content": text}``."""
    return {"role": "user", "content": text}


def assistant_message(turn: ChatTurn) -> Message:
    """The model's turn echoed back as the protocol requires: ``content`` (``None`` when it only
    called tools) and every ``tool_calls`` entry with its id, name and arguments unchanged."""
    message: Message = {"role": "assistant", "content": turn.content}
    if turn.tool_calls:
        message["tool_calls"] = [
            {"id": call.id, "type": "function",
             "function": {"name": call.name, "arguments": call.arguments_json}}
            for call in turn.tool_calls]
    return message


def invocation_json(invocation: Invocation) -> str:
    """An invocation as the session document shows it (``invocation_id``, ``tool_name``,
    ``arguments``, ``output``, ``retrieval_details`` with its ``evidence_refs``)."""
    return invocation.model_dump_json(include=INVOCATION_FIELDS)


def tool_message(tool_call_id: str, invocation: Invocation) -> Message:
    """The answer to one tool call: the recorded invocation's JSON."""
    return {"role": "tool", "tool_call_id": tool_call_id, "content": invocation_json(invocation)}


def tool_schemas() -> list[dict[str, Any]]:
    """``tools=[...]`` for the three tools, parameters from their pydantic argument models."""
    from core.tools.spec import TOOL_SPECS

    return [{"type": "function",
             "function": {"name": spec.name, "description": spec.description,
                          "parameters": _inline_refs(spec.args.model_json_schema())}}
            for spec in TOOL_SPECS.values()]


def response_format(contract: type[BaseModel], name: str,
                    profile: ModelProfile) -> dict[str, Any] | None:
    """What to send as ``response_format`` for ``contract`` on this backend: a JSON schema
    (strict where the backend enforces it), else JSON mode, else nothing (prompted JSON)."""
    if profile.json_schema_output:
        schema = _inline_refs(contract.model_json_schema())
        if profile.strict_mode:
            schema = strict_json_schema(schema)
        return {"type": "json_schema",
                "json_schema": {"name": name, "schema": schema, "strict": profile.strict_mode}}
    if profile.json_object_output:
        return {"type": "json_object"}
    return None


def contract_schema_text(contract: type[BaseModel]) -> str:
    """The contract's JSON schema as compact text, for prompts on backends without schemas:
    without titles and descriptions (the role's prompt explains the fields), because on
    such backends — small local models — the schema is read from the context window on
    every request."""
    return json.dumps(schema_without_prose(_inline_refs(contract.model_json_schema())),
                      ensure_ascii=False, separators=(",", ":"))


def schema_without_prose(node: Any) -> Any:
    if isinstance(node, list):
        return [schema_without_prose(item) for item in node]
    if not isinstance(node, dict):
        return node
    # "title" is prose only where it is a keyword, not where it names a property.
    properties = node.get("properties")
    return {key: ({name: schema_without_prose(value) for name, value in properties.items()}
                  if key == "properties" and isinstance(properties, dict)
                  else schema_without_prose(value))
            for key, value in node.items() if key not in ("title", "description")}


def strict_json_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """The strict-mode subset: every object closed (``additionalProperties: false``) with all
    its properties required, and no ``default`` keywords (optional ones stay nullable)."""
    def visit(node: Any) -> Any:
        if isinstance(node, list):
            return [visit(item) for item in node]
        if not isinstance(node, dict):
            return node
        node = {key: visit(value) for key, value in node.items() if key != "default"}
        if node.get("type") == "object" and "properties" in node:
            node["additionalProperties"] = False
            node["required"] = list(node["properties"])
        return node

    strict: dict[str, Any] = visit(copy.deepcopy(schema))
    return strict


def _inline_refs(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema with ``$ref``s to ``$defs`` replaced by the definitions (small, acyclic
    contracts), because several servers' grammar compilers do not follow references."""
    definitions = schema.get("$defs", {})

    def visit(node: Any) -> Any:
        if isinstance(node, list):
            return [visit(item) for item in node]
        if not isinstance(node, dict):
            return node
        if "$ref" in node:
            target = definitions[node["$ref"].rsplit("/", 1)[-1]]
            siblings = {key: value for key, value in node.items() if key != "$ref"}
            return visit({**target, **siblings})
        return {key: visit(value) for key, value in node.items() if key != "$defs"}

    inlined: dict[str, Any] = visit(schema)
    return inlined


# ---------------------------------------------------------------- reading answers

_FENCE = re.compile(r"```[a-zA-Z0-9_-]*[ \t]*\n?(.*?)```", re.DOTALL)
_DECODER = json.JSONDecoder()


def parse_json_answer(content: str | None) -> Any:
    """The JSON value in a model's answer: bare; inside a Markdown code fence, with prose
    around it or not; or the object opening at the first ``{`` of a chattier answer. Raises
    ``ValueError`` saying what is wrong. Lone surrogates and NULs become U+FFFD."""
    return repair_model_json(_json_in_answer(content), content or "")


def _json_in_answer(content: str | None) -> Any:
    text = (content or "").strip()
    if not text:
        raise ValueError("the answer is empty")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        first_error = exc
    for block in _FENCE.findall(text):
        try:
            return json.loads(block.strip())
        except json.JSONDecodeError:
            continue
    # Prose around an object: the object that starts at the first "{". Never a later one: in
    # a truncated answer that would be an inner object (a plan's "exclusions") taken whole.
    start = text.find("{")
    if start != -1:
        try:
            return _DECODER.raw_decode(text, start)[0]
        except json.JSONDecodeError:
            pass
    raise ValueError(f"not valid JSON: {first_error.msg} at line {first_error.lineno} "
                     f"column {first_error.colno}") from None


def validation_summary(error: ValidationError, limit: int = 6) -> str:
    """A pydantic error as a few ``path: message`` lines a model can act on."""
    lines = [f"{'.'.join(str(part) for part in item['loc']) or '(root)'}: {item['msg']}"
             for item in error.errors()[:limit]]
    more = error.error_count() - limit
    return "; ".join(lines) + (f"; (+{more} more)" if more > 0 else "")
