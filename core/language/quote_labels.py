"""Elided quotes keep every number bound to its label.

A number means what the words right before it say: ``current=91%``, ``threshold=85%``,
``超过阈值 85%``. An ellipsis removes text, so the words before it become the apparent label of
whatever follows it: ``内存使用率 … 85%`` reads "memory usage 85%" even when, in the ref, 85% is
the threshold and ``内存使用率`` is followed by 91%. Each fragment is found in the ref, yet the
quote says something the ref does not.

The rule, for each fragment that follows another one across an ellipsis and whose first fact is
a number N:

* if N's own label -- the token right before it in the ref, within its clause -- is inside the
  fragment (``… threshold=85%``, ``… 超过阈值 85%``), N keeps its label: fine;
* otherwise the words the quote puts before N are the end of the previous fragment. If, in the
  ref, those words are followed (within their clause, before any ``, ; . ) ]``) by another
  number M, they are M's label and the quote splices them onto N: the quote is not supported.
  If they label nothing (``HighMemoryUsage firing … 3.8GB/4GB``, ``[order-service] … 91.0%``)
  or label N itself (``current … 91%``), the quote only shortens the text.

Texts are in the canonical normal form; positions are offsets into the normalised ref.
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

from core.language import facts

# Characters that end a clause: a label never reaches across them.
_CLAUSE_ENDS = frozenset(",;.!?)]}|")


class _Token(NamedTuple):
    start: int
    end: int
    text: str
    number: bool


@lru_cache(maxsize=4096)
def _tokens(text: str) -> tuple[_Token, ...]:
    return tuple(_Token(start, end, token, facts.is_number_token(token)
                        and facts.parse_number_token(token) is not None)
                 for start, end, token in facts.token_spans(text))


def _same_clause(text: str, end: int, start: int) -> bool:
    """No clause end between two tokens (``text[end:start]`` lies outside every token)."""
    return _CLAUSE_ENDS.isdisjoint(text[end:start])


def spliced_label(ref_text: str, previous_end: int, start: int, end: int) -> str:
    """Why the fragment at ``[start, end)`` of the ref, quoted after an ellipsis that follows a
    fragment ending at ``previous_end``, binds its first number to another number's label
    ('' when it does not)."""
    tokens = _tokens(ref_text)
    first = next((i for i, token in enumerate(tokens) if start <= token.start < end), None)
    if first is None or not tokens[first].number:
        return ""
    number = tokens[first]
    label = tokens[first - 1] if first > 0 else None
    if label is not None and (label.number or not _same_clause(ref_text, label.end, number.start)):
        label = None
    if label is not None and label.start >= start:
        return ""  # the fragment carries the number's own label
    last = next((i for i in range(len(tokens) - 1, -1, -1) if tokens[i].start < previous_end), None)
    if last is None or tokens[last].number:
        return ""  # nothing before the ellipsis, or a number: no words to bind
    for index in range(last + 1, len(tokens)):
        if not _same_clause(ref_text, tokens[index - 1].end, tokens[index].start):
            return ""
        if tokens[index].number:
            if index == first:
                return ""
            own = f"'{label.text}'" if label is not None else "no label"
            return (f"the ellipsis joins '{tokens[last].text}' to {number.text}, but in the ref "
                    f"'{tokens[last].text}' labels {tokens[index].text} and {number.text} has {own}")
    return ""
