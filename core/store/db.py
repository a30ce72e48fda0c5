"""Opening the audit store: SQLite (WAL) by default, any SQLAlchemy URL otherwise."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import event, inspect, make_url
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.engine.interfaces import DBAPIConnection
from sqlalchemy.exc import OperationalError, ProgrammingError, SQLAlchemyError
from sqlalchemy.pool import ConnectionPoolEntry
from sqlmodel import Session, SQLModel, create_engine

from core.errors import StoreError
from core.redact import redact_text, redact_url
from core.settings import get_settings
from core.store import models  # noqa: F401  (registers the tables)
from core.store.dialects import configure_text_escape, default_postgres_driver, json_dumps
from core.store.identity import BUSY_TIMEOUT_S, access_problem, check_engine, check_sqlite_file, refusal, stamp_version
from core.store.location import store_url
from core.store.migrate import add_missing_columns, seal_existing_records


class Store:
    """An open audit store. Repository functions take it as their first argument."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    @property
    def url(self) -> str:
        """The store's URL with its userinfo and query values redacted (``core.redact``)."""
        return redact_url(self.engine.url.render_as_string(hide_password=False))

    @contextmanager
    def session(self) -> Iterator[Session]:
        """An ORM unit of work: committed on success, rolled back on error."""
        with self._store_errors(), Session(self.engine, expire_on_commit=False) as db:
            try:
                yield db
                db.commit()
            except BaseException:
                db.rollback()
                raise

    @contextmanager
    def begin(self) -> Iterator[Connection]:
        """A Core transaction (the hot write path): committed on success, rolled back on error."""
        with self._store_errors(), self.engine.begin() as connection:
            yield connection

    def check_writable(self) -> None:
        """Refuse, before a command does any work, a SQLite store this process cannot write:
        another process holds its write lock past the busy timeout, or the file or its folder
        is read-only. Takes the write lock (``BEGIN IMMEDIATE``), writes the header's user
        version back unchanged (a store opened read-only -- ``?mode=ro``, a read-only mount,
        where permissions say nothing to root -- takes the lock but refuses the write) and
        rolls back: writes nothing. Server databases report such problems on their first write."""
        if self.engine.dialect.name != "sqlite":
            return
        with self._store_errors(), self.engine.connect() as connection:
            connection.exec_driver_sql("BEGIN IMMEDIATE")
            version = int(connection.exec_driver_sql("PRAGMA user_version").scalar_one())
            connection.exec_driver_sql(f"PRAGMA user_version = {version}")
            connection.rollback()

    @contextmanager
    def _store_errors(self) -> Iterator[None]:
        # Either path reports a database failure the same way: one StoreError naming the store.
        try:
            yield
        except SQLAlchemyError as exc:
            problem = access_problem(exc)
            if problem:
                raise StoreError(f"audit store {self.url}: {problem}") from None
            raise StoreError(redact_text(f"audit store {self.url}: {exc.__class__.__name__}: {exc}")) \
                from exc


def _lenient_json(text: str) -> Any:
    """A stored JSON value, read back defensively: JSON that does not parse (a row damaged by
    another program) reads as ``None`` instead of failing the whole query, so one bad row never
    breaks a listing or an export; a row that then fails validation is reported by its reader."""
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


def _sqlite_pragmas(dbapi_connection: DBAPIConnection, _record: ConnectionPoolEntry) -> None:
    cursor = dbapi_connection.cursor()
    # WAL lets the console read while a pipeline writes; NORMAL sync is safe with WAL.
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_S * 1000}")
    cursor.close()


def _create_missing_indexes(engine: Engine) -> None:
    """``create_all`` skips tables that exist, so a store made by an older version would keep
    its old indexes; add any index this version declares that the database lacks."""
    existing = {table: {index["name"] for index in inspect(engine).get_indexes(table)}
                for table in inspect(engine).get_table_names()}
    with engine.begin() as connection:
        for table in SQLModel.metadata.sorted_tables:
            for index in table.indexes:
                if index.name not in existing.get(table.name, set()):
                    index.create(connection, checkfirst=True)


# Two processes opening a new store at once (an eval's workers, the console and the CLI) may
# both find a table missing and both create it: the second is told it exists. That is the
# schema this process wanted, so it checks again instead of failing. Each such refusal means
# another process made one more table or index, so a process is refused at most once per
# object: it checks again that many times.
def _schema_attempts() -> int:
    tables = SQLModel.metadata.sorted_tables
    return len(tables) + sum(len(table.indexes) for table in tables) + 1


def _create_schema(engine: Engine) -> None:
    """Create the tables, columns and indexes this version declares that the store lacks."""
    attempts = _schema_attempts()
    for attempt in range(attempts):
        try:
            SQLModel.metadata.create_all(engine)
            add_missing_columns(engine)  # before the indexes: an index may name a new column
            _create_missing_indexes(engine)
            return
        except (OperationalError, ProgrammingError) as exc:
            text = str(exc.orig).casefold()
            if attempt == attempts - 1 or not ("already exists" in text or "duplicate column" in text):
                raise


def open_store(target: str | None = None, *, create_folders: bool = False) -> Store:
    """Open (creating tables if needed) the store at ``target``, or the one settings name.
    A database that is not a usable audit store is refused first (``core.store.identity``).
    A SQLite file's missing folders are created for the default location or when
    ``create_folders`` (``db init``); otherwise they are refused."""
    url = store_url(target) if target is not None else get_settings().database_url()
    # Only the default location's folders are made; a path the user gave must be in a folder
    # that exists (a typo must not create a tree of folders and a new, empty store).
    named = not create_folders and (target is not None or bool(get_settings().db))
    try:
        database = make_url(url).database
        if url.startswith("sqlite") and database and database != ":memory:" \
                and not database.startswith("file:"):
            check_sqlite_file(url, Path(database))
            folder = Path(database).parent
            if named and not folder.is_dir():
                raise refusal(url, f"its folder {folder} does not exist (create it first)")
            folder.mkdir(parents=True, exist_ok=True)
        url = default_postgres_driver(url)
        engine = create_engine(url, json_serializer=json_dumps, json_deserializer=_lenient_json,
                               connect_args={"check_same_thread": False}
                               if url.startswith("sqlite") else {})
        if url.startswith("sqlite"):
            event.listen(engine, "connect", _sqlite_pragmas)
        configure_text_escape(engine)
        if not url.startswith("sqlite"):
            check_engine(url, engine)
        _create_schema(engine)
        seal_existing_records(engine)  # before the stamp: a store stamped 2 has its chain
        stamp_version(engine)
    except ImportError as exc:  # e.g. a postgresql:// URL without its driver installed
        raise StoreError(f"cannot open audit store {redact_url(url)}: database driver missing "
                         f"({exc.name or exc}); install it into the environment, e.g. "
                         f"`.venv/bin/pip install psycopg[binary]` for PostgreSQL") from None
    except (SQLAlchemyError, OSError, TypeError) as exc:  # TypeError: an unknown ?option=
        problem = access_problem(exc)
        if problem:
            raise refusal(url, problem) from None
        raise StoreError(redact_text(f"cannot open audit store {redact_url(url)}: {exc}")) from None
    store = Store(engine)
    from core.store.recovery import recover_abandoned  # recovery imports this module

    recover_abandoned(store)  # runs whose process died become ``incomplete`` (core.store.leases)
    return store
