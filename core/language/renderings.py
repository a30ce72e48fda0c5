"""The Chinese words an English text holds in translation, as content units
(``core.language.clauses``): a Chinese claim cites English lines, and its words are grounded by
what the lines say, not by the characters they share (none).

The table is vocabulary data: ``vocab/renderings_zh.yaml`` and ``vocab/translations.yaml``
(Chinese -> English words or stems), and whatever a caller adds (the verifier adds the sides of
its antonym pairs, ``core/verifier/polarity.py``).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Mapping
from functools import cache

from core.language.clauses import content_units, stems
from core.language.concepts import TRANSLATIONS
from core.language.vocabulary import VocabularyFile, load

# An English word this short is compared whole, never as the start of a longer one ("db" is
# not "dbus"'s start, "err" is not "errand"'s).
_MIN_PREFIX = 4


class Renderings(VocabularyFile):
    """``vocab/renderings_zh.yaml``."""

    renderings: dict[str, tuple[str, ...]]


_RENDERINGS = load("renderings_zh", Renderings)

Table = tuple[tuple[str, tuple[tuple[str, ...], ...]], ...]


@cache
def _table(extra: tuple[tuple[str, tuple[str, ...]], ...]) -> Table:
    """Each Chinese word with its English words, each as the stems of its words."""
    merged: dict[str, list[str]] = {}
    for source in (TRANSLATIONS, _RENDERINGS.renderings, dict(extra)):
        for zh, english in source.items():
            merged.setdefault(zh, []).extend(english)
    return tuple((zh, tuple(dict.fromkeys(_word_stems(word) for word in english)))
                 for zh, english in merged.items() if content_units(zh))


def _word_stems(phrase: str) -> tuple[str, ...]:
    return tuple(sorted(stems(set(phrase.lower().split()))))


def _held(stem: str, units: set[str], prefixes: list[str]) -> bool:
    """Whether ``stem`` is a unit or (long enough) the start of one; ``prefixes``: the units
    sorted, where the units starting with ``stem`` come first at or after it."""
    if stem in units:
        return True
    if len(stem) < _MIN_PREFIX:
        return False
    at = bisect_left(prefixes, stem)
    return at < len(prefixes) and prefixes[at].startswith(stem)


def rendered_units(units: set[str], extra: Mapping[str, Iterable[str]] | None = None) -> set[str]:
    """The content units (CJK pairs) of every Chinese word whose English one ``units`` (stemmed
    units of an English text) hold: ``units`` with "connection" gives 连接's."""
    table = _table(tuple((zh, tuple(words)) for zh, words in (extra or {}).items()))
    english = {unit for unit in units if unit.isascii()}
    prefixes = sorted(english)
    found: set[str] = set()
    for zh, renderings in table:
        if any(all(_held(stem, english, prefixes) for stem in words) for words in renderings if words):
            found |= content_units(zh)
    return found
