"""What can be read from a PromQL alert expression without evaluating it.

Alert rules are written as ``<query> <op> <number>`` more often than not (``cpu_usage_percent >
80``, ``... / ... * 100 < 10``). From such an expression we read, and only read:

- ``comparison``: the top-level trailing comparison, split into the query, the operator and the
  number (``None`` when the expression does not end in one: ``absent(up)``, ``a > b``);
- ``metric_names``: the metric names it selects, in order (function names, keywords, label
  names and string contents are not metrics);
- ``plain_metric``: the metric of a query that is a bare selector (``cpu_usage_percent{...}``),
  the only case where the metric's name may give the value a unit;
- ``unit_of``: ``%`` for ``*_percent``, ``s`` for ``*_seconds``, else nothing.

Nothing here guesses beyond the text: a threshold is the number written in the rule.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# A metric or function name; a name followed by "(" is a function (or aggregation).
_NAME = re.compile(r"[a-zA-Z_:][a-zA-Z0-9_:]*")
_STRING = re.compile(r"\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*'|`[^`]*`")
_KEYWORDS = frozenset({
    "by", "without", "on", "ignoring", "group_left", "group_right", "bool", "offset", "and",
    "or", "unless", "inf", "nan", "atan2", "start", "end"})
_TRAILING_COMPARISON = re.compile(
    r"^(?P<query>.*?)\s*(?P<op>>=|<=|==|!=|>|<)\s*(?:bool\s+)?(?P<value>[-+]?(?:\d+\.?\d*|\.\d+)"
    r"(?:[eE][-+]?\d+)?)\s*$", re.DOTALL)
_SELECTOR = re.compile(r"^\s*(?P<name>[a-zA-Z_:][a-zA-Z0-9_:]*)\s*(?:\{[^{}]*\})?\s*$")
METRIC_NAME = re.compile(r"^[a-zA-Z_:][a-zA-Z0-9_:]*$")


@dataclass(frozen=True)
class Comparison:
    """``query op value`` of an expression ending in a comparison with a number."""

    query: str
    op: str
    value: float
    written: str  # the number as the rule writes it ("80", "0.01")


def _blank_strings(expr: str) -> str:
    """The expression with string literals blanked (label values are not metric names)."""
    return _STRING.sub(lambda match: " " * len(match.group()), expr)


def _depth_zero(text: str, position: int) -> bool:
    """Whether ``position`` is outside every bracket of ``text``."""
    depth = 0
    for char in text[:position]:
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
    return depth == 0


def _top_level(blanked: str, pattern: str) -> list[re.Match[str]]:
    """Matches of ``pattern`` outside every bracket of ``blanked``."""
    return [match for match in re.finditer(pattern, blanked) if _depth_zero(blanked, match.start())]


def _unwrapped(text: str) -> str:
    """``text`` without parentheses around the whole of it."""
    while text.startswith("(") and text.endswith(")"):
        depth = 0
        for index, char in enumerate(text):
            depth += char == "("
            depth -= char == ")"
            if depth == 0 and index < len(text) - 1:
                return text  # "(a) / (b)": the first group closes early
        text = text[1:-1].strip()
    return text


def comparison(expr: str) -> Comparison | None:
    """The comparison with a number that governs ``expr``, if one does.

    ``a > 80`` and ``(a / b * 100 < 10)`` are read; so is the first operand of ``and`` and
    ``unless`` (``a > 0.85 and b > 0``: the second is a guard), also inside parentheses around
    the whole expression (``(a < 0.1 and on (i) b == 0)``). ``or`` has no single threshold,
    a comparison inside a function call governs nothing, and a number expression on the right
    (``< 21 * 24 * 3600``) is not a number: ``None`` for all of them.
    """
    text = "\n".join(line for line in expr.splitlines() if not line.lstrip().startswith("#")).strip()
    # Parentheses around the whole expression first: ``(a < 0.1 and on (i) b == 0)`` is read
    # as ``a < 0.1`` guarded by ``b == 0``, not as a comparison with 0.
    text = _unwrapped(text)
    blanked = _blank_strings(text)
    if _top_level(blanked, r"\bor\b"):
        return None
    cut = _top_level(blanked, r"\b(?:and|unless)\b")
    if cut:
        text, blanked = text[:cut[0].start()].strip(), blanked[:cut[0].start()].strip()
    text = _unwrapped(text)
    blanked = _blank_strings(text)
    match = _TRAILING_COMPARISON.match(blanked)
    if match is None or not match.group("query").strip():
        return None
    if not _depth_zero(blanked, match.start("op")):
        return None  # the comparison is inside a function call or a subquery
    return Comparison(query=_unwrapped(text[:match.start("op")].strip()), op=match.group("op"),
                      value=float(match.group("value")), written=match.group("value"))


def metric_names(expr: str) -> list[str]:
    """The metric names ``expr`` selects, by first appearance, without repeats."""
    text = _blank_strings(expr)
    names: dict[str, None] = {}
    for match in _NAME.finditer(text):
        name = match.group()
        before = text[:match.start()].rstrip()
        after = text[match.end():].lstrip()
        if name.lower() in _KEYWORDS or after.startswith("(") or re.match(r"(by|without)\s*\(", after):
            continue  # a function, or an aggregation written "sum by (job) (...)"
        if before.endswith(("{", ",")) and _inside_braces(text, match.start()):
            continue  # a label name inside a selector
        if before.endswith("(") and _in_grouping(before):
            continue  # by (label, ...) / without (...) / on (...)
        if _inside_grouping_list(text, match.start()):
            continue
        if match.start() > 0 and (text[match.start() - 1].isdigit() or text[match.start() - 1] == "."):
            continue  # the "m" of "5m", the "e" of "1e3"
        if _inside_brackets(text, match.start()):
            continue  # durations inside [5m]
        names.setdefault(name, None)
    return list(names)


def _inside_braces(text: str, position: int) -> bool:
    return text.rfind("{", 0, position) > text.rfind("}", 0, position)


def _inside_brackets(text: str, position: int) -> bool:
    return text.rfind("[", 0, position) > text.rfind("]", 0, position)


def _in_grouping(before: str) -> bool:
    return bool(re.search(r"\b(by|without|on|ignoring|group_left|group_right)\s*\($", before))


def _inside_grouping_list(text: str, position: int) -> bool:
    """Whether ``position`` is inside ``by (...)``, ``on (...)`` and the like."""
    opening = text.rfind("(", 0, position)
    if opening == -1 or text.rfind(")", 0, position) > opening:
        return False
    return _in_grouping(text[:opening + 1])


def plain_metric(query: str) -> str | None:
    """The metric of a bare selector (``name`` or ``name{labels}``), else ``None``."""
    match = _SELECTOR.match(_blank_strings(query))
    return match.group("name") if match else None


def unit_of(metric: str | None) -> str:
    """The unit a metric's name states: ``%`` for ``*_percent``, ``s`` for ``*_seconds``."""
    if not metric:
        return ""
    lowered = metric.lower()
    if lowered.endswith(("_percent", "_pct", "_percentage")):
        return "%"
    if lowered.endswith("_seconds"):
        return "s"
    return ""


def format_number(value: float) -> str:
    """``92`` for 92.0, ``4.2`` for 4.2, ``0.9134`` for 0.91342 (4 significant decimals)."""
    if value != value or value in (float("inf"), float("-inf")):  # NaN, +-Inf as Prometheus says
        return "NaN" if value != value else ("+Inf" if value > 0 else "-Inf")
    if value == int(value) and abs(value) < 1e15:
        return str(int(value))
    text = f"{value:.4g}" if abs(value) < 1e-3 or abs(value) >= 1e6 else f"{value:.4f}".rstrip("0")
    return text.rstrip(".")


def threshold_text(found: Comparison, unit: str) -> str:
    """How a threshold reads: ``80%`` for an upper limit (``>``/``>=``), else with its operator
    (``< 10%``, ``== 0``)."""
    number = f"{found.written}{unit}"
    return number if found.op in (">", ">=") else f"{found.op} {number}"
