"""Invisible characters: which are copy-paste noise and which can forge a quote.

An excerpt is shown to people, stored and handed to models, so characters that render as
nothing (or reorder what is around them) can make it *say* something the ref does not:

* bidi controls reorder the display: ``current=‮91%`` shows as ``current=%19``; an isolate or
  embedding does the same to a whole run;
* tag characters (U+E0000 block) and variation selectors spell out hidden text (instructions
  to a model reading the excerpt) inside an innocent-looking quote;
* private-use characters render as whatever a font decides;
* other format, control, surrogate and unassigned characters have no visible form either.

So (documented in docs/gatekeeper-rules.md):

* **benign** -- ``BENIGN_INVISIBLE`` (zero-width space, zero-width (non-)joiner, word joiner,
  BOM / zero-width no-break space, soft hyphen): what web pages and editors put into copied
  text. The normaliser strips them from excerpt and ref alike, so they change nothing.
* **forged** -- any other character of the classes above that the ref text does not contain
  makes the excerpt REJECT ``evidence.excerpt_mismatch``. A character the ref really holds
  may be quoted, except explicit bidi embeddings, overrides and isolates, which never pass:
  a quote that holds one displays differently from what it says.
"""

from __future__ import annotations

import re
import unicodedata

from core.language.nfkc import nfkc

# Stripped by the normaliser (excerpt and ref alike): copy-paste noise that renders as nothing.
BENIGN_INVISIBLE: frozenset[str] = frozenset("\u00ad\u200b\u200c\u200d\u2060\ufeff")
# Explicit bidi formatting: embeddings, overrides, pop, isolates. Never in a passing quote.
BIDI_EXPLICIT: frozenset[str] = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
# Invisible characters outside the format/control categories: variation selectors (which can
# carry hidden bytes), Hangul and Mongolian fillers, the combining grapheme joiner.
_OTHER_INVISIBLE_RE = re.compile(
    "[\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u3164\ufe00-\ufe0f\uffa0"
    "\U000e0100-\U000e01ef]")
_ASCII_CONTROLS_RE = re.compile("[\x00-\x08\x0e-\x1f\x7f]")
_HIDDEN_CATEGORIES = frozenset(["Cc", "Cf", "Co", "Cs", "Cn"])


def is_hidden(char: str) -> bool:
    """A character with no visible form that is not benign copy-paste noise or whitespace."""
    if char in BENIGN_INVISIBLE or char.isspace():
        return False
    return unicodedata.category(char) in _HIDDEN_CATEGORIES or bool(_OTHER_INVISIBLE_RE.match(char))


def _describe(char: str) -> str:
    name = unicodedata.name(char, "")
    if not name:
        category = unicodedata.category(char)
        name = {"Co": "PRIVATE USE", "Cn": "UNASSIGNED", "Cs": "SURROGATE", "Cc": "CONTROL"}.get(category, category)
    return f"U+{ord(char):04X} {name}"


def forged_invisible(excerpt: str, ref_text: str) -> list[str]:
    """Hidden characters of ``excerpt`` that make it a forgery, described (empty: none).

    A hidden character the ref lacks, or any explicit bidi control, is one.
    """
    if excerpt.isascii():
        found = set(_ASCII_CONTROLS_RE.findall(excerpt))
    else:
        # Each distinct character looked up: a class of every suspect code point took
        # milliseconds to build and compile in every process that checked a non-ASCII quote.
        found = {char for char in set(excerpt) if is_hidden(char)}
    if not found:
        return []
    forged = {char for char in found if char in BIDI_EXPLICIT or char not in ref_text}
    return [_describe(char) for char in sorted(forged)]


_BENIGN_CLASS = "[" + re.escape("".join(sorted(BENIGN_INVISIBLE))) + "]"
_BENIGN_RE = re.compile(_BENIGN_CLASS)


def without_benign(text: str) -> str:
    """``text`` without the benign copy-paste invisibles (see the module docstring)."""
    return _BENIGN_RE.sub("", text)
# A run of benign invisible characters between two characters of one token (these), one of them
# a digit: inside a number (``9\u200d1%``).
_NUMBER_NEIGHBOURS = frozenset("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz.%")


def _benign_runs(text: str) -> list[tuple[int, int]]:
    """``[start, end)`` of each run of benign invisibles in ``text``, found with ``str.find``
    (a regex scan over the whole text costs several times more)."""
    positions: list[int] = []
    for char in BENIGN_INVISIBLE:
        position = text.find(char)
        while position != -1:
            positions.append(position)
            position = text.find(char, position + 1)
    runs: list[tuple[int, int]] = []
    for position in sorted(positions):
        if runs and runs[-1][1] == position:
            runs[-1] = (runs[-1][0], position + 1)
        else:
            runs.append((position, position + 1))
    return runs


def hidden_in_numbers(excerpt: str, ref_text: str) -> list[str]:
    """Benign invisible characters the excerpt puts *inside* a number (``9\u200d1%``), described.

    Copied text carries zero-width characters between words, never between the digits of one
    number; there they display the number the ref holds while a reader that does not strip
    them (a tokenizer, a model, a grep) reads two. The ref may hold the same sequence.
    """
    if excerpt.isascii() or not any(char in excerpt for char in BENIGN_INVISIBLE):
        return []
    text = nfkc(excerpt)
    found: set[str] = set()
    for start, end in _benign_runs(text):
        if start == 0 or end == len(text) or text[start - 1] not in _NUMBER_NEIGHBOURS or (
                text[end] not in _NUMBER_NEIGHBOURS):
            continue
        before, after = text[start - 1], text[end]
        if not (before.isdigit() or after.isdigit()):
            continue
        if text[start - 1:end + 1] in ref_text:
            continue
        found.update(text[start:end])
    return [_describe(char) for char in sorted(found)]
