"""The words a question is read by (``vocab/question.yaml``) and what the passes of
``core.language.question`` share: the question text they blank as they read, the Chinese
dictionary its runs are segmented with.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from functools import cache, lru_cache
from typing import NamedTuple

from core.language.alternation import one_of
from core.language.chars import HAN_RUN
from core.language.concepts import CONCEPTS, TRANSLATIONS
from core.language.lexicon import TOPICS
from core.language.vocabulary import VocabularyFile, load
from core.lazypattern import LazyPattern


class HealthWords(VocabularyFile):
    """Words that ask whether something is well; ``after_no_negation`` only without 不/非 before."""

    words: tuple[str, ...]
    after_no_negation: tuple[str, ...] = ()


class LevelSuffixes(VocabularyFile):
    """Words after a level word: ``words`` whole, ``starts`` starting a word (English ones)."""

    words: tuple[str, ...]
    starts: tuple[str, ...]


class HowLongWords(VocabularyFile):
    """The words of "how long does it take" after "how long"."""

    auxiliaries: tuple[str, ...]
    pronouns: tuple[str, ...]
    verbs: tuple[str, ...]


class SubjectWordCues(VocabularyFile):
    """The words around an unknown word asked about as the subject."""

    auxiliaries: tuple[str, ...]
    verbs: tuple[str, ...]
    after: tuple[str, ...]


class HttpStatusCues(VocabularyFile):
    """The words that make a 5xx code an HTTP status: after it, before it."""

    after_en: tuple[str, ...]
    after_zh: tuple[str, ...]
    before_en: tuple[str, ...]
    before_zh: tuple[str, ...]


class AlertWords(VocabularyFile):
    """Words that make a question one about alerts: ``words`` English ones ending a word."""

    words: tuple[str, ...]
    anywhere: tuple[str, ...]


class QuestionWords(VocabularyFile):
    """The shape of ``vocab/question.yaml`` (its comments say what each list is)."""

    stopwords: frozenset[str]
    chinese_filler: frozenset[str]
    not_service_words: frozenset[str]
    hyphenated_words: frozenset[str]
    levels_upper: dict[str, str]
    level_words_any_case: dict[str, str]
    alert_states: dict[str, tuple[str, ...]]
    health: HealthWords
    level_suffixes: LevelSuffixes
    subject_after: tuple[str, ...]
    subject_before: tuple[str, ...]
    how_long: HowLongWords
    conjunctions: tuple[str, ...]
    subject_word: SubjectWordCues
    http_status: HttpStatusCues
    alert_words: AlertWords


@cache
def vocabulary() -> QuestionWords:
    """``vocab/question.yaml``, read once."""
    return load("question", QuestionWords)


# Question words that are not what a log line says: grammar, asking, time, the words for logs.
STOPWORDS = vocabulary().stopwords
# Chinese question words that are no search term: asking, grammar, the words for logs.
CHINESE_FILLER = vocabulary().chinese_filler
NOT_SERVICE_WORDS = vocabulary().not_service_words
HYPHENATED_WORDS = vocabulary().hyphenated_words
LEVELS_UPPER = vocabulary().levels_upper
LEVEL_WORDS_ANY_CASE = vocabulary().level_words_any_case
_CONJUNCTIONS = vocabulary().conjunctions
CONJUNCTION = LazyPattern(rf"(?:[、,，/]|{one_of(w for w in _CONJUNCTIONS if not w.isascii())}"
                          rf"|\b(?:{one_of(w for w in _CONJUNCTIONS if w.isascii())})\b)", re.IGNORECASE)
ASCII_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*")


def words_pattern(words: Sequence[str], after_no_negation: Sequence[str] = ()) -> LazyPattern:
    """A pattern of ``words`` in any case: English ones whole, Chinese ones as written (those of
    ``after_no_negation`` not after 不/非); longer words first, so one is read whole."""
    english = sorted((w for w in words if w.isascii()), key=len, reverse=True)
    chinese = sorted((w for w in words if not w.isascii()), key=len, reverse=True)
    parts = [rf"\b(?:{'|'.join(map(re.escape, english))})\b"] if english else []
    parts += [rf"(?<![不非]){re.escape(word)}" for word in after_no_negation]
    parts += [re.escape(word) for word in chinese]
    return LazyPattern("|".join(parts), re.IGNORECASE)


class QuestionText:
    """The question in NFKC form, with what earlier passes took blanked out."""

    def __init__(self, question: str) -> None:
        self.original = unicodedata.normalize("NFKC", question)
        self.chars = list(self.original)

    @property
    def current(self) -> str:
        return "".join(self.chars)

    @property
    def lowered(self) -> str:
        """Lower case where a character lowers to one character (positions stay put)."""
        text = "".join(self.chars)
        lowered = text.lower()
        # No character lowers to nothing, so the same length means each lowered to one: the
        # per-character pass (a third of the planner's time) is needed only otherwise ("İ"), or
        # where str.lower reads context (a final capital sigma, the one rule CPython applies).
        if len(lowered) == len(text) and "Σ" not in text:
            return lowered
        return "".join(ch.lower() if len(ch.lower()) == 1 else ch for ch in self.chars)

    def take(self, start: int, end: int) -> None:
        self.chars[start:end] = " " * (end - start)


def unique(values: Iterable[str]) -> list[str]:
    """The non-empty values without repeats, first occurrence kept."""
    return list(dict.fromkeys(value for value in values if value))


class HanDictionary(NamedTuple):
    """The Chinese words a question is read by (``han_dictionary``)."""

    words: frozenset[str]   # every one: the names and the filler
    names: frozenset[str]   # topic and concept names, translated words (a name that is also filler)
    filler: frozenset[str]  # asking and grammar, not a conjunction (it tells two subjects apart)
    longest: int


@lru_cache(maxsize=1)
def han_dictionary() -> HanDictionary:
    """The names (topics', concepts', translated words) and the filler, for ``segment``."""
    names = {word for topic in TOPICS.values() for word in (*topic.synonyms, *topic.asks)}
    names |= {word for concept in CONCEPTS.values() for word in concept.asks}
    names = {word for word in names if HAN_RUN.fullmatch(word)} | set(TRANSLATIONS)
    words = frozenset(names | CHINESE_FILLER)
    filler = frozenset(word for word in CHINESE_FILLER - names if not CONJUNCTION.fullmatch(word))
    return HanDictionary(words, frozenset(words - filler), filler, max(map(len, words)))
