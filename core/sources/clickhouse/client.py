"""The two ways to reach ClickHouse, behind one surface: ``clickhouse-connect`` (the official
HTTP client) for a server, ``chdb`` (ClickHouse itself, embedded) for a folder. Both run the
same SQL text with the same ``{name:Type}`` parameters (bound by the engine, never pasted into
the SQL), and both say how many rows the engine read, which an absence reports."""

from __future__ import annotations

import atexit
import json
import threading
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, ClassVar, Protocol
from urllib.parse import urlsplit

from core.errors import SourceError
from core.redact import public_url

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


@dataclass(frozen=True)
class Answer:
    """Rows (lists of column values; 64-bit integers may arrive as text from chdb) and the
    rows the engine read to produce them."""

    rows: list[list[Any]]
    rows_read: int


class Client(Protocol):
    @property
    def where(self) -> str: ...  # a URL without credentials, or a folder
    def query(self, sql: str, params: dict[str, Any]) -> Answer: ...
    def command(self, sql: str) -> None: ...
    def insert(self, table: str, columns: list[str], rows: list[list[Any]]) -> None: ...
    def close(self) -> None: ...


class ChdbClient:
    """An embedded engine on a folder (``chdb.session.Session``). chdb runs one engine per
    process, on one folder: clients of that folder share its session (under a lock); another
    folder is refused until ``close_all``."""

    _sessions: ClassVar[dict[str, Any]] = {}
    _guard: ClassVar[threading.Lock] = threading.Lock()

    def __init__(self, path: str) -> None:
        from chdb import session

        self._path = path
        with self._guard:
            if not self._sessions:
                atexit.register(_close_sessions)
            if path not in self._sessions:
                if self._sessions:
                    raise SourceError(f"chdb:{path}: this process already runs chdb on {next(iter(self._sessions))} "
                                      "(one embedded engine per process)")
                self._sessions[path] = session.Session(path)  # type: ignore[no-untyped-call]
            self._session = self._sessions[path]
        self._lock = threading.Lock()

    @property
    def where(self) -> str:
        return self._path

    def query(self, sql: str, params: dict[str, Any]) -> Answer:
        with self._lock:
            result = self._session.query(sql, "JSONCompact",
                                         params={name: _param_text(value) for name, value in params.items()} or None)
        text = result.data()
        if not text:
            return Answer([], int(result.rows_read()))
        document = json.loads(text)
        return Answer(document.get("data", []), int(document.get("statistics", {}).get("rows_read", 0)))

    def command(self, sql: str) -> None:
        with self._lock:
            self._session.query(sql, "CSV")

    def insert(self, table: str, columns: list[str], rows: list[list[Any]]) -> None:
        body = "\n".join(json.dumps(dict(zip(columns, row, strict=True)), ensure_ascii=False, default=_epoch_text)
                         for row in rows)
        with self._lock:
            self._session.query(f"INSERT INTO {table} ({', '.join(columns)}) FORMAT JSONEachRow\n{body}", "CSV")

    def close(self) -> None:
        """Sessions stay open for the process (``close_all`` ends them)."""

    @classmethod
    def close_all(cls) -> None:
        """End the process's chdb session (tests and benchmarks opening another folder)."""
        _close_sessions()


def _quoted(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _param_text(value: object) -> str:
    """A parameter as chdb takes it: the value's text in ClickHouse's format (an array as
    ``['a', 'b']``); clickhouse-connect sends Python values itself."""
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_quoted(item) if isinstance(item, str) else str(item) for item in value) + "]"
    return str(value)


def _epoch_text(value: object) -> str:
    """A datetime as DateTime64 text input: epoch seconds and the fraction (no zone to misread)."""
    if not isinstance(value, datetime):
        raise TypeError(f"not JSON: {type(value).__name__}")
    delta = value - _EPOCH
    return f"{delta.days * 86400 + delta.seconds}.{delta.microseconds:06d}"


def _close_sessions() -> None:
    """Close every chdb session before the interpreter goes: left to the engine's own shutdown
    at exit, it crashes the process (a segmentation fault after the work is done)."""
    with ChdbClient._guard:
        for opened in ChdbClient._sessions.values():
            opened.close()
        ChdbClient._sessions.clear()


class ConnectClient:
    """A server over HTTP (``clickhouse_connect.get_client``); user and password from the URL."""

    def __init__(self, url: str, database: str, timeout: float) -> None:
        import clickhouse_connect

        parts = urlsplit(url)
        self._where = public_url(url)
        try:  # the client asks the server at once: a refusal is one line, without credentials
            self._client = clickhouse_connect.get_client(
                host=parts.hostname or "localhost", port=parts.port or 8123, username=parts.username or "default",
                password=parts.password or "", database=database, secure=parts.scheme == "https",
                connect_timeout=timeout, send_receive_timeout=timeout)
        except Exception as error:
            reason = (str(error).strip().splitlines() or [type(error).__name__])[0][:300]
            raise SourceError(f"clickhouse:{self._where}/{database}: {reason}") from None
        self._lock = threading.Lock()

    @property
    def where(self) -> str:
        return self._where

    def query(self, sql: str, params: dict[str, Any]) -> Answer:
        with self._lock:
            result = self._client.query(sql, parameters=params)
        read = int(result.summary.get("read_rows", 0)) if result.summary else 0
        return Answer([list(row) for row in result.result_rows], read)

    def command(self, sql: str) -> None:
        with self._lock:
            self._client.command(sql)

    def insert(self, table: str, columns: list[str], rows: list[list[Any]]) -> None:
        with self._lock:
            self._client.insert(table, rows, column_names=columns)

    def close(self) -> None:
        self._client.close()
