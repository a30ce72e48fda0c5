"""Quantifiers a claim may use only as far as its cited evidence bears them out
(``vocab/quantifier_words.yaml``).

- A universal ("every", "all", "each", 所有, 全部, 每个) is held when the evidence says one itself,
  or when the claim counts or names its members and the cited lines are exactly those members:
  "all 3 pods restarted" citing three pods' lines, "each of the two alerts is firing" citing two
  alerts, "HighCPUUsage and HighMemoryUsage are all firing" citing each. Lines that differ only
  in their times and numbers are one member (one pod restarting twice is not two pods).
  "every pod restarted" citing one pod's line counts nothing, and is more than its evidence says.
- An amount word ("plenty of idle connections", 空闲连接充足, "half") is judged against the value
  the evidence gives what it quantifies (``idle=0``): none at all is a contradiction; a share of
  the whole too small (or not a half) is more than the evidence says; no value or no whole to
  judge by leaves the word unsupported, as any quantifier the evidence does not hold.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache, lru_cache

from core.language.clauses import content_units, stems
from core.language.number_words import NUMBER_WORDS
from core.language.numbers import en_value, zh_value
from core.language.renderings import rendered_units
from core.language.text import fold, normalize
from core.language.vocabulary import VocabularyFile, load
from core.language.wordforms import holds_word, token_stems

_HAN = re.compile(r"[\u3400-\u9fff]")


class Amount(VocabularyFile):
    """One kind of amount word and the share of the whole it says."""

    name: str
    words_en: tuple[str, ...]
    words_zh: tuple[str, ...]
    at_least: float = 0.0
    exactly: float = -1.0
    tolerance: float = 0.0


class QuantifierWords(VocabularyFile):
    """``vocab/quantifier_words.yaml``."""

    universal_en: tuple[str, ...]
    universal_zh: tuple[str, ...]
    universal_after_zh: tuple[str, ...]
    count_fillers_en: tuple[str, ...]
    counters_zh: tuple[str, ...]
    not_members_after: tuple[str, ...]
    amounts: tuple[Amount, ...]
    field_words: dict[str, tuple[str, ...]]
    whole_fields: frozenset[str]
    zero_words_en: tuple[str, ...]
    zero_words_zh: tuple[str, ...]


WORDS = load("quantifier_words", QuantifierWords)

# A field and its value in a line: ``idle=0``, ``active=20/20``, ``pending: 17``, ``idle 40 of 50``.
_FIELD = re.compile(r"(?P<name>[A-Za-z][\w.\-]*)\s*[=:]\s*(?P<value>\d+(?:\.\d+)?)"
                    r"(?:\s*(?:/|\bof\b)\s*(?P<whole>\d+(?:\.\d+)?))?")
# What a line's member is not told by: its times and bare numbers.
_TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}[T ][\d:.]+(?:Z|[+-]\d{2}:?\d{2})?|\b\d{1,2}:\d{2}(?::\d{2})?\b")
_BARE_NUMBER = re.compile(r"(?<![\w\-.])\d+(?:\.\d+)?%?(?![\w\-])")
_TOKEN = re.compile(r"[A-Za-z][\w\-.]*[\w]|[A-Za-z]")


def universals(own_words: str) -> list[str]:
    """The universal quantifiers of a claim's own words."""
    have = set(token_stems(own_words))
    normalized = normalize(own_words)
    found = [word for word in WORDS.universal_en if set(token_stems(word)) <= have]
    return found + [word for word in WORDS.universal_zh if word in normalized]


def universal_held(own_words: str, refs: Sequence[str]) -> bool:
    """Whether the claim counts or names its members and its cited lines are exactly those:
    ``refs``, the matched lines of its passed bindings."""
    members = _members(refs)
    if not members:
        return False
    counts = _counts(own_words)
    if counts:
        return all(count == len(members) for count in counts)
    named = _named_members(own_words, refs)
    return len(named) >= 2 and len(named) == len(members)


def borne_out(own_words: str, cited: list[str], refs: Sequence[str]) -> list[str]:
    """The claim's quantifier words its evidence bears out: amounts its values reach, negations
    a zero value says, universals and member counts its cited lines are."""
    borne = [amount.word for amount in amounts(own_words, cited) if amount.verdict == "held"]
    borne += zero_negations(own_words, cited)
    borne += [own_words[start:end] for start, end in counted_members(own_words, refs)]
    if refs and universal_held(own_words, refs):
        borne += universals(own_words)
    return borne


def _members(refs: Sequence[str]) -> set[str]:
    """One key per member the lines are about: a line without its times and bare numbers."""
    return {key for key in map(_member_key, refs) if key}


@lru_cache(maxsize=8192)  # the same cited lines, claim after claim
def _member_key(ref: str) -> str:
    return _BARE_NUMBER.sub("#", _TIMESTAMP.sub("@", ref)).strip()


@cache
def _count_patterns() -> tuple[re.Pattern[str], ...]:
    universal_en = "|".join(map(re.escape, WORDS.universal_en))
    universal_zh = "|".join(map(re.escape, WORDS.universal_zh))
    fillers = "|".join(map(re.escape, WORDS.count_fillers_en))
    counters = "".join(map(re.escape, WORDS.counters_zh))
    after_zh = "|".join(map(re.escape, WORDS.universal_after_zh))
    numerals = "".join(map(re.escape, [*NUMBER_WORDS.zh_digits, *NUMBER_WORDS.zh_tens, *NUMBER_WORDS.zh_scales]))
    number = rf"(?P<n>\d+|[a-z]+|[{numerals}]+)"
    return (
        # "all 3 pods", "each of the two alerts", "all of these 3"
        re.compile(rf"\b(?:{universal_en})\s+(?:(?:{fillers})\s+)*{number}\s*(?P<after>\S*)", re.IGNORECASE),
        # "the 3 pods all restarted", "the two alerts each fire"
        re.compile(rf"\bthe\s+{number}\s+\S+\s+(?:{universal_en})\b(?P<after>)", re.IGNORECASE),
        # 所有 3 个 pod, 全部两条告警
        re.compile(rf"(?:{universal_zh})\s*(?:的\s*)?{number}\s*(?P<after>[{counters}]?)"),
        # 3 个 pod 全部, 两条告警都 … (所有/全部/每个 after what it counts)
        re.compile(rf"{number}\s*(?P<after>[{counters}])[^，。,;；!?！？]{{1,16}}?(?:{universal_zh}|{after_zh})"),
    )


def _counts(own_words: str) -> list[int]:
    """The member counts a claim ties to its universals ("all 3 pods": 3), none when a number
    near them counts something else ("restarted 3 times", 3 次)."""
    return [value for _, _, value in _count_spans(own_words)]


def _count_spans(text: str) -> list[tuple[int, int, int]]:
    found: list[tuple[int, int, int]] = []
    folded = fold(text).lower()  # fold keeps offsets: the spans are the text's
    for pattern in _count_patterns():
        for match in pattern.finditer(folded):
            after = match.group("after").strip(".,;:!?，。；：")
            if after in WORDS.not_members_after:
                continue
            value = _number(match.group("n"))
            if value is not None:
                found.append((match.start("n"), match.end("n"), value))
    return found


def _number(word: str) -> int | None:
    if word.isdigit():
        return int(word)
    value = zh_value(word) if _HAN.search(word) else en_value(word)
    return int(value) if value is not None and value == int(value) else None


def _named_members(own_words: str, refs: Sequence[str]) -> set[str]:
    """The names of the claim that tell its cited lines apart: each in some of them, not all,
    and every line holding one ("HighCPUUsage and HighMemoryUsage are all firing")."""
    names = {match.group() for match in _TOKEN.finditer(own_words) if _name_shaped(match.group())}
    telling = {name for name in names
               if 0 < sum(holds_word(ref, name) for ref in refs) < len(refs)}
    if not all(any(holds_word(ref, name) for name in telling) for ref in refs):
        return set()
    return telling


def _name_shaped(token: str) -> bool:
    """A name rather than a word: a hyphen, underscore or dot inside it, a digit among letters,
    or a capital after its first letter (``order-service-7d9f``, ``HighCPUUsage``)."""
    return (any(mark in token for mark in "-_.") or any(char.isdigit() for char in token)
            or any(char.isupper() for char in token[1:]))


def counted_members(text: str, refs: Sequence[str]) -> list[tuple[int, int]]:
    """The spans of the claim's counts of its universals' members that are the number of its
    cited members ("all 3 pods" citing three pods' lines): held by its bindings themselves."""
    members = len(_members(refs))
    return [(start, end) for start, end, value in _count_spans(text) if value == members]


@dataclass(frozen=True)
class AmountJudged:
    """An amount word of a claim and what its evidence's value makes of it."""

    word: str
    kind: str
    verdict: str  # "held", "contradicted", "overstated", "unjudged"
    shown: str = ""  # the evidence's value, as its line writes it


def amounts(own_words: str, cited: list[str]) -> list[AmountJudged]:
    """Each amount word of the claim, judged by the value its clause's thing has in the evidence."""
    judged: list[AmountJudged] = []
    folded = fold(own_words)
    for clause in re.split(r"[,.;:!?，。；：！？\n()（）]", folded):
        for amount in WORDS.amounts:
            word = _amount_word(clause, amount)
            if word:
                judged.append(_judge_amount(clause, word, amount, cited))
    return judged


def _amount_word(clause: str, amount: Amount) -> str:
    have = token_stems(clause)
    for word in sorted(amount.words_en, key=len, reverse=True):
        wanted = token_stems(word)
        if wanted and any(have[i:i + len(wanted)] == wanted for i in range(len(have) - len(wanted) + 1)):
            return word
    return next((word for word in amount.words_zh if word in clause), "")


def zero_negations(own_words: str, cited: list[str]) -> set[str]:
    """The negations of the claim a zero value of its evidence bears out: "没有空闲连接" of
    ``idle=0`` says what the line says."""
    borne: set[str] = set()
    for clause in re.split(r"[,.;:!?，。；：！？\n()（）]", fold(own_words)):
        have = token_stems(clause)
        words = [word for word in WORDS.zero_words_zh if word in clause]
        words += [word for word in WORDS.zero_words_en if token_stems(word)[0] in have]
        if not words:
            continue
        units = stems(content_units(clause))
        if any(float(match.group("value")) == 0 and _names_field(units, match.group("name"))
               for text in cited for match in _FIELD.finditer(text)):
            borne.update(words)
    return borne


def _judge_amount(clause: str, word: str, amount: Amount, cited: list[str]) -> AmountJudged:
    """The value of the field the clause names, in any cited line, against the amount."""
    clause_units = stems(content_units(clause))
    for text in cited:
        fields = list(_FIELD.finditer(text))
        wholes = [float(m.group("value")) for m in fields if m.group("name").lower() in WORDS.whole_fields]
        wholes += [float(m.group("whole")) for m in fields if m.group("whole")]
        for match in fields:
            name = match.group("name")
            if not _names_field(clause_units, name):
                continue
            value = float(match.group("value"))
            whole = float(match.group("whole")) if match.group("whole") else (wholes[0] if wholes else None)
            shown = match.group()
            if value == 0:
                return AmountJudged(word, amount.name, "contradicted", shown)
            if whole is None or whole <= 0:
                return AmountJudged(word, amount.name, "unjudged", shown)
            share = value / whole
            if amount.exactly >= 0:
                held = abs(share - amount.exactly) <= amount.tolerance
            else:
                held = share >= amount.at_least
            return AmountJudged(word, amount.name, "held" if held else "overstated", shown)
    return AmountJudged(word, amount.name, "unjudged")


def _names_field(clause_units: set[str], name: str) -> bool:
    """Whether the clause names a field: its word ("idle"), another word for it ("used" for
    ``active``), or its word in Chinese (空闲)."""
    field_units = stems({name.lower(), *WORDS.field_words.get(name.lower(), ())})
    return bool(field_units & clause_units) or bool(rendered_units(field_units) & clause_units)
