"""Ref recipes: one entry of a tool output -> the line of text a citation quotes, and the facts
that line was written from (``EvidenceRef.fields``).

The recipes are those of docs/design.md §2 (refs extracted by code, per tool): alert -> name +
state + service + value + duration (+ details), log -> timestamp + level + service + message,
knowledge block -> title + source + content; and a log group -> count + template + level + service + first
and last timestamp. A recipe never infers anything: it copies facts from one entry into its
fields, and writes the text from those same fields, so text and fields never disagree. Readers
of a ref's facts (the verifier) read the fields; only quotes are compared with the text.
"""

from __future__ import annotations

from typing import NamedTuple

from core.contracts import (
    Alert,
    AlertRefFields,
    EvidenceBlock,
    GroupRefFields,
    KnowledgeRefFields,
    LogEntry,
    LogGroup,
    LogRefFields,
    RefFields,
)


class RefContent(NamedTuple):
    """What a recipe makes of one entry: the ref's text and its fields. (A named tuple: a
    frozen dataclass costs every command that imports the tools ~1 ms to create.)"""

    text: str
    fields: RefFields


def alert_ref(alert: Alert) -> RefContent:
    """``HighMemoryUsage firing, service=order-service, current=91%, ...; JVM heap 3.8GB/4GB``."""
    fields = AlertRefFields(alert_name=alert.alert_name, state=alert.state, service=alert.service,
                            severity=alert.severity, current=alert.current,
                            threshold=alert.threshold, duration=alert.duration)
    shown = [("service", fields.service), ("current", fields.current),
             ("threshold", fields.threshold), ("duration", fields.duration),
             ("pod", alert.pod), ("namespace", alert.namespace), ("severity", fields.severity)]
    head = f"{fields.alert_name} {fields.state}, " + ", ".join(
        f"{name}={value}" for name, value in shown if value)
    tail = [*alert.details, *([alert.summary] if alert.summary else [])]
    return RefContent("; ".join([head, *tail]), fields)


def alert_ref_state(text: str) -> tuple[str, str] | None:
    """``(alert name, state)`` at the head of a quote of an alert's ref text (``alert_ref``) that
    keeps its head; None for any other text. For excerpts, which carry no fields."""
    head = text.split(", ", 1)[0].strip()
    name, _, state = head.rpartition(" ")
    if not name or not state or " " in name or not state.isalpha():
        return None
    return name, state


def log_ref(entry: LogEntry) -> RefContent:
    """``[timestamp][LEVEL][service] message``, the log ref shape of docs/design.md §2."""
    fields = LogRefFields(timestamp=entry.timestamp, level=entry.level, service=entry.service,
                          message=entry.message, source=entry.source, host=entry.host)
    return RefContent(f"[{fields.timestamp}][{fields.level}][{fields.service}] {fields.message}", fields)


def group_ref(group: LogGroup) -> RefContent:
    """``147 lines like "ERROR IN CONTACTING RM <*>" [ERROR][hadoop-mapreduce] from A to B``.

    One line always reads ``1 line like "..." [LEVEL][service] at A``; lines sharing one
    timestamp read ``at A``. Timestamps are copied as the group holds them.
    """
    fields = GroupRefFields(template=group.template, count=group.count, level=group.level,
                            service=group.service, first_timestamp=group.first_timestamp,
                            last_timestamp=group.last_timestamp)
    lines = "line" if fields.count == 1 else "lines"
    if fields.first_timestamp == fields.last_timestamp:
        when = f"at {fields.first_timestamp}"
    else:
        when = f"from {fields.first_timestamp} to {fields.last_timestamp}"
    return RefContent(f'{fields.count} {lines} like "{fields.template}" '
                      f"[{fields.level}][{fields.service}] {when}", fields)


def block_ref(block: EvidenceBlock) -> RefContent:
    """``title (source): content`` of one runbook section."""
    fields = KnowledgeRefFields(title=block.title, source=block.source)
    return RefContent(f"{fields.title} ({fields.source}): {block.content}", fields)
