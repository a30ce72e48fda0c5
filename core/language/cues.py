"""Cue words: what the words next to a value say its role is, in Chinese and English.

The closest cue before a value decides (``当前值`` / ``current``, ``阈值`` / ``threshold``,
``已持续`` / ``for``, ``已用`` / ``used``, ``上限`` / ``total`` ...), unless a cue right after it
does (``10分钟内``, "the 85% threshold", "3.8GB used"). A cue only counts for the unit families
it can describe: ``for`` is a duration only before a time, ``used`` an amount only before a size
or a count. ``core.verifier.roles`` reads texts with these tables.
"""

from __future__ import annotations

import re
from typing import Literal

from core.language.lexicon import topics_in
from core.language.quantities import Family
from core.lazypattern import LazyPattern

Role = Literal["current", "threshold", "duration", "window", "period", "used", "total", "count",
               "average", "sample", "value", "time"]
Qualifier = Literal["first", "latest"]

ROLE_NAMES: dict[Role, str] = {
    "current": "current value", "threshold": "threshold", "duration": "duration",
    "window": "time window", "period": "period", "used": "used amount", "total": "total / limit",
    "count": "count", "average": "average", "sample": "sample", "value": "value", "time": "time",
}

_TIME: frozenset[Family] = frozenset({"time"})
_AMOUNT: frozenset[Family] = frozenset({"size", "plain", "count"})
_COUNTABLE: frozenset[Family] = frozenset({"count", "plain"})
_ANY: frozenset[Family] = frozenset({"percent", "time", "size", "count", "plain"})


def _en(words: str) -> str:
    """English cue words, matched as whole words."""
    return rf"(?<![a-z])(?:{words})(?![a-z])"


# (role, cue, families the cue can describe). The cue closest before a value decides its role.
_BEFORE_CUES: tuple[tuple[Role, str, frozenset[Family]], ...] = (
        ("threshold", r"告警阈值|阈值|门限|告警线|超过|超出|高于|低于|"
         + _en(r"thresholds?|exceed(?:s|ing|ed)?|above|below|under(?! the (?:last|past))|"
               r"over(?! the (?:last|past))|limit of|fires (?:at|when|above|below|under)"), _ANY),
        # A limit on a percentage or a latency is its alert threshold (on bytes, its total).
        ("threshold", r"限值|限额|" + _en(r"limits?"), frozenset({"percent", "time"})),
        ("current", r"当前值|当前|目前|(?<!出)现在|现为|实时值|实时|最新值|"
         + _en(r"current(?:ly)?|now|at present|presently|latest value"), _ANY),
        ("duration", r"已经持续|已持续|持续了|持续时间|持续|历时|"
         + _en(r"duration|for|lasting|lasted|has lasted|firing for|ongoing for"), _TIME),
        ("window", _en(r"within"), _TIME),
        ("period", r"最近|过去|" + _en(r"(?:in|over|for|during) the (?:last|past)"), _TIME),
        ("used", r"已使用|已用|使用了|使用(?!率)|占用(?!率)|用量|" + _en(r"used|using|in use|consum(?:es|ing|ed)"),
         _AMOUNT),
        ("total", r"总量|总容量|容量|上限|最大值|最大|"
         + _en(r"total|max(?:imum)?|capacity|limit"), _AMOUNT),
        # 总共 / 合计 / 共 before a size is its total ("已用 3.8GB（共 4GB）"); before a count
        # it only sums lines or events ("共计 7 次"), which is the count itself.
        ("total", r"总共|合计|(?<![一总])共(?![享同用计])", frozenset({"size"})),
        ("average", r"平均(?:耗时|值|时间|时长|延迟)?|均值|" + _en(r"avg|average|mean"), _ANY),
        ("count", r"次数|数量|个数|线程数|连接数|" + _en(r"count|number of"), _COUNTABLE),
)
_BEFORE: tuple[tuple[Role, re.Pattern[str], frozenset[Family]], ...] = tuple(
    (role, re.compile(pattern), families) for role, pattern, families in _BEFORE_CUES)
_AFTER: tuple[tuple[Role, re.Pattern[str], frozenset[Family]], ...] = (
    ("window", re.compile(r"\s*(?:以内|之内|内)"), _TIME),
    ("used", re.compile(r"\s*(?:已用|已使用|" + _en("used|in use") + ")"), _AMOUNT),
    ("total", re.compile(r"\s*(?:总量|(?:的)?(?:\S+\s*)?上限|"
                         + _en(r"total|in total|(?:[a-z]+ )?(?:limit|capacity)") + ")"), _AMOUNT),
    ("threshold", re.compile(r"\s*(?:的)?\s*(?:告警|报警)?(?:阈值|"
                             + _en(r"(?:alert(?:ing)? |alarm |warning |critical )?threshold") + ")"), _ANY),
)
_LATEST = LazyPattern(r"最新|最近一次|最近一条|最后|最晚|截至|直到|到|至|"
                      + _en(r"latest|most recent|newest|last|until|till|through|to"))
_FIRST = LazyPattern(r"最早|首次|第一次|起始|开始于|始于|自|从|"
                     + _en(r"first|earliest|since|from|starting|started|began"))
# Words that state a value as the present one: a current cue anywhere before it in its clause
# (当前使用 4GB; not the 现在 of 出现在 "appeared at"), or a copula right before it
# (内存使用率为 85%, "memory usage is 85%").
_NOW_MARK = re.compile(r"当前|目前|(?<!出)现在|现为|实时|(?:为|是)\s*$|"
                       + _en(r"current(?:ly)?|now|at present|presently") + "|"
                       + _en(r"is|are|stands at|sits at|is at") + r"\s*$")
# "11:05 到 11:17", "from 11:05 to 11:17": the first time of a range.
_RANGE_TO = LazyPattern(r"\s*(?:到|至|~|-|–|" + _en(r"to|until|till|through") + r")\s*\d{1,2}:\d{2}")
_AFTER_FIRST = re.compile(r"\s*(?:开始|起|以来)")
_COUNT_LABEL = re.compile(r"(?:次数|数量|个数|数|count|number|total)\s*$")
_LABEL_TRIM = re.compile(r"^[\s:=：,，、]+|[\s:=：,，、]+$|(?:^|\s)(?:为|是|达到|达|约|大约|is|are|was|at|of|"
                         r"reached|about|around|approximately|roughly|~|≈)\s*$")


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
_STATISTIC = re.compile(r"(?<![a-z0-9])p(\d{2}(?:\.\d+)?)(?![0-9])|(?<![\d.])(\d{2}(?:\.\d+)?)\s*(?:th|st|nd|rd)?\s*"
                        r"(?:percentile|百分位|分位)|(中位数|中值|" + _en("median") + ")")


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
