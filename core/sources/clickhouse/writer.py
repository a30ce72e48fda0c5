"""Writing log files into an ``otel_logs`` table (``superbiz logs import --to clickhouse://...``
or ``--to-chdb DIR``). The files are read exactly as for a log store (``core.sources.logimport``:
layouts, levels, timestamps, templates, topics) into a temporary store, whose lines are then
written as OpenTelemetry rows: only the writer differs. Besides the Collector's columns, each
row carries what the store computed at import, as ``LogAttributes``: ``superbiz.template`` (the
miner's template), ``superbiz.topics``, ``superbiz.timestamp`` (the timestamp as written) and
``superbiz.line`` (the line's number in import order, which breaks ties of time)."""

from __future__ import annotations

import sqlite3
import tempfile
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from core.sources.clickhouse.client import Client
from core.sources.clickhouse.sql import LINE_KEY, TEMPLATE_KEY, TIMESTAMP_KEY, TOPICS_KEY
from core.sources.logimport import ImportReport, import_files

_BATCH = 50_000
# OpenTelemetry severity numbers of the canonical levels' ranks (``core.logfields``).
_SEVERITY = {0: 1, 1: 5, 2: 9, 3: 13, 4: 17, 5: 21}
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def table_ddl(qualified: str) -> str:
    """Our ``otel_logs``: the Collector exporter's columns and indexes, ordered by
    (ServiceName, toDateTime(Timestamp), Timestamp) as its earlier versions were."""
    return f"""CREATE TABLE IF NOT EXISTS {qualified} (
    Timestamp DateTime64(9) CODEC(Delta(8), ZSTD(1)),
    TraceId String CODEC(ZSTD(1)),
    SpanId String CODEC(ZSTD(1)),
    TraceFlags UInt8,
    SeverityText LowCardinality(String) CODEC(ZSTD(1)),
    SeverityNumber UInt8,
    ServiceName LowCardinality(String) CODEC(ZSTD(1)),
    Body String CODEC(ZSTD(1)),
    ResourceSchemaUrl LowCardinality(String) CODEC(ZSTD(1)),
    ResourceAttributes Map(LowCardinality(String), String) CODEC(ZSTD(1)),
    ScopeSchemaUrl LowCardinality(String) CODEC(ZSTD(1)),
    ScopeName String CODEC(ZSTD(1)),
    ScopeVersion LowCardinality(String) CODEC(ZSTD(1)),
    ScopeAttributes Map(LowCardinality(String), String) CODEC(ZSTD(1)),
    LogAttributes Map(LowCardinality(String), String) CODEC(ZSTD(1)),
    INDEX idx_trace_id TraceId TYPE bloom_filter(0.001) GRANULARITY 1,
    INDEX idx_res_attr_key mapKeys(ResourceAttributes) TYPE bloom_filter(0.01) GRANULARITY 1,
    INDEX idx_res_attr_value mapValues(ResourceAttributes) TYPE bloom_filter(0.01) GRANULARITY 1,
    INDEX idx_log_attr_key mapKeys(LogAttributes) TYPE bloom_filter(0.01) GRANULARITY 1,
    INDEX idx_log_attr_value mapValues(LogAttributes) TYPE bloom_filter(0.01) GRANULARITY 1,
    INDEX idx_body Body TYPE tokenbf_v1(32768, 3, 0) GRANULARITY 1
) ENGINE = MergeTree
PARTITION BY toDate(Timestamp)
ORDER BY (ServiceName, toDateTime(Timestamp), Timestamp)
SETTINGS index_granularity = 8192"""


COLUMNS = ["Timestamp", "SeverityText", "SeverityNumber", "ServiceName", "Body", "ResourceAttributes",
           "LogAttributes"]
_ROWS = ("SELECT l.id, l.ts_us, l.level_rank, e.ts, e.level, e.service, e.message, e.source, e.host, t.template "
         "FROM lines l "
         "JOIN entries e ON e.id = l.id JOIN groups g ON g.id = l.group_id "
         "LEFT JOIN templates t ON t.id = g.template_id "
         "WHERE l.id > ? ORDER BY l.id LIMIT ?")


def store_rows(connection: sqlite3.Connection, start: int = 0) -> Iterator[list[list[Any]]]:
    """A log store's lines after id ``start`` as ``COLUMNS`` rows, a batch at a time."""
    last = start
    while True:
        batch = connection.execute(_ROWS, (last, _BATCH)).fetchall()
        if not batch:
            return
        # A batch's topics in one read (``line_topics`` is keyed by topic: a look-up per line would scan it)
        topics = dict(connection.execute(
            "SELECT line_id, group_concat(topic, ' ') FROM line_topics WHERE line_id BETWEEN ? AND ? GROUP BY line_id",
            (batch[0][0], batch[-1][0])).fetchall())
        last = batch[-1][0]
        yield [[_EPOCH + timedelta(microseconds=ts_us), level, _SEVERITY.get(rank, 0) if rank is not None else 0,
                service, message, {"host.name": host} if host else {},
                {TEMPLATE_KEY: template or "", TOPICS_KEY: topics.get(line_id, ""), TIMESTAMP_KEY: ts,
                 LINE_KEY: str(line_id),
                 **({"log.file.name": source} if source else {})}]
               for line_id, ts_us, rank, ts, level, service, message, source, host, template in batch]


def write_store(connection: sqlite3.Connection, client: Client, database: str, table: str) -> int:
    """Every line of a log store into ``database.table`` (created when missing); lines written.
    Line numbers continue the table's (an import appends)."""
    qualified = f"`{database}`.`{table}`"
    client.command(f"CREATE DATABASE IF NOT EXISTS `{database}`")
    client.command(table_ddl(qualified))
    first = client.query(f"SELECT max(toInt64OrZero(LogAttributes['{LINE_KEY}'])) FROM {qualified}", {}).rows
    offset = int(first[0][0]) if first and first[0][0] is not None else 0
    written = 0
    for rows in store_rows(connection):
        for row in rows:
            row[6][LINE_KEY] = str(int(row[6][LINE_KEY]) + offset)
        client.insert(qualified, COLUMNS, rows)
        written += len(rows)
    return written


def import_into(paths: list[Path], client: Client, database: str, table: str,
                **settings: Any) -> tuple[ImportReport, int]:
    """Read ``paths`` as ``superbiz logs import`` does (``settings``: ``import_files``'s), then
    write their lines into the table. The report, and the lines written."""
    with tempfile.TemporaryDirectory(prefix="superbiz-ch-") as folder:
        store = Path(folder) / "import.db"
        report = import_files(paths, store, **settings)
        connection = sqlite3.connect(store)
        try:
            written = write_store(connection, client, database, table)
        finally:
            connection.close()
    return report, written
