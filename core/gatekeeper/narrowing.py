"""Filters that narrow a no-hit query, and whether a negative observation says so.

A query that found nothing says nothing outside what it looked at. Three filters narrow it in a
way the claim must state in its own text (docs/gatekeeper-rules.md, "Negative observations"):

* ``level`` is a minimum: ``level=ERROR`` found nothing at ERROR or above, nothing about WARN
  lines. The claim must name that level or a higher one, and no lower one ("no errors or
  warnings" claims more than an ERROR query covered);
* ``state`` (an alert state): the claim must name it;
* ``since`` / ``until``: the claim must state when, and every date or time it states must lie
  inside the window ("no ERROR lines on 2015-10-18" is not covered by a query since 18:00).

A query's filters are read from its ``arguments`` and from the ``request`` its source was sent:
a document whose arguments were edited (a filter removed) still carries the request.
"""

from __future__ import annotations

from typing import Any

from core.contracts import Invocation
from core.lazypattern import LazyPattern
from core.logfields import level_rank, time_bound

# ``exclude`` is judged by ``exclusions``; it is read from the request here too.
NARROWING_ARGS: tuple[str, ...] = ("level", "state", "since", "until", "exclude")
# Level words as a claim writes them, Chinese included (警告 is WARN, 错误 ERROR, 致命 FATAL).
LEVEL_WORD_RE = LazyPattern(
    r"(?<![a-z])(trace|debug|info|notice|warn|warning|warnings|error|errors|err|severe|fatal|"
    r"critical|crit|alert|emergency|panic)(?![a-z])|(警告|错误|致命|严重)")
ZH_LEVELS = {"警告": "WARN", "错误": "ERROR", "致命": "FATAL", "严重": "CRITICAL"}
_WHEN_RE = LazyPattern(
    r"\d{4}-\d\d-\d\d(?:[T ]\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?:Z|z|[+-]\d\d:?\d\d)?)?")


def effective_arguments(invocation: Invocation) -> dict[str, Any]:
    """The query's arguments, with every narrowing filter its request holds and its arguments
    lack (an argument edited out of a document is still in the request its source served)."""
    arguments = dict(invocation.arguments)
    request = invocation.request or {}
    for key in NARROWING_ARGS:
        if _blank(arguments.get(key)) and not _blank(request.get(key)):
            arguments[key] = request[key]
    return arguments


def _blank(value: Any) -> bool:
    return value is None or (isinstance(value, str) and not value.strip()) or value == []


def narrowing_problem(claim_text: str, invocation: Invocation) -> str:
    """Why the claim is broader than the query's level, state or time window ('' when not)."""
    arguments = effective_arguments(invocation)
    text = claim_text.casefold()
    level = arguments.get("level")
    if isinstance(level, str) and level.strip():
        problem = _level_problem(text, level.strip())
        if problem:
            return problem
    state = arguments.get("state")
    if isinstance(state, str) and state.strip() and state.strip().casefold() not in text:
        return (f"the cited query only looked at state={state}; the claim does not say so, "
                "so it claims more than the query covered")
    since, until = arguments.get("since"), arguments.get("until")
    if not _blank(since) or not _blank(until):
        return _window_problem(claim_text, str(since or ""), str(until or ""))
    return ""


def _level_problem(text: str, level: str) -> str:
    rank = level_rank(level)
    named = [ZH_LEVELS.get(match.group(), match.group()) for match in LEVEL_WORD_RE.finditer(text)]
    ranks = [value for value in (level_rank(_singular(word)) for word in named) if value is not None]
    if rank is None:
        # a level the log tables do not know: the claim must at least name it
        return "" if level.casefold() in text else (
            f"the cited query only looked at level={level}; the claim does not say so")
    below = [word for word in named if (value := level_rank(_singular(word))) is not None and value < rank]
    if below:
        return (f"the cited query only looked at level={level} and above; the claim also speaks "
                f"of {below[0]}, so it claims more than the query covered")
    if not any(value >= rank for value in ranks):
        return (f"the cited query only looked at level={level} and above; the claim does not say "
                "so, so it claims more than the query covered")
    return ""


def _singular(word: str) -> str:
    return word[:-1] if word in ("errors", "warnings") else word


def _window_problem(claim_text: str, since: str, until: str) -> str:
    window = f"since={since or '…'} until={until or '…'}"
    try:
        low = time_bound(since, None, upper=False) if since.strip() else None
        high = time_bound(until, None, upper=True) if until.strip() else None
    except ValueError:
        return f"the cited query's time window ({window}) is not a time"
    stated = _WHEN_RE.findall(claim_text)
    if not stated:
        return (f"the cited query only looked at {window}; the claim does not say when, so it "
                "claims more than the query covered")
    for when in stated:
        try:
            start = time_bound(when, None, upper=False)
            end = time_bound(when, None, upper=True)
        except ValueError:
            return f"the claim's time {when!r} is not a time the query's window can hold"
        if (low is not None and start < low) or (high is not None and end > high):
            return (f"the claim speaks of {when}, outside the cited query's window ({window})")
    return ""
