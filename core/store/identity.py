"""Is this database an audit store this code may use? Checked on open, before anything is written.

A store carries its schema version in ``store_meta`` (key ``schema_version``). On open:

- a SQLite file is first read through a read-only connection (so a refused file is left
  byte for byte as it was: no WAL switch, no ``-wal``/``-shm`` files): a file that is not a
  SQLite database, or fails SQLite's ``quick_check`` (a damaged page), is refused; so is one
  holding tables but none of the audit store's (another application's database);
- any database whose ``schema_version`` is newer than ``SCHEMA_VERSION`` is refused (this code
  would not know what its tables mean), on every dialect;
- a database locked by another process past the busy timeout is refused in one line.

A store made before ``store_meta`` existed (it has the ``sessions`` table) is an older store:
it is upgraded (``core.store.migrate``) and then stamped with this version.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import create_engine, inspect, select
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import IntegrityError, OperationalError, SQLAlchemyError
from sqlalchemy.pool import NullPool

from core.errors import StoreError
from core.redact import redact_text, redact_url
from core.store.models import StoreMetaRow

SCHEMA_VERSION = 3  # 2: the audit chain (core.store.chain); 3: annotations sealed in it
BUSY_TIMEOUT_S = 10  # how long a command waits for another process's lock (SQLite)
_VERSION_KEY = "schema_version"
_MARKER_TABLES = frozenset({"store_meta", "sessions"})  # either one: the database is ours


def refusal(url: str, problem: str) -> StoreError:
    """The one-line error for a store that cannot be used (``problem`` is this module's own
    words; a driver's message in it is redacted where it is quoted)."""
    return StoreError(f"cannot open audit store {redact_url(url)}: {problem}")


def access_problem(exc: BaseException) -> str | None:
    """What a SQLite error that is about access, not content, means for the user: another
    process holds the lock past the busy timeout, or the file or its folder is read-only
    (SQLite in WAL mode needs to write its ``-shm`` file even to read)."""
    if not isinstance(exc, OperationalError | sqlite3.OperationalError):
        return None
    text = redact_text(str(getattr(exc, "orig", None) or exc).splitlines()[0])
    if "is locked" in text:
        return (f"the database is locked by another process (waited {BUSY_TIMEOUT_S} s); "
                "try again when it has finished")
    if "readonly" in text or "read-only" in text or "unable to open database file" in text:
        return (f"cannot write it ({text}): the file or its folder is read-only for this "
                "user, or the folder is missing")
    return None


def check_sqlite_file(url: str, path: Path) -> None:
    """Refuse (``StoreError``) an existing SQLite file that is not a usable audit store, reading
    it only (see the module docstring). A missing or empty file is a new store."""
    try:
        if not path.exists() or path.stat().st_size == 0:
            return
    except OSError as exc:
        raise refusal(url, f"cannot use the path: {exc.strerror or exc}") from None
    path = path.resolve()
    # With no -wal or -journal file beside it, no process is mid-write: read the file as
    # immutable, which creates no -wal/-shm files (a read-only WAL connection would leave them).
    live = any(path.with_name(path.name + suffix).exists() for suffix in ("-wal", "-journal"))
    uri = f"{path.as_uri()}?mode=ro" + ("" if live else "&immutable=1")
    reader = create_engine("sqlite://", poolclass=NullPool, creator=lambda: sqlite3.connect(
        uri, uri=True, timeout=BUSY_TIMEOUT_S, check_same_thread=False))
    with _connected(url, reader, "not an audit store: not a SQLite database, or a damaged one") \
            as connection:
        damage = connection.exec_driver_sql("PRAGMA quick_check(1)").scalar()
        if damage != "ok":
            first = str(damage).replace("*** in database main ***", "").strip().splitlines()
            raise refusal(url, "the SQLite file is damaged (integrity check: "
                               f"{first[0] if first else damage})")
        check_tables(url, connection, foreign_refused=True)


def check_tables(url: str, connection: Connection, *, foreign_refused: bool) -> None:
    """Refuse a database holding another application's tables (when ``foreign_refused``) or a
    store of a newer schema version."""
    tables = {name for name in inspect(connection).get_table_names()
              if not name.startswith("sqlite_")}
    if not tables:
        return  # a new, empty database
    if foreign_refused and not tables & _MARKER_TABLES:
        shown = ", ".join(sorted(tables)[:5]) + (", ..." if len(tables) > 5 else "")
        raise refusal(url, f"the database holds another application's tables ({shown}) and "
                           "none of the audit store's; give a new file or the store's own path")
    if "store_meta" not in tables:
        return  # a store made before store_meta existed: upgraded on open
    stored = connection.execute(select(StoreMetaRow.value)  # type: ignore[call-overload]
                                .where(StoreMetaRow.key == _VERSION_KEY)).scalar()
    if stored is None:
        return
    try:
        version = int(stored)
    except ValueError:
        raise refusal(url, f"its schema version {str(stored)[:40]!r} is not a number") from None
    if version > SCHEMA_VERSION:
        raise refusal(url, f"it was written by a newer superbiz (store schema version {version}; "
                           f"this version knows up to {SCHEMA_VERSION}); upgrade superbiz")


def check_engine(url: str, engine: Engine) -> None:
    """``check_tables`` for a server database (no file to read apart): only the version check,
    since a shared database may hold other applications' tables too."""
    with _connected(url, engine, "cannot read it") as connection:
        check_tables(url, connection, foreign_refused=False)


def stamp_version(engine: Engine) -> None:
    """Record ``SCHEMA_VERSION`` once the tables are this version's (a new or upgraded store)."""
    with engine.begin() as connection:
        stored = connection.execute(select(StoreMetaRow.value)  # type: ignore[call-overload]
                                    .where(StoreMetaRow.key == _VERSION_KEY)).scalar()
    if stored is not None and stored.isdigit() and int(stored) >= SCHEMA_VERSION:
        return
    try:
        with engine.begin() as connection:
            if stored is None:
                connection.execute(StoreMetaRow.__table__.insert().values(  # type: ignore[attr-defined]
                    key=_VERSION_KEY, value=str(SCHEMA_VERSION)))
            else:
                connection.execute(StoreMetaRow.__table__.update()  # type: ignore[attr-defined]
                                   .where(StoreMetaRow.__table__.c.key == _VERSION_KEY)  # type: ignore[attr-defined]
                                   .values(value=str(SCHEMA_VERSION)))
    except IntegrityError:
        pass  # another process opening the new store stamped it first


@contextmanager
def _connected(url: str, engine: Engine, failure: str) -> Iterator[Connection]:
    try:
        with engine.connect() as connection:
            yield connection
    except StoreError:
        raise
    except SQLAlchemyError as exc:
        problem = access_problem(exc)
        if problem:
            raise refusal(url, problem) from None
        reason = redact_text(str(getattr(exc, "orig", None) or exc).splitlines()[0])
        raise refusal(url, f"{failure} ({reason})") from None
    finally:
        engine.dispose()
