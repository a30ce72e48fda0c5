"""Bringing a store made by an older version up to this version's tables, on open.

``create_all`` creates missing tables but never changes an existing one, so a column this
version adds (lease columns, an invocation's ``source``/``request``) would be missing from an
older store and every write naming it would fail. ``add_missing_columns`` adds each declared
column the database lacks with ``ALTER TABLE ... ADD COLUMN``, always as NULL-able (rows
already there have no value for it) and without a default. Nothing is ever dropped, renamed or
retyped: a column the database has and this version does not declare is left alone.

``seal_existing_records`` starts the audit chain (``core.store.chain``) of a store made before
it: every session and eval run already closed is sealed, oldest first, in one transaction.
"""

from __future__ import annotations

import logging

from sqlalchemy import inspect
from sqlalchemy.engine import Engine
from sqlalchemy.exc import SQLAlchemyError
from sqlmodel import SQLModel

log = logging.getLogger(__name__)


def missing_columns(engine: Engine) -> dict[str, list[str]]:
    """Declared columns the database's existing tables lack, by table."""
    inspector = inspect(engine)
    existing_tables = set(inspector.get_table_names())
    missing: dict[str, list[str]] = {}
    for table in SQLModel.metadata.sorted_tables:
        if table.name not in existing_tables:
            continue
        present = {column["name"] for column in inspector.get_columns(table.name)}
        absent = [column.name for column in table.columns if column.name not in present]
        if absent:
            missing[table.name] = absent
    return missing


def add_missing_columns(engine: Engine) -> list[str]:
    """Add every missing column (see the module docstring); returns ``table.column`` names."""
    missing = missing_columns(engine)
    if not missing:
        return []
    preparer = engine.dialect.identifier_preparer
    added: list[str] = []
    for table_name, names in missing.items():
        table = SQLModel.metadata.tables[table_name]
        for name in names:
            column = table.c[name]
            column_type = column.type.compile(dialect=engine.dialect)
            statement = (f"ALTER TABLE {preparer.format_table(table)} ADD COLUMN "
                         f"{preparer.format_column(column)} {column_type}")
            try:
                with engine.begin() as connection:
                    connection.exec_driver_sql(statement)
            except SQLAlchemyError:
                # Another process opening the same store may have added it first.
                if name not in {c["name"] for c in inspect(engine).get_columns(table_name)}:
                    raise
            added.append(f"{table_name}.{name}")
    log.info("audit store upgraded: added columns %s", ", ".join(added))
    return added


def seal_existing_records(engine: Engine) -> int:
    """Start the audit chain and seal the records closed before it existed (once; see
    ``core.store.chain.seal_existing``); returns how many were sealed."""
    from core.store.chain import seal_existing

    return seal_existing(engine)
