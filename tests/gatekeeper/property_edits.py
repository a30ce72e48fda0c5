"""Edits of a real quote for the gatekeeper's property tests: formatting-only ones and forgeries.

Each edit takes the quote and a ``Draw`` (hypothesis's ``data.draw`` behind a small interface),
so the test decides what is random and shrinks it. Formatting-only edits never touch a
character that carries meaning; forgeries change exactly one fact or word (a digit, a mark in
front of a number, a unit, an identifier's letter, a negation, a word, a hidden character).
Positions are found on the quote's tokens: ASCII runs of word characters and the separators
inside names (``order-service``, ``3.8GB/4GB``), or CJK runs.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Protocol, TypeVar

from core.language.chars import HAN
from tests.gatekeeper.redteam_gk3 import inside_number

T = TypeVar("T")


class Choose(Protocol):
    """Picks one of the options (hypothesis draws it, so failures shrink)."""

    def __call__(self, options: Sequence[T], /) -> T: ...


TOKEN_RE = re.compile(rf"[A-Za-z0-9_/#@][A-Za-z0-9_\-./:%@#+]*|[{HAN}]+")
_HAN_RE = re.compile(f"[{HAN}]")
_TRAILING = ".:-/+"
NEGATIONS = frozenset({"not", "no", "never", "without", "none", "cannot", "unable"})
STOP_WORDS = ("a", "an", "the", "of", "is", "are", "was", "were", "be", "been", "it", "this", "that")

WHITESPACE = (" ", "  ", "\t", "\n", "\u00a0", "\u3000", " \n ")
BENIGN_INVISIBLE = ("\u200b", "\u200c", "\u200d", "\u2060", "\u00ad", "\ufeff")
FULL_WIDTH_PUNCT = {",": "，", ":": "：", ";": "；", "(": "（", ")": "）", "[": "【", "]": "】",
                    "=": "＝", "%": "％", "/": "／", "!": "！", "?": "？"}
FORGED_INVISIBLE = ("\U000e0049", "\U000e0041", "\ue000", "\U000f0001", "\u202e", "\u202d",
                    "\u2066", "\u2067", "\u200e", "\u200f", "\u061c", "\ufe0f", "\U000e0100",
                    "\u2062", "\u206a", "\b", "\x1b", "\u115f")
MARKS = ("<", ">", "≤", "≥", "≠", "≈", "~", "±", "-", "+", "＜", "＞", "<=", ">=", "!=", "≦", "∼", "−")
UNIT_SWAPS = {"%": "ms", "ms": "s", "s": "ms", "gb": "mb", "mb": "gb", "m": "h", "h": "m", "kb": "mb"}
CJK_SWAPS = "高低正常异已未多少大小快慢满空增减"


def tokens(text: str) -> list[tuple[int, int, str]]:
    """``(start, end, token)`` of every token, trailing separators stripped."""
    found = []
    for match in TOKEN_RE.finditer(text):
        token = match.group().rstrip(_TRAILING)
        if token:
            found.append((match.start(), match.start() + len(token), token))
    return found


def is_number(token: str) -> bool:
    return token[:1].isdigit()


def is_cjk(token: str) -> bool:
    return _HAN_RE.match(token) is not None


# ---------------------------------------------------------------- formatting only


def respace(quote: str, choose: Choose) -> str:
    """Every whitespace run becomes another run of whitespace (kinds and lengths)."""
    return re.sub(r"\s+", lambda _: choose(WHITESPACE), quote)


def space_punctuation(quote: str, choose: Choose) -> str:
    """A space added after some ``,`` ``;`` and around some ``=`` (never inside a token)."""
    out = []
    for index, char in enumerate(quote):
        out.append(char)
        if char in ",;" and choose((False, True)):
            out.append(" ")
        if char == "=" and index + 1 < len(quote) and quote[index + 1] not in "-+" and choose((False, True)):
            out[-1] = " = "
    return "".join(out)


def full_width(quote: str, choose: Choose) -> str:
    """Some ASCII punctuation, letters and digits in their full-width (or CJK) forms."""
    out = []
    for char in quote:
        if char in FULL_WIDTH_PUNCT and choose((False, True)):
            out.append(FULL_WIDTH_PUNCT[char])
        elif char.isascii() and char.isalnum() and choose((False, False, True)):
            out.append(chr(ord(char) + 0xFEE0))
        else:
            out.append(char)
    return "".join(out)


def recase(quote: str, choose: Choose) -> str:
    return choose((str.upper, str.lower, str.swapcase, str.title))(quote)


def invisibles(quote: str, choose: Choose) -> str:
    """Copy-paste invisibles (zero-width space, joiners, word joiner, soft hyphen, BOM) anywhere."""
    out = []
    for index, char in enumerate(quote):
        out.append(char)
        # never inside a number: there a hidden character is a forgery (``9\u200d1%``)
        if choose((False, False, False, True)) and not inside_number(char, quote[index + 1:index + 2]):
            out.append(choose(BENIGN_INVISIBLE))
    return "".join(out)


def truncate(quote: str, choose: Choose) -> str | None:
    """One stretch of whole tokens replaced by ``...`` or ``…``: the kept text after it starts
    with a word (not a number, so no number loses its label) that does not follow a negation,
    and every kept fragment is long enough to place. None when the quote offers no such cut."""
    found = tokens(quote)
    cuts = []
    for first in range(0, len(found)):
        for last in range(first, len(found) - 1):
            start = found[first][0]
            keep = found[last + 1]
            if is_number(keep[2]) or found[last][2].lower() in NEGATIONS or keep[2][:1] in "未没不无非":
                continue
            if len(quote[keep[0]:]) < 10 or (0 < start < 10):
                continue
            cuts.append((start, keep[0]))
    if not cuts:
        return None
    start, end = choose(cuts)
    mark = choose(("...", "…", " … ", "……"))
    return quote[:start] + mark + quote[end:]


FORMATTING: dict[str, Callable[[str, Choose], str | None]] = {
    "respace": respace, "space_punctuation": space_punctuation, "full_width": full_width,
    "recase": recase, "invisibles": invisibles, "truncate": truncate,
}


# ---------------------------------------------------------------- forgeries (one fact or word)


def change_digit(quote: str, choose: Choose) -> str | None:
    digits = [i for i, char in enumerate(quote) if char.isdigit()]
    if not digits:
        return None
    index = choose(digits)
    other = choose([d for d in "0123456789" if d != quote[index]])
    return quote[:index] + other + quote[index + 1:]


def add_mark(quote: str, choose: Choose) -> str | None:
    """A comparison, sign or approximation mark in front of a number token."""
    starts = [start for start, _, token in tokens(quote) if is_number(token)]
    if not starts:
        return None
    start = choose(starts)
    return quote[:start] + choose(MARKS) + quote[start:]


def change_unit(quote: str, choose: Choose) -> str | None:
    found = [(m.start(2), m.end(2), m.group(2)) for m in re.finditer(r"(\d)(%|ms|s|GB|MB|KB|m|h)(?![A-Za-z])", quote)]
    if not found:
        return None
    start, end, unit = choose(found)
    new = UNIT_SWAPS[unit.lower()]
    return quote[:start] + (new.upper() if unit.isupper() and unit != "%" else new) + quote[end:]


def change_identifier(quote: str, choose: Choose) -> str | None:
    """One letter of a name (``order-service``, ``HikariPool-1``, ``HighMemoryUsage``) changed."""
    names = [(start, end) for start, end, token in tokens(quote)
             if not is_cjk(token) and any(c.isalpha() for c in token)
             and (any(c.isdigit() or c in "-_/:." for c in token) or sum(c.isupper() for c in token) >= 2)]
    if not names:
        return None
    start, end = choose(names)
    letters = [i for i in range(start, end) if quote[i].isascii() and quote[i].isalpha()]
    index = choose(letters)
    other = choose([c for c in "xqzjkv" if c != quote[index].lower()])
    return quote[:index] + (other.upper() if quote[index].isupper() else other) + quote[index + 1:]


def change_negation(quote: str, choose: Choose) -> str | None:
    """A negation added (``not``, ``no``, ``未``, ``不``) or one of the quote's dropped."""
    options: list[str] = []
    for match in re.finditer(r"\b(not|no|never|without|cannot) ", quote):
        options.append(quote[:match.start()] + quote[match.end():])
    for match in re.finditer(r"没有|未|没|不|无|非", quote):
        options.append(quote[:match.start()] + quote[match.end():])
    for start, _, token in tokens(quote):
        if is_cjk(token):
            options.append(quote[:start] + choose(("未", "不", "没有", "无")) + quote[start:])
        elif token.isalpha() and token.lower() not in STOP_WORDS and start > 0:
            options.append(quote[:start] + choose(("not ", "no ", "never ")) + quote[start:])
    return choose(options) if options else None


def change_word(quote: str, choose: Choose) -> str | None:
    """A word's letter changed, a CJK character changed, or a stop-word put in another's place."""
    options: list[tuple[int, int, str]] = []
    for start, end, token in tokens(quote):
        if token.isascii() and token.isalpha() and len(token) >= 3:
            index = choose(range(start, end))
            other = choose([c for c in "xqzjkvw" if c != quote[index].lower()])
            options.append((index, index + 1, other.upper() if quote[index].isupper() else other))
        elif is_cjk(token):
            index = choose(range(start, end))
            options.append((index, index + 1, choose([c for c in CJK_SWAPS if c != quote[index]])))
        elif token.lower() in STOP_WORDS:
            options.append((start, end, choose([w for w in STOP_WORDS if w != token.lower()])))
    if not options:
        return None
    start, end, new = choose(options)
    return quote[:start] + new + quote[end:]


def add_hidden(quote: str, choose: Choose) -> str:
    """A forgery-vector hidden character (tag, private use, bidi control, control ...)."""
    index = choose(range(len(quote) + 1))
    return quote[:index] + choose(FORGED_INVISIBLE) + quote[index:]


FORGERIES: dict[str, Callable[[str, Choose], str | None]] = {
    "digit": change_digit, "mark": add_mark, "unit": change_unit, "identifier": change_identifier,
    "negation": change_negation, "word": change_word, "hidden": add_hidden,
}
