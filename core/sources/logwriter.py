"""Writing lines into a log store: the schema, batched inserts, templates, topics, vocabulary.

``LogWriter`` takes lines one at a time and writes them in batches (``executemany``), so the
memory of an import does not grow with the number of lines: per batch it computes each line's
search text, its FTS5 columns (``core.sources.logtext``), its template id
(``core.sources.templates``), the topics its message mentions (``lexicon.tag_lines``), the
tallies words are counted from (``core.sources.logtally``) and the entities it names (hosts,
components, users ...: ``core.sources.logentities``).
Transactions are the caller's: ``superbiz logs import`` writes a new store into a temporary
file renamed on success, and appends to an existing one in a single transaction.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime, tzinfo
from types import TracebackType
from typing import NamedTuple

from core.contracts import LogEntry
from core.errors import LogStoreError
from core.language.lexicon import tag_lines
from core.logfields import canonical_level, coded_level, epoch_us, level_rank, parse_timestamp, zone_name
from core.sources.logentities import COUNTED, EntityTally
from core.sources.logfile import (
    SCHEMA,
    SCHEMA_VERSION,
    STORE_FORMAT,
    add_import_columns,
    for_bulk_index,
    lexicon_fingerprint,
)
from core.sources.logtally import RunTally
from core.sources.logtext import digits_zeroed, index_text
from core.sources.templates import TemplateMiner
from core.tools.logquery import META_MARK, search_text

BATCH = 5000
PAGE_BYTES = 8192  # a new store's page size


class LineRecord(NamedTuple):
    """One log entry ready to store: its instant (µs since the epoch) and ISO text, the level
    as written (canonicalised when known), service, message (continuation lines included),
    source, host and the physical line it started on. A tuple: one is made per line of an
    import (a frozen dataclass took four times as long to make)."""

    ts_us: int
    ts: str
    level: str
    service: str
    message: str
    source: str | None
    host: str | None
    line_no: int
    written_level: str | None = None  # the level as the line wrote it, when not its canonical name


def create_schema(connection: sqlite3.Connection, zone: tzinfo) -> None:
    """Create an empty store whose timestamps are written in ``zone``."""
    # Pages of 8 KiB (SQLite's default is 4): a tenth less CPU writing the full-text index at
    # import, its segments and doclists split over half as many pages. Only a new file takes it.
    connection.execute(f"PRAGMA page_size = {PAGE_BYTES}")
    connection.executescript(SCHEMA)
    connection.executemany("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", [
        ("format", STORE_FORMAT), ("schema", SCHEMA_VERSION), ("timezone", zone_name(zone)),
        ("created", datetime.now(UTC).isoformat(timespec="seconds")),
        ("lexicon", lexicon_fingerprint()), (COUNTED, "1")])


def _messages(connection: sqlite3.Connection, size: int) -> Iterator[list[tuple[int, str, str]]]:
    """(id, message, service key) of every line, ``size`` at a time."""
    last = 0
    while True:
        rows = connection.execute(
            "SELECT e.id, e.message, l.service_key FROM entries e JOIN lines l ON l.id = e.id WHERE e.id > ? "
            "ORDER BY e.id LIMIT ?", (last, size)).fetchall()
        if not rows:
            return
        yield rows
        last = rows[-1][0]


def retag_topics(connection: sqlite3.Connection) -> None:
    """Recompute every line's topics (the lexicon changed since the store was written)."""
    from core.language.text import normalize

    try:
        with connection:
            connection.execute("DELETE FROM line_topics")
            for rows in _messages(connection, BATCH):
                tagged = tag_lines([normalize(message) for _, message, _ in rows])
                connection.executemany("INSERT INTO line_topics (topic, service_key, line_id) VALUES (?, ?, ?)",
                                       [(topic, rows[i][2], rows[i][0])
                                        for topic, found in tagged.items() for i in found])
            connection.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('lexicon', ?)",
                               (lexicon_fingerprint(),))
    except sqlite3.Error as error:
        raise LogStoreError(f"the lexicon changed and the store's topics cannot be updated: {error}") from None


class LogWriter:
    """Appends lines to a store (a context manager: leaving it flushes, saves the templates and
    records the file); the caller then runs ``finish_indexes`` once (the writers of every file
    written). Not thread-safe."""

    def __init__(self, connection: sqlite3.Connection, *, path: str, layout: str, zone: tzinfo) -> None:
        self._connection = connection
        add_import_columns(connection)
        for_bulk_index(connection)  # until the caller's finish_indexes
        self._miner = TemplateMiner()
        self._miner.load(connection.execute("SELECT id, template FROM templates ORDER BY id").fetchall())
        self._next_id = (connection.execute("SELECT max(id) FROM lines").fetchone()[0] or 0) + 1
        self._first_id = self._next_id
        self._zone = zone
        self._batch: list[LineRecord] = []
        self._service_keys: dict[str, str] = {}
        self._levels: dict[str, int | None] = {}
        self._groups: dict[tuple[int, str, str], int] = {
            (template_id, service, level): group_id for group_id, template_id, service, level
            in connection.execute("SELECT id, template_id, service, level FROM groups")}
        self._new_groups: list[tuple[int, int, str, str]] = []
        self._spans: dict[str, list[int]] = {}  # service key -> [first, last] id this writer wrote
        self._tally = RunTally(connection)
        self._entities = EntityTally()
        cursor = connection.execute(
            "INSERT INTO files (path, layout, timezone, imported_at, physical_lines, entries, unparsed) "
            "VALUES (?, ?, ?, ?, 0, 0, 0)",
            (path, layout, zone_name(zone), datetime.now(UTC).isoformat(timespec="seconds")))
        self.file_id: int = cursor.lastrowid or 0
        self._file_id = self.file_id
        self.entries = 0
        self._finished = False

    def __enter__(self) -> LogWriter:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        if kind is None and not self._finished:
            self.finish()

    def add(self, record: LineRecord) -> None:
        """Queue one line; a full batch is written at once."""
        self._batch.append(record)
        if len(self._batch) >= BATCH:
            self.flush()

    def add_entry(self, entry: LogEntry, number: int) -> None:
        """Queue a pack's log entry, its timestamp kept as written."""
        moment = parse_timestamp(entry.timestamp, self._zone)
        if moment is None:
            raise LogStoreError(f"line {number}: timestamp: not ISO 8601: {entry.timestamp!r}")
        self.add(LineRecord(epoch_us(moment), entry.timestamp, entry.level, entry.service,
                            entry.message, entry.source, entry.host, number))

    def _rank(self, level: str) -> int | None:
        if level in self._levels:
            return self._levels[level]
        rank = self._levels[level] = level_rank(level)
        return rank

    def _group(self, template_id: int, service: str, level: str) -> int:
        key = (template_id, service, level)
        group_id = self._groups.get(key)
        if group_id is None:
            group_id = self._groups[key] = len(self._groups) + 1
            self._new_groups.append((group_id, *key))
        return group_id

    def _service_key(self, service: str) -> str:
        key = self._service_keys.get(service)
        if key is None:
            key = self._service_keys[service] = service.strip().lower()
        return key

    def flush(self) -> None:
        """Write the queued lines."""
        if not self._batch:
            return
        lines, entries, fts, messages = [], [], [], []
        group, rank, spans = self._group, self._rank, self._spans
        levels, service_keys, file_id = self._levels, self._service_keys, self._file_id
        tally, name_entities = self._tally.add, self._entities.add
        line_id = self._next_id
        # the batch's template ids are decided together: values that name events show over many lines
        template_ids = self._miner.add_batch(record.message for record in self._batch)
        # a million times per million lines: fields unpacked once, the small lookups inline
        for (ts_us, ts, level, service, message, source, host, line_no, written_level), template_id in zip(
                self._batch, template_ids, strict=True):
            text = search_text(message, level, service, source, host)
            zeroed = digits_zeroed(text)
            body, meta, parts, folded = index_text(text, zeroed)
            group_id = group(template_id, service, level)
            service_key = service_keys.get(service)
            if service_key is None:
                service_key = self._service_key(service)
            level_rank = levels[level] if level in levels else rank(level)
            lines.append((line_id, ts_us, level_rank, service_key, group_id))
            lowered = text[:text.rfind(META_MARK)]
            tally(group_id, service_key, level_rank, ts_us, zeroed if folded is None else None)
            # ASCII: the search text's message is the message in lower case (unless a field after
            # it held the mark: then the lengths differ)
            name_entities(message, source, host,
                          lowered if folded is None and len(lowered) == len(message) else None)
            span = spans.get(service_key)
            if span is None:
                spans[service_key] = [line_id, line_id]
            else:
                span[1] = line_id
            entries.append((line_id, ts, level, service, message, source, host, file_id, line_no, folded,
                            written_level))
            fts.append((line_id, body, meta, parts))
            messages.append(lowered)
            line_id += 1
        run = self._connection.executemany
        run("INSERT INTO lines (id, ts_us, level_rank, service_key, group_id) VALUES (?, ?, ?, ?, ?)", lines)
        run("INSERT INTO entries (id, ts, level, service, message, source, host, file_id, line_no, folded, "
            "written_level) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", entries)
        run("INSERT INTO lines_fts (rowid, body, meta, parts) VALUES (?, ?, ?, ?)", fts)
        first = self._next_id
        run("INSERT INTO line_topics (topic, service_key, line_id) VALUES (?, ?, ?)",
            [(topic, lines[i][3], first + i) for topic, found in tag_lines(messages).items() for i in found])
        if self._new_groups:
            run("INSERT INTO groups (id, template_id, service, level) VALUES (?, ?, ?, ?)", self._new_groups)
            self._new_groups = []
        self._tally.write()
        self.entries += len(self._batch)
        self._next_id = line_id
        self._batch = []

    def finish(self, physical_lines: int | None = None, unparsed: int = 0) -> None:
        """Write what is queued, the templates created or generalised, and the file's counts."""
        self._finished = True
        self.flush()
        self._entities.write(self._connection)
        templates = self._miner.templates()
        self._connection.executemany(
            "INSERT INTO templates (id, template) VALUES (?, ?) "
            "ON CONFLICT (id) DO UPDATE SET template = excluded.template",
            [(template_id, templates[template_id]) for template_id in sorted(self._miner.changed())])
        self._connection.executemany(
            "INSERT INTO service_spans (service_key, first_id, last_id) VALUES (?, ?, ?) "
            "ON CONFLICT (service_key) DO UPDATE SET first_id = min(first_id, excluded.first_id), "
            "last_id = max(last_id, excluded.last_id)",
            [(key, first, last) for key, (first, last) in sorted(self._spans.items())])
        last = self._next_id - 1 if self._next_id > self._first_id else None
        self._connection.execute(
            "UPDATE files SET physical_lines = ?, entries = ?, unparsed = ?, first_line_id = ?, "
            "last_line_id = ? WHERE id = ?",
            (physical_lines if physical_lines is not None else self.entries, self.entries, unparsed,
             self._first_id if last is not None else None, last, self._file_id))


def normalised_level(raw: str | None) -> str:
    """A level as a store writes it: the canonical name when known (``warning`` -> ``WARN``,
    logcat's ``E`` -> ``ERROR``, ``<3>`` -> ``ERROR``, pino's ``50`` -> ``ERROR``), else the
    text as found, upper case (kept, but ranked nowhere)."""
    if not raw:
        return ""
    return canonical_level(raw) or coded_level(raw) or raw.strip().upper()
