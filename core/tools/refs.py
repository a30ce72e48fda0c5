"""Ref-text recipes: one entry of a tool output -> the one line of text a citation quotes.

The recipes are those of docs/design.md §2 (refs extracted by code, per tool): alert -> name +
state + service + value + duration (+ details), log -> timestamp + level + service + message,
knowledge block -> title + source + content; and a log group -> count + template + level + service + first
and last timestamp. A recipe never infers anything: it copies facts from one entry, no more.
"""

from __future__ import annotations

from core.contracts import Alert, EvidenceBlock, LogEntry, LogGroup


def alert_ref_text(alert: Alert) -> str:
    """``HighMemoryUsage firing, service=order-service, current=91%, ...; JVM heap 3.8GB/4GB``."""
    fields = [("service", alert.service), ("current", alert.current),
              ("threshold", alert.threshold), ("duration", alert.duration),
              ("pod", alert.pod), ("namespace", alert.namespace), ("severity", alert.severity)]
    head = f"{alert.alert_name} {alert.state}, " + ", ".join(
        f"{name}={value}" for name, value in fields if value)
    tail = [*alert.details, *([alert.summary] if alert.summary else [])]
    return "; ".join([head, *tail])


def alert_ref_state(text: str) -> tuple[str, str] | None:
    """``(alert name, state)`` at the head of an alert's ref text (``alert_ref_text``), or of a
    quote of it that keeps its head; None for any other text."""
    head = text.split(", ", 1)[0].strip()
    name, _, state = head.rpartition(" ")
    if not name or not state or " " in name or not state.isalpha():
        return None
    return name, state


def log_ref_text(entry: LogEntry) -> str:
    """``[timestamp][LEVEL][service] message``, the log ref shape of docs/design.md §2."""
    return f"[{entry.timestamp}][{entry.level}][{entry.service}] {entry.message}"


def group_ref_text(group: LogGroup) -> str:
    """``147 lines like "ERROR IN CONTACTING RM <*>" [ERROR][hadoop-mapreduce] from A to B``.

    One line always reads ``1 line like "..." [LEVEL][service] at A``; lines sharing one
    timestamp read ``at A``. Timestamps are copied as the group holds them.
    """
    lines = "line" if group.count == 1 else "lines"
    if group.first_timestamp == group.last_timestamp:
        when = f"at {group.first_timestamp}"
    else:
        when = f"from {group.first_timestamp} to {group.last_timestamp}"
    return f'{group.count} {lines} like "{group.template}" [{group.level}][{group.service}] {when}'


def block_ref_text(block: EvidenceBlock) -> str:
    """``title (source): content`` of one runbook section."""
    return f"{block.title} ({block.source}): {block.content}"
