"""The keywords of a question: what is left after the names, subjects and levels (pass 8 of
``core.language.question``) -- English content words, stemmed, and the Chinese words of
``TRANSLATIONS``; a matching line must hold all of them.
"""

from __future__ import annotations

import re

from core.language.alternation import one_of
from core.language.chars import HAN_RUN
from core.language.concepts import TRANSLATIONS
from core.language.question_words import ASCII_WORD, STOPWORDS, QuestionText, han_dictionary, vocabulary
from core.language.segment import segment
from core.lazypattern import LazyPattern

# Asking for a duration, not words of a line: "how long did it take to spawn ...?".
_HOW_LONG_WORDS = vocabulary().how_long
_HOW_LONG = LazyPattern(rf"\bhow\s+long\b(?:\s+(?:{one_of(_HOW_LONG_WORDS.auxiliaries)})"
                        rf"(?:\s+(?:{one_of(_HOW_LONG_WORDS.pronouns)}))?"
                        rf"\s+(?:{one_of(_HOW_LONG_WORDS.verbs, longest_first=False)}))?",
                        re.IGNORECASE)


def search_prefix(word: str) -> str:
    """The prefix a line's word must begin with to be a form of ``word``, searched as a substring:
    "finished" -> "finish", "tasks" -> "task", "terminating" -> "terminat". Short words stay
    whole. Not ``wordforms.stem``, which gives all forms of a word one spelling to compare
    whole tokens: a prefix has no endings added back ("retri" would miss "retry")."""
    lowered = word.lower()
    for suffix in ("ing", "ed", "es", "s"):
        if lowered.endswith(suffix) and len(lowered) - len(suffix) >= 4:
            return lowered[: -len(suffix)]
    return lowered


def keywords(text: QuestionText) -> list[list[str]]:
    """The words left in ``text`` a matching line must hold, each as its alternative stems
    (a Chinese word as the English stems it translates to)."""
    for match in _HOW_LONG.finditer(text.current):
        text.take(match.start(), match.end())
    keywords: list[list[str]] = []
    for match in ASCII_WORD.finditer(text.current):
        word = match.group()
        lowered = word.lower()
        if lowered in STOPWORDS or (len(word) < 3 and not word.isupper()) or len(word) < 2:
            continue
        keywords.append([search_prefix(word)])
    dictionary = han_dictionary()
    for run in HAN_RUN.findall(text.current):
        for start, end in segment(run, dictionary.words, dictionary.longest):
            stems = TRANSLATIONS.get(run[start:end])
            if stems:
                keywords.append(list(stems))
    unique: dict[tuple[str, ...], None] = {}
    for keyword in keywords:
        unique.setdefault(tuple(keyword), None)
    return [list(keyword) for keyword in unique]
