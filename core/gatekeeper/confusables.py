"""Look-alike (homoglyph) letters: Cyrillic and Greek characters that render like Latin ones.

Policy (documented in docs/gatekeeper-rules.md): an excerpt is a quote, so it must be copied,
not retyped. If it contains a look-alike letter that the ref text does not contain, the excerpt
is not the ref's text (``оrder-service`` with a Cyrillic ``о`` is not ``order-service``), and
the binding is REJECT ``evidence.excerpt_mismatch`` with reason "look-alike characters". We do not
fold look-alikes to Latin: folding would let a retyped or spoofed excerpt pass. Genuine non-Latin
text in a ref (Chinese, or Cyrillic really present in the ref) still matches, because a
character present in the ref is never flagged.
"""

from __future__ import annotations

import re

# Cyrillic and Greek letters (both cases) whose glyph is a Latin letter's glyph.
LATIN_LOOKALIKES: str = (
    # Cyrillic lower / upper
    "аеорсухіјѕԁԛԝһӏ"
    "АВЕКМНОРСТХІЈЅԌԚԜҮ"
    # Greek lower / upper
    "αορνικτυχ"
    "ΑΒΕΖΗΙΚΜΝΟΡΤΥΧ"
)

_LOOKALIKE_RE = re.compile(f"[{re.escape(LATIN_LOOKALIKES)}]")


def foreign_lookalikes(excerpt: str, ref_text: str) -> list[str]:
    """Look-alike letters in ``excerpt`` that ``ref_text`` does not contain (case-folded)."""
    if excerpt.isascii():
        return []
    found = _LOOKALIKE_RE.findall(excerpt)
    if not found:
        return []
    ref_folded = ref_text.casefold()
    return sorted({char for char in found if char.casefold() not in ref_folded})
