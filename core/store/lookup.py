"""The audit store as the gatekeeper sees it: invocations by id and the sessions it holds.

Implements ``core.gatekeeper.StoredInvocations``: when a document is checked against the store,
the stored invocation wins over the document's copy, and an invocation of another stored
session is rejected whatever the document says.
"""

from __future__ import annotations

from collections.abc import Sequence

from core.contracts import Invocation
from core.store import repository
from core.store.db import Store


class StoreInvocations:
    """Invocations and sessions of ``store``; ``recorded`` -- the calls of the session this
    process is running (``session_id``), just stored -- are answered from memory."""

    def __init__(self, store: Store, *, recorded: Sequence[Invocation] = (),
                 session_id: str | None = None) -> None:
        self.store = store
        self.recorded = {invocation.invocation_id: invocation for invocation in recorded}
        self.session_id = session_id

    def invocation(self, invocation_id: int) -> Invocation | None:
        """The stored invocation with this id, whatever its session."""
        if invocation_id in self.recorded:
            return self.recorded[invocation_id]
        return repository.get_invocation(self.store, invocation_id=invocation_id)

    def holds_session(self, session_id: str) -> bool:
        """Whether the store recorded this session."""
        return session_id == self.session_id or repository.session_exists(self.store, session_id=session_id)
