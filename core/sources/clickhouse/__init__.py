"""ClickHouse as a log source: an ``otel_logs`` table (the OpenTelemetry Collector's schema) in a
server (``clickhouse-connect``) or an embedded engine folder (``chdb``). See docs/clickhouse.md."""

from __future__ import annotations

from core.sources.clickhouse.client import ChdbClient, Client, ConnectClient
from core.sources.clickhouse.source import DEFAULT_MAX_ROWS, ClickHouseLogs

DEFAULT_DATABASE = "otel"
DEFAULT_TABLE = "otel_logs"


def open_clickhouse(*, url: str | None = None, path: str | None = None, database: str = DEFAULT_DATABASE,
                    table: str = DEFAULT_TABLE, timeout: float = 10.0,
                    max_rows: int = DEFAULT_MAX_ROWS) -> ClickHouseLogs:
    """The log source of a server (``url``) or a chdb folder (``path``): exactly one."""
    if (url is None) == (path is None):
        raise ValueError("name a ClickHouse url or a chdb path (exactly one)")
    client: Client = ConnectClient(url, database, timeout) if url is not None else ChdbClient(str(path))
    return ClickHouseLogs(client, database, table, max_rows=max_rows,
                          kind="clickhouse" if url is not None else "chdb")


__all__ = ["ChdbClient", "ClickHouseLogs", "Client", "ConnectClient", "open_clickhouse"]
