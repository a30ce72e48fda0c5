"""Entities a question names: the hosts, users, pods, namespaces, jobs and components of the
world's data (``Vocabulary.entities``: what its log lines name), and name-shaped words next to
a kind word ("host db-9", "namespace team-3", "api-5f9c pod") that the data lacks.

A pass of ``core.language.question`` (after services and alert names, before the names the
data lacks): what it reads is a subject of its kind and an exact search term (a line's search
text holds its host and source), never a service the data lacks; the kind word beside a name is
read with it (no keyword "host"). Words of ``vocab/entities.yaml`` name the kinds.

A data name a question could use as a word is not read as an entity: stop words, level words,
topics and concepts ("error" as a user name), and, for components (the source field's words),
plain words ("Client", "main"): a component is read when it is shaped like a name
(``TrustedInstaller``, ``CBS``, ``nova.compute.manager``). Another plain word (a user "web",
"test": an auth log names whatever was tried) is read where a question puts a name: beside its
kind word, after "did", "as", "for" ... (``subject_before``), or before Chinese.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from core.language.alternation import one_of
from core.language.concepts import concept_mentions
from core.language.lexicon import topics_in
from core.language.question_words import HYPHENATED_WORDS, LEVELS_UPPER, NOT_SERVICE_WORDS, STOPWORDS, QuestionText
from core.language.reading import Entity
from core.language.text import normalize
from core.language.vocabulary import VocabularyFile, load


class EntityWords(VocabularyFile):
    """``vocab/entities.yaml``: kind -> the words that name it; the words before a plain word
    that make it a name."""

    kinds: dict[str, tuple[str, ...]]
    subject_before: tuple[str, ...]


_WORDS = load("entities", EntityWords)
KIND_WORDS = _WORDS.kinds
_NAME_BEFORE = re.compile(rf"(?:^|(?<![a-z0-9_]))(?:{one_of(_WORDS.subject_before)})\s+$")
_HAN_AFTER = re.compile(r"^\s*[\u3400-\u9fff]")
_ORDER = {kind: place for place, kind in enumerate(KIND_WORDS)}  # which kind a name shared by two is
_CUE_WORDS = {normalize(word): kind for kind, words in KIND_WORDS.items() for word in words}
_CUES = one_of(_CUE_WORDS, english_ends_word=True)
_BEFORE = re.compile(rf"(?:^|(?<![a-z0-9_\-]))({_CUES})\s*[:=]?\s*$")
_AFTER = re.compile(rf"^\s*({_CUES})(?![a-z0-9_])")
# A name the data may lack: a word with a digit or a joining mark (web-01, team-3, api-5f9c, db.2).
_SHAPED = r"(?=[a-z0-9_.\-]*(?:\d|[a-z0-9][_.\-][a-z0-9]))[a-z0-9](?:[a-z0-9_.\-]*[a-z0-9])?"
_CUED_NAME = re.compile(rf"(?<![a-z0-9_])({_CUES})\s*[:=]?\s*({_SHAPED})(?![a-z0-9_\-])"
                        rf"|(?<![a-z0-9_.\-])({_SHAPED})\s*({_CUES})(?![a-z0-9_])")
# A token a data name may be: letters, digits and the marks names join with; a trailing mark
# ends the sentence ("... on web-01.").
_TOKEN = re.compile(r"[a-z0-9_$][a-z0-9_.\-$]*")


def _tokens(lowered: str) -> list[tuple[int, int]]:
    """The spans of the question's tokens, without a trailing ``.`` or ``-``."""
    spans = []
    for match in _TOKEN.finditer(lowered):
        end = match.end()
        while end > match.start() + 1 and lowered[end - 1] in ".-":
            end -= 1
        spans.append((match.start(), end))
    return spans


def _name_shaped(name: str) -> bool:
    """Whether a word reads as a name, not an English word: a digit, a joining mark, a capital
    inside it, or all capitals (``web-01``, ``TrustedInstaller``, ``CBS``)."""
    return (any(c.isdigit() or c in "_.-$" for c in name) or any(c.isupper() for c in name[1:])
            or (len(name) >= 3 and name.isupper()))


def _askable(name: str, kind: str) -> bool:
    """Whether a data name is read in a question (see the module doc)."""
    folded = normalize(name)
    if len(folded) < 2 or folded in STOPWORDS or folded in NOT_SERVICE_WORDS or folded in _CUE_WORDS:
        return False
    if name.upper() in LEVELS_UPPER or topics_in(folded) or concept_mentions(folded):
        return False
    return kind != "component" or _name_shaped(name)


@lru_cache(maxsize=8)
def _known(entities: tuple[tuple[str, str], ...]) -> dict[str, tuple[str, str]]:
    """Each askable name's (name, kind), by its normalised spelling; a name of two kinds is the
    kind that comes first in ``entities.yaml``."""
    meant: dict[str, tuple[str, str]] = {}
    for name, kind in sorted(entities, key=lambda entity: _ORDER.get(entity[1], len(_ORDER))):
        if kind in KIND_WORDS and _askable(name, kind):
            meant.setdefault(normalize(name), (name, kind))
    return meant


def _take_cue(text: QuestionText, start: int, end: int, kind: str) -> None:
    """Blank the word of ``kind`` right before or after ``[start, end)`` ("host", "用户")."""
    lowered = text.lowered
    before = _BEFORE.search(lowered, 0, start)
    if before and _CUE_WORDS[before.group(1)] == kind:
        text.take(before.start(1), before.end(1))
    after = _AFTER.match(lowered[end:])
    if after and _CUE_WORDS[after.group(1)] == kind:
        text.take(end + after.start(1), end + after.end(1))


def _in_name_place(text: QuestionText, start: int, end: int, kind: str) -> bool:
    """Whether a plain word stands where a question puts a name: beside its kind word, after a
    word of ``subject_before`` ("did root"), or before Chinese ("root 最后一次登录")."""
    lowered = text.lowered
    before = _BEFORE.search(lowered, 0, start)
    after = _AFTER.match(lowered[end:])
    if (before and _CUE_WORDS[before.group(1)] == kind) or (after and _CUE_WORDS[after.group(1)] == kind):
        return True
    return _NAME_BEFORE.search(lowered, 0, start) is not None or _HAN_AFTER.match(lowered[end:]) is not None


def entity_names(text: QuestionText, entities: Sequence[tuple[str, str]]) -> list[Entity]:
    """The entities the question names: the data's (``entities``: (name, kind), read whole and in
    any case, as the data spells them), then name-shaped words beside a kind word (as written,
    ``known`` False). Each is taken out of the text with its kind word."""
    found: list[tuple[int, Entity]] = []
    meant = _known(tuple(entities))
    if meant:
        lowered = text.lowered  # as the loop began: what a cue's blanking takes is skipped below
        for start, end in _tokens(lowered):
            token = lowered[start:end]
            if token not in meant or text.chars[start:end] != list(text.original[start:end]):
                continue  # not a name, or an earlier pass read part of it
            name, kind = meant[token]
            if not _name_shaped(name) and not _in_name_place(text, start, end, kind):
                continue
            found.append((start, Entity(name=name, kind=kind)))
            text.take(start, end)
            _take_cue(text, start, end, kind)
    for match in _CUED_NAME.finditer(text.lowered):
        cue, at = (match.group(1), 2) if match.group(1) else (match.group(4), 3)
        start, end = match.span(at)
        written = text.current[start:end]
        if not any(c.isalpha() for c in written) or normalize(written) in HYPHENATED_WORDS:
            continue  # "3 pods", "long-running job"
        if cue.isascii() and at == 3 and not any(c.isdigit() for c in written):
            continue  # "the cross-region job": an English word before; "web-02 host" has a digit
        found.append((start, Entity(name=written, kind=_CUE_WORDS[cue], known=False)))
        text.take(*match.span())
    return [entity for _, entity in sorted(found, key=lambda item: item[0])]
