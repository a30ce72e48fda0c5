"""``vocab/number_words.yaml``, read into ``NUMBER_WORDS``: how a number is written.

Its own module: ``signs`` (the marks before a number, which every quote check reads) needs the
file's marks, not the numeral readers of ``numbers`` (their patterns and classes cost a command
that never reads a numeral, ``gatekeeper check``, ~2 ms).
"""

from __future__ import annotations

from core.language.vocabulary import VocabularyFile, load


class SpelledDuration(VocabularyFile):
    value: float
    unit: str
    en: tuple[str, ...] = ()
    after_the_last: tuple[str, ...] = ()
    zh: tuple[str, ...] = ()


class NumberWords(VocabularyFile):
    """``vocab/number_words.yaml``: numerals (``numbers``), units (``quantities``), marks (``signs``)."""

    zh_digits: dict[str, int]
    zh_scales: dict[str, int]
    en_units: dict[str, int]
    en_tens: dict[str, int]
    en_scales: dict[str, int]
    digit_scales: dict[str, int]
    zh_tens: dict[str, int]
    zh_tenths_not_before: str  # a run of characters, each one
    spelled_durations: tuple[SpelledDuration, ...]
    numeral_not_alone: frozenset[str]
    numeral_not_after: str  # a run of characters, each one
    day_halves: dict[str, int]
    percentile_words: tuple[str, ...]
    median_words: tuple[str, ...]
    time_seconds: dict[str, float]
    size_bytes: dict[str, float]
    percent_units: frozenset[str]
    count_units: frozenset[str]
    attached_only_units: frozenset[str]
    change_from: tuple[str, ...]
    change_to: tuple[str, ...]
    mark_spellings: dict[str, str]
    rate_words: dict[str, tuple[str, ...]]
    marks: dict[str, str]


NUMBER_WORDS = load("number_words", NumberWords)
