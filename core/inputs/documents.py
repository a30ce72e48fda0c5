"""JSON documents a person gives the program, and the checks every parsed document passes:
bounded depth, 64-bit integers, valid Unicode text (``check_tree``, shared with ``yamldoc``)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from core.errors import InputError
from core.inputs.files import MiB, read_text
from core.inputs.text import text_problem

MAX_DEPTH = 64
INT_LIMIT = 2**63 - 1
MAX_DOCUMENT_BYTES = 64 * MiB  # a session document (gatekeeper check, replay)


def _path_of(parts: list[Any]) -> str:
    return "$" + "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in parts)


def _walk(data: Any) -> Iterator[tuple[list[Any], Any]]:
    """Every (path, value) of a JSON-like tree, depth first, without recursion."""
    stack: list[tuple[list[Any], Any]] = [([], data)]
    while stack:
        path, value = stack.pop()
        yield path, value
        if len(path) > MAX_DEPTH:
            continue  # the caller refuses it; no need to go deeper
        if isinstance(value, dict):
            for key, item in value.items():
                yield [*path, key], key if isinstance(key, str) else None
                stack.append(([*path, key], item))
        elif isinstance(value, list):
            stack.extend(([*path, index], item) for index, item in enumerate(value))


def check_tree(data: Any, *, source: str) -> Any:
    """``data`` (parsed JSON or YAML) itself, or ``InputError`` for the first value that is
    nested too deep, an integer beyond 64 bits, or text that is not valid Unicode."""
    for path, value in _walk(data):
        if len(path) > MAX_DEPTH:
            raise InputError(source, f"nested deeper than {MAX_DEPTH} levels")
        if isinstance(value, str):
            problem = text_problem(value)
            if problem:
                raise InputError(source, f"{_path_of(path)}: text {problem}")
        elif isinstance(value, int) and not isinstance(value, bool) and abs(value) > INT_LIMIT:
            raise InputError(source, f"{_path_of(path)}: integer out of range "
                                     f"(beyond ±{INT_LIMIT}, the 64-bit limit)")
    return data


def parse_json(text: str, *, source: str) -> Any:
    """A JSON document, bounded (see the module docstring)."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(source, f"not JSON: {exc.msg} at line {exc.lineno}, "
                                 f"column {exc.colno}") from None
    except RecursionError:
        raise InputError(source, f"nested deeper than {MAX_DEPTH} levels") from None
    except ValueError as exc:  # e.g. an integer of more than 4,300 digits
        raise InputError(source, f"not usable JSON: {exc}".split(";")[0]) from None
    return check_tree(data, source=source)


def read_json_file(path: str | Path, *, source: str | None = None,
                   max_bytes: int = MAX_DOCUMENT_BYTES) -> Any:
    """``read_text`` then ``parse_json`` (``-`` is stdin)."""
    label = source or ("stdin" if str(path) == "-" else str(path))
    return parse_json(read_text(path, source=label, max_bytes=max_bytes), source=label)
