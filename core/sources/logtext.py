"""How the log store indexes a line's text for FTS5, and how a search unit becomes an FTS5
expression that finds (at least) every line holding it. Both directions live here because
they must agree.

A line's search text (``core.tools.logquery.search_text``) is indexed in three FTS5 columns,
tokenised by ``unicode61`` (which splits on everything but letters and digits):

- ``body``: the message; ``meta``: level, service, source and host. In a line holding
  non-ASCII text, ASCII letters/digits and other letters are split apart first (``cpu使用率``
  -> ``cpu 使用率``), so every ASCII token is exactly a maximal ``[a-z0-9]+`` run, the unit
  identifiers and phrases are matched by.
- ``parts``: the letter runs of tokens that mix letters and digits (``connect2db`` ->
  ``connect db``), so that a word is found inside such a token too.

Words are substrings (``connect`` is in ``disconnected``). Every occurrence of a word (ASCII
letters, or Chinese) lies inside one *letter run* of the text, and every letter run is an FTS5
term (a whole token, or a part); the store keeps these terms (the FTS5 terms without a digit,
collected at the end of each import) as its vocabulary, and a word becomes the OR of the
vocabulary terms containing it, which is exact. A word found in too many terms
(``CANDIDATE_TERMS``) is matched by a scan (``instr`` on the lines the other filters left).

An identifier or phrase becomes the FTS5 phrase of its tokens: a superset of the lines that
hold it (``order-service`` also finds ``order service``), checked exactly afterwards with
the unit's regex, unless the unit is one ASCII token whose edges are word edges, where the
FTS5 token match is already exact.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import NamedTuple

from core.language.chars import ASCII_WORD_CHARS
from core.tools.logquery import META_MARK, SearchUnit

CANDIDATE_TERMS = 512  # a word in more vocabulary terms than this is matched by a scan

_NON_ASCII = re.compile(r"[^\x00-\x7f]")
# Where an ASCII letter/digit meets another letter or digit: split there.
_SCRIPT_EDGE = re.compile(r"(?<=[a-z0-9])(?=[^\W_a-z0-9])|(?<=[^\W_a-z0-9])(?=[a-z0-9])")
# Letter runs touching a digit: the runs inside tokens that mix letters and digits.
_MIXED_PARTS = re.compile(r"[0-9][a-z]++|(?<![a-z])[a-z]++(?=[0-9])")
_DIGITS_TO_SPACE = str.maketrans("0123456789", " " * 10)
_DIGITS_TO_ZERO = str.maketrans("0123456789", "0" * 10)
# Texts remembered by ``_mixed_parts`` (a few MB): lines differ mostly by their numbers, so a
# million lines of a service repeat a few hundred texts once their digits are zeroed.
_PARTS_CACHE = 20_000
_ASCII_TOKEN = re.compile(r"[a-z0-9]+")
_TOKEN = re.compile(r"[a-z0-9]+|[^\W\d_a-z]+")
_ONE_ASCII_TOKEN = re.compile(r"[a-z0-9]+")


class IndexedText(NamedTuple):
    """What the store writes for one line: the FTS5 columns, and the search text when it
    cannot be recomputed in SQL (non-ASCII: NFKC is not ``lower()``)."""

    body: str
    meta: str
    parts: str
    folded: str | None


def digits_zeroed(text: str) -> str:
    """``text`` with every ASCII digit written ``0``: its letter runs, and where they touch a
    digit, are those of ``text``; lines that differ by their numbers share it (the import's
    caches of parts and run sets, ``core.sources.logtally``, are keyed by it)."""
    return text.translate(_DIGITS_TO_ZERO)


@lru_cache(maxsize=_PARTS_CACHE)
def _mixed_parts(zeroed: str) -> str:
    # The pattern takes the digit before a run with it (cheaper than a look-behind); the
    # digits are blanked out of the (short) result.
    return " ".join(_MIXED_PARTS.findall(zeroed)).translate(_DIGITS_TO_SPACE)


def index_text(text: str, zeroed: str | None = None) -> IndexedText:
    """The indexed form of a line's search text (already normalised: NFKC, lower case);
    ``zeroed``: ``digits_zeroed(text)`` when the caller has it."""
    message, _, meta = text.partition(META_MARK)
    if text.isascii():
        folded = None
    else:
        folded = text
        message, meta = _SCRIPT_EDGE.sub(" ", message), _SCRIPT_EDGE.sub(" ", meta)
    parts = _mixed_parts(digits_zeroed(text) if zeroed is None else zeroed)
    return IndexedText(message, meta, parts, folded)


VOCABULARY_SQL = ("INSERT OR IGNORE INTO vocab (term) SELECT term FROM temp.lines_terms "
                  "WHERE term NOT GLOB '*[0-9]*'")


def quote(token: str) -> str:
    """An FTS5 string (double quotes doubled)."""
    return '"' + token.replace('"', '""') + '"'


def tokens(text: str) -> list[str]:
    """The FTS5 tokens of normalised text: ASCII ``[a-z0-9]+`` runs and other letter runs."""
    return _TOKEN.findall(text)


@dataclass(frozen=True)
class UnitSearch:
    """How the store finds one unit.

    ``fts``: an FTS5 expression matching a superset of the lines (None: no FTS5 help);
    ``exact``: that expression matches exactly the lines holding the unit; ``regex``: the
    pattern the search text must match when not exact (``glob``: a GLOB whose match implies
    it, ``sufficient_glob``); ``scan``: a substring the search text
    must hold (a word found in too many vocabulary terms); ``impossible``: no line can hold it;
    ``terms``: the vocabulary terms a word's ``fts`` ORs together.
    """

    fts: str | None = None
    exact: bool = False
    regex: str | None = None
    scan: str | None = None
    impossible: bool = False
    glob: str | None = None
    terms: tuple[str, ...] = ()


def _is_ascii_edge(char: str) -> bool:
    return bool(_ONE_ASCII_TOKEN.fullmatch(char))


def word_search(word: str, terms: list[str]) -> UnitSearch:
    """A word (substring) given the vocabulary terms holding it (at most CANDIDATE_TERMS + 1)."""
    if len(terms) > CANDIDATE_TERMS:
        return UnitSearch(scan=word)
    if not terms:
        return UnitSearch(impossible=True)
    return UnitSearch(fts="(" + " OR ".join(quote(term) for term in terms) + ")", exact=True, terms=tuple(terms))


_GLOB_SPECIAL = re.compile(r"([*?\[])")


def sufficient_glob(unit: SearchUnit) -> str:
    """A GLOB over ``' ' + text + ' '`` whose match implies the unit's regex matches ``text``:
    the unit's words separated by single spaces (the regex allows any run of spaces or tabs),
    and a character that is no ASCII letter or digit before and after it where the regex
    wants a word edge. Not necessary (two spaces between the words fail it): the regex
    decides the lines it misses."""
    words = unit.text.split()
    edged = unit.kind == "identifier"  # one token, whole at both ends (``identifier_pattern``)
    body = _GLOB_SPECIAL.sub(r"[\1]", unit.text if edged else " ".join(words))
    head = "[^a-z0-9]" if edged or words[0][0] in ASCII_WORD_CHARS else ""
    tail = "[^a-z0-9]" if edged or words[-1][-1] in ASCII_WORD_CHARS else ""
    return f"*{head}{body}{tail}*"


def needle_search(unit: SearchUnit, containing: dict[str, list[str]]) -> UnitSearch:
    """An identifier or phrase. ``containing`` maps each non-ASCII token of the unit to the
    vocabulary terms holding it (a Chinese token may sit inside a longer run of the text)."""
    search = _needle_search(unit, containing)
    if search.regex is None or search.exact:
        return search
    return replace(search, glob=sufficient_glob(unit))


def _needle_search(unit: SearchUnit, containing: dict[str, list[str]]) -> UnitSearch:
    pattern = unit.pattern
    assert pattern is not None  # identifiers and phrases have one
    found = tokens(unit.text)
    if not found:
        return UnitSearch(regex=pattern)
    if all(_ASCII_TOKEN.fullmatch(token) for token in found):
        expression = quote(" ".join(found))
        single = (len(found) == 1 and found[0] == unit.text and _is_ascii_edge(unit.text[0])
                  and _is_ascii_edge(unit.text[-1]))
        return UnitSearch(fts="{body meta}: " + expression, exact=single,
                          regex=None if single else pattern)
    if len(found) == 1 and found[0] == unit.text and unit.kind == "phrase":
        # one run of non-ASCII letters (Chinese): no word edges, so the phrase is a substring,
        # exactly what the vocabulary terms holding it find
        return word_search(unit.text, containing.get(unit.text, []))
    groups: list[str] = []
    for token in found:
        if _ASCII_TOKEN.fullmatch(token):
            groups.append("{body meta}: " + quote(token))
            continue
        terms = containing.get(token, [])
        if not terms:
            return UnitSearch(impossible=True)
        if len(terms) > CANDIDATE_TERMS:
            continue  # no FTS5 help for this token; the regex decides
        groups.append("{body meta}: (" + " OR ".join(quote(term) for term in terms) + ")")
    if not groups:
        return UnitSearch(regex=pattern)
    return UnitSearch(fts="(" + " AND ".join(groups) + ")", regex=pattern)


def needs_terms(unit: SearchUnit) -> list[str]:
    """The substrings whose vocabulary terms the store must look up for ``unit``: the word
    itself, or the non-ASCII tokens of an identifier or phrase."""
    if unit.kind == "word":
        return [unit.text]
    if unit.kind in ("identifier", "phrase"):
        return [token for token in tokens(unit.text) if not _ASCII_TOKEN.fullmatch(token)]
    return []
