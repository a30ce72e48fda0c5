"""What a claim's values, times and level words are about: the line or template it quotes.

A count, a time range or a level in a claim is stated for *some lines*: ``291 WARN lines like
"Connection broken for id <*> ..."``, ``「ERROR IN CONTACTING RM.」出现了 147 次``, ``the
first at 19:03``. When the claim quotes the lines, the quote nearest the value in its clause
(else in its sentence) names them, and only evidence about lines that quote fits -- a log
group whose template it matches, a log line that holds it -- can support the value. So a
group's count given for another template, another group's time range, or WARN lines called
ERROR are caught even though the number, the time or the word is somewhere in the evidence.

Everything works on folded text (``core.language.clauses.fold``: same offsets as the original).
"""

from __future__ import annotations

import re
import sys
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from functools import lru_cache

from core.language.alternation import one_of
from core.language.chars import HAN
from core.language.clauses import CLAIM_WORDS, content_units

_QUOTE = re.compile(r"「(?P<a>[^」]+)」|“(?P<b>[^”]+)”|\"(?P<c>[^\"]+)\"|『(?P<d>[^』]+)』|"
                    r"(?<![a-z0-9])'(?P<e>[^'\n]{3,}?)'(?![a-z0-9])")
_SENTENCE_BREAK = re.compile(r"[。；;!?！？\n]|\.(?=\s|$)")
# A colon ends a clause too ("logged lines with "X": 176 lines like "Y""): what follows it is
# what the lines are, the words before it a heading. Folded text has ASCII colons only, so a
# Chinese one (``相关的记录：3 条``) is the colon after a Han character.
_CLAUSE_BREAK = re.compile(rf"[。；;!?！？\n，,、：]|\.(?=\s|$)|:(?=\s|[\"“「『'])|(?<=[{HAN}]):")
# A template's variable part (``<*>``) and a quote's ellipsis stand for any text.
_GAP = re.compile(r"<\*>|…+|\.{3,}|⋯")
_SPACE = re.compile(r"\s+")



# Log levels as a claim names them (outside quotes: "error =" inside a template is text).
_EN_LEVELS, _ZH_LEVELS = CLAIM_WORDS.levels_en, CLAIM_WORDS.levels_zh
_ZH_ONLY_BEFORE_LEVEL = CLAIM_WORDS.levels_zh_only_before_level
_LEVEL_WORD = re.compile(rf"(?<![a-z0-9_\-])({one_of(_EN_LEVELS)})(?![a-z0-9_])(?!-(?!level(?![a-z])))|"
                         rf"({one_of(_ZH_LEVELS)})(?=\s*(?:{one_of(CLAIM_WORDS.levels_zh_before)}))|"
                         rf"({one_of(_ZH_ONLY_BEFORE_LEVEL)})(?=\s*(?:{one_of(CLAIM_WORDS.levels_zh_only_before)}))")
# Canonical level of each spelling (WARNING is WARN; CRITICAL is FATAL; SEVERE is ERROR).
LEVELS: dict[str, str] = {**_EN_LEVELS, **_ZH_LEVELS, **_ZH_ONLY_BEFORE_LEVEL}
_LEVEL_JOIN = re.compile(rf"\s*(?:{one_of(CLAIM_WORDS.level_joiners)}|[、/,，&])\s*")
_RANK = {level: rank for rank, level in enumerate(CLAIM_WORDS.level_ranks)}
# "ERROR 及以上", "at ERROR or above": a level that covers every higher one.
_OR_ABOVE = re.compile(rf"\s*(?:级别)?\s*(?:{one_of(CLAIM_WORDS.or_above_zh)})"
                       rf"|\s*(?:level\s+)?(?:{one_of(CLAIM_WORDS.or_above_en)})")


@dataclass(frozen=True)
class Quote:
    """A quoted span of a claim: where it is and what it says (without its quote marks)."""

    start: int
    end: int
    text: str


def quotes(folded: str) -> list[Quote]:
    """Every quoted span of a folded text."""
    found: list[Quote] = []
    for match in _QUOTE.finditer(folded):
        inner = next(group for group in match.groups() if group is not None)
        if inner.strip():
            found.append(Quote(match.start(), match.end(), inner.strip()))
    return found


def _spans(folded: str, pattern: re.Pattern[str], inside: list[Quote]) -> list[tuple[int, int]]:
    """``[start, end)`` spans between breaks of ``pattern`` that lie outside every quote."""
    starts = [q.start for q in inside]
    cuts = [m for m in pattern.finditer(folded) if _quote_at(inside, starts, m.start()) is None]
    spans, start = [], 0
    for cut in cuts:
        spans.append((start, cut.start()))
        start = cut.end()
    spans.append((start, len(folded)))
    return spans


def _holding(spans: list[tuple[int, int]], position: int) -> tuple[int, int]:
    # Spans are sorted and apart (a break lies between two): the last starting at or before.
    at = bisect_right(spans, (position, sys.maxsize)) - 1
    return spans[at] if at >= 0 and position <= spans[at][1] else (0, 0)


def _quote_at(found: list[Quote], starts: list[int], position: int) -> Quote | None:
    """The quote of ``found`` (sorted, apart; ``starts`` their starts) ``position`` lies in."""
    at = bisect_right(starts, position) - 1
    return found[at] if at >= 0 and position < found[at].end else None


@dataclass(frozen=True)
class About:
    """The lines a value of a claim is stated for: a quote in its clause, else words around it
    (nearest first), else a quote of its sentence."""

    quote: str = ""
    words: tuple[str, ...] = ()
    sentence_quote: str = ""
    claim_quote: str = ""  # the claim's only quote, when its sentence has none


NO_ABOUT = About()  # a fact read from evidence: its lines are its own binding


class ClaimMentions:
    """The quotes, sentences and clauses of one claim, for asking what a position is about."""

    def __init__(self, folded: str) -> None:
        self.folded = folded
        self.quotes = quotes(folded)
        self.sentences = _spans(folded, _SENTENCE_BREAK, self.quotes)
        self.clauses = _spans(folded, _CLAUSE_BREAK, self.quotes)
        # Every lookup bisects these (a long claim was quadratic): quotes are sorted and apart.
        self._quote_starts = [q.start for q in self.quotes]
        self._quote_ends = [q.end for q in self.quotes]
        self._only_quote = {q.text for q in self.quotes}
        self._open_brackets: list[int] | None = None
        self._clause_units: dict[tuple[int, int, frozenset[str]], bool] = {}

    def inside_quote(self, position: int) -> Quote | None:
        """The quote ``position`` lies in, if any."""
        return _quote_at(self.quotes, self._quote_starts, position)

    def about(self, position: int, *, ignore: AbstractSet[str] = frozenset(),
              values: Sequence[int] = ()) -> About:
        """What a value at ``position`` is stated for (``About``): the quote it lies in, else the
        nearest quote of its clause (the one after it on a tie); else the words around it,
        nearest first -- up to the next value (``86 Connection broken warnings``), back to the
        previous one (``「X」出现了 291 次``), its clause -- and the nearest quote of its sentence
        (``…like "X", the first at 19:03``), else the sentence's words. A value in brackets is
        about what precedes them (a quote there, else the quote after them in the clause).
        ``ignore``: words that say whose the lines are, not which (service names); ``values``:
        where the text's values start. With no quote in its sentence: the claim's only quote, if
        it has one (for a first or latest time)."""
        inside = self.inside_quote(position)
        if inside is not None:
            return About(inside.text)
        bracket = self._opening_bracket(position)
        if bracket is not None:
            position = bracket
        start, end = _holding(self.clauses, position)
        near = self._quotes_within(start, end if bracket is None else bracket)
        if not near and bracket is not None:
            # "143 条 INFO 日志（A 与 B 之间）形如「X」", "1 ERROR line (at A) like "X"": the lines
            # before the brackets are those the quote after them describes.
            near = self._quotes_within(bracket, end)
        if near:
            return About(_nearest(near, position).text)
        after, before = bisect_right(values, position), bisect_left(values, position) - 1
        following = min(values[after], end) if after < len(values) else end
        preceding = max(values[before], start) if before >= 0 else start
        words = tuple(dict.fromkeys(text for text, held in (
            (self.folded[position:following], _own_units(self.folded[position:following], ignore)),
            (self.folded[preceding:position], _own_units(self.folded[preceding:position], ignore)),
            (self.folded[start:end], self._clause_has_units(start, end, ignore))) if held))
        start, end = _holding(self.sentences, position)
        near = self._quotes_within(start, end)
        if near:
            return About("", words, _nearest(near, position).text)
        # A claim that quotes one line only: its first and latest times are about it in every
        # sentence ("…match "X"; first seen A, last seen B").
        only = set(self._only_quote)
        return About("", words or (self.folded[start:end],),
                     claim_quote=only.pop() if len(only) == 1 else "")

    def _clause_has_units(self, start: int, end: int, ignore: AbstractSet[str]) -> bool:
        """Whether ``folded[start:end]`` has units of its own, read once per clause (every value
        of a long clause asks)."""
        key = (start, end, frozenset(ignore))
        if key not in self._clause_units:
            self._clause_units[key] = bool(_own_units(self.folded[start:end], ignore))
        return self._clause_units[key]

    def _quotes_within(self, start: int, end: int) -> list[Quote]:
        """The quotes lying wholly in ``[start, end]``."""
        return self.quotes[bisect_left(self._quote_starts, start):bisect_right(self._quote_ends, end)]

    def _opening_bracket(self, position: int) -> int | None:
        """Where the bracket ``position`` lies in opens, within its sentence (one pass over the
        claim, made on first use, instead of a scan back per position)."""
        start, end = _holding(self.sentences, position)
        if not start <= position <= end:  # in no sentence: scan back from the start
            return _opening_bracket(self.folded, start, position)
        if self._open_brackets is None:
            self._open_brackets = _open_brackets(self.folded, self.sentences)
        opened = self._open_brackets[position]
        return opened if opened >= 0 else None

    def sentence(self, position: int) -> tuple[int, int]:
        """The sentence holding ``position``."""
        return _holding(self.sentences, position)

    def clause(self, position: int) -> tuple[int, int]:
        """The clause holding ``position`` (quotes do not break it)."""
        return _holding(self.clauses, position)

    def levels(self) -> list[tuple[int, int, frozenset[str], bool]]:
        """(start, end, canonical levels, or-above) of every level word outside quotes; words
        joined in a list ("FATAL and ERROR lines", ``ERROR 和 FATAL``) are one statement, held
        when the lines are at any of them."""
        found: list[tuple[int, int, frozenset[str], bool]] = []
        for match in _LEVEL_WORD.finditer(self.folded):
            if self.inside_quote(match.start()) is not None:
                continue
            above = _OR_ABOVE.match(self.folded, match.end()) is not None
            level = LEVELS[match.group(1) or match.group(2) or match.group(3)]
            if found and _LEVEL_JOIN.fullmatch(self.folded[found[-1][1]:match.start()]):
                start, _, levels, was_above = found[-1]
                found[-1] = (start, match.end(), levels | {level}, was_above or above)
            else:
                found.append((match.start(), match.end(), frozenset({level}), above))
        return found


_BRACKETS = {"(": ")", "（": "）", "[": "]", "【": "】"}
_CLOSERS = frozenset(_BRACKETS.values())


def _opening_bracket(folded: str, start: int, position: int) -> int | None:
    """Where the bracket ``position`` lies in opens (looking back to ``start``), if it does."""
    depth_at: list[int] = []
    for index in range(start, position):
        char = folded[index]
        if char in _BRACKETS:
            depth_at.append(index)
        elif char in _BRACKETS.values() and depth_at:
            depth_at.pop()
    return depth_at[-1] if depth_at else None


def _open_brackets(folded: str, sentences: list[tuple[int, int]]) -> list[int]:
    """For each position up to ``len(folded)``: the innermost bracket open before it in its
    sentence, or -1 (``_opening_bracket`` for every position at once)."""
    opened = [-1] * (len(folded) + 1)
    for start, end in sentences:
        depth_at: list[int] = []
        for index in range(start, end + 1):
            opened[index] = depth_at[-1] if depth_at else -1
            char = folded[index] if index < len(folded) else ""
            if char in _BRACKETS:
                depth_at.append(index)
            elif char in _CLOSERS and depth_at:
                depth_at.pop()
    return opened


def _distance(quote: Quote, position: int) -> int:
    return quote.start - position if quote.start >= position else position - quote.end


def _nearest(near: list[Quote], position: int) -> Quote:
    # Sorted and apart: the nearest is the last starting before ``position`` or the first
    # starting at or after it.
    at = bisect_left(near, position, key=lambda q: q.start)
    return min(near[max(0, at - 1):at + 1], key=lambda q: (_distance(q, position), q.start < position))


_NUMBERISH = re.compile(r"[\d:.\-+t]+")


def _own_units(words: str, ignore: AbstractSet[str]) -> set[str]:
    """Content units of a clause that say which lines it is about (not levels, services,
    numbers or times)."""
    return {unit for unit in content_units(words)
            if unit not in LEVELS and unit not in ignore and not _NUMBERISH.fullmatch(unit)
            and (len(unit) >= 3 or not unit.isascii())}


def overlap(words: str, message: str, *, ignore: AbstractSet[str] = frozenset()) -> int:
    """How many units of a claim's words (those ``_own_units`` keeps) a message holds."""
    return len(_own_units(words, ignore) & content_units(message))


def level_covers(stated: frozenset[str], above: bool, actual: str) -> bool:
    """Whether lines at ``actual`` are lines at a ``stated`` level (or above, when said)."""
    if actual in stated:
        return True
    return above and _RANK.get(actual, -1) >= min(_RANK.get(level, 99) for level in stated)


def canonical_level(word: str) -> str:
    """A level as a ref spells it (``WARNING``, ``[ERROR]``), in canonical form."""
    return LEVELS.get(word.strip().lower(), word.strip().lower())


def _squeezed(text: str) -> str:
    return _SPACE.sub(" ", text).strip(" .:;,，。：；")


# A value in a line (``91.0%``, ``3.8GB/4GB``, a run ``85% → 87% → 89%``) is a variable part:
# lines that differ only in their values are the same kind of line.
_VALUE = re.compile(r"(?<![a-z0-9_\-.])\d+(?:\.\d+)?(?:%|[a-zµ]+)?(?![a-z0-9_])")
_VALUE_RUN = re.compile(r"<\*>(?:\s*(?:→|->|=>|/|~|…|\.\.\.)\s*<\*>)+")


def _masked(text: str) -> str:
    return _VALUE_RUN.sub("<*>", _VALUE.sub("<*>", text))


# Asked of each claim value's words against every cited line, and the same pairs session after
# session: a pure function of the two texts.
@lru_cache(maxsize=8192)
def fits(quote: str, message: str) -> bool:
    """Whether quoted text and a line's message (or a group's template) are about the same
    lines: every part of the quote between its gaps is in the message, in order; or the
    template, its ``<*>`` matching anything, is in the quote; or the message is most of it.
    Values are variable parts on both sides (``内存使用率过高: 85% → 87% → 89%`` quotes three
    lines of one kind)."""
    quote, message = _squeezed(_masked(quote)), _squeezed(_masked(message))
    if not quote or not message:
        return False
    parts = [_squeezed(part) for part in _GAP.split(quote) if _squeezed(part)]
    position = 0
    for part in parts:
        found = message.find(part, position)
        if found < 0:
            break
        position = found + len(part)
    else:
        if parts:
            return True
    if "<*>" in message:
        pattern = ".*?".join(re.escape(_squeezed(part)) for part in message.split("<*>"))
        if re.search(pattern, quote, re.DOTALL):
            return True
    return len(message) >= 0.5 * len(quote) and message in quote

