"""Getting a contract out of a model: ask, parse, validate, one re-ask, then give up honestly.

Where the backend supports it the request carries a JSON schema (``wire.response_format``);
everywhere the answer is parsed and validated against the pydantic contract, because a schema
is a request, not a guarantee. One failed attempt earns one re-ask that quotes the error; a
second failure is reported as ``executor_output_parse_status`` (docs/design.md §3: ``invalid``, or
``missing`` when the model said nothing at all), never papered over.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ValidationError

from core.agents.llm import lenient, wire
from core.agents.llm.client import ChatTurn
from core.agents.llm.errors import FaultKind, LLMCallError
from core.agents.llm.profiles import ModelProfile
from core.agents.llm.prompts import load_prompt
from core.contracts import ParseStatus

logger = logging.getLogger(__name__)

ContractT = TypeVar("ContractT", bound=BaseModel)
# Adjusts the parsed JSON before validation (e.g. the planner puts the real question back).
Prepare = Callable[[Any], Any]
# ``ChatClient.complete`` (or a role's wrapper of it).
Complete = Callable[..., ChatTurn]


def output_instructions(contract: type[BaseModel], profile: ModelProfile) -> str:
    """What to append to the last user message: the schema itself when the backend cannot
    take one in ``response_format``."""
    if profile.json_schema_output:
        return "Answer with one JSON object that matches the response schema."
    return ("Answer with one JSON object, and nothing else, that matches this JSON schema:\n"
            + wire.contract_schema_text(contract))


def request_structured(complete: Complete, messages: list[wire.Message],
                       contract: type[ContractT], *, name: str, profile: ModelProfile,
                       prepare: Prepare | None = None,
                       first_turn: ChatTurn | None = None) -> tuple[ContractT | None, ParseStatus]:
    """Parse ``contract`` from the model's answer, re-asking once with the error.

    ``first_turn`` is an answer already in hand (the executor's last turn of its tool loop);
    otherwise the first attempt is requested here. ``messages`` is extended with the exchange.
    Transport failures propagate as ``LLMCallError``.
    """
    response_format = wire.response_format(contract, name, profile)
    turn = first_turn or complete(messages, response_format=response_format)
    value, first_error = _read(turn, contract, prepare)
    if value is not None:
        return value, ParseStatus(status="valid", detail=f"parsed {name} on the first answer")
    logger.info("re-asking for %s: %s", name, first_error)
    messages.append(wire.assistant_message(turn))
    messages.append(wire.user_message(
        load_prompt("reask").render(error=first_error, contract=name)))
    retry = complete(messages, response_format=response_format)
    value, second_error = _read(retry, contract, prepare)
    if value is not None:
        return value, ParseStatus(status="repaired",
                                  detail=f"parsed {name} after one re-ask; first answer: "
                                         f"{first_error}")
    messages.append(wire.assistant_message(retry))
    status: Literal["missing", "invalid"] = (
        "missing" if turn.is_empty and retry.is_empty else "invalid")
    return None, ParseStatus(status=status, detail=f"no valid {name} after one re-ask: "
                                                   f"first answer: {first_error}; "
                                                   f"second answer: {second_error}")


def unusable_answer(status: ParseStatus, role: str) -> LLMCallError:
    """The error of a role (other than the executor) whose answer stayed unusable."""
    kind: FaultKind = "empty_answer" if status.status == "missing" else "invalid_output"
    return LLMCallError(kind, status.detail, role=role)


def _read(turn: ChatTurn, contract: type[ContractT],
          prepare: Prepare | None) -> tuple[ContractT | None, str]:
    """The validated contract, or ``None`` and a one-line reason."""
    if turn.refusal and not (turn.content or "").strip():
        return None, f"the model refused: {turn.refusal[:300]}"
    if turn.tool_calls and not (turn.content or "").strip():
        return None, "it called tools instead of giving the final JSON answer"
    try:
        data = lenient.normalise(wire.parse_json_answer(turn.content), contract)
    except ValueError as exc:
        return None, str(exc) + _cut_off(turn)
    if not lenient.shares_a_field(data, contract):
        # An answer meant for another role (or a bare value) must not pass as an empty one.
        keys = ", ".join(sorted(data)[:8]) if isinstance(data, dict) else type(data).__name__
        return None, f"it is not a {contract.__name__}: none of its fields is there ({keys})"
    if prepare is not None:
        data = prepare(data)
    try:
        return contract.model_validate(data), ""
    except ValidationError as exc:
        return None, "does not match the schema: " + wire.validation_summary(exc) + _cut_off(turn)


def _cut_off(turn: ChatTurn) -> str:
    """Why the text may be incomplete, when the server said so."""
    if turn.finish_reason in ("length", "content_filter"):
        return f" (the answer was cut off: finish_reason={turn.finish_reason})"
    return ""
