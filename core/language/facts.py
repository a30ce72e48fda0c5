"""Facts in a normalised text: the things a fuzzy or truncated match may never change.

A fact is a number with its unit (``91%``, ``3.8gb``, ``850ms``, ``exit code 137``), a ratio
(``3.8gb/4gb``, ``50/50``), an identifier (``order-service``, ``HighMemoryUsage``,
``/api/v1/users/profile``, ``pod-...``, ``redis-cluster-01:6379``), a state or level word
(``firing``, ``error``) or a negation (``not``, ``never``, ``未``, ``没有``). Numbers are compared
by value and unit, so ``91%`` equals ``91.0%`` but never ``191%`` or ``19%``, and ``3.8gb`` is
not ``3.8mb``; the comparison, sign or approximation marks in front of a number are part of
it (``<91%``, ``-91%``, ``≈91%`` are not ``91%``: see ``signs``). All functions take text
already in the canonical normal form (see ``normalize``), except ``camel_case_identifiers``
which needs the case the author wrote.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from functools import cache, lru_cache
from typing import Any

from core.language.alternation import one_of
from core.language.chars import DENSE_SCRIPT
from core.language.signs import qualifier, trailer
from core.language.vocabulary import VocabularyFile, load

# A token: a run of ASCII word characters and the separators that live inside identifiers
# (``order-service``, ``redis-cluster-01:6379``, ``/api/v1/users``), or a run of other letters
# (a CJK run is one token: ``内存使用率过高``). A script change is a token boundary.
_ASCII_TOKEN_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_-./:%@#+")
_TOKEN_RE = re.compile(r"[a-z0-9_/#@][a-z0-9_\-./:%@#+]*|[^\W\d_a-z]+")
_TOKEN_TRAILING = ".:-/+"

# Number tokens: ``91%``, ``3.8gb/4gb``, ``2026-07-08``, ``11:17:00``; a unit word may follow.
_NUMBER_PART_RE = re.compile(r"(\d+(?:\.\d+)?)([a-zµμ%]*)")
_NUMBER_SPLIT_RE = re.compile(r"[-:]")


class FactWords(VocabularyFile):
    """``vocab/fact_words.yaml``: units, states, negations, the words that say nothing and the
    words a quote may add or drop."""

    unit_words: frozenset[str]
    state_words: frozenset[str]
    en_negations: frozenset[str]
    zh_negations: tuple[str, ...]
    generic_words: frozenset[str]
    quote_stop_words: frozenset[str]  # read by core.language.quote_words


FACT_WORDS = load("fact_words", FactWords)
UNIT_WORDS: frozenset[str] = FACT_WORDS.unit_words

_ASCII_WORD_RE = re.compile(r"[A-Za-z][A-Za-z0-9]*")
_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyz")
_IDENTIFIER_MARKS = frozenset("0123456789-_/:@.")

STATE_WORDS: frozenset[str] = FACT_WORDS.state_words
EN_NEGATIONS: frozenset[str] = FACT_WORDS.en_negations
_CONTRACTED_NEGATION = "n't"  # can't, isn't, doesn't ... (apostrophes are ASCII after normalising)
_ZH_NEGATION_RE = re.compile(one_of(FACT_WORDS.zh_negations))

# Words that say nothing checkable on their own: stop-words, levels, states, generic nouns.
GENERIC_WORDS: frozenset[str] = STATE_WORDS | FACT_WORDS.generic_words
_SERVICE_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*-service$")
_HAS_DIGIT_RE = re.compile(r"\d")


@cache
def _dense_script_re() -> re.Pattern[str]:
    # Compiled on first use: a class of every CJK range takes milliseconds, and most checks
    # never measure an excerpt's length.
    return re.compile(f"[{DENSE_SCRIPT}]")


Number = tuple[float, str]
# In a number's marks, what follows this separator touches its end (``91%+``, ``91%↑``).
TRAILER_SEPARATOR = "|"
# A number with the marks in front of it: ("<", 91.0, "%"); "" when nothing qualifies it.
QualifiedNumber = tuple[str, float, str]


def tokens(text: str) -> list[str]:
    """Word-like tokens of a normalised text, trailing separators stripped."""
    stripped = (token.rstrip(_TOKEN_TRAILING) for token in _TOKEN_RE.findall(text))
    return [token for token in stripped if token]


def token_spans(text: str) -> list[tuple[int, int, str]]:
    """``(start, end, token)`` of every token of a normalised text (as ``tokens`` gives them)."""
    spans: list[tuple[int, int, str]] = []
    for match in _TOKEN_RE.finditer(text):
        token = match.group().rstrip(_TOKEN_TRAILING)
        if token:
            spans.append((match.start(), match.start() + len(token), token))
    return spans


def has_token(normalized: str) -> bool:
    """Whether the text holds any token at all (not only spaces, punctuation or '...')."""
    return _TOKEN_RE.search(normalized) is not None


def token_class(char: str) -> str | None:
    """``"ascii"`` or ``"letters"`` for a character inside a token of that kind, else None.

    Two neighbouring characters belong to one token only if their classes are equal and not
    None; ``_TOKEN_RE`` and the quote-edge checks in ``matching`` share this definition.
    """
    if char in _ASCII_TOKEN_CHARS:
        return "ascii"
    if char.isalpha() and not char.isascii():
        return "letters"
    return None


def is_number_token(token: str) -> bool:
    """A token that starts with a digit: a number, a ratio, a date or a time."""
    return token[:1].isdigit()


def is_identifier_token(token: str) -> bool:
    """A token naming something: ASCII letters with a digit or an inner separator."""
    if is_number_token(token) or _LETTERS.isdisjoint(token):
        return False
    return not _IDENTIFIER_MARKS.isdisjoint(token)


def parse_number_token(token: str) -> tuple[list[Number], bool] | None:
    """The numbers of a number token and whether it is a ratio; None if it is not one
    (``5c7d8e9f1`` is an identifier, not a number). The list is the caller's to change."""
    parsed = _parsed_number_token(token)
    return None if parsed is None else (list(parsed[0]), parsed[1])


@lru_cache(maxsize=8192)
def _parsed_number_token(token: str) -> tuple[tuple[Number, ...], bool] | None:
    """``parse_number_token``, cached: the same numbers recur in every excerpt of a ref."""
    values: list[Number] = []
    ratio_parts = token.split("/")
    for ratio_part in ratio_parts:
        for part in _NUMBER_SPLIT_RE.split(ratio_part) if ("-" in ratio_part or ":" in ratio_part) else (ratio_part,):
            match = _NUMBER_PART_RE.fullmatch(part)
            if match is None:
                return None
            values.append((float(match.group(1)), match.group(2)))
    return tuple(values), len(ratio_parts) > 1 and len(values) == len(ratio_parts)


_CAMEL_TOKEN_RE = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
_INNER_CAPITAL_RE = re.compile(r"[A-Za-z0-9_][A-Z]")


def camel_case_identifiers(original: str) -> frozenset[str]:
    """CamelCase names (alert names such as ``HighMemoryUsage``: two capitals and a lower-case
    letter in one word), case-folded. The name is the whole token, underscores included
    (``DFSClient_NONMAPREDUCE_1537864556_1``): a part of it is not found as a whole word."""
    if not _INNER_CAPITAL_RE.search(original):
        return frozenset()  # every such name has a capital right after a letter, digit or _
    return frozenset(
        word.casefold() for word in _CAMEL_TOKEN_RE.findall(original)
        # A capital after the first letter first (title-case and lower-case words have none).
        if not word[1:].islower() and not word.isupper() and sum(map(str.isupper, word)) >= 2)


@dataclass(frozen=True)
class Facts:
    """The checkable facts of one text (or of a region of it)."""

    numbers: tuple[Number, ...] = ()
    ratios: frozenset[tuple[Number, ...]] = frozenset()
    identifiers: frozenset[str] = frozenset()
    states: frozenset[str] = frozenset()
    negations: Counter[str] = field(default_factory=Counter)
    # ``numbers`` with the marks in front of each (a ratio's or date's marks go to its first).
    qualified: tuple[QualifiedNumber, ...] = ()


# One fact where it occurs: (start, end, kind, value); kind is number | ratio | identifier |
# state | negation. A number or ratio's value is ``(qualifier, tuple of Numbers)``, the others'
# a string.
FactItem = tuple[int, int, str, Any]


def fact_items(normalized: str) -> tuple[FactItem, ...]:
    """Every fact of a normalised text with its position, in order, in one pass over tokens.

    A number token followed by a unit word takes it as its unit (``4200 ms`` = ``4200ms``).
    """
    items: list[FactItem] = []
    unit_at = -1  # where the unit word a number took starts: that token is read
    for match in _TOKEN_RE.finditer(normalized):
        token = match.group()
        if token.isalpha() and token not in _WORD_FACTS:
            continue  # a plain word (most tokens; nothing to strip): no fact, not worth its position
        token = token.rstrip(_TOKEN_TRAILING)
        start = match.start()
        if not token or start == unit_at:
            continue
        if token.isalpha():  # a word (most tokens): a state, a negation or nothing checkable
            if token in STATE_WORDS:
                items.append((start, start + len(token), "state", token))
            elif token in EN_NEGATIONS:
                items.append((start, start + len(token), "negation", token))
            continue
        end = start + len(token)
        if token[0].isdigit():  # ``is_number_token``, inlined: once per token of every excerpt
            parsed = _parsed_number_token(token)
            if parsed is None:  # a digit-led name (``2026-07-08t11:17:00+08:00``) keeps its marks too
                items.append((start, end, "identifier", _marks_before(normalized, start) + token))
                continue
            values, is_ratio = parsed
            if not values[-1][1] and (following := _TOKEN_RE.search(normalized, match.end())) and (
                    unit := following.group().rstrip(_TOKEN_TRAILING)) in UNIT_WORDS:
                values = (*values[:-1], (values[-1][0], unit))
                unit_at = following.start()
                end = unit_at + len(unit)
            marks = _marks_before(normalized, start)
            if end < len(normalized) and normalized[end] not in _NO_TRAILER and (
                    after := trailer(normalized, end)):
                marks += TRAILER_SEPARATOR + after
            items.append((start, end, "ratio" if is_ratio else "number", (marks, values)))
        elif token in STATE_WORDS:
            items.append((start, end, "state", token))
        elif token in EN_NEGATIONS:
            items.append((start, end, "negation", token))
        elif not _LETTERS.isdisjoint(token) and not _IDENTIFIER_MARKS.isdisjoint(token):
            items.append((start, end, "identifier", token))  # ``is_identifier_token``, inlined
    position = normalized.find(_CONTRACTED_NEGATION)
    while position != -1:
        items.append((position, position + 3, "negation", _CONTRACTED_NEGATION))
        position = normalized.find(_CONTRACTED_NEGATION, position + 3)
    items += [(m.start(), m.end(), "negation", m.group()) for m in _ZH_NEGATION_RE.finditer(normalized)]
    items.sort(key=lambda item: item[0])
    return tuple(items)


_WORD_FACTS = STATE_WORDS | EN_NEGATIONS  # the words ``fact_items`` reads as facts


# Characters that are no operator, no bracket or quote and no sign (``signs``): a number
# touching one on its left is unqualified, one touching one on its right has no trailer.
_NO_TRAILER = frozenset(" ,;:)]}")


def _marks_before(normalized: str, start: int) -> str:
    """``signs.qualifier``'s marks, skipped where nothing can qualify the number (it starts the
    text or follows a letter, a digit or a separator such as ``,`` or ``:``)."""
    if start == 0:
        return ""
    before = normalized[start - 1]
    if before.isalnum() or (before in _NO_TRAILER and before != " "):
        return ""
    return qualifier(normalized, start)[1]


@lru_cache(maxsize=4096)
def ref_fact_items(normalized_ref: str) -> tuple[FactItem, ...]:
    """``fact_items`` of a ref text, cached (refs are matched again and again)."""
    return fact_items(normalized_ref)


def facts_in(items: tuple[FactItem, ...], start: int, end: int, original: str | None = None,
             text: str = "") -> Facts:
    """The facts among ``items`` that lie wholly inside ``[start, end)``.

    With ``original`` (the pre-case-fold text) and ``text`` (its normal form), CamelCase names
    of the original that occur in ``text`` are identifiers too (``HighMemoryUsage``).
    """
    numbers: list[Number] = []
    qualified: list[QualifiedNumber] = []
    ratios: set[tuple[Number, ...]] = set()
    identifiers: set[str] = set()
    states: set[str] = set()
    negation_counts: Counter[str] = Counter()
    for item_start, item_end, kind, value in items:
        if item_start < start or item_end > end:
            if item_start >= end:
                break  # items are in order of their start: none further lies inside
            continue
        if kind == "number" or kind == "ratio":
            marks, values = value
            numbers.extend(values)
            if len(values) == 1:  # most numbers: no generator for one
                qualified.append((marks, values[0][0], values[0][1]))
            else:
                qualified.extend((marks if index == 0 else "", number, unit)
                                 for index, (number, unit) in enumerate(values))
            if kind == "ratio":
                ratios.add(values)
        elif kind == "identifier":
            identifiers.add(value)
        elif kind == "state":
            states.add(value)
        else:
            negation_counts[value] += 1
    if original is not None and not original.islower():
        identifiers |= {name for name in camel_case_identifiers(original) if name in text}
    return Facts(tuple(numbers), frozenset(ratios), frozenset(identifiers), frozenset(states),
                 negation_counts, tuple(qualified))


def extract_facts(normalized: str, original: str | None = None) -> Facts:
    """Every fact of a normalised text (``original`` adds its CamelCase names)."""
    return facts_in(fact_items(normalized), 0, len(normalized), original, normalized)


def _first_out_of_order(needles: tuple[QualifiedNumber, ...],
                        haystack: tuple[QualifiedNumber, ...]) -> QualifiedNumber | None:
    """The first needle that cannot be matched, in order, in the haystack (None: all can).

    Order matters: ``current=90%, threshold=90%`` is not supported by ``current=99%,
    threshold=90%`` although 90% occurs there, and ``2026-07-06 11:06`` is not ``2026-07-08
    11:06`` although 6 occurs in the time.
    """
    position = 0
    for needle in needles:
        try:
            position = haystack.index(needle, position) + 1
        except ValueError:
            return needle
    return None


def _is_word_char(char: str) -> bool:
    return char.isalnum() or char == "_"


def contains_identifier(text: str, name: str) -> bool:
    """``name`` occurs in ``text`` with no word character right before or after it."""
    position = text.find(name)
    while position != -1:
        end = position + len(name)
        if (position == 0 or not _is_word_char(text[position - 1])) and (
                end == len(text) or not _is_word_char(text[end])):
            return True
        position = text.find(name, position + 1)
    return False


def missing_facts(excerpt: Facts, region: Facts, region_text: str) -> list[str]:
    """Facts of the excerpt that the (normalised) ref region does not hold, for a person.

    Numbers are compared by qualifier, value and unit, in order; ratios as a whole; identifiers must occur
    in the region with non-word characters (or the text's ends) on both sides, so
    ``order-service`` is found inside ``pod-order-service-5c7d8e9f1-m3n2p`` but
    ``payment-service`` is not found inside ``repayment-service``; state words must be there.
    """
    missing: list[str] = []
    unplaced = _first_out_of_order(excerpt.qualified, region.qualified)
    if unplaced is not None:
        where = "in this order" if unplaced in region.qualified else "in the ref text"
        missing.append(f"number {_show_qualified(unplaced)} not {where}")
    missing += [f"ratio {'/'.join(_show(v) for v in r)} not in the ref text"
                for r in sorted(excerpt.ratios - region.ratios)]
    missing += [f"identifier '{name}' not in the ref text" for name in sorted(excerpt.identifiers)
                if name not in region.identifiers and not contains_identifier(region_text, name)]
    missing += [f"state '{word}' not in the ref text" for word in sorted(excerpt.states - region.states)]
    return missing


def _show(value: Number) -> str:
    number, unit = value
    return f"{number:g}{unit}"


def _show_qualified(value: QualifiedNumber) -> str:
    marks, number, unit = value
    before, _, after = marks.partition(TRAILER_SEPARATOR)
    return f"{before}{number:g}{unit}{after}"


def negation_difference(excerpt: Counter[str], ref: Counter[str]) -> str | None:
    """Describe a negation added to or dropped from the quote, or None if they agree."""
    added = excerpt - ref
    if added:
        return f"negation added: {', '.join(sorted(added))}"
    dropped = ref - excerpt
    if dropped:
        return f"negation dropped: {', '.join(sorted(dropped))}"
    return None


def informative_length(normalized: str) -> int:
    """Length for the too-short test: a character of a dense script (Chinese, Japanese, Korean:
    ``core.language.chars.DENSE_SCRIPT``) counts double, since it carries a syllable or a word."""
    return len(normalized) + len(_dense_script_re().findall(normalized))


def is_generic(normalized: str) -> bool:
    """True when every token is a stop-word, level/state word or bare service name."""
    if _HAS_DIGIT_RE.search(normalized):
        return False  # a number is a fact
    # Token by token, so the first word that says something ends the scan (``tokens``, lazily).
    for match in _TOKEN_RE.finditer(normalized):
        token = match.group().rstrip(_TOKEN_TRAILING)
        if token and token not in GENERIC_WORDS and not _SERVICE_RE.match(token):
            return False
    return True
