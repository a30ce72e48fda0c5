"""The version stamp on both databases: a new store is stamped, a newer one is refused, an
older one (no ``store_meta``) is stamped on open; a shared PostgreSQL database may hold other
applications' tables. The SQLite file cases run as the real CLI in tests/hardening."""

from __future__ import annotations

import pytest
from sqlalchemy import text

from core.errors import StoreError
from core.store import Store, open_store
from core.store.identity import SCHEMA_VERSION


def _version(store: Store) -> str | None:
    with store.engine.connect() as connection:
        return connection.execute(text(
            "SELECT value FROM store_meta WHERE key = 'schema_version'")).scalar()


def test_a_new_store_is_stamped_and_a_newer_one_is_refused(any_store_url: str) -> None:
    store = open_store(any_store_url)
    assert _version(store) == str(SCHEMA_VERSION)
    with store.engine.begin() as connection:
        connection.execute(text("UPDATE store_meta SET value = :v WHERE key = 'schema_version'"),
                           {"v": str(SCHEMA_VERSION + 1)})
    store.engine.dispose()
    with pytest.raises(StoreError, match=f"newer superbiz .store schema version {SCHEMA_VERSION + 1}"):
        open_store(any_store_url)


def test_an_older_store_is_stamped_on_open(any_store_url: str) -> None:
    store = open_store(any_store_url)
    with store.engine.begin() as connection:
        connection.execute(text("DROP TABLE store_meta"))
    store.engine.dispose()
    assert _version(open_store(any_store_url)) == str(SCHEMA_VERSION)


def test_other_applications_tables_beside_ours_are_left_alone(any_store_url: str) -> None:
    store = open_store(any_store_url)
    with store.engine.begin() as connection:
        connection.execute(text("CREATE TABLE customers (id integer primary key)"))
    store.engine.dispose()
    open_store(any_store_url).engine.dispose()  # ours are there: opened
