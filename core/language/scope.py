"""Reading a question's scope: narrow-scope markers and the clauses that exclude subjects.

Narrow markers are the list of docs/design.md §8 (只确认 / 只排查 / 只看 / 不要分析 / 不要扩展 /
只回答 / 是否真实存在 / 是否存在 ...) and their English equivalents. An exclusion clause starts
at a trigger (不要分析 / 不要扩展到 / 排除 / 除了 / "do not analyse" / "exclude" / "except" ...)
and runs to the end of the sentence; it is split into items on 、 , / 和 或 及 and/or, and stops
early at an item that turns back to what *is* asked (只 / 请 / 确认 / "only" / "but" ...).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from core.language.alternation import one_of
from core.language.vocabulary import VocabularyFile, load
from core.lazypattern import LazyPattern


class _NarrowGrammar(VocabularyFile):
    confirm_verbs: tuple[str, ...]
    confirm_then: tuple[str, ...]
    negations: tuple[str, ...]
    verbs: tuple[str, ...]
    whether: tuple[str, ...]
    exists: tuple[str, ...]


class _EnglishTriggers(VocabularyFile):
    negations: tuple[str, ...]
    verbs: tuple[str, ...]
    words: tuple[str, ...]


class ScopeWords(VocabularyFile):
    """``vocab/scope_words.yaml``."""

    narrow_markers: dict[str, tuple[str, ...]]
    exclusion_triggers_zh: tuple[str, ...]
    vague_items: frozenset[str]
    narrow_grammar_en: _NarrowGrammar
    exclusion_triggers_en: _EnglishTriggers
    item_separators: tuple[str, ...]
    clause_ends: tuple[str, ...]
    item_noise_before: tuple[str, ...]
    item_noise_after: tuple[str, ...]
    closing_words: tuple[str, ...]


_WORDS = load("scope_words", ScopeWords)
_GRAMMAR = _WORDS.narrow_grammar_en


def _phrase(phrase: str) -> str:
    """A marker phrase as a pattern: an English one as whole words."""
    return rf"\b{re.escape(phrase)}\b" if phrase.isascii() else re.escape(phrase)


def _words(words: Iterable[str]) -> str:
    """Words as alternatives: English ones whole, Chinese ones anywhere; longest first."""
    return "|".join(_phrase(word) for word in sorted(words, key=len, reverse=True))


_NARROW_MARKERS: tuple[tuple[str, str], ...] = (
    # (label stored in the plan, regex on the lower-cased question): the vocabulary's phrases,
    # then the English markers whose grammar is their meaning.
    *((label, "|".join(map(_phrase, phrases))) for label, phrases in _WORDS.narrow_markers.items()),
    ("confirm whether", rf"\b(?:{one_of(_GRAMMAR.confirm_verbs)})\s+(?:{one_of(_GRAMMAR.confirm_then)})\b"),
    ("do not analyse", rf"\b(?:{one_of(_GRAMMAR.negations)})\s+(?:{one_of(_GRAMMAR.verbs)})"),
    ("whether", _words(_GRAMMAR.whether)),
    ("is there", r"^\s*(?:is|are)\s+there\b|\bdoes\s+\S+\s+(?:have|show)\b"),
    ("exists", _words(_GRAMMAR.exists)),
)
_NARROW_PATTERNS = tuple((label, re.compile(pattern)) for label, pattern in _NARROW_MARKERS)

# Longest first, so "不要扩展到" wins over "不要".
_EXCLUSION_TRIGGERS = sorted(_WORDS.exclusion_triggers_zh, key=len, reverse=True)
_EN_TRIGGERS = _WORDS.exclusion_triggers_en
_EN_EXCLUSION_TRIGGER = (rf"\b(?:{one_of(_EN_TRIGGERS.negations)})\s+(?:{one_of(_EN_TRIGGERS.verbs)})"
                         f"|{_words(_EN_TRIGGERS.words)}")


def _trigger_pattern(trigger: str) -> str:
    """A Chinese trigger where it is one: 除 ends words that are none (删除了 is "deleted", 清除了
    "cleared"; 排除 is one), and 不X after X asks a question (要不要扩容 "should it scale?")."""
    if trigger.startswith("除"):
        return "(?<![删清移解消去拆剔扣切免开])" + re.escape(trigger)
    if trigger.startswith("不") and len(trigger) > 1:
        return f"(?<!{re.escape(trigger[1])})" + re.escape(trigger)
    return re.escape(trigger)


_TRIGGER_RE = re.compile("|".join([*map(_trigger_pattern, _EXCLUSION_TRIGGERS), _EN_EXCLUSION_TRIGGER]),
                         re.IGNORECASE)
# A clause ends at the end of a sentence (a "." followed by a space or the end of the text), or
# at a colon after its items ("Ignore HikariCP: what else did order-service log?"); a colon
# right after the trigger introduces them instead ("exclude: A, B", "不要分析：订单123").
_SENTENCE_END_RE = LazyPattern(r"[。！？!?;；\n]|\.(?=\s|$)|\s*(?::(?=\s|$)|：)")
_INTRODUCED_RE = re.compile(r"\s*[:：]?")
_ITEM_SEPARATOR_RE = LazyPattern(rf"[、,，/&]|{_words(_WORDS.item_separators)}", re.IGNORECASE)
# An item that turns back to the asked subject ends the exclusion clause.
_CLAUSE_END_RE = LazyPattern(rf"^\s*(?:{_words(_WORDS.clause_ends)})", re.IGNORECASE)
_ITEM_NOISE_RE = LazyPattern(
    rf"^(?:\s|{one_of(_WORDS.item_noise_before, english_ends_word=True)})+"
    rf"|(?:\s|{one_of(_WORDS.item_noise_after)}|\.)+$",
    re.IGNORECASE)
_CLOSING_RE = re.compile(one_of(_WORDS.closing_words))
_VAGUE_ITEMS = _WORDS.vague_items | {""}  # or nothing left once the noise is trimmed


@dataclass(frozen=True)
class ExclusionClause:
    """One exclusion clause: where it sits in the question and the items it names."""

    start: int
    end: int
    trigger: str
    items: tuple[str, ...]


def narrow_markers(question: str) -> list[str]:
    """Labels of the narrow-scope markers found in the question, in table order."""
    lowered = question.lower()
    return [label for label, pattern in _NARROW_PATTERNS if pattern.search(lowered)]


def exclusion_clauses(question: str) -> list[ExclusionClause]:
    """Every exclusion clause, with its items (raw text, trimmed), in order."""
    clauses: list[ExclusionClause] = []
    position = 0
    while (trigger := _TRIGGER_RE.search(question, position)) is not None:
        introduced = _INTRODUCED_RE.match(question, trigger.end())
        start = introduced.end() if introduced else trigger.end()
        sentence_end = _SENTENCE_END_RE.search(question, start)
        limit = sentence_end.start() if sentence_end else len(question)
        items, end = _split_items(question, start, limit)
        clauses.append(ExclusionClause(trigger.start(), end, trigger.group(), tuple(items)))
        position = max(end, trigger.end())
    return clauses


def _split_items(question: str, start: int, limit: int) -> tuple[list[str], int]:
    """Items between ``start`` and ``limit``; stops at an item that returns to the asked scope."""
    items: list[str] = []
    cursor = start
    for separator in [*_ITEM_SEPARATOR_RE.finditer(question, start, limit), None]:
        piece_end = separator.start() if separator else limit
        piece = question[cursor:piece_end]
        if _CLAUSE_END_RE.match(piece):
            return items, cursor
        closing = _CLOSING_RE.search(piece)  # 除了 X 之外 ...: the clause closes at 之外
        if closing:
            item = _ITEM_NOISE_RE.sub("", piece[:closing.start()]).strip()
            if item and item.lower() not in _VAGUE_ITEMS:
                items.append(item)
            return items, cursor + closing.end()
        item = _ITEM_NOISE_RE.sub("", piece).strip()
        if item and item.lower() not in _VAGUE_ITEMS:
            items.append(item)
        cursor = separator.end() if separator else limit
    return items, limit


def without_clauses(question: str, clauses: list[ExclusionClause]) -> str:
    """The question with its exclusion clauses blanked out (what is actually asked)."""
    return blanked(question, [(clause.start, clause.end) for clause in clauses])


def blanked(text: str, spans: Iterable[tuple[int, int]]) -> str:
    """``text`` with each span replaced by spaces (the other words keep their places)."""
    for start, end in spans:
        text = text[:start] + " " * (end - start) + text[end:]
    return text
