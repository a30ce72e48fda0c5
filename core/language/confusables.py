"""Look-alike (homoglyph) characters: letters of other scripts that render like Latin ones.

Policy (documented in docs/gatekeeper-rules.md): an excerpt is a quote, so it must be copied,
not retyped. If it contains a look-alike letter that the ref text does not contain, the excerpt
is not the ref's text (``оrder-service`` with a Cyrillic ``о`` is not ``order-service``), and
the binding is REJECT ``evidence.excerpt_mismatch`` with reason "look-alike characters". We do not
fold look-alikes to Latin: folding would let a retyped or spoofed excerpt pass. Genuine non-Latin
text in a ref (Chinese, or Cyrillic really present in the ref) still matches, because a
character present in the ref is never flagged.

Which characters look like a Latin letter or digit is Unicode's confusables data (UTS #39), as
the ``confusable_homoglyphs`` package ships it, read on first need.
"""

from __future__ import annotations

import json
import string
import unicodedata
from functools import cache, lru_cache
from importlib.util import find_spec
from pathlib import Path

# Letters the data does not map to a Latin letter or digit (it maps κ to ĸ, τ to ᴛ, χ to ꭓ) whose
# glyph is still a Latin one's in most fonts.
_ALSO_LOOKALIKE = "κτχԚ"
_LATIN = frozenset(string.ascii_letters + string.digits)


@cache
def latin_lookalikes() -> frozenset[str]:
    """Characters that render like a Latin letter or digit and are not one: every single
    character Unicode's confusables data holds confusable with one, less the compatibility
    forms: those NFKC folds to Latin (a full-width letter is typed in a CJK input mode and
    matches) and those ``lookalike_forms`` rejects with their form's name (``𝐨``, ``𝛂``).
    Read once, on first need: the data is ~1 MB of JSON."""
    data: dict[str, list[dict[str, str]]] = json.loads(_confusables_json().read_bytes())
    found = {char for char, homoglyphs in data.items()
             if len(char) == 1 and not char.isascii() and any(entry["c"] in _LATIN for entry in homoglyphs)}
    return frozenset(char for char in found | set(_ALSO_LOOKALIKE)
                     if not _folds_to_latin(char) and not _is_suspect_form(char))


def _confusables_json() -> Path:
    """The package's data file, found without importing the package (``importlib.resources``
    alone costs more start-up than the file's parsing)."""
    spec = find_spec("confusable_homoglyphs")
    if spec is None or spec.origin is None:
        raise ModuleNotFoundError("confusable_homoglyphs (a dependency: Unicode's confusables data)")
    return Path(spec.origin).with_name("confusables.json")


def _folds_to_latin(char: str) -> bool:
    return all(folded in _LATIN for folded in unicodedata.normalize("NFKC", char))


def foreign_lookalikes(excerpt: str, ref_text: str) -> list[str]:
    """Look-alike letters in ``excerpt`` that ``ref_text`` does not contain (case-folded)."""
    if excerpt.isascii():
        return []
    # A character the ref holds is never flagged: a copied excerpt does not read the table.
    absent = {char for char in set(excerpt) if not char.isascii() and char not in ref_text}
    if not absent:
        return []
    absent &= latin_lookalikes()  # before case-folding the ref: most absent characters are none
    if not absent:
        return []
    ref_folded = ref_text.casefold()
    return sorted(char for char in absent if char.casefold() not in ref_folded)


# Compatibility forms whose look says something else than their NFKC folding: superscripts and
# subscripts (``9¹%`` folds to ``91%``), circled and parenthesised numbers, mathematical
# alphanumerics (``𝟗𝟏%``, ``𝐨rder-service``), squared units (``㎳``), vulgar fractions.
_LOOKALIKE_TAGS = frozenset(["<super>", "<sub>", "<circle>", "<font>", "<square>", "<fraction>"])
# Blocks that hold them; every decimal digit that is not ASCII is a suspect too.
_LOOKALIKE_BLOCKS: tuple[tuple[int, int], ...] = (
    (0x00B2, 0x00BE), (0x02B0, 0x02FF), (0x1D2C, 0x1DBF), (0x2070, 0x209F), (0x2100, 0x218F),
    (0x2460, 0x24FF), (0x2776, 0x2793), (0x3248, 0x325F), (0x3280, 0x33FF), (0x1D400, 0x1D7FF),
    (0x1F100, 0x1F1FF), (0x1FBF0, 0x1FBF9))
_FULL_WIDTH_DIGITS = frozenset("０１２３４５６７８９")


def _is_lookalike_form(char: str) -> bool:
    if char.isascii() or char in _FULL_WIDTH_DIGITS:
        return False
    tag = unicodedata.decomposition(char).partition(" ")[0]
    return tag in _LOOKALIKE_TAGS or unicodedata.category(char) in ("Nd", "No", "Nl")


@lru_cache(maxsize=4096)
def _is_suspect_form(char: str) -> bool:
    """A look-alike form of the blocks above, or a decimal digit of another script (``٩``).
    Tested on an excerpt's distinct characters: a class of every such code point took
    milliseconds to build and compile in every process that checked a non-ASCII excerpt."""
    if char.isascii():
        return False
    code = ord(char)
    in_blocks = any(low <= code <= high for low, high in _LOOKALIKE_BLOCKS)
    return (in_blocks or char.isdecimal()) and _is_lookalike_form(char)


def lookalike_forms(excerpt: str, ref_text: str) -> list[str]:
    """Look-alike digits and letters of ``excerpt`` that ``ref_text`` does not hold, described.

    Full-width digits and letters are the same characters typed in a CJK input mode (NFKC
    folds them, and the ref is compared folded); a superscript, circled, mathematical or
    foreign-script digit is a retyped number, and NFKC would fold ``⁹¹`` into ``91``.
    """
    if excerpt.isascii():
        return []
    found = {char for char in set(excerpt) if _is_suspect_form(char)}
    return [f"U+{ord(char):04X} {unicodedata.name(char, '?')}" for char in sorted(found)
            if char not in ref_text]
