"""NFKC, quicker on Chinese text: the full-width punctuation it is written with first.

``unicodedata.normalize`` returns a text as it is when its quick check passes, and
recomposes the whole text otherwise: one full-width comma in a CJK line costs ~8 µs. NFKC
maps each full-width form below to its ASCII twin, a starter like any ASCII character, so
replacing them first (``str.replace``, C speed) gives the same result -- every pair of a form
and any code point was checked both ways -- and lets the quick check pass.
"""

from __future__ import annotations

import unicodedata

_COMMON_FULL_WIDTH = tuple((char, chr(ord(char) - 0xFEE0)) for char in "，：；（）！？％")


def nfkc(text: str) -> str:
    """``unicodedata.normalize("NFKC", text)``."""
    if text.isascii():
        return text
    for full_width, ascii_twin in _COMMON_FULL_WIDTH:
        if full_width in text:
            text = text.replace(full_width, ascii_twin)
    return unicodedata.normalize("NFKC", text)
