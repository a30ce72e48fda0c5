"""A scenario pack as sources: the embedded default world.

``pack_world(pack)`` wraps a loaded ``Pack`` in three sources, one per capability:
``PackMetrics`` (alerts, series) and ``PackKnowledge`` (runbooks) run the in-memory tools of
``core.tools``; ``PackLogs`` asks the log store (``core.sources.logstore``), whatever form the
pack's logs take: a small log file's entries in an in-memory store, a big file's cached store
(``core.sources.logcache``), or the store ``pack.yaml`` points at. So every world's log search
is the one implementation, with relevance ranking and groups. Sources of a pack have
``source_id`` ``pack:<name>``, except the logs of a pack pointing at a store
(``logstore:<path>``). The request is the validated arguments (and, for the logs, what the
store ran under ``search``). Each source's vocabulary is read from its own data and cached on
the pack, like the pack's search indexes.

``load_world`` is what the pipeline, the CLI and the evals call with whatever they were given:
a pack name, a folder, a loaded ``Pack`` or a ``World``.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from datetime import UTC
from pathlib import Path
from typing import TYPE_CHECKING

from core.errors import LogStoreError, SourceError
from core.packfiles.formats import (
    ALERTS_FILE,
    LOGS_JSONL,
    LOGS_YAML,
    RULES_DIR,
    RUNBOOKS_DIR,
    SERIES_FILE,
    present,
)
from core.packs import Pack, load_pack
from core.sources.base import Request, SourceDescription, Vocabulary, World, served_request
from core.sources.logstore import LogStore
from core.tools.knowledge import knowledge_index, lookup_knowledge
from core.tools.metrics import query_metrics

if TYPE_CHECKING:
    from core.contracts import KnowledgeResult, LogsResult, MetricsResult
    from core.tools.args import LookupKnowledgeArgs, QueryLogsArgs, QueryMetricsArgs


class _PackPart:
    """What the three pack sources share: the pack, its id and its location."""

    kind = "pack"

    def __init__(self, pack: Pack) -> None:
        self.pack = pack

    @property
    def source_id(self) -> str:
        return f"pack:{self.pack.name}"

    def _vocabulary(self, capability: str, read: Callable[[], Vocabulary]) -> Vocabulary:
        """The vocabulary read once per loaded pack (a million log lines take a while)."""
        cached: Vocabulary = self.pack.derived(f"vocabulary.{capability}", read)
        return cached


class PackMetrics(_PackPart):
    """The pack's alerts and metric series (``query_metrics``)."""

    def describe(self) -> SourceDescription:
        return SourceDescription(kind=self.kind, source_id=self.source_id, capability="metrics",
                                 holds={"alerts": len(self.pack.alerts), "series": len(self.pack.series)},
                                 location=str(self.pack.root))

    def vocabulary(self) -> Vocabulary:
        return self._vocabulary("metrics", self._read_vocabulary)

    def _read_vocabulary(self) -> Vocabulary:
        alerts, series = self.pack.alerts, list(self.pack.series.values())
        return Vocabulary(
            services=tuple(dict.fromkeys([a.service for a in alerts] + [s.service for s in series])),
            alert_names=tuple(dict.fromkeys(a.alert_name for a in alerts)),
            metrics=tuple(dict.fromkeys(s.metric for s in series)))

    def query_metrics(self, args: QueryMetricsArgs) -> tuple[MetricsResult, Request]:
        return query_metrics(self.pack, args), served_request(args)


class PackLogs(_PackPart):
    """The pack's log lines (``query_logs``), searched by the log store: opened (or, for a
    small log file, built in memory) once per loaded pack."""

    @property
    def source_id(self) -> str:
        if self.pack.log_store is not None:
            return f"logstore:{self.pack.log_store}"
        return super().source_id

    def store(self) -> LogStore:
        """The store answering for the pack's logs (opened on first use, then cached)."""
        store: LogStore = self.pack.derived("logs.store", self._open)
        return store

    def _open(self) -> LogStore:
        path = self.pack.log_store or self.pack.log_cache
        try:
            if path is not None:
                return LogStore.open(path)
            return LogStore.from_entries(self.pack.logs, self.pack.now.tzinfo or UTC, name=self.pack.name)
        except (LogStoreError, sqlite3.Error) as error:
            raise SourceError(f"the logs of pack {self.pack.name!r} cannot be opened: {error}",
                              source=self.source_id) from None

    def describe(self) -> SourceDescription:
        store = self.pack.log_store
        return SourceDescription(kind="logstore" if store else self.kind, source_id=self.source_id,
                                 capability="logs", holds=self.store().describe().holds,
                                 location=str(store or self.pack.log_file or self.pack.root))

    def vocabulary(self) -> Vocabulary:
        return self._vocabulary("logs", self._read_vocabulary)

    def _read_vocabulary(self) -> Vocabulary:
        return self.store().vocabulary()

    def query_logs(self, args: QueryLogsArgs) -> tuple[LogsResult, Request]:
        """The store's ranked lines and groups; identifiers in the query are the pack's
        services (alerts', series' and logs'), as the planner knows them."""
        try:
            return self.store().query_logs(args, known_services=self.pack.services)
        except (LogStoreError, sqlite3.Error) as error:
            raise SourceError(f"the logs of pack {self.pack.name!r} cannot be searched: {error}",
                              source=self.source_id, request=served_request(args)) from None


class PackKnowledge(_PackPart):
    """The pack's runbooks and alerting rules (``lookup_knowledge``)."""

    def describe(self) -> SourceDescription:
        sections = sum(len(runbook.sections) for runbook in self.pack.runbooks)
        rules = sum(len(group.sections) for group in self.pack.rules)
        holds = {"runbooks": len(self.pack.runbooks), "sections": sections}
        if rules:
            holds["rules"] = rules
        return SourceDescription(kind=self.kind, source_id=self.source_id, capability="knowledge",
                                 holds=holds, location=str(self.pack.root))

    def vocabulary(self) -> Vocabulary:
        """The alert names of the pack's alerting rules (runbooks name no services)."""
        return Vocabulary(rule_names=tuple(dict.fromkeys(
            section.title for group in self.pack.rules for section in group.sections)))

    def lookup_knowledge(self, args: LookupKnowledgeArgs) -> tuple[KnowledgeResult, Request]:
        return lookup_knowledge(self.pack, args), served_request(args)


def _has(pack: Pack, files: tuple[str, ...]) -> bool:
    return any(present(pack.root / name) for name in files)


def pack_metrics(pack: Pack) -> PackMetrics | None:
    """The pack's metrics source, or None for a pack with no alerts or series (neither data nor
    file): a pack of logs alone has no metrics, and an empty answer would read as an absence."""
    return PackMetrics(pack) if pack.alerts or pack.series or _has(pack, (ALERTS_FILE, SERIES_FILE)) else None


def pack_logs(pack: Pack) -> PackLogs | None:
    """The pack's log source, or None for a pack with no logs (no file, store or entries)."""
    held = pack.logs or pack.log_file or pack.log_store or pack.log_cache or pack.log_lines
    return PackLogs(pack) if held or _has(pack, (LOGS_JSONL, LOGS_YAML)) else None


def pack_knowledge(pack: Pack) -> PackKnowledge | None:
    """The pack's knowledge source, or None for a pack with no runbooks or rules."""
    held = pack.runbooks or pack.rules or _has(pack, (RUNBOOKS_DIR, RULES_DIR))
    return PackKnowledge(pack) if held else None


def pack_world(pack: Pack) -> World:
    """The world of a loaded pack: a source for each kind of data it holds (a pack of logs
    alone has no metrics source), its name, clock and example questions."""
    return World(name=pack.name, now=pack.now, metrics=pack_metrics(pack), logs=pack_logs(pack),
                 knowledge=pack_knowledge(pack), description=pack.description,
                 example_questions=tuple(pack.example_questions), clocks=pack.clocks,
                 # A pack that sets ``now`` has no per-service clocks: ``now`` is what it set.
                 clock_basis="the data's clock: its newest data" if pack.clocks else "the pack's now (pack.yaml)")


def load_world(world: str | Path | Pack | World) -> World:
    """A ``World`` from a pack name or folder (``PackError`` if it cannot be loaded), a loaded
    ``Pack``, or a ``World`` (returned as it is)."""
    if isinstance(world, World):
        return world
    return pack_world(world if isinstance(world, Pack) else load_pack(str(world)))


def warm_up(pack: Pack) -> None:
    """Open the pack's log store (build it in memory for a small log file) and index its
    runbooks now rather than on the first tool call. Both are cached on the pack."""
    PackLogs(pack).store()
    knowledge_index(pack)
