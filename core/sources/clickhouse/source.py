"""``ClickHouseLogs``: the ``LogSource`` of an ``otel_logs`` table (the OpenTelemetry Collector's
ClickHouse exporter's schema) in a ClickHouse server or an embedded ``chdb`` folder.

``query_logs`` runs the SQL of ``core.sources.clickhouse.sql``: the matching lines newest first,
and the groups (template, service, level) counted by the engine with ``GROUP BY``. The request
records every statement with its parameters and the rows the engine read. A statement stops at
``max_rows_to_read`` rows (``read_overflow_mode = 'break'``): an answer cut there is a
``SourceError`` naming the limit, never an empty success (an absence must be a whole answer).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime, timedelta, tzinfo
from typing import Any

from core.contracts import LogEntry, LogGroup, LogsResult
from core.errors import SourceError
from core.language.lexicon import topic_mentions
from core.language.text import normalize
from core.logfields import level_rank
from core.sources.base import DataEntity, SourceDescription, Vocabulary, served_request
from core.sources.clickhouse.client import Answer, Client
from core.sources.clickhouse.sql import HOST, LINE_KEY, SOURCE, TOPICS_KEY, TableFacts, build
from core.sources.logstore import MAX_GROUPS, _message
from core.tools.args import QueryLogsArgs
from core.tools.logquery import compile_query

DEFAULT_MAX_ROWS = 100_000_000  # rows one statement may read (a table scan past it is cut, and said)
PYTHON_TOPIC_ROWS = 100_000  # candidate rows a topic check of a Collector table reads at most
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _name(text: str) -> str:
    return "`" + text.replace("`", "``") + "`"


def iso_us(moment_us: int) -> str:
    """A µs instant as the timestamp text of a line the table gives no text for."""
    return (_EPOCH + timedelta(microseconds=moment_us)).isoformat()


class ClickHouseLogs:
    """A log source over ``database.table``; ``client`` reaches the engine (``client.py``)."""

    def __init__(self, client: Client, database: str = "otel", table: str = "otel_logs", *,
                 max_rows: int = DEFAULT_MAX_ROWS, kind: str = "clickhouse") -> None:
        self._client, self._database, self._table = client, database, table
        self._max_rows, self._kind = max_rows, kind
        self._qualified = f"{_name(database)}.{_name(table)}"
        self._facts: TableFacts | None = None
        self._clocks: dict[str, datetime] = {}
        self._hosts: list[tuple[str, int]] = []
        self._lines = 0

    # ------------------------------------------------------------ opening

    def facts(self) -> TableFacts:
        """What the SQL needs of the table, read once (services, hosts and sources: one GROUP BY)."""
        if self._facts is None:
            self._facts = self._read_facts()
        return self._facts

    def _read_facts(self) -> TableFacts:
        columns = self._ask("SELECT name FROM system.columns WHERE database = {db:String} AND table = {t:String}",
                            {"db": self._database, "t": self._table})
        names = {str(row[0]) for row in columns.rows}
        if "Body" not in names:
            raise SourceError(f"{self.source_id}: no table {self._database}.{self._table} with a Body column",
                              source=self.source_id)
        rows = self._ask(f"SELECT ServiceName, {HOST}, {SOURCE}, count(), min(toUnixTimestamp64Micro(Timestamp)), "
                         f"max(toUnixTimestamp64Micro(Timestamp)), min(toInt64OrZero(LogAttributes['{LINE_KEY}'])) "
                         f"FROM {self._qualified} GROUP BY ServiceName, {HOST}, {SOURCE} "
                         "ORDER BY 7, 5, 1 LIMIT 100000", {}).rows
        services: dict[str, None] = {}
        meta: dict[str, None] = {}
        hosts: dict[str, int] = {}
        for service, host, source, count, _, newest, _ in rows:
            services.setdefault(str(service), None)
            for name in (service, host, source):
                if name:
                    meta.setdefault(str(name).lower(), None)
            if host:
                hosts[str(host)] = hosts.get(str(host), 0) + int(count)
            moment = _EPOCH + timedelta(microseconds=int(newest))
            self._clocks[str(service)] = max(moment, self._clocks.get(str(service), moment))
            self._lines += int(count)
        self._hosts = sorted(hosts.items(), key=lambda item: -item[1])[:200]
        lacking = self._ask(f"SELECT 1 FROM {self._qualified} WHERE NOT mapContains(LogAttributes, "
                            f"'{TOPICS_KEY}') LIMIT 1", {}).rows
        other = self._ask(f"SELECT 1 FROM {self._qualified} WHERE NOT isValidASCII(Body) LIMIT 1", {}).rows
        return TableFacts(table=self._qualified, time_column="TimestampTime" in names, ascii_bodies=not other,
                          services=tuple(services), meta_names=tuple(meta),
                          topics_stored=bool(rows) and not lacking)

    def _ask(self, sql: str, params: dict[str, Any], request: dict[str, Any] | None = None) -> Answer:
        try:
            return self._client.query(sql, params)
        except SourceError:
            raise
        except Exception as error:  # the engine's or the network's: one line, never an absence
            first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
            raise SourceError(f"{self.source_id}: {first[:300]}", source=self.source_id, request=request) from None

    # ------------------------------------------------------------ the LogSource surface

    @property
    def source_id(self) -> str:
        """``clickhouse:<url>/<database>.<table>`` or ``chdb:<folder>/<database>.<table>``."""
        return f"{self._kind}:{self._client.where}/{self._database}.{self._table}"

    @property
    def zone(self) -> tzinfo:
        return UTC

    def describe(self) -> SourceDescription:
        try:
            facts = self.facts()
        except SourceError as error:
            return SourceDescription(kind=self._kind, source_id=self.source_id, capability="logs", holds={},
                                     location=self._client.where, problem=str(error))
        return SourceDescription(kind=self._kind, source_id=self.source_id, capability="logs",
                                 holds={"lines": self._lines, "services": len(facts.services)},
                                 location=self._client.where)

    def vocabulary(self) -> Vocabulary:
        services = tuple(dict.fromkeys(self.services()))
        entities = tuple(DataEntity(name, "host", lines) for name, lines in self._hosts)
        return Vocabulary(services=services, log_services=services, entities=entities)

    def services(self) -> list[str]:
        """Every service with lines (case variants count once), oldest first."""
        seen: dict[str, str] = {}
        for name in self.facts().services:
            seen.setdefault(name.strip().lower(), name)
        return list(seen.values())

    def newest_by_service(self) -> dict[str, datetime]:
        self.facts()
        return dict(self._clocks)

    def line_count(self) -> int:
        self.facts()
        return self._lines

    def query_logs(self, args: QueryLogsArgs,
                   known_services: Iterable[str] | None = None) -> tuple[LogsResult, dict[str, Any]]:
        """The lines matching ``args`` (newest first) and their groups; the request holds the
        validated arguments and, under ``search``, each statement, its parameters and the rows
        the engine read."""
        facts = self.facts()
        names = list(known_services) if known_services is not None else self.services()
        query = compile_query(args, names, UTC)
        plan = build(query, facts)
        search: dict[str, Any] = {"query": query.describe(), "max_rows_to_read": self._max_rows, "statements": []}
        request: dict[str, Any] = {**served_request(args), "search": search}
        if plan.empty:
            return LogsResult(success=True, message=_message(0, 0, 0)), request
        if plan.python_topics:
            return self._with_python_topics(plan, query, args.limit, request)
        groups = self._run(plan.groups_sql(MAX_GROUPS), plan.params, request)
        lines = self._run(plan.lines_sql(args.limit), plan.params, request)
        total = int(groups[0][8]) if groups else 0
        group_count = int(groups[0][9]) if groups else 0
        listed = [(str(g[0]), str(g[1]), str(g[2]), int(g[3]), int(g[4]), int(g[5]), str(g[6]), str(g[7]))
                  for g in groups]
        return _result(lines, listed, total, group_count), request

    def _run(self, sql: str, params: dict[str, Any], request: dict[str, Any]) -> list[list[Any]]:
        statement = f"{sql} SETTINGS max_rows_to_read = {self._max_rows}, read_overflow_mode = 'break'"
        record: dict[str, Any] = {"sql": statement, "params": params}
        request["search"]["statements"].append(record)
        answer = self._ask(statement, params, request)
        record["rows_read"] = answer.rows_read
        if answer.rows_read >= self._max_rows:
            raise SourceError(f"{self.source_id}: the answer was cut at {answer.rows_read:,} rows read "
                              f"(max_rows_to_read {self._max_rows:,}): partial, so not an absence",
                              source=self.source_id, request=request)
        return answer.rows

    def _with_python_topics(self, plan: Any, query: Any, limit: int,
                            request: dict[str, Any]) -> tuple[LogsResult, dict[str, Any]]:
        """A topic asked of a table without stored topics: SQL finds the candidates (every other
        filter), and each is held to ``CompiledQuery.accepts`` here with the topics its body
        mentions. More than ``PYTHON_TOPIC_ROWS`` candidates fail the call (said, not cut)."""
        rows = self._run(plan.candidates_sql(PYTHON_TOPIC_ROWS + 1), plan.params, request)
        request["search"]["topics_checked_here"] = len(rows)
        if len(rows) > PYTHON_TOPIC_ROWS:
            raise SourceError(f"{self.source_id}: a topic asked of more than {PYTHON_TOPIC_ROWS:,} candidate lines "
                              "(the table has no stored topics): narrow it by service or time",
                              source=self.source_id, request=request)
        kept = []
        for row in rows:
            topics = {mention.topic for mention in topic_mentions(normalize(str(row[4])), in_logs=True)}
            if query.accepts(str(row[9]), level_rank(str(row[2])), str(row[3]).strip().lower(), int(row[0]), topics):
                kept.append(row[:9])
        counted: dict[tuple[str, str, str], list[Any]] = {}
        for row in kept:
            key = (str(row[7]), str(row[3]), str(row[2]))
            moment, text = int(row[0]), str(row[1])
            group = counted.setdefault(key, [0, moment, moment, text, text])
            group[0] += 1
            if moment <= group[1]:
                group[1], group[3] = moment, text
            if moment > group[2]:
                group[2], group[4] = moment, text
        listed = sorted(((*key, *values) for key, values in counted.items()),
                        key=lambda g: (-g[3], -g[5], g[0]))[:MAX_GROUPS]
        return _result(kept[:limit], listed, len(kept), len(counted)), request


def _text(value: Any) -> str | None:
    return str(value) if value not in (None, "") else None


def _result(lines: list[list[Any]], listed: list[Any], total: int, group_count: int) -> LogsResult:
    """Rows of ``LINE_COLUMNS`` and groups (template, service, level, lines, first µs, last µs,
    first text, last text) as the tool's contract."""
    logs = [LogEntry(timestamp=str(row[1]) or iso_us(int(row[0])), level=str(row[2]), service=str(row[3]),
                     message=str(row[4]), source=_text(row[5]), host=_text(row[6])) for row in lines]
    samples: dict[tuple[str, str, str], list[int]] = {}
    for index, row in enumerate(lines):
        samples.setdefault((str(row[7]), str(row[3]), str(row[2])), []).append(index)
    groups = [LogGroup(template=g[0], count=int(g[3]), service=g[1], level=g[2],
                       first_timestamp=str(g[6]) or iso_us(int(g[4])), last_timestamp=str(g[7]) or iso_us(int(g[5])),
                       sample_indexes=samples.get((g[0], g[1], g[2]), [])) for g in listed]
    return LogsResult(success=True, logs=logs, groups=groups, total=total,
                      message=_message(total, len(logs), group_count))
