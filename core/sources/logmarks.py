"""Whether a store already holds a file: importing the same file again is no duplicate.

A file's mark is its size, modification time, the SHA-256 of its first 64 KiB and of all of it
(``file_marks``, one row per import). Before a file is imported:

- same path, size and modification time, and the same first 64 KiB: already imported, skipped
  (without reading the rest);
- the same content (SHA-256) under any path: skipped;
- same path, larger, and its first bytes are exactly what was imported (their SHA-256): it was
  appended to; only the lines after them are imported (a compressed file is read whole);
- same path, other content (rewritten, rotated by truncation): imported as new content.
"""

from __future__ import annotations

import hashlib
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from core.errors import LogImportError

HEAD_BYTES = 1 << 16
_CHUNK = 1 << 20


@dataclass(frozen=True)
class Mark:
    """What identifies a file's content as imported."""

    size: int
    mtime_ns: int
    head_digest: str
    digest: str


@dataclass(frozen=True)
class Known:
    """What the store knows of a file: ``skip`` (why), ``append`` (the bytes and lines already
    imported) or ``new`` (a note when its path was imported before with other content)."""

    action: str
    note: str = ""
    offset: int = 0
    lines: int = 0


def _hash(path: Path, prefix_at: int | None) -> tuple[str, str, str | None, int]:
    """(SHA-256 of the first ``HEAD_BYTES``, of everything, of the first ``prefix_at`` bytes,
    bytes read), in one pass."""
    head, whole, prefix, read = hashlib.sha256(), hashlib.sha256(), None, 0
    try:
        with path.open("rb") as handle:
            while chunk := handle.read(_CHUNK):
                if read < HEAD_BYTES:
                    head.update(chunk[:HEAD_BYTES - read])
                if prefix_at is not None and prefix is None and read + len(chunk) >= prefix_at:
                    upto = whole.copy()
                    upto.update(chunk[:prefix_at - read])
                    prefix = upto.hexdigest()
                whole.update(chunk)
                read += len(chunk)
    except OSError as error:
        raise LogImportError(f"{path}: cannot read: {error.strerror or error}") from None
    return head.hexdigest(), whole.hexdigest(), prefix, read


def _head(path: Path) -> str:
    try:
        with path.open("rb") as handle:
            return hashlib.sha256(handle.read(HEAD_BYTES)).hexdigest()
    except OSError as error:
        raise LogImportError(f"{path}: cannot read: {error.strerror or error}") from None


def known(connection: sqlite3.Connection, path: Path, compressed: bool) -> tuple[Known, Mark]:
    """What the store knows of ``path`` (see the module doc), and the file's mark now."""
    try:
        status = path.stat()
    except OSError as error:
        raise LogImportError(f"{path}: cannot read: {error.strerror or error}") from None
    size, mtime_ns = status.st_size, status.st_mtime_ns
    last = connection.execute(
        "SELECT f.imported_at, f.physical_lines, m.size, m.mtime_ns, m.head_digest, m.digest FROM files f "
        "JOIN file_marks m ON m.file_id = f.id WHERE f.path = ? ORDER BY f.id DESC LIMIT 1",
        (str(path.resolve()),)).fetchone()
    if last is not None and (last[2], last[3]) == (size, mtime_ns):
        head = _head(path)
        if head == last[4]:
            return Known("skip", f"already imported on {last[0]} (same size, time and first bytes)"), \
                Mark(size, mtime_ns, head, last[5])
    grown = last is not None and not compressed and last[2] < size
    head, digest, prefix, read = _hash(path, last[2] if grown else None)
    mark = Mark(read, mtime_ns, head, digest)
    same = connection.execute(
        "SELECT f.path, f.imported_at FROM file_marks m JOIN files f ON f.id = m.file_id WHERE m.digest = ? "
        "ORDER BY f.id LIMIT 1", (digest,)).fetchone()
    if same is not None:
        return Known("skip", f"the same content as {same[0]}, imported on {same[1]}"), mark
    if last is None:
        return Known("new"), mark
    if grown and prefix == last[5]:
        return Known("append", f"appended to since {last[0]}: only its new lines are imported",
                     offset=last[2], lines=last[1]), mark
    return Known("new", f"changed since it was imported on {last[0]} (not only appended to): "
                        "imported as new content"), mark


def record(connection: sqlite3.Connection, file_id: int, mark: Mark) -> None:
    """Keep the mark of a file just imported."""
    connection.execute("INSERT INTO file_marks (file_id, size, mtime_ns, head_digest, digest) VALUES (?, ?, ?, ?, ?)",
                       (file_id, mark.size, mark.mtime_ns, mark.head_digest, mark.digest))
