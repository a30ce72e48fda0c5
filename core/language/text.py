"""The normalisers: every stage puts text in one of these forms, and only these.

* ``normalize`` -- NFKC + lower case: the form the lexicon, the concepts, the question reader
  and the tools' search match on (ASCII takes a fast path).
* ``casefold`` -- NFKC + case-fold: how user-typed needles are compared (eval expectations).
* ``fold`` -- NFKC + lower case *character by character*, so the folded text keeps the
  original's length and offsets: the verifier records spans into what the executor wrote.
* ``normalize_text`` / ``normalize_with_offsets`` -- the quote form the gatekeeper compares
  excerpts and ref texts in (below), the second with a map back to the original offsets.

The quote form, applied to both the executor's excerpt and the ref text:

1. NFKC (full-width letters, digits and ASCII punctuation become half-width, ``…`` -> ``...``);
2. case-fold;
3. CJK and typographic punctuation mapped to ASCII (``、`` -> ``,``, ``。`` -> ``.``,
   ``【】`` -> ``[]``, curly quotes -> straight, dash and minus variants -> ``-``) and the
   benign invisible characters (zero-width space and joiners, word joiner, soft hyphen, BOM)
   removed -- the other invisible characters (bidi controls, tags, private use ...) are kept:
   an excerpt that holds one the ref lacks is a forgery (``invisible``), not noise;
4. every whitespace run collapsed to one space, ends stripped.

``normalize_text`` is the fast path (C-level string operations, used for excerpts);
``normalize_with_offsets`` yields the same text plus a map from each normalised character to the
original characters it came from (used for ref texts, cached, so highlights land in the
original). Bump ``NORMALIZER_VERSION`` whenever the normal form changes: stored results name it.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
from dataclasses import dataclass
from functools import lru_cache

from core.language.invisible import BENIGN_INVISIBLE
from core.language.nfkc import nfkc


def normalize(text: str) -> str:
    """NFKC + lower case: the form every vocabulary matcher works on."""
    if text.isascii():  # ASCII is already NFKC; skipping the call counts on a million log lines
        return text.lower()
    return unicodedata.normalize("NFKC", text).lower()


def casefold(text: str) -> str:
    """NFKC + case-fold: how user-typed needles (eval expectations, log search) are compared."""
    return unicodedata.normalize("NFKC", text).casefold()


def _fold_char(char: str) -> str:
    folded = unicodedata.normalize("NFKC", char).lower()
    return folded if len(folded) == 1 else char


@lru_cache(maxsize=8192)
def fold(text: str) -> str:
    """NFKC + lower case, character by character: same length, same offsets as ``text``
    (full-width ``９１％`` reads as ``91%``; a ligature, which would grow, stays as it is)."""
    if text.isascii():
        return text.lower()
    return "".join(_fold_char(char) for char in text)

# norm-2: only the benign invisible characters are stripped (bidi controls, tags and the
# other hidden characters stay, for ``invisible`` to judge).
NORMALIZER_VERSION = "norm-2"

# Invisible characters an excerpt may carry: it is the same text once they are stripped.
INVISIBLE_CHARS: frozenset[str] = BENIGN_INVISIBLE

# Punctuation NFKC leaves alone but that is the same mark as an ASCII one for quoting purposes.
PUNCTUATION_TO_ASCII: dict[str, str] = {
    "、": ",", "，": ",", "。": ".", "．": ".", "｡": ".", "：": ":", "；": ";",
    "！": "!", "？": "?", "（": "(", "）": ")",
    "【": "[", "】": "]", "〔": "(", "〕": ")", "〖": "[", "〗": "]", "［": "[", "］": "]",
    "「": '"', "」": '"', "『": '"', "』": '"', "《": "<", "》": ">", "〈": "<", "〉": ">",
    "“": '"', "”": '"', "„": '"', "‟": '"', "″": '"', "〝": '"', "〞": '"',
    "‘": "'", "’": "'", "‚": "'", "‛": "'", "′": "'",
    "‐": "-", "‑": "-", "‒": "-", "–": "-", "—": "-", "―": "-", "−": "-", "﹣": "-",
    "〜": "~", "～": "~",
}

_TRANSLATION: dict[int, str | None] = {ord(c): None for c in sorted(INVISIBLE_CHARS)}  # fixed order: see one_of
_TRANSLATION.update({ord(k): v for k, v in PUNCTUATION_TO_ASCII.items()})
# str.translate with a dict is slow on CJK text (a failed lookup per character); a regex
# substitution only calls back for the few characters that do map.
_NEEDS_TRANSLATION = re.compile("[" + re.escape("".join(map(chr, _TRANSLATION))) + "]")
_INVISIBLE_RE = re.compile("[" + re.escape("".join(sorted(INVISIBLE_CHARS))) + "]")


def _fold(text: str) -> str:
    """NFKC, case-fold, punctuation to ASCII, invisible characters removed (no spacing)."""
    folded = nfkc(text).casefold()
    if not folded.isascii():
        folded = _NEEDS_TRANSLATION.sub(_translate_match, folded)
    return folded


def _translate_match(match: re.Match[str]) -> str:
    return _TRANSLATION[ord(match.group())] or ""


_FULL_WIDTH_RE = re.compile("[\uff01-\uff5e\u3000]")


def _half_width(match: re.Match[str]) -> str:
    """NFKC of a full-width form (U+FF01..U+FF5E) or the ideographic space: one character."""
    char = match.group()
    return " " if char == "\u3000" else chr(ord(char) - 0xFEE0)


def normalize_text(text: str) -> str:
    """The canonical normal form of ``text`` (fast path, no offsets)."""
    if text.isascii():  # already NFKC, nothing to map or strip; case-fold is lower case
        return " ".join(text.lower().split())
    return " ".join(_fold(text).split())


@dataclass(frozen=True, slots=True)
class NormalizedText:
    """A normalised text and the map from each normalised character back to the original.

    The map is stored as runs (for the common case where every character maps to one
    character: ``run_starts[k]`` in the normalised text is ``run_origins[k]`` in the original,
    and the run continues one to one) or, when characters expand or vanish (``…`` -> ``...``,
    zero-width characters), as one ``[start, end)`` per normalised character.
    """

    original: str
    text: str
    run_starts: tuple[int, ...] = ()
    run_origins: tuple[int, ...] = ()
    char_starts: tuple[int, ...] | None = None
    char_ends: tuple[int, ...] | None = None

    def char_span(self, index: int) -> tuple[int, int]:
        """``[start, end)`` in the original of normalised character ``index``."""
        if self.char_starts is not None and self.char_ends is not None:
            return (self.char_starts[index], self.char_ends[index])
        run = bisect_right(self.run_starts, index) - 1
        position = self.run_origins[run] + index - self.run_starts[run]
        return (position, position + 1)

    def original_span(self, start: int, end: int) -> tuple[int, int]:
        """Map a normalised span ``[start, end)`` (non-empty) to original offsets."""
        if not 0 <= start < end <= len(self.text):  # a span outside the text: clamp it
            if not self.text or end <= start:
                return (0, 0)
            start = max(0, min(start, len(self.text) - 1))
            end = max(start + 1, min(end, len(self.text)))
        if self.char_starts is None:  # one run per word (``char_span``, inlined: once per quote)
            first = bisect_right(self.run_starts, start) - 1
            last = bisect_right(self.run_starts, end - 1) - 1
            return (self.run_origins[first] + start - self.run_starts[first],
                    self.run_origins[last] + end - self.run_starts[last])
        return (self.char_span(start)[0], self.char_span(end - 1)[1])


def _clusters(text: str) -> list[tuple[int, int]]:
    """Split ``text`` into [start, end) runs of one base character and its combining marks."""
    bounds: list[tuple[int, int]] = []
    start = 0
    for index in range(1, len(text) + 1):
        if index == len(text) or unicodedata.combining(text[index]) == 0:
            bounds.append((start, index))
            start = index
    return bounds


@lru_cache(maxsize=8192)
def _fold_piece(piece: str) -> str:
    return _fold(piece)


def _offsets_by_cluster(text: str) -> tuple[str, list[int], list[int]]:
    """Normalise cluster by cluster, remembering where each output character came from."""
    chars: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    pending_space = False
    for start, end in _clusters(text):
        for char in _fold_piece(text[start:end]):
            if char.isspace():
                pending_space = bool(chars)  # leading whitespace is dropped
                continue
            if pending_space:
                # The collapsed space maps to the character it precedes: spans stay non-empty.
                chars.append(" ")
                starts.append(start)
                ends.append(start)
                pending_space = False
            chars.append(char)
            starts.append(start)
            ends.append(end)
    return "".join(chars), starts, ends


@lru_cache(maxsize=4096)
def normalize_with_offsets(text: str) -> NormalizedText:
    """Normalise ``text`` keeping an offset map to the original (cached: refs repeat)."""
    if text.isascii():
        return _runs(text, text.lower())
    # Full-width forms fold one to one (``，`` -> ``,``); if the rest is already NFKC, every
    # step maps one character to one character and the map is the identity.
    half_width = _FULL_WIDTH_RE.sub(_half_width, text)
    if unicodedata.is_normalized("NFKC", half_width) and not _INVISIBLE_RE.search(text):
        folded = half_width.casefold()
        if len(folded) == len(text):
            return _runs(text, _NEEDS_TRANSLATION.sub(_translate_match, folded))
    by_char = _offsets_by_char(text)
    if by_char is not None:
        return by_char
    canonical = normalize_text(text)
    normalized, starts, ends = _offsets_by_cluster(text)
    if normalized != canonical:
        # Composition across clusters (rare scripts): keep the canonical text, map coarsely.
        return NormalizedText(text, canonical, char_starts=(0,) * len(canonical),
                              char_ends=(len(text),) * len(canonical))
    return NormalizedText(text, normalized, char_starts=tuple(starts), char_ends=tuple(ends))


def _offsets_by_char(text: str) -> NormalizedText | None:
    """Fold character by character (``…`` -> ``...``, zero-width -> nothing); None when that
    differs from folding the whole text (combining sequences that compose)."""
    pieces = [_fold_piece(char) for char in text]
    folded = "".join(pieces)
    if folded != _fold(text):
        return None
    if all(len(piece) == 1 for piece in pieces):
        return _runs(text, folded)
    origin = [index for index, piece in enumerate(pieces) for _ in piece]
    words = folded.split()
    starts: list[int] = []
    ends: list[int] = []
    position = 0
    for word in words:
        start = folded.find(word, position)
        position = start + len(word)
        if starts:
            starts.append(origin[start])  # the collapsed space maps to the word it precedes
            ends.append(origin[start])
        starts.extend(origin[start:position])
        ends.extend([index + 1 for index in origin[start:position]])
    return NormalizedText(text, " ".join(words), char_starts=tuple(starts), char_ends=tuple(ends))


def _runs(original: str, folded: str) -> NormalizedText:
    """Collapse whitespace of ``folded``, whose i-th character came from ``original[i]``: one
    run per word (a collapsed space maps to the first whitespace character it replaced)."""
    words = folded.split()
    run_starts: list[int] = []
    run_origins: list[int] = []
    position = normalized_position = 0
    for word in words:
        # str.find is C-speed; the next occurrence after the previous word is this word.
        start = folded.find(word, position)
        position = start + len(word)
        run_starts.append(normalized_position)
        run_origins.append(start)
        normalized_position += len(word) + 1
    return NormalizedText(original, " ".join(words), tuple(run_starts), tuple(run_origins))
