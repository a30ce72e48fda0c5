"""The log store: log lines in SQLite with FTS5, answering ``query_logs`` at a million lines.

A store is one SQLite file (or an in-memory database for a pack's own logs,
``LogStore.from_entries``). Messages are indexed once, when they are written
(``LogWriter``, used by ``superbiz logs import``); a query filters by index (service, level
rank, time), searches by FTS5, ranks by ``bm25`` and counts its groups (templates) with
``GROUP BY`` -- never by loading every line into Python. What matches is defined in
``core.tools.logquery``; ``core.sources.logsql`` writes it as SQL. Schema and semantics: docs/logstore.md.

A ``LogStore`` is a ``LogSource`` (``core.sources.base``): ``source_id``, ``describe()``,
``vocabulary()`` and ``query_logs(args)``, which returns the result and the exact request it
served: the validated arguments (what the gatekeeper holds a cited invocation's arguments to),
and under ``search`` what ran (the compiled query, the FTS5 expression, the SQL and its
parameters).
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, tzinfo
from pathlib import Path
from typing import Any, NamedTuple

from core.contracts import LogEntry, LogGroup, LogsResult
from core.errors import LogStoreError
from core.logfields import level_rank, parse_timestamp, parse_zone, zone_name
from core.sources.base import ENTITY_KINDS, DataEntity, SourceDescription, Vocabulary, served_request
from core.sources.logentities import store_entities
from core.sources.logfile import (
    check_store,
    connect,
    finish_indexes,
    has_written_levels,
    lexicon_fingerprint,
    upgrade_schema,
)
from core.sources.logsql import QueryPlan, build_plan
from core.sources.logtext import CANDIDATE_TERMS
from core.tools.args import QueryLogsArgs
from core.tools.logquery import CompiledQuery, compile_query

MAX_GROUPS = 50  # groups listed in a result, largest first (``total`` still counts every line)
# A query matching at most this many lines is ranked and grouped here from one select; past
# it, SQLite ranks and groups (the first rows read are then the only work thrown away).
FEW_MATCHES = 1000
# Groups with untallied lines counted line by line by naming them (``l.group_id IN (...)``); past
# this many, every group is (SQLite takes at most 32,766 parameters a statement).
MAX_RECOUNT_GROUPS = 1000
_NEWEST = "SELECT e.ts FROM lines l JOIN entries e ON e.id = l.id ORDER BY l.ts_us DESC, l.id DESC LIMIT 1"
_NEWEST_OF = ("SELECT e.ts FROM lines l JOIN entries e ON e.id = l.id WHERE l.service_key = ? "
              "ORDER BY l.ts_us DESC, l.id DESC LIMIT 1")


class LogStore:
    """A log store opened for queries. Thread-safe (one connection behind a lock)."""

    def __init__(self, connection: sqlite3.Connection, location: str) -> None:
        self._connection = connection
        self._location = location
        self._lock = threading.RLock()
        meta = upgrade_schema(connection)
        self._zone = parse_zone(meta.get("timezone", "UTC"))
        self._services: list[str] | None = None
        self._entities: tuple[DataEntity, ...] | None = None
        self._hits_table = False
        if meta.get("lexicon") != lexicon_fingerprint():
            from core.sources.logwriter import retag_topics

            retag_topics(connection)

    # ------------------------------------------------------------ opening

    @classmethod
    def open(cls, path: str | Path) -> LogStore:
        """Open a store file; ``LogStoreError`` (one line) when it is missing or not a store."""
        location = Path(path)
        problem = check_store(location)
        if problem is not None:
            raise LogStoreError(f"{location}: {problem}")
        return cls(connect(location), str(location.resolve()))

    @classmethod
    def from_entries(cls, entries: Iterable[LogEntry], zone: tzinfo = UTC,
                     name: str = "memory") -> LogStore:
        """An in-memory store of a pack's log entries (their timestamps kept as written;
        a timestamp without a zone is in ``zone``). ``LogStoreError`` for a bad timestamp."""
        from core.sources.logwriter import LogWriter, create_schema

        connection = connect(":memory:")
        create_schema(connection, zone)
        with LogWriter(connection, path=f"<{name}>", layout="entries", zone=zone) as writer:
            for number, entry in enumerate(entries, start=1):
                writer.add_entry(entry, number)
        finish_indexes(connection)
        return cls(connection, f":memory:{name}")

    def close(self) -> None:
        """Close the connection."""
        with self._lock:
            self._connection.close()

    # ------------------------------------------------------------ the LogSource surface

    @property
    def source_id(self) -> str:
        """``logstore:<path>`` (``logstore::memory:<name>`` for an in-memory store)."""
        return f"logstore:{self._location}"

    def describe(self) -> SourceDescription:
        """What the store holds (counts only: cheap)."""
        with self._lock:
            lines = self._connection.execute("SELECT count(*) FROM lines").fetchone()[0]
            templates = self._connection.execute("SELECT count(*) FROM templates").fetchone()[0]
        return SourceDescription(kind="logstore", source_id=self.source_id, capability="logs",
                                 holds={"lines": lines, "templates": templates}, location=self._location)

    def vocabulary(self) -> Vocabulary:
        """The services the store's lines name, and the hosts, components, users ... they name."""
        services = tuple(self.services())
        return Vocabulary(services=services, log_services=services, entities=self.entities())

    def entities(self) -> tuple[DataEntity, ...]:
        """The most-named hosts, components, users, pods, namespaces and jobs of the lines
        (``core.sources.logentities``), read once."""
        if self._entities is None:
            with self._lock:
                rows = store_entities(self._connection)
            # Each kind as its literal (a kind this code does not know is skipped).
            self._entities = tuple(DataEntity(name, known, lines) for kind, name, lines in rows
                                   for known in ENTITY_KINDS if kind == known)
        return self._entities

    @property
    def zone(self) -> tzinfo:
        """The zone timestamps are written in and ``since``/``until`` without one are read in."""
        return self._zone

    def line_count(self) -> int:
        """How many lines the store holds (from its files' counts: no scan)."""
        with self._lock:
            row = self._connection.execute("SELECT coalesce(sum(entries), 0) FROM files").fetchone()
        return int(row[0])

    def newest_by_service(self) -> dict[str, datetime]:
        """Each service's latest line's timestamp: by the service index, one seek per service."""
        newest: dict[str, datetime] = {}
        for service in self.services():
            with self._lock:
                row = self._connection.execute(_NEWEST_OF, (service.strip().lower(),)).fetchone()
            moment = parse_timestamp(row[0], self._zone) if row else None
            if moment is not None:
                newest[service] = moment
        return newest

    def services(self) -> list[str]:
        """Every service with lines, by first appearance (case variants count once)."""
        if self._services is None:
            with self._lock:
                rows = self._connection.execute("SELECT service FROM groups ORDER BY id").fetchall()
            seen: dict[str, str] = {}
            for (name,) in rows:
                seen.setdefault(name.strip().lower(), name)
            self._services = list(seen.values())
        return list(self._services)

    def query_logs(self, args: QueryLogsArgs,
                   known_services: Iterable[str] | None = None) -> tuple[LogsResult, dict[str, Any]]:
        """The lines matching ``args`` (ranked) and their groups, and the request served: the
        validated arguments, and under ``search`` the compiled query and the SQL that ran.

        ``known_services`` are the names a query may mention as identifiers (default: the
        store's services). Raises ``ToolArgumentError`` for an unknown level or a bad time.
        """
        names = list(known_services) if known_services is not None else self.services()
        query = compile_query(args, names, self._zone)
        with self._lock:
            plan = build_plan(query, self._terms_containing, self._span)
            request: dict[str, Any] = {**served_request(args),
                                       "search": {"query": query.describe(), **plan.describe()}}
            if plan.empty:
                return LogsResult(success=True, message="未找到匹配的日志"), request
            matched = self._run(query, plan, args.limit)
            if matched.recount is not None:
                request["search"]["recount"] = matched.recount
            listed = _largest(matched.groups)
            shown_ids = [line_id for line_id, _ in matched.top]
            if matched.edges is None:
                rows, described = self._details(shown_ids, listed)
                stamps = self._timestamps([(row[0], us) for row in listed for us in (row[2], row[3])])
            else:  # the lines at each group's edges are known: read them with the lines shown
                edges = {key: matched.edges[key] for row in listed for key in ((row[0], row[2]), (row[0], row[3]))}
                rows, described = self._details([*shown_ids, *edges.values()], listed)
                stamps = {key: str(rows[line_id][1]) for key, line_id in edges.items()}
            logs = [_entry(rows[line_id]) for line_id in shown_ids]
            groups = _groups(listed, [group_id for _, group_id in matched.top], stamps, described)
        total = sum(row[1] for row in matched.groups)
        return LogsResult(success=True, logs=logs, groups=groups, total=total,
                          message=_message(total, len(logs), len(matched.groups))), request

    def matching_ids(self, args: QueryLogsArgs, known_services: Iterable[str] | None = None) -> list[int]:
        """Ids (in writing order: a pack's entries are 1, 2, ...) of every line matching ``args``."""
        names = list(known_services) if known_services is not None else self.services()
        query = compile_query(args, names, self._zone)
        with self._lock:
            plan = build_plan(query, self._terms_containing, self._span)
            if plan.empty:
                return []
            rows = self._connection.execute(plan.ids_sql, plan.params).fetchall()
        return sorted(row[0] for row in rows)

    # ------------------------------------------------------------ helpers

    def _run(self, query: CompiledQuery, plan: QueryPlan, limit: int) -> _Matched:
        """The top lines and every group. Lines holding each word whole (``plan.whole_words``)
        rank first, by their own bm25: read first, they spare ranking every match when they
        fill the limit (a common word). The rest as ``_rest`` finds them."""
        first: list[tuple[int, int]] = []
        if plan.whole_words is not None:
            first = self._connection.execute(plan.lines_sql, (*plan.whole_words_params, limit)).fetchall()
        rest = self._rest(query, plan, limit - len(first), skip=len(first))
        taken = {line_id for line_id, _ in first}
        top = first + [row for row in rest.top if row[0] not in taken][:limit - len(first)]
        return rest._replace(top=top)

    def _rest(self, query: CompiledQuery, plan: QueryPlan, limit: int, skip: int) -> _Matched:
        """The top ``limit`` lines after the ``skip`` ranked first (these are read too: the
        caller drops them), and every group. When lines' text must be checked (a Python
        function per line), the matching lines are collected once into a temporary table both
        selects read. A query matching few lines (a rare id: most questions) is answered from
        one select instead, ranked and grouped here by the same order and aggregates. A query of
        words alone (and filters of whole groups) is counted from the tallies (``_tallied``)."""
        run = self._connection.execute
        matches = run(*plan.matches(FEW_MATCHES)).fetchall()
        counted = plan.candidates_sql(FEW_MATCHES) if not matches else None  # none, or too many?
        if len(matches) <= FEW_MATCHES and (counted is None or run(*counted).fetchone()[0] <= FEW_MATCHES):
            return _rank_and_group(matches, limit + skip)
        if not plan.checks_text or not limit:  # with no line to rank, the groups check each line once
            top = run(plan.lines_sql, (*plan.lines_params, limit + skip)).fetchall() if limit else []
            if plan.tally_words is not None:
                return self._tallied(query, plan, top)
            return _Matched(top, run(plan.groups_sql, plan.params).fetchall())
        # One temporary table per connection, emptied after each use: creating and dropping
        # it per query would change the schema and re-prepare every statement.
        if not self._hits_table:
            run("CREATE TEMP TABLE IF NOT EXISTS hits (id INTEGER, group_id INTEGER, ts_us INTEGER, score REAL)")
            self._hits_table = True
        try:
            run(plan.hits_sql, plan.lines_params)
            top = run("SELECT id, group_id FROM temp.hits ORDER BY score, ts_us DESC, id DESC LIMIT ?",
                      (limit + skip,)).fetchall()
            groups = run("SELECT group_id, count(*), min(ts_us), max(ts_us) FROM temp.hits "
                         "GROUP BY group_id").fetchall()
        finally:
            run("DELETE FROM temp.hits")
        return _Matched(top, groups)

    def _tallied(self, query: CompiledQuery, plan: QueryPlan, top: list[tuple[int, int]]) -> _Matched:
        """``top`` and the groups of a query of words, counted from the store's tallies; groups
        with untallied lines are counted line by line (the request's ``recount``: its SQL and
        parameters)."""
        run = self._connection.execute
        rows = run(plan.tally_sql, plan.tally_params).fetchall()
        groups = [row for row in rows if row[1] is not None]
        untallied = [row[0] for row in rows if row[1] is None]
        if not untallied:
            return _Matched(top, groups)
        if len(untallied) > MAX_RECOUNT_GROUPS:  # a parameter per group: count every group as before
            return _Matched(top, run(plan.groups_sql, plan.params).fetchall())
        recount = build_plan(query, self._terms_containing, self._span, groups=untallied)
        groups += run(recount.groups_sql, recount.params).fetchall()
        return _Matched(top, groups, recount={"groups_sql": recount.groups_sql,
                                              "groups_params": list(recount.params)})

    def _terms_containing(self, text: str) -> list[str]:
        rows = self._connection.execute(
            "SELECT term FROM vocab WHERE instr(term, ?) > 0 LIMIT ?", (text, CANDIDATE_TERMS + 1))
        return [row[0] for row in rows]

    def _span(self, service_key: str) -> tuple[int, int] | None:
        row = self._connection.execute("SELECT first_id, last_id FROM service_spans WHERE service_key = ?",
                                       (service_key,)).fetchone()
        return (row[0], row[1]) if row is not None else None

    def _details(self, ids: list[int], listed: list[tuple[int, int, int, int]]
                 ) -> tuple[dict[int, tuple[Any, ...]], dict[int, tuple[Any, ...]]]:
        """Each line's entry row (id, ts, level, service, message, source, host) and each listed
        group's (template, service, level), by id: one statement for both."""
        if not ids and not listed:
            return {}, {}
        line_marks = ", ".join("?" for _ in ids)
        group_marks = ", ".join("?" for _ in listed)
        rows: dict[int, tuple[Any, ...]] = {}
        described: dict[int, tuple[Any, ...]] = {}
        for row in self._connection.execute(
                f"SELECT 0, id, ts, level, service, message, source, host FROM entries WHERE id IN ({line_marks}) "
                f"UNION ALL SELECT 1, g.id, t.template, g.service, g.level, NULL, NULL, NULL FROM groups g "
                f"LEFT JOIN templates t ON t.id = g.template_id WHERE g.id IN ({group_marks})",
                (*ids, *(row[0] for row in listed))):
            if row[0]:
                described[row[1]] = row[2:5]
            else:
                rows[row[1]] = row[1:]
        return rows, described

    def _timestamps(self, wanted: list[tuple[int, int]]) -> dict[tuple[int, int], str]:
        """The timestamp text of the first line of each (group id, instant in µs), in one
        statement (by the time index; the pairs are picked out here)."""
        pairs = set(wanted)
        moments = sorted({us for _, us in pairs})
        group_ids = sorted({group_id for group_id, _ in pairs})
        rows = self._connection.execute(
            f"SELECT l.group_id, l.ts_us, e.ts FROM lines l JOIN entries e ON e.id = l.id "
            f"WHERE l.ts_us IN ({', '.join('?' for _ in moments)}) "
            f"AND l.group_id IN ({', '.join('?' for _ in group_ids)}) ORDER BY l.id", (*moments, *group_ids))
        found: dict[tuple[int, int], str] = {}
        for group_id, moment, text in rows:
            if (group_id, moment) in pairs:
                found.setdefault((group_id, moment), str(text))
        return found

    def stats(self) -> dict[str, Any]:
        """What the store holds: lines, services, levels (and how lines wrote them, when not by
        their canonical names: logcat's ``E`` for ERROR), time range, templates, files."""
        with self._lock:
            run = self._connection.execute
            per_group = run("SELECT g.service, g.level, g.template_id, s.lines FROM group_spans s "
                            "JOIN groups g ON g.id = s.group_id").fetchall()
            first = run("SELECT e.ts FROM lines l JOIN entries e ON e.id = l.id "
                        "ORDER BY l.ts_us, l.id LIMIT 1").fetchone()
            last = run(_NEWEST).fetchone()
            templates = run("SELECT count(*) FROM templates").fetchone()[0]
            files = run("SELECT path, layout, timezone, imported_at, physical_lines, entries, unparsed "
                        "FROM files ORDER BY id").fetchall()
            written: dict[str, dict[str, int]] = {}
            if has_written_levels(self._connection):  # a store written before has none
                for level, as_written, count in run(
                        "SELECT level, written_level, count(*) FROM entries WHERE written_level IS NOT NULL "
                        "GROUP BY level, written_level ORDER BY level, written_level"):
                    written.setdefault(level, {})[as_written] = count
        services: dict[str, int] = {}
        levels: dict[str, int] = {}
        for service, level, _, count in per_group:
            services[service] = services.get(service, 0) + count
            levels[level] = levels.get(level, 0) + count
        rank = {name: level_rank(name) for name in levels}
        return {
            "store": self._location, "timezone": zone_name(self._zone),
            "lines": sum(row[3] for row in per_group),
            "services": dict(sorted(services.items(), key=lambda item: (-item[1], item[0]))),
            "levels": dict(sorted(levels.items(), key=lambda item: (-(rank[item[0]] or -1), item[0]))),
            "written_levels": written,
            "first_timestamp": first[0] if first else None,
            "last_timestamp": last[0] if last else None,
            "templates": templates,
            "templates_seen": len({row[2] for row in per_group}),
            "files": [{"path": f[0], "layout": f[1], "timezone": f[2], "imported_at": f[3],
                       "physical_lines": f[4], "entries": f[5], "unparsed": f[6]} for f in files],
        }

    @contextmanager
    def connection(self) -> Iterator[sqlite3.Connection]:
        """The store's connection, under its lock (for benchmarks and tests)."""
        with self._lock:
            yield self._connection


class _Matched(NamedTuple):
    """What ``LogStore._run`` found: (id, group id) of the top lines; (group id, count, first
    µs, last µs) of every group; when every match was read, the first matching line at each
    (group id, µs) edge (None: the edges' lines are looked up by time); and the SQL that
    counted some groups line by line after the tallies (``LogStore._tallied``), if any."""

    top: list[tuple[int, int]]
    groups: list[tuple[int, int, int, int]]
    edges: dict[tuple[int, int], int] | None = None
    recount: dict[str, Any] | None = None


def _rank_and_group(matches: list[tuple[int, int, int, float]], limit: int) -> _Matched:
    """``LogStore._run``'s answer from every match (id, group id, µs, score): the top ``limit``
    by score, newest first on ties (``logsql``'s ORDER BY), each group's count, first and last
    µs, and the first line (lowest id) at each of those instants."""
    top = sorted(matches, key=lambda match: (match[3], -match[2], -match[0]))[:limit]
    groups: dict[int, list[int]] = {}
    edges: dict[tuple[int, int], int] = {}
    for line_id, group_id, moment, _ in matches:
        group = groups.get(group_id)
        if group is None:
            groups[group_id] = [1, moment, moment]
        else:
            group[0] += 1
            group[1] = min(group[1], moment)
            group[2] = max(group[2], moment)
        key = (group_id, moment)
        edges[key] = min(edges.get(key, line_id), line_id)
    return _Matched([(line_id, group_id) for line_id, group_id, _, _ in top],
                    [(group_id, count, first, last) for group_id, (count, first, last) in groups.items()],
                    edges)


def _groups(listed: list[tuple[int, int, int, int]], shown_groups: list[int], stamps: dict[tuple[int, int], str],
            described: dict[int, tuple[Any, ...]]) -> list[LogGroup]:
    """The listed groups (id, count, first µs, last µs) as a result tells them: ``described``
    holds each one's template, service and level, ``stamps`` the timestamp text of each (group
    id, µs) edge, ``shown_groups`` the group of each line shown."""
    samples: dict[int, list[int]] = {}
    for index, group_id in enumerate(shown_groups):
        samples.setdefault(group_id, []).append(index)
    groups = []
    for group_id, count, first_us, last_us in listed:
        template, service, level = described[group_id]
        groups.append(LogGroup(
            template=template or "", count=count, service=service, level=level,
            first_timestamp=stamps.get((group_id, first_us), ""),
            last_timestamp=stamps.get((group_id, last_us), ""),
            sample_indexes=samples.get(group_id, [])))
    return groups


def _largest(group_rows: list[tuple[int, int, int, int]]) -> list[tuple[int, int, int, int]]:
    """The groups a result lists: largest first, then the latest, at most ``MAX_GROUPS``."""
    return sorted(group_rows, key=lambda row: (-row[1], -row[3], row[0]))[:MAX_GROUPS]


def _entry(row: tuple[Any, ...]) -> LogEntry:
    return LogEntry(timestamp=row[1], level=row[2], service=row[3], message=row[4], source=row[5], host=row[6])


def _message(total: int, shown: int, groups: int) -> str:
    if not total:
        return "未找到匹配的日志"
    kinds = f"（{groups} 类）" if groups else ""
    if total > shown:
        return f"找到 {total} 条日志{kinds}，返回最相关的 {shown} 条"
    return f"找到 {total} 条日志{kinds}"
