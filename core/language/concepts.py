"""Diagnosis concepts beyond the lexicon's topics, and the Chinese words real logs say in English.

The lexicon (``core.language.lexicon``) names the demo world's topics (CPU, HikariCP, Redis ...). Logs
nobody here wrote talk about connections, timeouts, sessions, crashes, permissions ... in their
own (mostly English) words. Each ``Concept`` (``vocab/concepts.yaml``) is one small bilingual
synonym set:

- ``asks``: how a question names it, in Chinese and English (an English word also matches its
  inflections: ``connect`` matches "connections", "connecting");
- ``terms``: phrases log lines use for it, searched as whole words (``query_logs`` ``terms``,
  ``match="any"``) -- the words of trouble, not every mention ("connection refused", not
  "connection");
- ``stems``: word parts searched as substrings (``exception`` is in ``java.io.IOException``);
- ``qualifier``: the concept says *that* something is wrong, not *what* (error, exception,
  failure, problem). Asked with another subject it only qualifies it ("连接异常" is the
  connection concept); asked on its own it is searched by ``level`` (a minimum) and its terms;
  a ``broad`` one ("what problems does X have?") asks about the service as a whole: its alerts
  and its lines at ``level`` or above;
- ``succeeded``: the concept a mention of this one names when its clause says it went right
  (``core.language.success``): "failed logins" are ``login``, "logged in successfully", "登录成功" and "who
  logged in?" are ``signin``. Such a concept has no question words of its own.

``TRANSLATIONS`` (``vocab/translations.yaml``) maps Chinese question words to the English word
stems logs use ("任务" -> ``task``), for questions whose subject is not a concept ("spark-executor 是否有任务完成").

Everything here is vocabulary, not answers: it says which words to search, never what is true.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from pydantic import ConfigDict, with_config
from typing_extensions import TypedDict

from core.language import vocabulary
from core.language.alternation import Alternative, FirstCharAlternation
from core.language.chars import ASCII_WORD_CHARS
from core.language.lexicon import phrase_pattern
from core.language.success import success_words
from core.language.text import normalize


@with_config(ConfigDict(extra="forbid"))  # read from vocab/concepts.yaml
@dataclass(frozen=True)
class Concept:
    """One diagnosis concept: how questions name it, how logs say it (see the module doc)."""

    name: str
    label_zh: str
    label_en: str
    asks: tuple[str, ...]
    terms: tuple[str, ...] = ()
    stems: tuple[str, ...] = ()
    qualifier: bool = False
    level: str | None = None
    broad: bool = False
    # The level whose lines report it without its words (a line at ERROR is a failure; an
    # exception or a timeout is not said by a level): what a search falls back to.
    reported_at: str | None = None
    succeeded: str | None = None


@with_config(ConfigDict(extra="forbid"))
class _ConceptsFile(TypedDict):
    """``vocab/concepts.yaml``: the concepts."""

    concepts: tuple[Concept, ...]


@with_config(ConfigDict(extra="forbid"))
class _TranslationsFile(TypedDict):
    """``vocab/translations.yaml``: Chinese question word -> English stems (see ``TRANSLATIONS``)."""

    translations: dict[str, tuple[str, ...]]


_CONCEPT_TABLE: tuple[Concept, ...] = vocabulary.load("concepts", _ConceptsFile)["concepts"]

CONCEPTS: dict[str, Concept] = {concept.name: concept for concept in _CONCEPT_TABLE}

# Chinese question words -> the English stems logs use for them (alternatives, most common
# first). Only for words that are not a topic or a concept: those are searched as such.
TRANSLATIONS: dict[str, tuple[str, ...]] = vocabulary.load("translations", _TranslationsFile)["translations"]

_INFLECTION = r"(?:s|es|ed|d|ing)?"

# The login wordings that end in "in", where "in" may open a time or place instead (see the
# login concept in vocab/concepts.yaml): what follows "in" then, and what before "log" makes it a person's verb anyway.
_LOG_IN = frozenset({"log in", "logged in"})
_IN_WHEN_OR_WHERE = r"\s+(?:(?:the|past|previous|production|prod|staging)(?![a-z0-9])|\d)"
_PERSON_BEFORE = r"(?:(?<=(?<![a-z0-9])to )|(?<=not )|(?<=n't )|(?<=n\u2019t ))"


def _ask_parts(word: str) -> tuple[str, str, str]:
    """A question word's regex as (prefix, body, suffix): ASCII words whole (with inflections),
    Chinese as a substring; a ``_LOG_IN`` wording not before a time or place phrase unless a
    person's "to"/negation precedes it."""
    normalized = " ".join(normalize(word).split())
    # At most three separators between its words: a span an earlier pass of the question took
    # is blanked with spaces, and "log ERROR IN" must not read as "log in".
    body = r"[\s_\-]{1,3}".join(re.escape(part) for part in normalized.split())
    if normalized[:1] in ASCII_WORD_CHARS:
        prefix = r"(?<![a-z0-9])"
        if normalized in _LOG_IN:
            prefix += rf"(?:{_PERSON_BEFORE}|(?!{body}{_IN_WHEN_OR_WHERE}))"
        return prefix, body, rf"{_INFLECTION}(?![a-z0-9])"
    return "", body, ""


def _ask_owners() -> dict[str, str]:
    """Each ask (normalised, single spaces) and the concept it names; an ask naming two is an
    error."""
    owner: dict[str, str] = {}
    for concept in _CONCEPT_TABLE:
        for word in concept.asks:
            key = " ".join(normalize(word).split())
            if owner.setdefault(key, concept.name) != concept.name:
                raise ValueError(f"ask {word!r} belongs to {owner[key]} and {concept.name}")
    return owner


@lru_cache(maxsize=1)
def _asks_index() -> tuple[FirstCharAlternation, dict[str, str]]:
    """Every ask as one alternation (longest first, so "连接断开" wins over "连接"), compiled
    per first character as texts need it, and the owner of each named group."""
    owner = _ask_owners()
    ordered = sorted(owner, key=len, reverse=True)
    alternatives = []
    for i, word in enumerate(ordered):
        prefix, body, suffix = _ask_parts(word)
        alternatives.append(Alternative(word[0], f"(?P<a{i}>{body})", prefix, suffix))
    matcher = FirstCharAlternation(alternatives, word_guard=True)
    return matcher, {f"a{i}": owner[word] for i, word in enumerate(ordered)}


@dataclass(frozen=True)
class ConceptMention:
    """One concept named in normalised text: ``text[start:end]``."""

    start: int
    end: int
    concept: str


def _worded_mentions(normalized_text: str) -> list[ConceptMention]:
    """Each mention as its words name it, before its clause says whether it went right."""
    matcher, owners = _asks_index()
    return [ConceptMention(m.start(), m.end(), owners[m.lastgroup or ""])
            for m in matcher.finditer(normalized_text)]


def concept_mentions(normalized_text: str) -> list[ConceptMention]:
    """Every non-overlapping concept mention in text already passed through ``normalize``; a
    mention its clause says went right names the concept's ``succeeded`` one ("登录成功": signin)."""
    return [_in_its_sense(normalized_text, mention) for mention in _worded_mentions(normalized_text)]


def _in_its_sense(normalized_text: str, mention: ConceptMention) -> ConceptMention:
    """The mention as its clause reads it: its ``succeeded`` concept when the clause says it went
    right, spanning the success word next to it too ("登录成功", "successful logins": the label's
    words are all the concept's, so a sentence naming it says nothing else)."""
    succeeded = CONCEPTS[mention.concept].succeeded
    words = success_words(normalized_text, mention.start, mention.end) if succeeded else None
    if succeeded is None or words is None:
        return mention
    start, end = mention.start, mention.end
    if words[1] <= start and not normalized_text[words[1]:start].strip():
        start = words[0]
    elif words[0] >= end and not normalized_text[end:words[0]].strip():
        end = words[1]
    return ConceptMention(start, end, succeeded)


def named_before_a_place(normalized_text: str, mention: ConceptMention) -> bool:
    """Whether ``mention`` still names its concept when a place follows it that this module cannot
    know -- a service the question names: "an ERROR log in zookeeper" is a log kept there, not a
    login. Read as if a place phrase ("the ...", see the login concept) came next. Compared as
    worded: whether it went right is read from the whole clause, which the probe cuts."""
    probe = normalized_text[:mention.end] + " the"
    worded = {m.start: m.concept for m in _worded_mentions(normalized_text)}
    return any(found.start == mention.start and found.concept == worded.get(mention.start)
               for found in _worded_mentions(probe))


def concepts_in(text: str) -> list[str]:
    """Concept names a text names, by first appearance, no duplicates."""
    return list(dict.fromkeys(m.concept for m in concept_mentions(normalize(text))))


def concepts_held(text: str) -> set[str]:
    """Concepts a text (a log line, an excerpt) is about: it names one (its asks) or holds one of
    its log phrases or stems ("Connection broken for id 3" is about connection)."""
    return set(_concepts_held(text))


# The verifier asks this of every cited text of every claim, and an eval asks the same lines
# session after session: a pure function of the text (the vocabulary is fixed at import).
@lru_cache(maxsize=8192)
def _concepts_held(text: str) -> frozenset[str]:
    normalized = normalize(text)
    held = {mention.concept for mention in concept_mentions(normalized)}
    for name, stems, terms in _held_probes():
        if name not in held and (any(stem in normalized for stem in stems)
                                 or any(rarest in normalized and _term_regex(term).search(normalized)
                                        for rarest, term in terms)):
            held.add(name)
    return frozenset(held)


@lru_cache(maxsize=1)
def _held_probes() -> tuple[tuple[str, tuple[str, ...], tuple[tuple[str, str], ...]], ...]:
    """Each concept's stems and log phrases as ``holds_term`` reads them (normalised), each
    phrase with its longest word: a text without it cannot match the phrase's regex, and most
    texts lack it ("not available" is tried only where "available" is; its first word, "not",
    is in many). Prepared once: the verifier asks this of every evidence text of every claim."""
    prepared = []
    for concept in _CONCEPT_TABLE:
        terms = tuple(normalize(term) for term in concept.terms)
        prepared.append((concept.name, concept.stems, tuple((max(term.split(), key=len), term) for term in terms)))
    return tuple(prepared)


def concept_terms(names: Iterable[str]) -> list[str]:
    """The log phrases of the concepts (whole-word terms), in order, no duplicates."""
    return list(dict.fromkeys(term for name in names if name in CONCEPTS
                              for term in CONCEPTS[name].terms))


def concept_stems(names: Iterable[str]) -> list[str]:
    """The substring stems of the concepts, in order, no duplicates."""
    return list(dict.fromkeys(stem for name in names if name in CONCEPTS
                              for stem in CONCEPTS[name].stems))


def concept_label(name: str, language: str) -> str:
    """The concept's label in the language (``zh`` or ``en``); the name for an unknown one."""
    concept = CONCEPTS.get(name)
    if concept is None:
        return name
    return concept.label_zh if language == "zh" else concept.label_en


def holds_term(text: str, term: str) -> bool:
    """Whether normalised ``text`` holds ``term`` as ``query_logs`` matches terms: the words in
    order, whole words at alphanumeric edges (a Chinese edge is a plain substring)."""
    term = normalize(term)
    # Most texts do not hold a term's first word at all: say so without compiling its regex.
    return term.split(maxsplit=1)[0] in text and _term_regex(term).search(text) is not None


@lru_cache(maxsize=2048)
def _term_regex(term: str) -> re.Pattern[str]:
    return re.compile(phrase_pattern(term))

