"""Clauses and content units of a text the verifier reads (folded by ``core.language.text.fold``,
which keeps offsets: spans the verifier records point into the text as it was written).
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from functools import lru_cache

from core.language.chars import HAN_RUN
from core.language.vocabulary import VocabularyFile, load

# Where one statement of a text ends and the next begins (a decimal point is not one).
_CLAUSE_BREAK_RE = re.compile(r"[，,；;。！？!?\n|「」“”\"()（）\[\]【】]|\.(?!\d)|：(?=\s*「)")
_WORD_RE = re.compile(r"[a-z][a-z0-9_\-]*[a-z0-9]|[a-z]{3,}")


class ClaimWords(VocabularyFile):
    """``vocab/claim_words.yaml``: what a claim says around its facts, its state and level words."""

    generic_en: frozenset[str]
    generic_zh_chars: str  # a run of characters, each one generic
    generic_zh_pairs: frozenset[str]
    stem_suffixes: tuple[str, ...]
    alert_states_zh: dict[str, tuple[str, ...]]
    # read by mentions.py
    levels_en: dict[str, str]
    levels_zh: dict[str, str]
    levels_zh_before: tuple[str, ...]
    levels_zh_only_before_level: dict[str, str]
    levels_zh_only_before: tuple[str, ...]
    level_joiners: tuple[str, ...]
    or_above_zh: tuple[str, ...]
    or_above_en: tuple[str, ...]
    level_ranks: tuple[str, ...]


CLAIM_WORDS = load("claim_words", ClaimWords)
# Words that carry no checkable content of their own: what every claim says around its facts.
GENERIC_EN: frozenset[str] = CLAIM_WORDS.generic_en
# CJK characters that, alone or paired, say nothing checkable (structure, not content).
_GENERIC_CJK_CHARS = frozenset(CLAIM_WORDS.generic_zh_chars)
# CJK words (pairs) of the same kind: the medium rather than a fact about the system.
_GENERIC_CJK_PAIRS = CLAIM_WORDS.generic_zh_pairs




def clause_bounds(text: str, position: int) -> tuple[int, int]:
    """The ``[start, end)`` of the clause holding ``position`` (separators excluded)."""
    starts, ends = _clause_breaks(text)
    # Breaks are sorted and apart: the clause starts after the last break ending at or before
    # ``position`` and ends at the first starting at or after it (bisected, not scanned: a
    # long claim asks once per value).
    before, after = bisect_right(ends, position) - 1, bisect_left(starts, position)
    return (ends[before] if before >= 0 else 0), (starts[after] if after < len(starts) else len(text))


@lru_cache(maxsize=16)
def _clause_breaks(text: str) -> tuple[list[int], list[int]]:
    """Where each clause break of ``text`` starts and ends (callers must not change the lists)."""
    matches = list(_CLAUSE_BREAK_RE.finditer(text))
    return [match.start() for match in matches], [match.end() for match in matches]


def clauses(text: str) -> list[tuple[int, int]]:
    """Every non-empty clause of ``text`` as ``[start, end)`` spans."""
    spans: list[tuple[int, int]] = []
    start = 0
    for match in _CLAUSE_BREAK_RE.finditer(text):
        if text[start:match.start()].strip():
            spans.append((start, match.start()))
        start = match.end()
    if text[start:].strip():
        spans.append((start, len(text)))
    return spans


def content_units(folded: str) -> set[str]:
    """What a clause says beyond its structure: ASCII words (not generic) and CJK character
    pairs (not made only of structural characters)."""
    units = {word for word in _WORD_RE.findall(folded) if word not in GENERIC_EN}
    for run in HAN_RUN.findall(folded):
        for index in range(len(run) - 1):
            pair = run[index:index + 2]
            if not ((pair[0] in _GENERIC_CJK_CHARS and pair[1] in _GENERIC_CJK_CHARS)
                    or pair in _GENERIC_CJK_PAIRS):
                units.add(pair)
    return units


_NAME_PARTS = re.compile(r"[_\-./:]+")
_SUFFIXES = CLAIM_WORDS.stem_suffixes


def _stem(word: str) -> str:
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[:-len(suffix)]
    return word


def stems(units: set[str]) -> set[str]:
    """Units compared loosely: an ASCII word by its stem ("writing" ~ "write"), a name also by
    its parts (``write_block`` holds "write" and "block"); CJK pairs as they are."""
    found: set[str] = set()
    for unit in units:
        if not unit.isascii():
            found.add(unit)
            continue
        found.add(_stem(unit))
        parts = [part for part in _NAME_PARTS.split(unit) if len(part) >= 3 and part.isalpha()]
        if len(parts) > 1:
            found.update(_stem(part) for part in parts if part not in GENERIC_EN)
    return found


# An alert's state as a Chinese sentence says it: "firing" is 触发 (告警正在触发), "resolved" 恢复.
_STATE_UNITS = CLAIM_WORDS.alert_states_zh


def with_state_words(units: set[str]) -> set[str]:
    """Evidence units plus the Chinese words of the alert states they hold."""
    return units | {word for state, words in _STATE_UNITS.items() if state in units for word in words}
