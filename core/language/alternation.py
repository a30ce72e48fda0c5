"""A regex alternation of many words, compiled one first character at a time, on first need.

Why: the lexicon's synonym tries and the concepts' question words are alternations of
hundreds of words, and compiling each as one regex costs tens of milliseconds -- paid by every
command that reads a sentence, for a question that holds a dozen distinct characters.

``FirstCharAlternation`` finds exactly what ``re.finditer`` of the whole alternation finds:
at each position, ``re`` tries the alternatives in order, and an alternative can only match
where the text holds its first character (a lookbehind or lookahead before it consumes
nothing). So the text is scanned for positions holding any first character (one character
class, cheap to compile), and at each such position only the alternatives starting with that
character are tried, in their order -- compiled together the first time that character is met.
With ``by_word``, alternatives starting with a letter or digit are grouped by their whole first
run of letters and digits instead (no other can match where the text's run is that word): in
log lines and questions most words start with a letter some synonym starts with, few with a
synonym's first word.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import groupby
from typing import NamedTuple

from core.language.chars import ASCII_WORD, ASCII_WORD_CHARS

_ASCII_RUN = re.compile(f"[{ASCII_WORD}]+")


def one_of(words: Iterable[str], *, english_ends_word: bool = False, longest_first: bool = True) -> str:
    """Words (a vocabulary's list) as regex alternatives, escaped, longest first: a word is
    tried before its prefix, so a word added anywhere in the list is read whole (without
    ``longest_first``, in the list's order). With ``english_ends_word``, an English (ASCII)
    word must end a word (``\\b`` after it). No words: a pattern that matches nothing (an empty
    alternative would match everywhere)."""
    # Ties in a fixed order: a list read from a set would make a new pattern text in every
    # process, which the kept compiled regexes (core.regexcache) would never find.
    ordered = sorted(words, key=lambda word: (-len(word), word)) if longest_first else list(words)
    joined = "\x00".join(ordered)
    # Escaped in one call (``re.escape`` leaves NUL as it is): the same text as word by word,
    # for lists of hundreds of words read by every command.
    escaped = re.escape(joined).split("\x00") if joined.count("\x00") == len(ordered) - 1 else None
    if escaped is None:  # a word holding NUL
        escaped = [re.escape(word) for word in ordered]
    if english_ends_word:
        escaped = [word + r"\b" if original.isascii() else word
                   for word, original in zip(escaped, ordered, strict=True)]
    return "|".join(escaped) or "(?!)"


class Alternative(NamedTuple):
    """One alternative: ``prefix + body + suffix``, starting with ``first`` (its first character;
    with ``by_word``, for one starting with an ASCII letter or digit, the run of them every
    match of it starts with, whole). Alternatives in a
    row with the same prefix and suffix compile as ``prefix(?:body|body...)suffix``, which
    matches alike (``re`` backtracks into the group in the same order) and is shorter."""

    first: str
    body: str | Callable[[], str]  # or what makes it, called when its first character is met
    prefix: str = ""
    suffix: str = ""

    def body_text(self) -> str:
        """The body, made now if it is made on first need."""
        return self.body if isinstance(self.body, str) else self.body()


class FirstCharAlternation:
    """Leftmost-first matches of ``alternatives``, in the order the whole alternation would
    try them. An alternative must start by consuming its first character (after an optional
    lookbehind or lookahead) and must not match the empty string.
    ``word_guard``: alternatives whose first character is an ASCII letter or digit match only
    where no letter or digit precedes them (at a word start).
    ``by_word``: alternatives starting with an ASCII letter or digit are keyed by their first
    word (see ``Alternative``) and tried only where the text's run of letters and digits is it."""

    def __init__(self, alternatives: Sequence[Alternative], *, word_guard: bool = False,
                 by_word: bool = False) -> None:
        self._sources: dict[str, list[Alternative]] = {}
        for alternative in alternatives:
            self._sources.setdefault(alternative.first, []).append(alternative)
        self._compiled: dict[str, re.Pattern[str]] = {}
        self._word_guard = word_guard
        self._by_word = by_word
        self._starts: re.Pattern[str] | None = None

    def _start_pattern(self) -> re.Pattern[str]:
        if self._starts is None:
            firsts = {key[0] for key in self._sources}
            word = sorted(c for c in firsts if self._word_guard and c in ASCII_WORD_CHARS)
            other = sorted(c for c in firsts if c not in word)
            parts = []
            if other:
                parts.append(f"[{''.join(re.escape(c) for c in other)}]")
            if word:
                parts.append(f"(?<![{ASCII_WORD}])[{''.join(word)}]")
            self._starts = re.compile("|".join(parts) or "(?!)")
        return self._starts

    def _bucket(self, first: str) -> re.Pattern[str]:
        """The alternatives keyed ``first``, compiled together (once)."""
        pattern = self._compiled.get(first)
        if pattern is None:
            runs = []
            for (prefix, suffix), run in groupby(self._sources[first], lambda a: (a.prefix, a.suffix)):
                bodies = [alternative.body_text() for alternative in run]
                body = bodies[0] if len(bodies) == 1 else "(?:" + "|".join(bodies) + ")"
                runs.append(prefix + body + suffix)
            pattern = re.compile("|".join(runs))
            self._compiled[first] = pattern
        return pattern

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        """The non-overlapping matches, left to right (as ``re.finditer`` of the whole)."""
        starts = self._start_pattern()
        position = 0
        while True:
            candidate = starts.search(text, position)
            if candidate is None:
                return
            at = candidate.start()
            key = text[at]
            if self._by_word and (run := _ASCII_RUN.match(text, at)) is not None:
                key = run.group()
            match = self._bucket(key).match(text, at) if key in self._sources else None
            if match is not None:
                yield match
                position = match.end()
            else:
                position = at + 1
