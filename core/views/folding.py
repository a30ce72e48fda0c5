"""Long text folded for display: the first part shown, the rest one click away.

A question may be thousands of characters (an older store held 20,000); a log line, excerpt or
failed expectation may be a whole stack trace. Tables and headers show the start; the full
text is never cut, only folded.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

FOLD_CHARS = 400   # a question or sentence longer than this is folded
WRAP_CHARS = 60    # a table cell longer than this wraps onto more lines
FULL_CHARS = 180   # ... and one longer than this may not fit its wrapped cell either


@dataclass(frozen=True)
class Folded:
    """The part shown, and how many characters are folded away (0: nothing is)."""

    head: str
    hidden: int

    @property
    def folded(self) -> bool:
        """Whether anything is folded away."""
        return self.hidden > 0


def fold_text(text: str, limit: int = FOLD_CHARS) -> Folded:
    """``text`` cut at a word or line boundary near ``limit`` (never mid-word when one is
    near), with an ellipsis; whole when it fits."""
    if len(text) <= limit:
        return Folded(text, 0)
    cut = limit
    boundary = max(text.rfind(" ", 0, limit), text.rfind("\n", 0, limit))
    if boundary >= limit * 3 // 4:
        cut = boundary
    head = text[:cut].rstrip()
    return Folded(head + " …", len(text) - len(head))


def longest_cell(rows: Iterable[Mapping[str, Any]], columns: Iterable[str]) -> int:
    """The length of the longest text in ``columns`` over ``rows``."""
    names = list(columns)
    return max((len(str(row.get(name) or "")) for row in rows for name in names), default=0)
