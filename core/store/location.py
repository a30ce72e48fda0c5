"""Where the audit store is: a SQLite file path or a SQLAlchemy URL, checked before use.

Mistakes that used to open something else are refused with one line that never shows a
password or a query value (``core.redact``):

- ``postgresql:/user:pw@host/db`` (one slash) is not a file name: any ``word:`` prefix without
  ``//`` is refused, where it once created a SQLite file of that name;
- an unknown scheme, a port that is not a number in 1-65535, a SQLite query option SQLAlchemy
  would silently ignore (a typo, or a pasted token);
- a SQLite path that exists but is not a regular file (a directory, a FIFO that would block
  the open, a device such as ``/dev/zero``);
- an in-memory SQLite database (``sqlite://``, ``sqlite:///:memory:``, ``mode=memory``): the
  audit trail would vanish when the command ends, while every command says it was recorded;
- text that is not valid Unicode.
"""

from __future__ import annotations

import re
import stat
from pathlib import Path

from sqlalchemy import make_url
from sqlalchemy.engine import URL
from sqlalchemy.exc import ArgumentError, NoSuchModuleError

from core.errors import StoreError
from core.inputs.text import text_problem
from core.redact import redact_url

# ``word:`` at the start: a URL scheme (a one-letter prefix would be a Windows drive).
_URL_SHAPED = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]+):")
_MEMORY = ":memory:"
# Query options SQLAlchemy's pysqlite dialect takes, and SQLite's own URI options (uri=true).
_SQLITE_OPTIONS = frozenset({
    "timeout", "isolation_level", "detect_types", "check_same_thread", "cached_statements",
    "uri", "mode", "cache", "vfs", "immutable", "nolock", "psow", "modeof"})


def _refuse(target: str, problem: str) -> StoreError:
    return StoreError(f"cannot open audit store {redact_url(target)}: {problem}")


def store_url(target: str) -> str:
    """The SQLAlchemy URL of the store at ``target`` (a path or a URL); ``StoreError`` when it
    is malformed or names something that is not a database file."""
    problem = text_problem(target)
    if problem:
        raise _refuse(target, f"the location {problem}")
    text = target.strip()
    if not text:
        raise StoreError("audit store location is empty (give a SQLite file path or a URL)")
    if "://" in text:
        return _checked_url(text)
    shaped = _URL_SHAPED.match(text)
    if shaped and "/" not in shaped.group(1):
        scheme = shaped.group(1)
        raise _refuse(text, f"looks like a URL but lacks '//' after '{scheme}:' (write "
                            f"{scheme}://...; a file whose name starts with '{scheme}:' "
                            f"can be given as ./{text.split('/')[0]}...)")
    return f"sqlite:///{_checked_sqlite_path(text, text)}"


def _checked_url(text: str) -> str:
    try:
        url = make_url(text)
    except (ArgumentError, ValueError) as exc:
        detail = str(exc)
        if "int()" in detail:
            detail = "the port is not a number"
        raise _refuse(text, f"not a valid database URL ({detail})") from None
    try:
        url.get_dialect()
    except NoSuchModuleError:
        raise _refuse(text, f"unknown database scheme {url.drivername!r} (use sqlite:/// "
                            "or postgresql://)") from None
    if url.port is not None and not 1 <= url.port <= 65535:
        raise _refuse(text, f"port {url.port} is out of range (1-65535)")
    if url.get_backend_name() == "sqlite":
        _check_sqlite_url(url, text)
    return text


def _check_sqlite_url(url: URL, text: str) -> None:
    unknown = sorted(set(url.query) - _SQLITE_OPTIONS)
    if unknown:  # SQLAlchemy ignores them: a typo (or a pasted token) would pass silently
        raise _refuse(text, f"unknown SQLite option {unknown[0]!r} in the query string "
                            f"(known: {', '.join(sorted(_SQLITE_OPTIONS))})")
    database = (url.database or "").strip()
    if not database or database == _MEMORY or url.query.get("mode") == "memory" \
            or "mode=memory" in database:
        raise _refuse(text, "an in-memory SQLite database keeps the audit trail only until the "
                            "command ends; give a SQLite file path")
    if not database.startswith("file:"):
        _checked_sqlite_path(url.database or database, text)


def _checked_sqlite_path(path_text: str, target: str) -> Path:
    """The absolute path of a SQLite file; refused when it exists and is not a regular file."""
    try:
        path = Path(path_text).expanduser().resolve()
    except (OSError, RuntimeError) as exc:
        raise _refuse(target, f"cannot resolve the path: {exc}") from None
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return path  # created on open
    except OSError as exc:
        raise _refuse(target, f"cannot use the path: {exc.strerror or exc}") from None
    if not stat.S_ISREG(mode):
        kind = ("a directory" if stat.S_ISDIR(mode) else "a FIFO" if stat.S_ISFIFO(mode)
                else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "a special file")
        raise _refuse(target, f"is {kind}, not a SQLite database file")
    return path
