"""Regular expressions a person gives the program (``logs import --pattern``)."""

from __future__ import annotations

from typing import Any


def regex_problem(pattern: str) -> str | None:
    """Why a user's regular expression may take exponential time, or ``None``.

    Python's ``re`` has no time limit, so a pattern that backtracks catastrophically would hang
    the command on one line of input. The classic shape is refused: an unbounded repetition
    whose body is nothing but repetitions (``(a+)+``, ``(\\w+\\s?)*``), so the same text can be
    split between the inner and outer repetition in exponentially many ways; and an unbounded
    repetition of alternatives two of which are the same (``(\\w|\\w)*``), so each character
    can be taken by either. A body with a part
    that must match once (``(\\.\\d+)*``, ``[a-z]+(-[a-z]+)*``) or a possessive (``a++``) or
    atomic (``(?>...)``) inner part is allowed. A heuristic: it catches the common shapes, not
    every slow pattern.
    """
    try:
        from re import _constants as constants  # type: ignore[attr-defined]
        from re import _parser as parser  # type: ignore[attr-defined]

        parsed = parser.parse(pattern)
    except Exception:  # a pattern re cannot parse is reported by whoever compiles it
        return None
    repeats = {constants.MAX_REPEAT, constants.MIN_REPEAT}

    def only_repetitions(items: Any) -> bool:
        """Whether every part of ``items`` is a repetition (no part that must match once)."""
        parts = list(items)
        if len(parts) == 1 and parts[0][0] == constants.SUBPATTERN:
            return only_repetitions(parts[0][1][-1])
        return bool(parts) and all(op in repeats for op, _ in parts) and any(
            arg[1] == constants.MAXREPEAT for op, arg in parts)

    def alike_alternatives(items: Any) -> bool:
        """Whether ``items`` holds (in a group, after ``re`` has factored out their common
        start) alternatives that are the same: ``(\\w|\\w)`` parses as ``\\w`` then a choice
        between two empty alternatives, so each character can be taken either way."""
        for op, arg in items:
            if op == constants.SUBPATTERN and alike_alternatives(arg[-1]):
                return True
            if op == constants.BRANCH:
                shapes = [repr(alternative) for alternative in arg[1]]
                if len(set(shapes)) < len(shapes):
                    return True
        return False

    def children(op: Any, arg: Any) -> list[Any]:
        if op in repeats:
            return [arg[2]]
        if op == constants.SUBPATTERN:
            return [arg[-1]]
        if op == constants.BRANCH:
            return list(arg[1])
        if op in (constants.ASSERT, constants.ASSERT_NOT):
            return [arg[1]]
        return []

    def catastrophic(items: Any) -> bool:
        for op, arg in items:
            if op in repeats and arg[1] == constants.MAXREPEAT and (
                    only_repetitions(arg[2]) or alike_alternatives(arg[2])):
                return True
            if any(catastrophic(child) for child in children(op, arg)):
                return True
        return False

    if catastrophic(parsed):
        return ("it repeats, without bound, a part made only of repetitions (such as (a+)+) or "
                "alternatives that are the same (such as (\\w|\\w)*), which can take exponential "
                "time on one line; put a part that must match once inside the repetition, make "
                "the alternatives differ, or make the inner part possessive (a++) or "
                "atomic ((?>...))")
    return None
