"""Word forms: whether a text holds a word as a whole token, in any of its forms.

A question says "retries", "forbid", "refuse" where a log line writes "retried", "forbidden",
"refused"; and "oom" must not be found inside "room". So a word is matched against a text's
*tokens* (runs of letters or digits, camelCase split: ``OOMKilled`` is ``oom`` and ``killed``),
both folded to one stem (``stem``: an ending taken off, irregular forms mapped, as
``vocab/word_forms.yaml`` lists them). Chinese has no word edges in text: a Chinese word is
matched as a substring. A phrase of several words holds when its tokens follow one another.

``synonyms(word)`` are the other words a log line may say it in (``refuse`` -> ``reject``,
``deny``), from the same file; the recall ladder of the rules executor and the verifier's
predicate check both read them.
"""

from __future__ import annotations

import unicodedata
from functools import cache, lru_cache

from core.language.text import normalize
from core.language.vocabulary import VocabularyFile, load, read_later
from core.lazypattern import LazyPattern

# Letters and digits; a camelCase boundary (a lower letter before an upper one, or an upper
# letter before an upper+lower pair: "OOMKilled") splits a run.
_RUN = LazyPattern(r"[^\W_]+")
_CAMEL = LazyPattern(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_HAN = LazyPattern(r"[\u3400-\u9fff]")
_VOWELS = frozenset("aeiou")


class WordForms(VocabularyFile):
    """``vocab/word_forms.yaml``."""

    min_stem: int
    endings: tuple[str, ...]
    i_endings: tuple[str, ...]
    irregular: dict[str, str]
    synonyms: tuple[tuple[str, ...], ...]


read_later("word_forms", WordForms)


@cache
def _forms() -> WordForms:
    return load("word_forms", WordForms)


@cache
def stem(word: str) -> str:
    """One form of a word for all its forms: ``retries``/``retried``/``retry`` -> ``retri``,
    ``forbidden`` -> ``forbid``, ``stopped`` -> ``stop``. Lower case; Chinese as it is."""
    word = word.casefold()
    forms = _forms()
    word = forms.irregular.get(word, word)
    if not word.isascii() or not word.isalpha():
        return word
    for ending in sorted(forms.endings, key=len, reverse=True):
        if word.endswith(ending) and len(word) - len(ending) >= forms.min_stem:
            if ending == "s" and word.endswith("ss"):
                break  # "process", "class": the "s" is the word's own
            word = word[:-len(ending)] + ("i" if ending in forms.i_endings else "")
            break
    if len(word) > forms.min_stem and word[-1] == word[-2] and word[-1] not in _VOWELS | {"l", "s"}:
        word = word[:-1]  # stopp -> stop, forbidd -> forbid (but "fall", "pass" stay)
    if len(word) > forms.min_stem and word.endswith("e"):
        word = word[:-1]
    if len(word) > forms.min_stem and word.endswith("y"):
        word = word[:-1] + "i"
    return word


def tokens(text: str) -> list[str]:
    """The tokens of a text: runs of letters or digits, camelCase split, lower case."""
    found: list[str] = []
    for run in _RUN.finditer(text if text.isascii() else unicodedata.normalize("NFKC", text)):
        found += [part.casefold() for part in _CAMEL.split(run.group()) if part]
    return found


def token_stems(text: str) -> list[str]:
    """The stems of a text's tokens, in order."""
    return list(_token_stems(text))


# The verifier stems the same claim, cited texts and vocabulary words for every word it looks
# for (60k calls per 200 eval cases): a pure function of the text.
@lru_cache(maxsize=8192)
def _token_stems(text: str) -> tuple[str, ...]:
    return tuple(stem(token) for token in tokens(text))


def holds_word(text: str, word: str, stems: list[str] | None = None) -> bool:
    """Whether ``text`` holds ``word`` (one word or a phrase) as whole tokens, in any form.
    ``stems``: the text's ``token_stems``, when already computed."""
    if _HAN.search(word):
        return normalize(word) in normalize(text)
    wanted = token_stems(word)
    if not wanted:
        return False
    have = stems if stems is not None else token_stems(text)
    width = len(wanted)
    return any(have[i:i + width] == wanted for i in range(len(have) - width + 1))


def synonyms(word: str) -> list[str]:
    """The other words a log line may say ``word`` in (its synonym groups' other members)."""
    key = " ".join(token_stems(word))
    found: list[str] = []
    for group in _forms().synonyms:
        if any(" ".join(token_stems(member)) == key for member in group):
            found += [member for member in group if " ".join(token_stems(member)) != key]
    return list(dict.fromkeys(found))


def holds_any_form(text: str, word: str) -> bool:
    """Whether ``text`` holds ``word`` or one of its synonyms, whole tokens, any form."""
    have = token_stems(text)
    return any(holds_word(text, candidate, have) for candidate in [word, *synonyms(word)])


def holds_stem(text: str, word_stem: str) -> bool:
    """Whether a token of ``text`` starts with ``word_stem`` (a question's keyword stem, as the
    log search matches it, but at a token's start: ``proces`` is in "process", ``oom`` is not
    in "room"), or has the same stem. Chinese: a substring."""
    if _HAN.search(word_stem):
        return normalize(word_stem) in normalize(text)
    wanted = word_stem.casefold()
    return any(token.startswith(wanted) or stem(token) == stem(wanted) for token in tokens(text))
