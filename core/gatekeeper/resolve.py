"""Which invocation a binding cites: lookup in the session, the store, or a unique candidate.

Back-fill (docs/design.md §4, kept for compatibility): a binding without ``source_invocation_id``
gets one only when the session holds exactly one invocation of the binding's tool; raw_path is
never back-filled, and the caller must never let a back-filled binding pass.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from core.contracts import Invocation
from core.gatekeeper.rules import INVOCATION_REF, INVOCATION_SESSION

ForeignLookup = Callable[[int], Invocation | None]


@dataclass(frozen=True)
class Resolved:
    """The cited invocation, or the rule and message saying why there is none."""

    invocation: Invocation | None = None
    rule: str = ""
    message: str = ""


class SessionInvocations:
    """The current session's invocations, indexed for citation checks."""

    def __init__(self, session_id: str | None, invocations: Sequence[Invocation],
                 foreign_invocation: ForeignLookup | None = None) -> None:
        self.session_id = session_id
        self.foreign_invocation = foreign_invocation
        self.by_id: dict[int, Invocation] = {}
        for invocation in invocations:
            self.by_id.setdefault(invocation.invocation_id, invocation)

    def _is_foreign(self, invocation: Invocation) -> bool:
        return bool(self.session_id and invocation.session_id and invocation.session_id != self.session_id)

    def resolve(self, invocation_id: int) -> Resolved:
        """The invocation a binding names, if it is real and this session's."""
        invocation = self.by_id.get(invocation_id)
        if invocation is None and self.foreign_invocation is not None:
            invocation = self.foreign_invocation(invocation_id)
            if invocation is not None and not (self.session_id and invocation.session_id == self.session_id):
                return Resolved(rule=INVOCATION_SESSION, message=(
                    f"source_invocation_id {invocation_id} belongs to session "
                    f"{invocation.session_id or '(unknown)'}, not {self.session_id or '(this session)'}"))
        if invocation is None:
            where = "in this session or anywhere in the store" if self.foreign_invocation else "of this session"
            return Resolved(rule=INVOCATION_REF, message=(
                f"source_invocation_id {invocation_id} is not a recorded invocation {where}"))
        if self._is_foreign(invocation):
            return Resolved(rule=INVOCATION_SESSION, message=(
                f"source_invocation_id {invocation_id} belongs to session {invocation.session_id}, "
                f"not {self.session_id}"))
        return Resolved(invocation=invocation)

    def candidates(self, tool_name: str | None) -> list[Invocation]:
        """This session's invocations of ``tool_name`` (back-fill candidates)."""
        if not tool_name:
            return []
        return [inv for inv in self.by_id.values()
                if inv.tool_name == tool_name and not self._is_foreign(inv)]
