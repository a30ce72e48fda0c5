"""The rules executor's view of evidence: refs with their source entry, service and topics.

Everything here is read from ``retrieval_details.evidence_refs`` and the entry each ref points
at (``$.alerts[i]`` -> ``output.alerts[i]``), never invented. Two judgements are made:

- *scope*: a ref belongs to a topic when it mentions it and the topics in scope outweigh the
  others in its text (weight = characters of topic synonyms), so "java.lang.OutOfMemoryError:
  Java heap space" is an OOM line, not a memory-usage line, while "CPU使用率过高 ... 活跃线程数"
  stays a CPU line;
- *rendering*: log lines with the same shape become one phrase with their varying number as a
  trend, oldest first ("内存使用率过高: 86.2% → ... → 91.0%, JVM堆内存: 3.8GB/4GB"), built only
  from the lines' own text so every fact stays quotable.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from core.contracts import Alert, EvidenceBinding, EvidenceRef, Invocation, LogEntry
from core.language.chars import HAN
from core.language.lexicon import expand_topics, topic_mentions
from core.language.text import normalize
from core.lazypattern import LazyPattern
from core.tools.spec import evidence_at

# A number a trend may vary: not part of an identifier (v1, HikariPool-1, :6379, pod hashes).
_VALUE_RE = re.compile(r"(?<![\w\-./:])\d+(?:\.\d+)?(?:%|[a-zA-Z]+)?(?![\w.])")
_ARROW = " → "


@dataclass(frozen=True)
class EvidenceItem:
    """One ref of one invocation, with the alert or log entry it was extracted from."""

    invocation: Invocation
    ref: EvidenceRef
    kind: Literal["alert", "log"]
    service: str
    text: str  # what topics are read from: the log message, or the whole alert ref
    alert: Alert | None = None
    log: LogEntry | None = None

    def binding(self) -> EvidenceBinding:
        """A citation of this ref quoting its whole text (always a faithful quote)."""
        return EvidenceBinding(tool_name=self.invocation.tool_name,
                               source_invocation_id=self.invocation.invocation_id,
                               raw_path=self.ref.raw_path, evidence_excerpt=self.ref.text)

    def topic_weights(self) -> dict[str, int]:
        """Topic -> how many times the text names it (by its synonyms). Mentions, not characters:
        "被重启 ... 重启次数" names a restart as often as "OOMKilled (exit code 137)" an OOM."""
        weights: dict[str, int] = defaultdict(int)
        for mention in topic_mentions(normalize(self.text), in_logs=True):
            weights[mention.topic] += 1
        return dict(weights)


def collect_items(invocations: Iterable[Invocation]) -> list[EvidenceItem]:
    """Every alert and log-line ref of the invocations, with its entry. Refs of other evidence
    lists (log groups, runbook blocks) and refs without an entry are skipped."""
    items: list[EvidenceItem] = []
    for invocation in invocations:
        details = invocation.retrieval_details
        if details is None:
            continue
        for ref in details.evidence_refs:
            located = evidence_at(invocation.tool_name, ref.raw_path)
            if located is None:
                continue
            evidence, index = located
            entries = invocation.output.get(evidence.key) or []
            if index >= len(entries):
                continue
            if evidence.entry is Alert:
                alert = Alert.model_validate(entries[index])
                items.append(EvidenceItem(invocation, ref, "alert", alert.service, ref.text,
                                          alert=alert))
            elif evidence.entry is LogEntry:
                log = LogEntry.model_validate(entries[index])
                items.append(EvidenceItem(invocation, ref, "log", log.service, log.message, log=log))
    return items


def belongs_to(item: EvidenceItem, topic: str, scope: set[str], alert_topics: list[str],
               asked_alerts: Sequence[str]) -> bool:
    """Whether the item is evidence about ``topic`` for a question whose scope is ``scope``."""
    if item.alert is not None:
        return item.alert.alert_name in asked_alerts or topic in alert_topics
    weights = item.topic_weights()
    covered = set(expand_topics([topic]))
    if not covered & set(weights):
        return False
    inside = sum(weight for name, weight in weights.items() if name in scope | covered)
    outside = sum(weight for name, weight in weights.items() if name not in scope | covered)
    return inside >= outside


def main_topic(item: EvidenceItem) -> str | None:
    """The heaviest topic of an item's text (for questions that name no topic)."""
    weights = item.topic_weights()
    return max(weights, key=lambda name: weights[name]) if weights else None


def dedupe(items: Iterable[EvidenceItem]) -> list[EvidenceItem]:
    """Items without repeats of the same ref of the same invocation, order kept."""
    seen: set[tuple[int, str]] = set()
    unique: list[EvidenceItem] = []
    for item in items:
        key = (item.invocation.invocation_id, item.ref.raw_path)
        if key not in seen:
            seen.add(key)
            unique.append(item)
    return unique


# ---------------------------------------------------------------- rendering log lines


def _shape(message: str) -> str:
    return _VALUE_RE.sub("#", message)


def render_logs(items: Sequence[EvidenceItem], limit: int = 4) -> list[str]:
    """Phrases for log items, oldest first: same-shaped lines merged into one trend phrase."""
    logs = sorted((item for item in items if item.log is not None),
                  key=lambda item: item.log.timestamp if item.log else "")
    groups: dict[str, list[str]] = {}
    for item in logs:
        assert item.log is not None
        groups.setdefault(_shape(item.log.message), []).append(item.log.message)
    phrases = [_trend(messages) for messages in groups.values()]
    return phrases[-limit:] if len(phrases) > limit else phrases


def _trend(messages: list[str]) -> str:
    """One phrase for same-shaped messages (oldest first): the newest, with its first varying
    number replaced by the whole series."""
    newest = messages[-1]
    distinct = list(dict.fromkeys(messages))
    if len(distinct) == 1:
        return newest
    per_message = [list(_VALUE_RE.finditer(message)) for message in messages]
    positions = min(len(found) for found in per_message)
    for position in range(positions):
        values = [found[position].group() for found in per_message]
        if len(set(values)) > 1:
            anchor = per_message[-1][position]
            if not _measured(newest, anchor):
                return newest  # "... HTTP/1.1" 503" then "502": two statuses, not a trend
            steps = [value for index, value in enumerate(values)
                     if index == 0 or value != values[index - 1]]
            return newest[:anchor.start()] + _ARROW.join(steps) + newest[anchor.end():]
    return newest


# A value a line reports as a measurement: after its name ("usage: 86%", "active=50/50", "耗时
# 850ms") or with a unit of its own ("86.2%", "3.8GB").
_NAMED_BEFORE = LazyPattern(rf"(?:[:=：]|[A-Za-z{HAN}])\s*$")


def _measured(message: str, value: re.Match[str]) -> bool:
    """Whether the varying number of same-shaped lines is a measurement (a trend is told as
    "86% → 87%"), not a status, a count of attempts or an id."""
    has_unit = not value.group().replace(".", "").isdigit()
    return has_unit or _NAMED_BEFORE.search(message, 0, value.start()) is not None
