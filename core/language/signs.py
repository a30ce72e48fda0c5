"""Comparison, sign and approximation marks in front of a number: part of the number fact.

``current<91%``, ``current≠91%``, ``current=-91%`` and ``current≈91%`` do not say what
``current=91%`` says, so a number's *qualifier* -- the marks right before it -- is compared with
its value and unit. Texts are in the canonical normal form (NFKC has already turned ``＜``
into ``<`` and ``－``/``−``/``–`` into ``-``). The qualifier of a number token is read backwards
from its first digit:

* a ``-`` or ``+`` touching the digit is its sign, unless an ASCII letter or digit touches the
  mark on the other side (``order-1``, ``2026-07-08``, ``10-20`` are one token and never reach
  this module; after a CJK word, ``次数-128``, it is a sign);
* then, over spaces and opening brackets or quotes, a run of operator characters: ``< > = ! ~``
  and any Unicode math symbol (``≤ ≥ ≠ ≈ ± ∼ ⩽ ≦`` ...), ``|`` excepted;
* spellings fold to one mark: ``<=`` ``=<`` ``≦`` ``⩽`` -> ``≤``; ``>=`` ``=>`` ``≧`` ``⩾`` -> ``≥``;
  ``!=`` ``<>`` -> ``≠``; ``~`` ``~=`` ``∼`` ``≃`` ``≅`` ``≒`` -> ``≈``; ``+-`` -> ``±``;
* ``=`` says nothing more than "is" and is dropped, so ``current=91%`` and ``current 91%`` and
  ``current: 91%`` all have the empty qualifier;
* a ``-``/``+`` separated from the digit by a space is a dash between words (``10 - 20``,
  ``HikariPool-1 - 30000ms``), and ``~`` between two numbers, spaced alike on both sides, is a
  range (``10~20``, ``10 ~ 20``): neither qualifies the number.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

from core.language.number_words import NUMBER_WORDS

_ASCII_OPERATORS = frozenset("<>=!~+-^*$")
# Marks that are not math symbols but read as one in front of a number: angle quotes and
# brackets that render like ``<`` ``>`` ``≪`` ``≫``, the swung dash (``~``), the asterisk.
_LOOKALIKE_OPERATORS = frozenset("‹›«»⟨⟩❮❯⁓")
# Symbol categories that qualify a number they touch: math, currency, modifier, other symbols
# (``≤``, ``$``, ``˂`` / ``^``, ``▲`` / ``↑``).
_SYMBOL_CATEGORIES = frozenset(["Sm", "Sc", "Sk", "So"])
# Between an operator and its number a quote may put spaces, brackets or quotes: ``< (91%)``.
_BETWEEN = frozenset(" ([{\"'")
# Two-character spellings of one mark, replaced in order ("<=" -> "≤"), then single marks folded.
_SPELLINGS: tuple[tuple[str, str], ...] = tuple(NUMBER_WORDS.mark_spellings.items())
_MARKS: dict[str, str] = NUMBER_WORDS.marks


@lru_cache(maxsize=1024)
def is_operator(char: str) -> bool:
    """A character that can qualify a number: ASCII ``< > = ! ~ + -`` or a math symbol."""
    if char in _ASCII_OPERATORS or char in _LOOKALIKE_OPERATORS:
        return True
    return not char.isascii() and unicodedata.category(char) in _SYMBOL_CATEGORIES


@lru_cache(maxsize=1024)
def _is_arrow(char: str) -> bool:
    return not char.isascii() and "ARROW" in unicodedata.name(char, "")


def _is_arrow_run(run: str) -> bool:
    """``→``, ``->``, ``⟶`` ...: between two numbers an arrow is a separator ("86% → 91%")."""
    return run in ("->", "-->", "=>") or (bool(run) and all(_is_arrow(char) for char in run))


def _joins(char: str) -> bool:
    """A character a ``-``/``+`` hyphenates to a digit (``pool-1``, ``10-20``, ``91%-5%``): an ASCII
    letter or digit, ``_``, ``%`` or ``.``. After a CJK word, ``次数-128`` is a sign."""
    return char.isascii() and (char.isalnum() or char in "_%.")


def _canonical(run: str) -> str:
    if run == "=":
        return ""
    for spelling, mark in _SPELLINGS:
        run = run.replace(spelling, mark)
    return "".join(_MARKS.get(char, char) for char in run).replace("=", "")


def qualifier(text: str, start: int) -> tuple[int, str]:
    """``(where it starts, canonical marks)`` of the number token starting at ``text[start]``.

    ``(start, "")`` when nothing qualifies it. ``text`` is in the canonical normal form.
    """
    position = start
    sign = ""
    if position > 0 and text[position - 1] in "+-" and not (position > 1 and _joins(text[position - 2])):
        sign, position = text[position - 1], position - 1
    gap_end = position
    while position > 0 and text[position - 1] in _BETWEEN:
        position -= 1
    spaced = position < gap_end
    run_end = position
    while position > 0 and (is_operator(text[position - 1]) or (
            text[position - 1] == " " and position < run_end and position > 1 and is_operator(text[position - 2]))):
        position -= 1  # spaces between marks are formatting: "< =" is "<="
    run = text[position:run_end].replace(" ", "")
    if not run and not sign:
        return (start, "")
    if not sign and _is_arrow_run(run) and _after_a_number(text, _skip_spaces_back(text, position)):
        return (start, "")  # a trend or list separator: "86.2% → 87.4%", "86.2%->87.4%"
    if run[:1] in ("-", "+") and position > 0 and _joins(text[position - 1]):
        run, position = run[1:], position + 1  # a hyphen inside a name: "pool-1"
    if not sign and spaced and run[-1:] in ("-", "+"):
        run = run[:-1]  # a dash between words, not a sign: "10 - 20"
    before = position
    while before > 0 and text[before - 1] == " ":
        before -= 1
    if run.startswith("~") and _after_a_number(text, before) and (before < position) == spaced:
        run = run[1:]  # a range: "10~20", "10 ~ 20" (not "p99 ~4.2s", "07-08 ~11:17")
    marks = _canonical(run + sign)
    if not marks:
        return (start, "")
    return (position if run else start - 1, marks)


def _skip_spaces_back(text: str, position: int) -> int:
    while position > 0 and text[position - 1] == " ":
        position -= 1
    return position


def trailer(text: str, end: int) -> str:
    """The canonical marks touching the end of a number token that ends at ``text[end]``:
    ``91%+`` (91% or more), ``91%↑``, ``3.8GB≈`` ('' when nothing qualifies it from behind).

    A mark that leads to another number is a separator or operator between the two
    (``86.2%→87.4%``, ``10-20``, ``3<5``), not a trailer; ``=`` and ``-``/``+`` that join the
    next word (``5m-10m``, ``91%-x``) are not marks either.
    """
    position = end
    while position < len(text) and is_operator(text[position]) and text[position] != "=":
        position += 1
    run = text[end:position]
    if not run:
        return ""
    after = position
    while after < len(text) and text[after] in " ([{\"'":
        after += 1
    if after < len(text) and text[after].isdigit():
        return ""
    if run[-1] in "+-" and position < len(text) and _joins(text[position]) and not (
            text[position] == "." and not text[position + 1:position + 2].isalnum()):
        return ""  # joins the next word or number ("5m-10m"), not a full stop ("0+.")
    return _canonical(run)


def _after_a_number(text: str, end: int) -> bool:
    """Whether ``text[:end]`` ends with a number token (its first character is a digit)."""
    start = end
    while start > 0 and (text[start - 1].isalnum() or text[start - 1] in "._%"):
        start -= 1
    return start < end and text[start].isdigit()


def reaches_before(text: str, start: int) -> int:
    """If a quote starting at ``start`` begins with operator marks (or nothing) before a number,
    the index of that number's first digit; else -1. Only then can the quote's own reading of
    the number's qualifier differ from the ref's (it starts inside or right after the marks)."""
    position = start
    while position < len(text) and (is_operator(text[position]) or text[position] in _BETWEEN):
        position += 1
    if position < len(text) and text[position].isdigit():
        return position
    return -1
