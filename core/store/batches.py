"""The batched write of a session: what one transaction writes (``Batch``, filled by
``core.store.journal``, one per stage boundary) and the transaction that writes it."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import insert, update
from sqlalchemy.engine import Connection
from sqlmodel import col

from core.contracts import Invocation
from core.store.chain import seal, seal_many
from core.store.db import Store
from core.store.invocations import invocation_values, reserve_invocation_ids
from core.store.leases import heartbeat
from core.store.models import CheckedBindingRow, InvocationRow, SessionEventRow, SessionRow, utcnow


@dataclass
class Batch:
    """What one transaction of a session writes (``core.store.journal`` fills it)."""

    create: dict[str, Any] | None = None
    values: dict[str, Any] = field(default_factory=dict)
    invocations: list[Invocation] = field(default_factory=list)
    bindings: list[dict[str, Any]] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    rewrites: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    reserve_ids: int = 0
    closing: bool = False

    @property
    def empty(self) -> bool:
        """Nothing to write."""
        return not (self.create or self.values or self.invocations or self.bindings
                    or self.events or self.rewrites or self.reserve_ids or self.closing)


def write_batch(store: Store, *, session_id: str, batch: Batch) -> list[int]:
    """Write ``batch`` in one transaction; returns the invocation ids it reserved. Every write
    also refreshes the session's heartbeat; the closing one releases its lease."""
    now = utcnow()
    reserved: list[int] = []
    with store.begin() as connection:
        if batch.create is not None:
            connection.execute(insert(SessionRow).values(**batch.create))
        if batch.reserve_ids:
            reserved = reserve_invocation_ids(connection, batch.reserve_ids)
        if batch.invocations:
            connection.execute(insert(InvocationRow),
                               [invocation_values(item) for item in batch.invocations])
        values = {**batch.values, "heartbeat_at": now}
        if batch.create is None or batch.values:
            result = connection.execute(update(SessionRow)
                                        .where(col(SessionRow.id) == session_id).values(**values))
            if result.rowcount == 0:
                raise KeyError(session_id)
        if batch.bindings:
            connection.execute(insert(CheckedBindingRow), batch.bindings)
        if batch.events:
            connection.execute(insert(SessionEventRow), [
                {"session_id": session_id, "created_at": now, **row} for row in batch.events])
        for seq, payload in batch.rewrites:
            connection.execute(update(SessionEventRow)
                               .where(col(SessionEventRow.session_id) == session_id)
                               .where(col(SessionEventRow.seq) == seq).values(payload=payload))
        if batch.closing:  # sealed as it closes, in the same transaction (core.store.chain)
            seal(connection, "session", session_id)
    if batch.create is not None:
        heartbeat.hold(store, "sessions", session_id)
    if batch.closing:
        heartbeat.release(store, "sessions", session_id)
    return reserved


def write_closed(store: Store, batches: Sequence[tuple[str, Batch]], *,
                 also: Callable[[Connection], None] | None = None) -> None:
    """Several sessions' closing writes (``batch.closing``, no ids to reserve; a session whose
    row was not written yet is created too), in one transaction with ``also`` (an eval run's case results), sealed
    together (``core.store.chain.seal_many``): rows of a kind go in one statement for all."""
    now = utcnow()
    with store.begin() as connection:
        for _, batch in batches:
            if batch.create is not None:
                connection.execute(insert(SessionRow).values(**batch.create))
        invocations = [invocation_values(item) for _, batch in batches for item in batch.invocations]
        if invocations:
            connection.execute(insert(InvocationRow), invocations)
        for session_id, batch in batches:
            result = connection.execute(update(SessionRow).where(col(SessionRow.id) == session_id)
                                        .values(**batch.values, heartbeat_at=now))
            if result.rowcount == 0:
                raise KeyError(session_id)
        bindings = [row for _, batch in batches for row in batch.bindings]
        if bindings:
            connection.execute(insert(CheckedBindingRow), bindings)
        events = [{"session_id": session_id, "created_at": now, **row}
                  for session_id, batch in batches for row in batch.events]
        if events:
            connection.execute(insert(SessionEventRow), events)
        for session_id, batch in batches:
            for seq, payload in batch.rewrites:
                connection.execute(update(SessionEventRow)
                                   .where(col(SessionEventRow.session_id) == session_id)
                                   .where(col(SessionEventRow.seq) == seq).values(payload=payload))
        seal_many(connection, "session", [session_id for session_id, _ in batches])
        if also is not None:
            also(connection)
    for session_id, batch in batches:
        if batch.create is None:  # created by an earlier transaction, whose lease this ends
            heartbeat.release(store, "sessions", session_id)
