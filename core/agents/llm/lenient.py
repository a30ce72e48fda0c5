"""Reading a model's JSON the way a careful reviewer would: forgiving of form, never of facts.

Real models and stubs answer with ``"Observation"`` for ``observation``, ``"pass"`` for
``PASS``, ``null`` for an empty list, ``"12"`` or ``"inv-12"`` for an invocation id, a bare
string where a ``missing_info`` object is due, or the whole object wrapped as
``{"executor_output": {...}}``. ``normalise`` rewrites only such *forms*, walking the pydantic
contract's own field types, before validation:

- a ``Literal`` value matching exactly one allowed value up to case and ``-`` / space / camel
  separators becomes that value;
- ``null`` for an optional field that is not nullable is dropped (the field's default: an
  empty list, empty exclusions, empty text);
- an integer where text is due becomes text (``claim_id: 1``); a list of strings where one
  text is due is joined;
- an ``int`` field given as ``"12"``, ``"#12"`` or ``"inv-12"`` becomes ``12``; any other
  text is left for validation to refuse (and the re-ask to quote);
- a bare string in a list of ``MissingInfo`` / ``Hypothesis`` / ``RecommendedAction`` becomes
  that object's text; a missing id of those and of ``Claim`` is numbered (ids are labels).

It never invents a claim, a binding, an excerpt or a number: every citation still goes to the
gatekeeper exactly as the model wrote it.
"""

from __future__ import annotations

import re
import types
import typing
from typing import Any, Literal, get_args, get_origin

from pydantic import BaseModel

from core.contracts import Claim, Hypothesis, MissingInfo, RecommendedAction

# model -> (id field, id prefix) for objects whose id is only a label.
_NUMBERED: dict[type[BaseModel], tuple[str, str]] = {
    Claim: ("claim_id", "claim"), MissingInfo: ("info_id", "missing"),
    Hypothesis: ("hypothesis_id", "hypothesis"), RecommendedAction: ("action_id", "action"),
}
# model -> the text field a bare string stands for (never ``Claim``: a claim needs bindings).
_TEXT_FIELD: dict[type[BaseModel], str] = {
    MissingInfo: "description", Hypothesis: "hypothesis_text", RecommendedAction: "action_text",
}
_INVOCATION_ID = re.compile(r"^\s*(?:#|inv(?:ocation)?(?:[\s_-]*id)?[\s:#_-]*)?(\d+)\s*$",
                            re.IGNORECASE)
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def normalise(data: Any, contract: type[BaseModel]) -> Any:
    """``data`` with the forms above rewritten for ``contract``; anything else unchanged."""
    return _model(_unwrap(data, contract), contract)


def shares_a_field(data: Any, contract: type[BaseModel]) -> bool:
    """Whether ``data`` is an object with at least one of ``contract``'s fields: an answer
    meant for another role (a plan given to the executor) must not validate as an empty one."""
    return isinstance(data, dict) and bool(set(data) & set(contract.model_fields))


def _unwrap(data: Any, contract: type[BaseModel]) -> Any:
    """``{"executor_output": {...}}`` -> ``{...}``; a bare list -> the contract's first field
    when that field is a list of objects (``[claim, ...]`` -> ``{"claims": [...]}``)."""
    if isinstance(data, dict) and len(data) == 1 and not shares_a_field(data, contract):
        inner = next(iter(data.values()))
        if shares_a_field(inner, contract):
            return inner
    if isinstance(data, list):
        first_name, first = next(iter(contract.model_fields.items()))
        if get_origin(first.annotation) is list and _model_class(
                get_args(first.annotation)[0]) is not None:
            return {first_name: data}
    return data


def _model(data: Any, model: type[BaseModel]) -> Any:
    if not isinstance(data, dict):
        return data
    fixed = dict(data)
    for name, field in model.model_fields.items():
        if name not in fixed:
            continue
        if fixed[name] is None and not field.is_required() and not _allows_none(field.annotation):
            del fixed[name]  # null for "nothing": the field's default says nothing properly
        else:
            fixed[name] = _value(fixed[name], field.annotation)
    return fixed


def _value(value: Any, annotation: Any) -> Any:
    origin = get_origin(annotation)
    if origin is Literal:
        return _literal(value, get_args(annotation))
    if origin in (typing.Union, types.UnionType):
        options = [arg for arg in get_args(annotation) if arg is not type(None)]
        return _value(value, options[0]) if len(options) == 1 else value
    if origin is list and isinstance(value, list):
        item_type = get_args(annotation)[0]
        return _list(value, item_type)
    model = _model_class(annotation)
    if model is not None:
        return _model(value, model)
    if annotation is str:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return str(value)
        if isinstance(value, list) and all(isinstance(item, str) for item in value):
            return "; ".join(value)
    if annotation is int and isinstance(value, str):
        found = _INVOCATION_ID.match(value)
        return int(found.group(1)) if found else value
    return value


def _list(items: list[Any], item_type: Any) -> list[Any]:
    model = _model_class(item_type)
    if model is None:
        return [_value(item, item_type) for item in items]
    fixed: list[Any] = []
    for number, item in enumerate(items, start=1):
        if isinstance(item, str) and model in _TEXT_FIELD:
            item = {_TEXT_FIELD[model]: item}
        if isinstance(item, dict) and model in _NUMBERED:
            id_field, prefix = _NUMBERED[model]
            if item.get(id_field) in (None, ""):
                item = {**item, id_field: f"{prefix}-{number}"}
        fixed.append(_model(item, model))
    return fixed


def _literal(value: Any, allowed: tuple[Any, ...]) -> Any:
    if not isinstance(value, str) or value in allowed:
        return value
    key = _squash(value)
    matches = [option for option in allowed if isinstance(option, str) and _squash(option) == key]
    return matches[0] if len(matches) == 1 else value


def _squash(text: str) -> str:
    """``NegativeObservation`` / ``negative-observation`` / ``NEGATIVE OBSERVATION`` ->
    ``negative_observation``."""
    return re.sub(r"[\s\-_]+", "_", _CAMEL.sub("_", text.strip())).lower()


def _model_class(annotation: Any) -> type[BaseModel] | None:
    return annotation if isinstance(annotation, type) and issubclass(annotation,
                                                                     BaseModel) else None


def _allows_none(annotation: Any) -> bool:
    return annotation is type(None) or (
        get_origin(annotation) in (typing.Union, types.UnionType)
        and type(None) in get_args(annotation))
