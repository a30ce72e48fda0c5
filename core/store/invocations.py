"""Tool invocations in the audit store: recording them, numbering them, reading them back, and
the gatekeeper's checked bindings for QA."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError
from sqlalchemy import insert, text
from sqlalchemy.engine import Connection
from sqlmodel import Session, SQLModel, col, select

from core.contracts import Invocation, RetrievalDetails
from core.errors import StoredRowError, StoreError, first_error
from core.store.db import Store
from core.store.models import CheckedBindingRow, InvocationRow, utcnow

# Ids are INTEGER on PostgreSQL: a cited id outside that range (a fabricated one) names no
# stored invocation; the column stays empty and ``detail`` keeps the number.
INVOCATION_ID_RANGE = range(-(2**31), 2**31)


def record_invocation(store: Store, *, session_id: str, tool_name: str, arguments: dict[str, Any],
                      output: dict[str, Any], retrieval_details: RetrievalDetails,
                      duration_ms: float | None = None, source: str | None = None,
                      request: dict[str, Any] | None = None,
                      started_ms: float | None = None) -> Invocation:
    """Persist one tool call (with the source that answered and the request it served); the
    database assigns its store-wide ``invocation_id``."""
    details = retrieval_details.model_dump(mode="json")
    with store.begin() as connection:
        inserted = connection.execute(insert(InvocationRow).values(
            session_id=session_id, created_at=utcnow(), tool_name=tool_name,
            arguments=dict(arguments), output=output, retrieval_details=details,
            evidence_status=retrieval_details.evidence_status, duration_ms=duration_ms,
            started_ms=started_ms, source=source, request=request))
        key = inserted.inserted_primary_key
        if key is None:  # a driver that reports no key cannot number invocations
            raise StoreError(f"audit store {store.url}: no id returned for a tool invocation")
        invocation_id = int(key[0])
    return Invocation(invocation_id=invocation_id, session_id=session_id, tool_name=tool_name,
                      arguments=dict(arguments), output=output,
                      retrieval_details=retrieval_details, duration_ms=duration_ms,
                      started_ms=started_ms, source=source, request=request)


_INVOCATION_COLUMNS = frozenset(SQLModel.metadata.tables["tool_invocations"].c.keys())


def invocation_values(invocation: Invocation) -> dict[str, Any]:
    """The row of an invocation whose id was reserved (``reserve_invocation_ids``). Fields of
    the contract the table has no column for yet are left out."""
    details = invocation.retrieval_details
    values = {"id": invocation.invocation_id, "session_id": invocation.session_id,
              "created_at": utcnow(), "tool_name": invocation.tool_name,
              "arguments": dict(invocation.arguments), "output": invocation.output,
              "retrieval_details": details.model_dump(mode="json") if details else None,
              "evidence_status": details.evidence_status if details else None,
              "duration_ms": invocation.duration_ms, "started_ms": invocation.started_ms,
              "source": invocation.source, "request": invocation.request}
    return {name: value for name, value in values.items() if name in _INVOCATION_COLUMNS}


def reserve_invocation_ids(connection: Connection, count: int) -> list[int]:
    """``count`` invocation ids nobody else will get, from the same counter the table's own
    autoincrement uses (SQLite's ``sqlite_sequence``, PostgreSQL's serial sequence), so rows
    inserted without an id never collide with them. Empty on other databases."""
    dialect = connection.dialect.name
    if dialect == "postgresql":
        rows = connection.execute(
            text("SELECT nextval(pg_get_serial_sequence('tool_invocations', 'id')) "
                 "FROM generate_series(1, :count)"), {"count": count})
        return [int(row[0]) for row in rows]
    if dialect != "sqlite":
        return []
    # The write lock SQLite takes for this UPDATE lasts until the batch commits: no other
    # writer can read the counter in between.
    connection.execute(text(
        "INSERT INTO sqlite_sequence (name, seq) SELECT 'tool_invocations', "
        "(SELECT COALESCE(MAX(id), 0) FROM tool_invocations) WHERE NOT EXISTS "
        "(SELECT 1 FROM sqlite_sequence WHERE name = 'tool_invocations')"))
    connection.execute(text("UPDATE sqlite_sequence SET seq = seq + :count "
                            "WHERE name = 'tool_invocations'"), {"count": count})
    last = int(connection.execute(text(
        "SELECT seq FROM sqlite_sequence WHERE name = 'tool_invocations'")).scalar_one())
    return list(range(last - count + 1, last + 1))


def _invocation(row: InvocationRow) -> Invocation:
    return Invocation(invocation_id=row.id or 0, session_id=row.session_id, tool_name=row.tool_name,
                      arguments=row.arguments or {}, output=row.output or {},
                      retrieval_details=row.retrieval_details,
                      duration_ms=row.duration_ms, started_ms=row.started_ms, source=row.source,
                      request=row.request)


def get_invocation(store: Store, *, invocation_id: int) -> Invocation | None:
    """Any invocation in the store, whatever its session (the gatekeeper's cross-session check).
    An id no row could have (a model's invention beyond the column's range) is simply absent."""
    if invocation_id not in INVOCATION_ID_RANGE:
        return None
    with store.session() as db:
        row = db.get(InvocationRow, invocation_id)
        return _invocation(row) if row is not None else None


def list_invocations(store: Store, *, session_id: str) -> list[Invocation]:
    """A session's invocations in call order."""
    with store.session() as db:
        return session_invocations(db, session_id)


def session_invocations(db: Session, session_id: str) -> list[Invocation]:
    """A session's invocations in call order, read in the open ``db`` session."""
    rows = db.exec(select(InvocationRow).where(InvocationRow.session_id == session_id)
                   .order_by(col(InvocationRow.id))).all()
    try:
        return [_invocation(row) for row in rows]
    except ValidationError as exc:
        raise StoredRowError(f"session {session_id}: a stored invocation cannot be read back "
                             f"({first_error(exc)})") from None


def list_checked_bindings(store: Store, *, session_id: str | None = None, rule: str | None = None,
                          tool_name: str | None = None, status: str | None = None,
                          limit: int = 1000) -> list[CheckedBindingRow]:
    """Checked-binding rows for QA, filtered by session, rule, tool or status."""
    query = select(CheckedBindingRow)
    if session_id:
        query = query.where(CheckedBindingRow.session_id == session_id)
    if rule:
        query = query.where(CheckedBindingRow.rule == rule)
    if tool_name:
        query = query.where(CheckedBindingRow.tool_name == tool_name)
    if status:
        query = query.where(CheckedBindingRow.status == status)
    with store.session() as db:
        return list(db.exec(query.order_by(col(CheckedBindingRow.id)).limit(limit)).all())
