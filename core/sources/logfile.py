"""The log store's file: its schema, metadata and indexes, opening a connection with the SQL
functions queries use, checking that a file is a store, and bringing an older schema up to
date. ``core.sources.logstore`` queries a store; ``core.sources.logwriter`` fills one.
Schema: docs/logstore.md.
"""

from __future__ import annotations

import hashlib
import re
import sqlite3
import stat
from functools import lru_cache
from pathlib import Path

from core.errors import LogStoreError
from core.language.lexicon import TAGGING_VERSION, TOPICS
from core.sources.logentities import ENTITIES_TABLE
from core.sources.logtext import VOCABULARY_SQL
from core.tools.logquery import search_text

STORE_FORMAT = "superbiz-logstore"
SCHEMA_VERSION = "4"  # 2: service_spans; 3: line_topics by service; 4: run sets and group spans (logtally)

# What words are counted from (schema 4: ``core.sources.logtally``).
TALLIES = ("""CREATE TABLE IF NOT EXISTS group_spans (
    group_id INTEGER PRIMARY KEY, service_key TEXT NOT NULL, level_rank INTEGER, lines INTEGER NOT NULL,
    first_us INTEGER NOT NULL, last_us INTEGER NOT NULL, untallied INTEGER NOT NULL)""",
           "CREATE TABLE IF NOT EXISTS run_sets (id INTEGER PRIMARY KEY, runs TEXT NOT NULL UNIQUE)",
           """CREATE TABLE IF NOT EXISTS run_terms (
    term TEXT NOT NULL, run_set INTEGER NOT NULL, PRIMARY KEY (term, run_set)) WITHOUT ROWID""",
           """CREATE TABLE IF NOT EXISTS group_runs (
    run_set INTEGER NOT NULL, group_id INTEGER NOT NULL, lines INTEGER NOT NULL, first_us INTEGER NOT NULL,
    last_us INTEGER NOT NULL, PRIMARY KEY (run_set, group_id)) WITHOUT ROWID""")
_TALLIES_SQL = ";\n".join(TALLIES)
# What identifies an imported file's content (``core.sources.logimport``: a file imported again is
# skipped, one grown since is read from where it ended): its size, modification time, the
# SHA-256 of its first 64 KiB and of all of it. Added by the importer to a store written
# before (no schema version: older code reads such a store as it did).
FILE_MARKS = """CREATE TABLE IF NOT EXISTS file_marks (
    file_id INTEGER PRIMARY KEY, size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL,
    head_digest TEXT NOT NULL, digest TEXT NOT NULL)"""
# ``lines`` is narrow (what filters, ranks and groups read: a million of them fit in memory);
# ``entries`` holds what a result shows, read only for the lines returned or checked by regex.
SCHEMA = f"""
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS files (
    id INTEGER PRIMARY KEY, path TEXT NOT NULL, layout TEXT NOT NULL, timezone TEXT NOT NULL,
    imported_at TEXT NOT NULL, physical_lines INTEGER NOT NULL, entries INTEGER NOT NULL,
    unparsed INTEGER NOT NULL, first_line_id INTEGER, last_line_id INTEGER);
CREATE TABLE IF NOT EXISTS templates (id INTEGER PRIMARY KEY, template TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS groups (
    id INTEGER PRIMARY KEY, template_id INTEGER NOT NULL, service TEXT NOT NULL, level TEXT NOT NULL,
    UNIQUE (template_id, service, level));
CREATE TABLE IF NOT EXISTS lines (
    id INTEGER PRIMARY KEY,
    ts_us INTEGER NOT NULL,
    level_rank INTEGER,
    service_key TEXT NOT NULL,
    group_id INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS entries (
    id INTEGER PRIMARY KEY,
    ts TEXT NOT NULL,
    level TEXT NOT NULL,
    service TEXT NOT NULL,
    message TEXT NOT NULL,
    source TEXT,
    host TEXT,
    file_id INTEGER,
    line_no INTEGER,
    folded TEXT,
    written_level TEXT);
CREATE TABLE IF NOT EXISTS line_topics (
    topic TEXT NOT NULL, service_key TEXT NOT NULL, line_id INTEGER NOT NULL,
    PRIMARY KEY (topic, service_key, line_id)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS vocab (term TEXT PRIMARY KEY) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS service_spans (
    service_key TEXT PRIMARY KEY, first_id INTEGER NOT NULL, last_id INTEGER NOT NULL) WITHOUT ROWID;
{_TALLIES_SQL};
{ENTITIES_TABLE};
{FILE_MARKS};
CREATE VIRTUAL TABLE IF NOT EXISTS lines_fts USING fts5(
    body, meta, parts, content='', tokenize='unicode61 remove_diacritics 0');
"""
# Created after a first bulk load (faster than maintaining them row by row), kept after that.
INDEXES = """
CREATE INDEX IF NOT EXISTS lines_by_time ON lines (ts_us);
CREATE INDEX IF NOT EXISTS lines_by_service ON lines (service_key, ts_us);
CREATE INDEX IF NOT EXISTS lines_by_level ON lines (level_rank, ts_us);
"""


def lexicon_fingerprint() -> str:
    """Changes when the lexicon's topics or its way of tagging change: the store's topic tags
    are then stale."""
    text = repr((TAGGING_VERSION, sorted((topic.name, topic.synonyms, topic.includes, topic.shapes)
                                         for topic in TOPICS.values())))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


@lru_cache(maxsize=1024)
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def _text(message: str, level: str, service: str, source: str | None, host: str | None,
          folded: str | None) -> str:
    return folded if folded is not None else search_text(message, level, service, source, host)


def _sb_match(pattern: str, message: str, level: str, service: str, source: str | None, host: str | None,
              folded: str | None) -> int:
    """Whether a line's search text matches a unit's regex (SQL: ``sb_match``). An ASCII
    message is tried alone first: a match there is a match in the whole text (the mark after
    it is no letter or digit), and most lines FTS5 proposes match in their message."""
    regex = _compiled(pattern)
    if folded is None and regex.search(message.lower()) is not None:
        return 1
    return int(regex.search(_text(message, level, service, source, host, folded)) is not None)


def _sb_contains(needle: str, message: str, level: str, service: str, source: str | None, host: str | None,
                 folded: str | None) -> int:
    """Whether a line's search text holds a substring (SQL: ``sb_contains``)."""
    return int(needle in _text(message, level, service, source, host, folded))


def connect(path: str | Path, *, readonly: bool = False) -> sqlite3.Connection:
    """A connection to a store file (or ``:memory:``) with the store's SQL functions."""
    if str(path) == ":memory:":
        connection = sqlite3.connect(":memory:", check_same_thread=False)
    else:
        uri = Path(path).resolve().as_uri() + ("?mode=ro" if readonly else "")
        connection = sqlite3.connect(uri, uri=True, check_same_thread=False)
    connection.execute("PRAGMA temp_store = MEMORY")  # the per-query table of checked hits
    connection.create_function("sb_match", 7, _sb_match, deterministic=True)
    connection.create_function("sb_contains", 7, _sb_contains, deterministic=True)
    return connection


# A bulk write's memory must not grow with its lines. SQLite's default page cache (2 MiB; 64
# MiB grew peak RSS from 46 to 111 MB up to a million lines and saved no CPU), and temporary
# files on disk: CREATE INDEX sorts its keys in the cache's size and spills the rest to them,
# which ``connect``'s in-memory temporary store turned into ~60 MB more RSS per million lines.
BULK_CACHE_KIB = 2000


def for_bulk_write(connection: sqlite3.Connection) -> None:
    """Set a new connection up to write many lines (an import, a cache build) in memory that
    does not grow with them. Before any temporary table: changing temp_store drops them."""
    connection.execute("PRAGMA temp_store = FILE")
    connection.execute(f"PRAGMA cache_size = -{BULK_CACHE_KIB}")


def read_meta(connection: sqlite3.Connection) -> dict[str, str]:
    """The store's metadata; ``LogStoreError`` when the file is not a log store."""
    try:
        rows = connection.execute("SELECT key, value FROM meta").fetchall()
    except sqlite3.OperationalError as error:
        if "locked" in str(error):
            raise LogStoreError("the log store is locked by another process (an import?); try "
                                "again when it has finished") from None
        raise LogStoreError(f"not a log store: {error}") from None
    except sqlite3.DatabaseError as error:
        raise LogStoreError(f"not a log store: {error}") from None
    meta = dict(rows)
    if meta.get("format") != STORE_FORMAT:
        raise LogStoreError("not a log store (no superbiz-logstore metadata)")
    if meta.get("schema") != SCHEMA_VERSION and meta.get("schema") not in _UPGRADES:
        raise LogStoreError(f"log store schema {meta.get('schema')!r} is not the supported "
                            f"{SCHEMA_VERSION!r}; import the files again")
    return meta


def _add_service_spans(connection: sqlite3.Connection) -> None:
    """Schema 1 -> 2: each service's first and last line id, from the lines themselves."""
    connection.execute("CREATE TABLE IF NOT EXISTS service_spans (service_key TEXT PRIMARY KEY, "
                       "first_id INTEGER NOT NULL, last_id INTEGER NOT NULL) WITHOUT ROWID")
    connection.execute("INSERT OR REPLACE INTO service_spans (service_key, first_id, last_id) "
                       "SELECT service_key, min(id), max(id) FROM lines GROUP BY service_key")


def _add_topic_services(connection: sqlite3.Connection) -> None:
    """Schema 2 -> 3: each topic tag keyed by its line's service too (a topic and a service
    together read only that service's tags), from the lines themselves."""
    connection.execute("CREATE TABLE line_topics_3 (topic TEXT NOT NULL, service_key TEXT NOT NULL, "
                       "line_id INTEGER NOT NULL, PRIMARY KEY (topic, service_key, line_id)) WITHOUT ROWID")
    connection.execute("INSERT INTO line_topics_3 (topic, service_key, line_id) SELECT t.topic, l.service_key, "
                       "t.line_id FROM line_topics t JOIN lines l ON l.id = t.line_id")
    connection.execute("DROP TABLE line_topics")
    connection.execute("ALTER TABLE line_topics_3 RENAME TO line_topics")
    connection.execute("ANALYZE")  # the planner's statistics, for the new table too


def _add_group_spans(connection: sqlite3.Connection) -> None:
    """Schema 3 -> 4: each group's lines and instants, from the lines themselves, all of them
    untallied (no line's text is read again): such a store counts words line by line, as it did,
    until its files are imported again (``core.sources.logtally``)."""
    for statement in TALLIES:
        connection.execute(statement)
    connection.execute(
        "INSERT INTO group_spans (group_id, service_key, level_rank, lines, first_us, last_us, untallied) "
        "SELECT group_id, min(service_key), min(level_rank), count(*), min(ts_us), max(ts_us), count(*) "
        "FROM lines GROUP BY group_id")


# An older schema's step to the next: what the newer code reads, derived from what the store
# holds (no line is read again), so a store written by an older version keeps working.
_UPGRADES = {"1": _add_service_spans, "2": _add_topic_services, "3": _add_group_spans}


def upgrade_schema(connection: sqlite3.Connection) -> dict[str, str]:
    """The store's metadata (``read_meta``), after bringing a store of an older schema to
    ``SCHEMA_VERSION`` in one transaction; ``LogStoreError`` when it cannot be written then
    (read-only: import again)."""
    meta = read_meta(connection)
    schema = meta.get("schema", "")
    try:
        with connection:
            while schema != SCHEMA_VERSION:
                _UPGRADES[schema](connection)
                schema = str(int(schema) + 1)
                connection.execute("UPDATE meta SET value = ? WHERE key = 'schema'", (schema,))
    except sqlite3.Error as error:
        raise LogStoreError(f"log store schema {meta.get('schema')!r} cannot be brought "
                            f"to {SCHEMA_VERSION!r} ({error}); import the files again") from None
    return {**meta, "schema": schema}


def has_written_levels(connection: sqlite3.Connection) -> bool:
    """Whether the store keeps levels as written (``entries.written_level``: a store written
    before the importer canonicalised level codes has no such column)."""
    return any(row[1] == "written_level" for row in connection.execute("PRAGMA table_info(entries)"))


def add_import_columns(connection: sqlite3.Connection) -> None:
    """Bring a store written before them up to the file marks and levels as written (a table
    and a column older code does not read)."""
    connection.execute(FILE_MARKS)
    if not has_written_levels(connection):
        connection.execute("ALTER TABLE entries ADD COLUMN written_level TEXT")


def check_store(path: Path) -> str | None:
    """Why ``path`` is not a usable log store (one line), or None when it is."""
    try:  # Path.is_file raises when a folder above is not searchable by this user
        mode = path.stat().st_mode
    except FileNotFoundError:
        return "log store not found"
    except OSError as error:
        return f"cannot use the log store: {error.strerror or error}"
    if not stat.S_ISREG(mode):
        return "log store is not a file"
    try:
        connection = connect(path, readonly=True)
    except sqlite3.Error as error:
        return f"cannot open log store: {error}"
    try:
        read_meta(connection)
        connection.execute("SELECT count(*) FROM lines_fts WHERE lines_fts MATCH 'x' LIMIT 1").fetchone()
    except LogStoreError as error:
        return str(error)
    except sqlite3.Error as error:
        return f"damaged log store: {error}"
    finally:
        connection.close()
    return None


# FTS5 merges its segments as a bulk write adds them (``automerge``: four at a level); the import
# merges them all into one at the end anyway (``finish_indexes``), so until then merging is work
# done twice: a third of the index's CPU at 400k lines. A level is still merged at 64 segments
# (``crisismerge``), so a segment count stays far below FTS5's limit of 2,000.
_BULK_MERGE = (("automerge", 0), ("crisismerge", 64))
_DEFAULT_MERGE = (("automerge", 4), ("crisismerge", 16))  # FTS5's defaults, what readers and appends see


def _merge_settings(connection: sqlite3.Connection, settings: tuple[tuple[str, int], ...]) -> None:
    for name, value in settings:
        connection.execute("INSERT INTO lines_fts (lines_fts, rank) VALUES (?, ?)", (name, value))


def for_bulk_index(connection: sqlite3.Connection) -> None:
    """Before writing many lines: FTS5 leaves its segments unmerged until ``finish_indexes``."""
    _merge_settings(connection, _BULK_MERGE)


def finish_indexes(connection: sqlite3.Connection) -> None:
    """After writing lines, inside the caller's transaction: create the lines' indexes (a no-op
    once they exist), merge the full-text index into one segment (FTS5 ``optimize``), add its
    new terms to the vocabulary and gather the planner's statistics (``ANALYZE``).
    FTS5 writes a segment per batch; a term is then looked up in each of them, which costs a
    rare id three times its time at a million lines. Merging costs seconds at a million
    lines (an append merges again: the store is read far more often than written)."""
    for statement in INDEXES.strip().split(";"):
        if statement.strip():
            connection.execute(statement)
    _merge_settings(connection, _DEFAULT_MERGE)
    connection.execute("INSERT INTO lines_fts (lines_fts) VALUES ('optimize')")
    # The vocabulary once per import (not per file: each pass reads every term of the index),
    # from the merged index (one segment to read).
    connection.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.lines_terms USING fts5vocab(main, lines_fts, 'row')")
    connection.execute(VOCABULARY_SQL)
    # Statistics for the query planner (a second at a million lines): without them it reads a
    # service's every line to find the few a topic tags, instead of the tags' lines.
    connection.execute("ANALYZE")
