"""Sessions written together: an eval run's sessions, each held in memory until it closes and
then written with others, many to a transaction (``core.evals.runner``).

One session alone is two transactions at least (``core.store.journal``: the plan with its
tool-call id reservation, and the close, sealed in the audit chain). An eval run asks a
thousand questions and reads no session before it is done, so its sessions write their row as
they start (a crash leaves it, for the lease check to mark ``incomplete``), draw tool-call ids
from one pool reserved ``ID_POOL`` at a time, and wait, closed, for ``write``: one transaction
for every session that closed since the last, with the rows of a kind in one statement, the
chain's records in one round (``chain.seal_many``) and the caller's own rows (the cases'
results) beside them. What a crash leaves: the sessions and results written before it, and the
rows of the sessions not written yet, running; ids reserved and never used are gaps (ids are
unique, not dense).
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from sqlalchemy.engine import Connection

from core.store.batches import Batch, write_closed
from core.store.db import Store
from core.store.invocations import reserve_invocation_ids

# Tool-call ids reserved per transaction (a case of the generated evals makes ~6 calls).
ID_POOL = 512


class GroupedWrites:
    """The closed sessions waiting for ``write``, and the pool their tool-call ids come from;
    safe to share between the threads that run the sessions."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._lock = threading.Lock()
        self._ids: list[int] = []
        self._closed: list[tuple[str, Batch]] = []

    def invocation_ids(self, count: int) -> list[int]:
        """``count`` store-wide tool-call ids (empty when the database reserves none: the
        session is then written as any other)."""
        with self._lock:
            if len(self._ids) < count:
                with self.store.begin() as connection:
                    self._ids += reserve_invocation_ids(connection, max(count, ID_POOL))
            taken, self._ids = self._ids[:count], self._ids[count:]
            return taken

    def close(self, session_id: str, batch: Batch) -> None:
        """A session's closing write (everything since its row): stored by the next ``write``."""
        if not batch.closing or batch.reserve_ids:
            raise ValueError(f"session {session_id}: only a closing write waits to be grouped")
        with self._lock:
            self._closed.append((session_id, batch))

    @property
    def waiting(self) -> int:
        """Sessions closed and not yet written."""
        with self._lock:
            return len(self._closed)

    def write(self, also: Callable[[Connection], None] | None = None) -> None:
        """Every waiting session, and ``also``'s rows, in one transaction (``also`` alone when
        none waits). A failed write keeps nothing waiting: the error is the caller's."""
        with self._lock:
            closed, self._closed = self._closed, []
        if closed:
            write_closed(self.store, closed, also=also)
        elif also is not None:
            with self.store.begin() as connection:
                also(connection)
