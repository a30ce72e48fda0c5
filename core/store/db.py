"""Opening the audit store: SQLite (WAL) by default, any SQLAlchemy URL otherwise."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import event, inspect, make_url
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.engine.interfaces import DBAPIConnection
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.pool import ConnectionPoolEntry
from sqlmodel import Session, SQLModel, create_engine

from core.errors import StoreError
from core.settings import get_settings
from core.store import models  # noqa: F401  (registers the tables)
from core.store.dialects import configure_text_escape, default_postgres_driver, json_dumps
from core.store.migrate import add_missing_columns


class Store:
    """An open audit store. Repository functions take it as their first argument."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    @property
    def url(self) -> str:
        """The store's URL with any password hidden."""
        return self.engine.url.render_as_string(hide_password=True)

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

    @contextmanager
    def _store_errors(self) -> Iterator[None]:
        # Either path reports a database failure the same way: one StoreError naming the store.
        try:
            yield
        except SQLAlchemyError as exc:
            raise StoreError(f"audit store {self.url}: {exc.__class__.__name__}: {exc}") from exc


def _sqlite_pragmas(dbapi_connection: DBAPIConnection, _record: ConnectionPoolEntry) -> None:
    cursor = dbapi_connection.cursor()
    # WAL lets the console read while a pipeline writes; NORMAL sync is safe with WAL.
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA busy_timeout=10000")
    cursor.close()


def _hide_password(url: str) -> str:
    try:
        return make_url(url).render_as_string(hide_password=True)
    except SQLAlchemyError:
        return url


def normalise_url(target: str) -> str:
    """A plain file path becomes a SQLite URL; anything with ``://`` is kept."""
    if "://" in target:
        return target
    return f"sqlite:///{Path(target).expanduser().resolve()}"


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


def open_store(target: str | None = None) -> Store:
    """Open (creating tables if needed) the store at ``target``, or the one settings name."""
    url = normalise_url(target) if target else get_settings().database_url()
    try:
        if url.startswith("sqlite:///") and not url.startswith("sqlite:///:memory:"):
            Path(url.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
        url = default_postgres_driver(url)
        engine = create_engine(url, json_serializer=json_dumps,
                               connect_args={"check_same_thread": False}
                               if url.startswith("sqlite") else {})
        if url.startswith("sqlite"):
            event.listen(engine, "connect", _sqlite_pragmas)
        configure_text_escape(engine)
        SQLModel.metadata.create_all(engine)
        add_missing_columns(engine)  # before the indexes: an index may name a new column
        _create_missing_indexes(engine)
    except ImportError as exc:  # e.g. a postgresql:// URL without its driver installed
        raise StoreError(f"cannot open audit store {_hide_password(url)}: database driver missing "
                         f"({exc.name or exc}); install it into the environment, e.g. "
                         f"`.venv/bin/pip install psycopg[binary]` for PostgreSQL") from None
    except (SQLAlchemyError, OSError) as exc:
        raise StoreError(f"cannot open audit store {_hide_password(url)}: {exc}") from None
    store = Store(engine)
    from core.store.repository import recover_abandoned  # the repository imports this module

    recover_abandoned(store)  # runs whose process died become ``incomplete`` (core.store.leases)
    return store
