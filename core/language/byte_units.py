"""Byte and bit units keep their case: ``4194304kB`` (kilobytes) is not ``4194304Kb`` (kilobits).

The quote form is case-folded, so the matcher sees ``4194304kb`` either way; this check reads
the texts as written. Cheapest tests first: most excerpts hold no byte unit at all, and most
that do write it as the ref does, so the recasing tests (is the whole quote recased, which is
formatting and says nothing about its units' case?) only run for a unit whose case differs.
"""

from __future__ import annotations

import re
from functools import lru_cache

from core.language.invisible import without_benign

_BYTE_UNIT_RE = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s?((?:[kKmMgGtTpP]i?)?[bB])(?!\w)")
_ASCII_WORD_RE = re.compile(r"[A-Za-z]+")
_RECASINGS = (str.upper, str.lower, str.swapcase, str.title)

# A byte unit of a text: (value, prefix case-folded) -> the units written with it, in order.
ByteUnits = dict[tuple[float, str], list[str]]


@lru_cache(maxsize=4096)
def ref_byte_units(ref_text: str) -> ByteUnits:
    """The byte and bit units of a ref text by value and prefix (cached: refs repeat)."""
    in_ref: ByteUnits = {}
    for value, unit in _BYTE_UNIT_RE.findall(ref_text):
        in_ref.setdefault((float(value), unit[:-1].casefold()), []).append(unit)
    return in_ref


@lru_cache(maxsize=4096)
def _conflicting_cases(ref_text: str) -> str:
    """The last letters (``b``, ``B``) a unit of a quote must end in to read as the other of
    byte and bit than a unit of the ref with its value and prefix (``_unit_conflict``)."""
    cases = ""
    for units in ref_byte_units(ref_text).values():
        endings = {unit[-1] for unit in units}
        if len(endings) == 1:
            cases += "b" if endings == {"B"} else "B"
    return "".join(sorted(set(cases)))


def clear_caches() -> None:
    """Forget every ref text's units (benchmarks of the cold path)."""
    ref_byte_units.cache_clear()
    _conflicting_cases.cache_clear()


def _unit_conflict(excerpt: str, ref_text: str) -> str:
    """The first unit of ``excerpt`` whose value and prefix the ref holds only as the other of
    byte and bit, described ('' when none)."""
    written = _BYTE_UNIT_RE.findall(excerpt)
    if not written:
        return ""
    in_ref = ref_byte_units(ref_text)
    for value, unit in written:
        units = in_ref.get((float(value), unit[:-1].casefold()), [])
        if units and all(other[-1] != unit[-1] for other in units):
            meaning = "bits" if unit[-1] == "b" else "bytes"
            return f"changed fact: {value}{unit} reads {meaning}, the ref has {value}{units[0]}"
    return ""


def _ascii_letters(text: str) -> str:
    return "".join(_ASCII_WORD_RE.findall(text))


def _recased_words(excerpt: str, ref_text: str) -> bool:
    """Whether a word of the excerpt other than a unit is in the ref only in another case: the
    quote was recased (title case after a cut, ``Jvm`` for ``JVM``), which is formatting, so the
    case of its units says nothing either."""
    words = _ASCII_WORD_RE.findall(_BYTE_UNIT_RE.sub(" ", excerpt))
    folded = ref_text.casefold()
    return any(word not in ref_text and word.casefold() in folded for word in words)


def _recased(original: str, excerpt: str, ref_text: str, region: str) -> bool:
    """Whether the quote was recased as a whole (upper, lower, swapped or title case) or a word
    of it was: formatting, so the case of its units says nothing. ``original`` is the excerpt as
    written, ``excerpt`` the same without benign invisibles."""
    words = _ASCII_WORD_RE.findall(original)
    if words and all(word[0].isupper() and word[1:] == word[1:].lower() for word in words):
        return True  # title case (each word as ``str.title`` leaves it)
    if excerpt.isupper() or excerpt.islower():
        return True
    if region:
        letters = _ascii_letters(excerpt)
        if any(letters == _ascii_letters(recase(region)) for recase in _RECASINGS):
            return True
    return _recased_words(excerpt, ref_text)


def byte_unit_problem(excerpt: str, ref_text: str, region: str = "") -> str:
    """A byte unit written as a bit unit or the reverse ('' when none): ``4194304Kb`` for
    ``4194304kB``. Texts are as written (not case-folded); ``region`` is the part of the ref
    the excerpt quotes. A quote recased as a whole (upper, lower, swapped or title case) is
    formatting and says nothing about the case of its units; one whose letters keep the ref's
    case but a unit's is a changed fact."""
    in_ref = ref_byte_units(ref_text)
    if not in_ref:
        return ""  # a ref without byte or bit units: no unit of the quote can read as another
    if not any(case in excerpt for case in _conflicting_cases(ref_text)):
        return ""  # no ``b`` (or ``B``) that could read as the other of a unit the ref holds
    stripped = excerpt if excerpt.isascii() else without_benign(excerpt)  # invisibles split no unit
    problem = _unit_conflict(stripped, ref_text)
    if not problem or _recased(excerpt, stripped, ref_text, region):
        return ""
    return problem
