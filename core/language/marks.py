"""Marks that change what a word says without changing its letters.

* **Combining marks over letters** -- ``f̶i̶r̶i̶n̶g̶`` (U+0336 long stroke overlay), ``f̸`` (U+0338
  solidus overlay), ``f⃠`` (U+20E0 enclosing circle backslash): the word *reads* "firing" to a
  matcher that skips marks and *displays* struck out or prohibited to a person. After NFC a mark
  that composes into a letter (``e`` + U+0301 = ``é``) is gone; any combining mark left (every
  non-spacing, spacing and enclosing class) sits over its base as a mark of its own. A text may
  hold such a cluster only where its source holds the same cluster (``foreign_marks``): a quote
  copies it, a claim restates it; Chinese and English never need one.
* **Negation and comparison marks before a word** -- ``!firing``, ``¬firing``,
  ``service≠order-service``, ``namespace<>production``, ``state!=firing``: the word is denied,
  not stated (``word_marks`` finds them; ``NEGATION_MARKS`` are the ones that deny).
* ``visible`` strips what no reader should get from an answer: hidden characters (tags, bidi
  controls, private use, controls) and combining marks left over Latin or Han letters.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from core.language.invisible import BENIGN_INVISIBLE, is_hidden

# A mark in front of a word that denies or compares it. ``!`` alone only touching the word
# (``failed! retrying`` is an exclamation); ``->``/``=>`` arrows and ``<=``/``>=`` are told apart
# by what precedes them.
_WORD_MARK_RE = re.compile(
    r"(?:(?<![!<>≠¬])(!=|<>|≠|¬|<=|≤|≥|≮|≯|<)|(?<![!<>=≠¬\-])(>=|>))\s*(?=[^\W_])"
    r"|(?<![\w!<>=])(!)(?=[^\W_])")
_ANY_MARK_RE = re.compile("[!<>≠¬≤≥≮≯]")
# The marks that deny the word after them (the others compare it with a value).
NEGATION_MARKS: frozenset[str] = frozenset(["!=", "<>", "≠", "¬", "!"])
# Spellings of one mark: ``>=`` is ``≥``, ``<>`` and ``≠`` are ``!=``, ``¬`` is ``!``.
_SAME_MARK = {"≥": ">=", "≤": "<=", "≠": "!=", "<>": "!=", "¬": "!", "≮": ">=", "≯": "<="}
_WORD_RE = re.compile(r"[^\W_][\w\-./:]*")


def word_marks(text: str) -> list[tuple[int, str, str]]:
    """``(position, mark, word)`` for each negation or comparison mark right before a word of
    ``text`` (in the quote normal form: ``≠`` stays, full-width ``！`` is ``!``)."""
    found: list[tuple[int, str, str]] = []
    if not _ANY_MARK_RE.search(text):
        return found
    for match in _WORD_MARK_RE.finditer(text):
        word = _WORD_RE.match(text, match.end())
        mark = match.group(1) or match.group(2) or match.group(3)
        found.append((match.start(), mark, word.group().rstrip(".:-/") if word else ""))
    return found


def canonical_mark(mark: str) -> str:
    """One spelling per mark (``≠`` and ``<>`` are ``!=``)."""
    return _SAME_MARK.get(mark, mark)


def negation_marks(text: str) -> list[str]:
    """The negation marks before words of ``text`` (``!firing``, ``¬firing``, ``x≠y``)."""
    return [mark for _, mark, _ in word_marks(text) if mark in NEGATION_MARKS]


def _mark_clusters(text: str) -> set[str]:
    """Each base character with the combining marks NFC leaves on it (``f̶``), once each."""
    composed = unicodedata.normalize("NFC", text)
    clusters: set[str] = set()
    start = -1
    for index, char in enumerate(composed):
        if _is_mark(char):
            if start < 0:
                start = max(0, index - 1)
            continue
        if start >= 0:
            clusters.add(composed[start:index])
            start = -1
    if start >= 0:
        clusters.add(composed[start:])
    return clusters


def _is_mark(char: str) -> bool:
    return unicodedata.category(char) in ("Mn", "Mc", "Me")


def has_combining_marks(text: str) -> bool:
    """Whether ``text`` keeps a combining mark once composed (NFC)."""
    if text.isascii() or not any(_is_mark(char) for char in set(text)):
        return False  # distinct characters first: most non-ASCII text (Chinese) holds no mark
    return any(_is_mark(char) for char in unicodedata.normalize("NFC", text))


def foreign_marks(text: str, sources: list[str] | tuple[str, ...]) -> list[str]:
    """Letters with combining marks in ``text`` that none of ``sources`` holds, described
    (``'f̶' (U+0336 COMBINING LONG STROKE OVERLAY)``); empty when there are none."""
    if not has_combining_marks(text):
        return []
    held = [unicodedata.normalize("NFC", source) for source in sources]
    foreign = sorted(cluster for cluster in _mark_clusters(text)
                     if not any(cluster in source for source in held))
    described: list[str] = []
    for cluster in foreign:
        names = ", ".join(f"U+{ord(char):04X} {unicodedata.name(char, '?')}"
                          for char in dict.fromkeys(cluster) if _is_mark(char))
        described.append(f"'{cluster}' ({names})")
    return described


def hidden_characters(text: str) -> list[str]:
    """Hidden characters of ``text`` (tags, bidi controls, private use, controls ...), described
    once each; the benign copy-paste invisibles (zero-width space ...) are not among them."""
    if text.isascii():
        found = {char for char in text if is_hidden(char)}
    else:
        found = {char for char in set(text) if is_hidden(char)}
    return [f"U+{ord(char):04X} {unicodedata.name(char, unicodedata.category(char))}"
            for char in sorted(found)]


def _latin_or_han(char: str) -> bool:
    return char.isascii() or "\u3400" <= char <= "\u9fff" or "\uf900" <= char <= "\ufaff"


# The composer passes every answer through it, character by character (4 ms an answer); an
# eval composes the same answers session after session. A pure function of the text.
@lru_cache(maxsize=512)
def visible(text: str) -> str:
    """``text`` as a reader may get it: no hidden or benign invisible characters (line breaks
    and tabs stay) and no combining mark left over an ASCII or Han character."""
    if text.isascii() and not any(is_hidden(char) for char in text if char not in "\n\t"):
        return text
    composed = unicodedata.normalize("NFC", text)
    kept: list[str] = []
    for char in composed:
        if char in "\n\t":
            kept.append(char)
        elif char in BENIGN_INVISIBLE or is_hidden(char) or (_is_mark(char) and kept and _latin_or_han(kept[-1])):
            continue
        else:
            kept.append(char)
    return "".join(kept)
