"""Character classes the matchers share: one definition each, and why each is what it is.

Each constant is the body of a regex character class (use it inside ``[...]``). Text is
usually NFKC-normalised before it is matched, but not always (a claim is spaced before it is
normalised), so the classes hold the forms a character can take either way.
"""

from __future__ import annotations

from core.lazypattern import LazyPattern

# Han ideographs, the characters Chinese words are written in: CJK Unified Ideographs
# (U+4E00-9FFF), Extension A (U+3400-4DBF) and the Compatibility Ideographs block (U+F900-FAFF;
# NFKC folds most of it into the unified block, but twelve of its characters are unified
# ideographs in their own right and stay). This is "Chinese text" for language detection, for
# the boundary between a Chinese and an ASCII run ("CPU使用率" reads as "CPU 使用率"), and for
# the query tokens of the log search.
HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
# Every pattern holding HAN costs ~2 ms to compile (``re`` fills a 65,536-entry table in Python,
# one code point at a time), so where Han runs meet other text is found from this one pattern.
HAN_RUN = LazyPattern(f"[{HAN}]+")

# ASCII letters and digits after normalisation (lower case): the characters of an ASCII word.
# A word synonym, identifier or phrase edge made of them matches only where no such character
# is next to it ("gc" not inside "gcloud"); a Chinese edge is a plain substring.
ASCII_WORD = "a-z0-9"
ASCII_WORD_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")  # the same, for ``in`` tests

# Japanese kana: Hiragana (U+3040-309F) and Katakana (U+30A0-30FF).
KANA = "\u3040-\u30ff"

# Hangul syllables (U+AC00-D7AF), each a whole syllable block.
HANGUL = "\uac00-\ud7af"

# Scripts where one character is a syllable or a morpheme, not a letter: a run of them says as
# much as an English word per character or two. The gatekeeper's "too short to check" length
# counts these characters twice, so a four-character Chinese excerpt weighs like an
# eight-letter English one. Wider than HAN on purpose: a Japanese or Korean excerpt is no less
# informative than a Chinese one, but it is not Chinese (language detection uses HAN alone).
DENSE_SCRIPT = KANA + HAN + HANGUL


def mark_han_edges(text: str, mark: str, before: frozenset[str], after: frozenset[str]) -> str:
    """``text`` with ``mark`` where a character of ``before`` is followed by a Han one, and where a
    Han character is followed by one of ``after``: the substitution of
    ``(?<=[before])(?=[HAN])|(?<=[HAN])(?=[after])``, without another pattern holding HAN."""
    if text.isascii():
        return text
    pieces: list[str] = []
    done = 0
    for run in HAN_RUN.finditer(text):
        start, end = run.span()
        if start and text[start - 1] in before:
            pieces += [text[done:start], mark]
            done = start
        if end < len(text) and text[end] in after:
            pieces += [text[done:end], mark]
            done = end
    pieces.append(text[done:])
    return "".join(pieces)
