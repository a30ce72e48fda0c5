"""Cue words: what the words next to a value say its role is, in Chinese and English.

The closest cue before a value decides (``当前值`` / ``current``, ``阈值`` / ``threshold``,
``已持续`` / ``for``, ``已用`` / ``used``, ``上限`` / ``total`` ...), unless a cue right after it
does (``10分钟内``, "the 85% threshold", "3.8GB used"). A cue only counts for the unit families
it can describe: ``for`` is a duration only before a time, ``used`` an amount only before a size
or a count. ``core.verifier.roles`` reads texts with these tables.
"""

from __future__ import annotations

import re
from typing import Literal, get_args

from core.language.alternation import one_of
from core.language.lexicon import topics_in
from core.language.number_words import NUMBER_WORDS
from core.language.quantities import Family
from core.language.vocabulary import VocabularyError, VocabularyFile, load
from core.lazypattern import LazyPattern

Role = Literal["current", "threshold", "duration", "window", "period", "used", "total", "count",
               "average", "sample", "value", "time"]
Qualifier = Literal["first", "latest"]

_TIME: frozenset[Family] = frozenset({"time"})
_AMOUNT: frozenset[Family] = frozenset({"size", "plain", "count"})
_ANY: frozenset[Family] = frozenset({"percent", "time", "size", "count", "plain"})


def _en(words: str) -> str:
    """English cue words, matched as whole words."""
    return rf"(?<![a-z])(?:{words})(?![a-z])"


class _Cue(VocabularyFile):
    role: Role
    families: frozenset[Family]
    zh: tuple[str, ...] = ()
    en: tuple[str, ...] = ()


class _Words(VocabularyFile):
    zh: tuple[str, ...]
    en: tuple[str, ...]


class _AfterValue(VocabularyFile):
    window_zh: tuple[str, ...]
    used_zh: tuple[str, ...]
    used_en: tuple[str, ...]
    total_zh: tuple[str, ...]
    total_en: tuple[str, ...]
    limit_zh: tuple[str, ...]
    limit_en: tuple[str, ...]
    threshold_zh: tuple[str, ...]
    threshold_en: tuple[str, ...]
    threshold_kinds_zh: tuple[str, ...]
    threshold_kinds_en: tuple[str, ...]


class _Guard(VocabularyFile):
    """A cue word's context: not right after, not right before, or naming whom (see _FOR_WHOM)."""

    not_after: tuple[str, ...] = ()
    not_before: tuple[str, ...] = ()
    names_whom: bool = False


class RoleCues(VocabularyFile):
    """``vocab/role_cues.yaml``."""

    before_value: tuple[_Cue, ...]
    latest_words: _Words
    first_words: _Words
    after_value: _AfterValue
    now_words: _Words
    now_copulas: _Words
    range_to: _Words
    first_after: tuple[str, ...]
    count_labels: tuple[str, ...]
    label_copulas: tuple[str, ...]
    role_names: dict[Role, str]
    counted_things: dict[str, tuple[str, ...]]
    guards: dict[str, _Guard]


_CUES = load("role_cues", RoleCues)
if missing := set(get_args(Role)) - set(_CUES.role_names):
    raise VocabularyError(f"vocabulary role_cues.yaml: role_names: no name for {', '.join(sorted(missing))}")
ROLE_NAMES: dict[Role, str] = _CUES.role_names
# A "for" whose words reach a colon before any number names whom something is for
# ("firing for user-service: P99 4.2s"), and the value after the colon is labelled by what
# precedes it: the guard ``names_whom`` of role_cues.yaml.
_FOR_WHOM = r"(?![^\d:：,;，；]*[:：])"


def _guard(guard: _Guard) -> tuple[str, str]:
    """A guard of role_cues.yaml as (pattern right before the word, pattern right after)."""
    after = "".join(f"(?<!{re.escape(word)})" for word in guard.not_after)
    before = f"(?!{'|'.join(re.escape(word) for word in guard.not_before)})" if guard.not_before else ""
    return after, before + (_FOR_WHOM if guard.names_whom else "")


# Words that are cues only in context: (not right after, not right before).
_GUARDS: dict[str, tuple[str, str]] = {word: _guard(guard) for word, guard in _CUES.guards.items()}


def _guarded(word: str) -> str:
    after, before = _GUARDS.get(word, ("", ""))
    return after + re.escape(word) + before


def _cue_pattern(words: _Cue | _Words) -> str:
    """Chinese words anywhere, English ones as whole words; longest first (a word before its
    prefix), each in its guards."""
    zh = [_guarded(word) for word in sorted(words.zh, key=len, reverse=True)]
    en = [_guarded(word) for word in sorted(words.en, key=len, reverse=True)]
    return "|".join(zh + ([_en("|".join(en))] if en else []))


# (role, cue, families the cue can describe). The cue closest before a value decides its role.
_BEFORE: tuple[tuple[Role, re.Pattern[str], frozenset[Family]], ...] = tuple(
    (cue.role, re.compile(_cue_pattern(cue)), cue.families) for cue in _CUES.before_value)
_AFTER_WORDS = _CUES.after_value
_AFTER: tuple[tuple[Role, re.Pattern[str], frozenset[Family]], ...] = (
    ("window", re.compile(rf"\s*(?:{one_of(_AFTER_WORDS.window_zh)})"), _TIME),
    ("used", re.compile(rf"\s*(?:{one_of(_AFTER_WORDS.used_zh)}|" + _en(one_of(_AFTER_WORDS.used_en)) + ")"), _AMOUNT),
    ("total", re.compile(rf"\s*(?:{one_of(_AFTER_WORDS.total_zh)}"
                         rf"|(?:的)?(?:\S+\s*)?(?:{one_of(_AFTER_WORDS.limit_zh)})|"
                         + _en(rf"{one_of(_AFTER_WORDS.total_en)}|(?:[a-z]+ )?(?:{one_of(_AFTER_WORDS.limit_en)})")
                         + ")"), _AMOUNT),
    ("threshold", re.compile(rf"\s*(?:的)?\s*(?:{one_of(_AFTER_WORDS.threshold_kinds_zh)})?"
                             rf"(?:{one_of(_AFTER_WORDS.threshold_zh)}|"
                             + _en(rf"(?:(?:{one_of(_AFTER_WORDS.threshold_kinds_en)}) )?"
                                   rf"(?:{one_of(_AFTER_WORDS.threshold_en)})") + ")"), _ANY),
)
_LATEST = LazyPattern(_cue_pattern(_CUES.latest_words))
_FIRST = LazyPattern(_cue_pattern(_CUES.first_words))
# Words that state a value as the present one: a current cue anywhere before it in its clause
# (当前使用 4GB; not the 现在 of 出现在 "appeared at"), or a copula right before it
# (内存使用率为 85%, "memory usage is 85%").
_COPULAS = _CUES.now_copulas
_NOW_MARK = re.compile(_cue_pattern(_CUES.now_words) + rf"|(?:{one_of(_COPULAS.zh)})\s*$|"
                       + _en(one_of(_COPULAS.en)) + r"\s*$")
# "11:05 到 11:17", "from 11:05 to 11:17": the first time of a range.
_RANGE_TO = LazyPattern(rf"\s*(?:{one_of(_CUES.range_to.zh)}|" + _en(one_of(_CUES.range_to.en)) + r")\s*\d{1,2}:\d{2}")
_AFTER_FIRST = re.compile(rf"\s*(?:{one_of(_CUES.first_after)})")
_COUNT_LABEL = re.compile(rf"(?:{one_of(_CUES.count_labels)})\s*$")
_LABEL_TRIM = re.compile(rf"^[\s:=：,，、]+|[\s:=：,，、]+$|(?:^|\s)(?:{one_of(_CUES.label_copulas)})\s*$")


def role_cue(window: str, family: Family) -> tuple[Role, int] | None:
    """The role the cue ending closest to a value gives it (and where the cue starts in
    ``window``, the text before the value in its clause); None without a cue."""
    best: tuple[int, int, int, Role] | None = None
    for role, pattern, families in _BEFORE:
        if family not in families:
            continue
        for match in pattern.finditer(window):
            if match.end() == match.start():
                continue
            candidate = (match.end(), match.end() - match.start(), match.start(), role)
            if best is None or candidate[:2] > best[:2]:
                best = candidate
    return None if best is None else (best[3], best[2])


def after_cue(text: str, end: int, limit: int, family: Family) -> Role | None:
    """The role a cue right after a value gives it (``10分钟内``, "the 85% threshold")."""
    for role, pattern, families in _AFTER:
        if family in families and pattern.match(text, end, limit):
            return role
    return None


def label_of(window: str) -> str:
    """What a value measures, in the text's words: its window without cues and copulas."""
    window = _strip_cues(window)
    previous = None
    label = window
    while previous != label:
        previous = label
        label = _LABEL_TRIM.sub("", label)
    return label.strip()


def topics_of(label: str) -> frozenset[str]:
    """The topics (memory, cpu, gc ...) a label names."""
    return frozenset(topics_in(label)) if label else frozenset()


def _strip_cues(window: str) -> str:
    for _, pattern, _ in _BEFORE:
        window = pattern.sub(" ", window)
    return window


# A statistic a value is (P99, 95th percentile, 中位数 = P50): the closest one before it.
_MEDIAN = NUMBER_WORDS.median_words
_STATISTIC = re.compile(r"(?<![a-z0-9])p(\d{2}(?:\.\d+)?)(?![0-9])|(?<![\d.])(\d{2}(?:\.\d+)?)\s*(?:th|st|nd|rd)?\s*"
                        rf"(?:{one_of(NUMBER_WORDS.percentile_words)})"
                        rf"|({one_of(w for w in _MEDIAN if not w.isascii())}|"
                        + _en(one_of(w for w in _MEDIAN if w.isascii())) + ")")


def statistic_of(window: str) -> str:
    """The percentile the words before a value name (``p99``, ``p50`` for a median), or ''."""
    found = list(_STATISTIC.finditer(window))
    if not found:
        return ""
    last = found[-1]
    return "p50" if last.group(3) else f"p{last.group(1) or last.group(2)}"


def says_now(window: str) -> bool:
    """Whether the words before a value state it as the present one (当前, "is", "currently")."""
    return bool(_NOW_MARK.search(window))


def counted(window: str) -> bool:
    """Whether the label before a value names a count (``GC次数:``, "thread count")."""
    return bool(_COUNT_LABEL.search(window))


def time_qualifier(folded: str, window: str, end: int, limit: int) -> Qualifier | None:
    """``first`` or ``latest`` for a time the words around it qualify (最新 / since / 11:05 到 …)."""
    latest = [m.end() for m in _LATEST.finditer(window)]
    first = [m.end() for m in _FIRST.finditer(window)]
    qualifier: Qualifier | None = None
    if latest or first:
        qualifier = "latest" if max(latest, default=-1) > max(first, default=-1) else "first"
    if _AFTER_FIRST.match(folded, end, limit) or _RANGE_TO.match(folded, end):
        qualifier = "first"
    return qualifier


_COUNTED_KINDS = tuple(
    (kind, re.compile("|".join(rf"(?<![a-z]){re.escape(word)}(?![a-z])" if word.isascii() else re.escape(word)
                               for word in words)))
    for kind, words in _CUES.counted_things.items())


def counted_kinds(text: str) -> frozenset[str]:
    """The kinds of thing a folded text names as counted (``245 个进程``: process; ``active
    threads=245``: thread; ``[ERROR]``: error)."""
    return frozenset(kind for kind, pattern in _COUNTED_KINDS if pattern.search(text))
