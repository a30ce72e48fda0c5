"""Log stores built from packs' big log files, kept in the user's cache folder.

A pack's ``logs.jsonl`` (or ``logs.yaml``) larger than ``SMALL_LOG_BYTES`` is not held in
memory: the pack loader streams it once through ``CacheBuild`` into a log store (the same
SQLite + FTS5 store ``superbiz logs import`` writes) and every later load finds that store by
its key and opens it, reading no line. A small file is read at load and served by an
in-memory store (``LogStore.from_entries``).

The key is the file's resolved path, size and modification time, the zone its timestamps
without one are read in (the pack's clock), the store's schema and the lexicon's topics: any
change builds a new store. Stores live in ``<cache>/logstores/`` (``SUPERBIZ_CACHE_DIR``,
default ``$XDG_CACHE_HOME/superbiz``, else ``~/.cache/superbiz``), named
``<path hash>-<key hash>.db``; building writes a temporary file beside them, renamed when
complete (a crash or a bad line leaves nothing), then removes the file's older stores.
Deleting the folder is always safe: stores are rebuilt when needed.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sqlite3
import sys
import time
import uuid
from datetime import UTC, tzinfo
from pathlib import Path
from types import TracebackType

from core.contracts import LogEntry
from core.errors import LogStoreError
from core.logfields import zone_name
from core.processes import pid_alive
from core.settings import get_settings
from core.sources.logfile import (
    SCHEMA_VERSION,
    check_store,
    connect,
    finish_indexes,
    for_bulk_write,
    lexicon_fingerprint,
)
from core.sources.logwriter import LogWriter, create_schema

SMALL_LOG_BYTES = 1 << 20  # a log file up to this size is read at load and searched in memory
CACHE_VERSION = "1"  # bump when what a cached store holds for the same file changes
_PROGRESS_AFTER_S = 1.0
_PROGRESS_EVERY = 50_000


def cache_folder() -> Path:
    """Where cached log stores are kept."""
    return get_settings().cache_path() / "logstores"


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _stat_key(log_file: Path) -> tuple[int, int]:
    stat = log_file.stat()
    return stat.st_size, stat.st_mtime_ns


def cache_path(log_file: Path, zone: tzinfo | None) -> Path:
    """The cached store of ``log_file`` as it is now (whether or not it exists yet)."""
    resolved = log_file.resolve()
    size, mtime = _stat_key(resolved)
    key = "|".join((str(size), str(mtime), zone_name(zone or UTC), SCHEMA_VERSION, lexicon_fingerprint(),
                    CACHE_VERSION))
    return cache_folder() / f"{_digest(str(resolved))}-{_digest(key)}.db"


def cached_store(log_file: Path, zone: tzinfo | None) -> Path | None:
    """The usable cached store of ``log_file``, or None when it must be built."""
    path = cache_path(log_file, zone)
    return path if path.is_file() and check_store(path) is None else None


class CacheBuild:
    """Writes the cached store of one log file (a context manager). ``add`` each entry, then
    ``commit()``; leaving without a commit (a bad line, an error) removes what was written.
    Progress goes to stderr every 50,000 lines once a build takes more than a second."""

    def __init__(self, log_file: Path, zone: tzinfo | None, label: str) -> None:
        self._file = log_file.resolve()
        self._stat = _stat_key(self._file)
        self._zone = zone or UTC
        self._label = label
        self.target = cache_path(self._file, self._zone)
        folder = self.target.parent
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise LogStoreError(f"cannot create the log cache folder {folder}: {error.strerror}") from None
        # pid (abandoned builds are found by it) and a token (two threads may build at once)
        self._temp = folder / f".{self.target.name}.{os.getpid()}.{uuid.uuid4().hex[:12]}.tmp"
        _remove_abandoned(folder)
        self._started = time.perf_counter()
        try:
            self._connection = connect(self._temp)
            self._connection.isolation_level = None  # one explicit transaction
            self._connection.execute("PRAGMA journal_mode = OFF")  # a temporary file until renamed
            self._connection.execute("PRAGMA synchronous = OFF")
            for_bulk_write(self._connection)
            create_schema(self._connection, self._zone)
            self._connection.execute("BEGIN")
            self._writer = LogWriter(self._connection, path=str(self._file), layout="entries", zone=self._zone)
        except sqlite3.Error as error:
            self._discard()
            raise LogStoreError(f"cannot write the log cache {self._temp}: {error}") from None
        self._committed = False

    def __enter__(self) -> CacheBuild:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        if not self._committed:
            self._discard()

    def add(self, entry: LogEntry, number: int) -> None:
        """Queue one entry (``number``: its line in the file)."""
        try:
            self._writer.add_entry(entry, number)
        except sqlite3.Error as error:
            raise LogStoreError(f"cannot write the log cache {self._temp}: {error}") from None
        if number % _PROGRESS_EVERY == 0:
            elapsed = time.perf_counter() - self._started
            if elapsed >= _PROGRESS_AFTER_S:
                print(f"superbiz: indexing {self._label}: {number:,} lines ({number / elapsed:,.0f} lines/s; "
                      "once, then cached)", file=sys.stderr, flush=True)

    def commit(self) -> Path:
        """Finish the store and put it in place; the file's older stores are removed."""
        try:
            self._writer.finish()
            finish_indexes(self._connection)
            self._connection.execute("COMMIT")
            self._connection.close()
        except sqlite3.Error as error:
            self._discard()
            raise LogStoreError(f"cannot write the log cache {self._temp}: {error}") from None
        if _stat_key(self._file) != self._stat:
            self._discard()
            raise LogStoreError(f"{self._label} changed while it was read; load the pack again")
        os.replace(self._temp, self.target)
        self._committed = True
        prefix = self.target.name.split("-", 1)[0] + "-"
        for older in self.target.parent.glob(prefix + "*.db"):
            if older != self.target:
                with contextlib.suppress(OSError):
                    older.unlink()
        _prune(self.target.parent)
        elapsed = time.perf_counter() - self._started
        if elapsed >= _PROGRESS_AFTER_S:
            print(f"superbiz: indexed {self._label} in {elapsed:.1f} s; cached in {self.target}",
                  file=sys.stderr, flush=True)
        return self.target

    def _discard(self) -> None:
        with contextlib.suppress(sqlite3.Error, AttributeError):
            self._connection.close()
        with contextlib.suppress(OSError):
            self._temp.unlink()


def _source_of(store: Path) -> str | None:
    """The log file a cached store was built from (None when it cannot be read)."""
    try:
        connection = connect(store, readonly=True)
    except sqlite3.Error:
        return None
    try:
        row = connection.execute("SELECT path FROM files ORDER BY id LIMIT 1").fetchone()
    except sqlite3.Error:
        return None
    finally:
        connection.close()
    return str(row[0]) if row else None


def _prune(folder: Path) -> None:
    """Remove the stores of log files that no longer exist (a deleted pack, a temporary one)."""
    for store in folder.glob("*.db"):
        source = _source_of(store)
        if source is not None and not Path(source).exists():
            with contextlib.suppress(OSError):
                store.unlink()


def _remove_abandoned(folder: Path) -> None:
    """Remove the temporary files of builds whose process is gone (killed mid-build)."""
    for temp in folder.glob(".*.tmp"):
        try:
            pid = int(temp.name.rsplit(".", 3)[-3])
        except (ValueError, IndexError):
            continue
        if pid == os.getpid() or pid_alive(pid):
            continue
        with contextlib.suppress(OSError):
            temp.unlink()
