"""Leases of running rows (sessions and eval runs) in the audit store: the lease keeper's
heartbeat, and marking ``incomplete`` the runs whose process is gone (``core.store.leases``
decides who is gone)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import and_, update
from sqlmodel import col, select

from core.store.chain import seal
from core.store.db import Store
from core.store.leases import INCOMPLETE_REASON, lease_timeout_s, owner_is_gone
from core.store.models import EvalRunRow, SessionRow, utcnow


@dataclass(frozen=True)
class _Lease:
    row_id: str
    host: str | None
    pid: int | None
    token: str | None
    heartbeat_at: datetime | None
    created_at: datetime | None


def _lease_of(row: SessionRow | EvalRunRow) -> _Lease:
    return _Lease(row.id, row.lease_host, row.lease_pid, row.lease_token, row.heartbeat_at,
                  row.created_at)


def _gone(leases: Sequence[_Lease]) -> list[_Lease]:
    now, timeout = utcnow(), lease_timeout_s()
    return [lease for lease in leases if owner_is_gone(
        host=lease.host, pid=lease.pid, token=lease.token, heartbeat_at=lease.heartbeat_at,
        created_at=lease.created_at, now=now, timeout_s=timeout)]


def _mark_incomplete(store: Store, table: type[SessionRow] | type[EvalRunRow],
                     leases: Sequence[_Lease]) -> list[str]:
    """Mark the rows of ``leases`` incomplete, each only if it is still running under the same
    lease and heartbeat that were judged dead (a run that just finished or beat is left)."""
    if not leases:
        return []
    marked: list[str] = []
    values: dict[str, Any] = {"status": "incomplete"}
    if table is SessionRow:
        values |= {"error": INCOMPLETE_REASON, "verdict": None}
    with store.begin() as connection:
        for lease in leases:
            same_lease = and_(
                col(table.id) == lease.row_id, col(table.status) == "running",
                _equal_or_null(table.lease_pid, lease.pid),
                _equal_or_null(table.lease_token, lease.token),
                _equal_or_null(table.heartbeat_at, lease.heartbeat_at))
            if connection.execute(update(table).where(same_lease).values(**values)).rowcount:
                # Closed now: sealed in the same transaction (core.store.chain).
                seal(connection, "session" if table is SessionRow else "eval_run", lease.row_id)
                marked.append(lease.row_id)
    return marked


def _equal_or_null(column: Any, value: Any) -> Any:
    return column.is_(None) if value is None else column == value


def recover_rows(store: Store, table: type[SessionRow] | type[EvalRunRow],
                 rows: Sequence[SessionRow | EvalRunRow]) -> list[str]:
    """Mark ``incomplete`` those of the running ``rows`` (of ``table``) whose process is gone;
    returns their ids."""
    gone = _gone([_lease_of(row) for row in rows])
    return _mark_incomplete(store, table, gone) if gone else []


def recover_sessions(store: Store, session_ids: list[str]) -> list[str]:
    """``recover_rows`` for the sessions of ``session_ids`` still stored as running (a
    long-lived reader notices a dead run when it lists it)."""
    gone = _gone(_session_leases(store, session_ids))
    return _mark_incomplete(store, SessionRow, gone) if gone else []


_LEASE_COLUMNS = ("id", "lease_host", "lease_pid", "lease_token", "heartbeat_at", "created_at")


def _session_leases(store: Store, session_ids: list[str]) -> list[_Lease]:
    columns = [getattr(SessionRow, name) for name in _LEASE_COLUMNS]
    with store.begin() as connection:
        rows = connection.execute(select(*columns).where(col(SessionRow.id).in_(session_ids))
                                  .where(col(SessionRow.status) == "running")).all()
    return [_Lease(*row) for row in rows]


def recover_abandoned(store: Store) -> tuple[list[str], list[str]]:
    """Mark ``incomplete`` every running session and eval run whose process is gone
    (``core.store.leases``); returns their ids ``(sessions, eval runs)``."""
    found: list[list[str]] = []
    for table in (SessionRow, EvalRunRow):
        columns = [getattr(table, name) for name in _LEASE_COLUMNS]
        with store.begin() as connection:
            rows = connection.execute(select(*columns)
                                      .where(col(table.status) == "running")).all()
        gone = _gone([_Lease(*row) for row in rows])
        found.append(_mark_incomplete(store, table, gone) if gone else [])
    return found[0], found[1]


def refresh_heartbeats(store: Store, *, rows: list[tuple[str, str]], now: datetime) -> None:
    """Set ``heartbeat_at`` of running ``(table, id)`` rows (the lease keeper's beat)."""
    sessions = [row_id for table, row_id in rows if table == "sessions"]
    runs = [row_id for table, row_id in rows if table == "eval_runs"]
    with store.begin() as connection:
        if sessions:
            connection.execute(update(SessionRow).where(col(SessionRow.id).in_(sessions))
                               .where(col(SessionRow.status) == "running")
                               .values(heartbeat_at=now))
        if runs:
            connection.execute(update(EvalRunRow).where(col(EvalRunRow.id).in_(runs))
                               .where(col(EvalRunRow.status) == "running")
                               .values(heartbeat_at=now))
