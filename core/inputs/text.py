"""Text a person gives the program: valid Unicode, a question within its limits.

A lone UTF-16 surrogate (``\\ud800``) is what undecodable argv bytes or a broken JSON escape
leave behind. No encoder can write it, so one such string breaks every print, export and page
that meets it later: input holding one is refused (``check_text``); stored data holding one is
shown with U+FFFD (``repair_text``), never refused. NUL is valid text (the store keeps it).
"""

from __future__ import annotations

import re
from typing import Any

from core.errors import InputError

MAX_QUESTION_CHARS = 4000  # a narrow question is a sentence or two; this is pages

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def text_problem(text: str) -> str | None:
    """Why ``text`` is not valid Unicode text (it holds a lone surrogate), or ``None``."""
    found = _LONE_SURROGATE.search(text)
    if found is None:
        return None
    char = found.group()
    return (f"holds a lone surrogate U+{ord(char):04X} at position {found.start()} "
            "(not valid Unicode: undecodable bytes or a broken \\u escape)")


def check_text(text: str, *, source: str) -> str:
    """``text`` itself, or ``InputError`` when it holds a lone surrogate."""
    problem = text_problem(text)
    if problem:
        raise InputError(source, problem)
    return text


def repair_text(text: str) -> str:
    """``text`` with every lone surrogate replaced by U+FFFD: for showing or printing stored
    data (which the store keeps losslessly); never for input, which is refused instead."""
    return _LONE_SURROGATE.sub("\ufffd", text)


def repair_tree(data: Any) -> Any:
    """A JSON-like tree with every string (and key) passed through ``repair_text``; unchanged
    when nothing needed repair. Recursive: for stored data, already bounded when written."""
    if isinstance(data, str):
        return repair_text(data)
    if isinstance(data, list):
        return [repair_tree(item) for item in data]
    if isinstance(data, dict):
        return {repair_tree(key): repair_tree(value) for key, value in data.items()}
    return data


def check_question(question: str, *, source: str = "question") -> str:
    """A question, stripped: not empty, valid text, at most ``MAX_QUESTION_CHARS``."""
    check_text(question, source=source)
    stripped = question.strip()
    if not stripped:
        raise InputError(source, "is empty")
    if len(stripped) > MAX_QUESTION_CHARS:
        raise InputError(source, f"is {len(stripped):,} characters long "
                                 f"(at most {MAX_QUESTION_CHARS:,}: ask one narrow question)")
    return stripped


def decode_utf8(data: bytes, *, source: str) -> str:
    """UTF-8 bytes as text; an error names the first bad byte and its offset."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(source, f"not UTF-8 text (byte 0x{data[exc.start]:02x} at offset "
                                 f"{exc.start})") from None
