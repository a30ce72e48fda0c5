"""A session's event log: one row per pipeline event, read back whole (stage results the stored
payloads point at are put back, ``core.store.journal``)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import insert
from sqlmodel import Session, col, select

from core.store.db import Store
from core.store.invocations import session_invocations
from core.store.journal import resolve_payload
from core.store.models import SessionEventRow, SessionRow, utcnow
from core.store.sessions import with_checked_bindings


def append_event(store: Store, *, session_id: str, seq: int, kind: str,
                 payload: dict[str, Any]) -> None:
    """Append one pipeline event to the session's log."""
    # Core insert, not the ORM: one event per transaction is on the hot path of every ask.
    with store.begin() as connection:
        connection.execute(insert(SessionEventRow), {
            "session_id": session_id, "seq": seq, "kind": kind, "payload": payload,
            "created_at": utcnow()})


def list_events(store: Store, *, session_id: str, after_seq: int = -1) -> list[SessionEventRow]:
    """A session's events after ``after_seq``, in order (for live views and crash forensics).

    Each row's ``payload`` is the whole event as emitted (``core.events.parse_event`` reads
    it): stage results the stored payload points at (``core.store.journal``) are put back.
    """
    with store.session() as db:
        rows = list(db.exec(select(SessionEventRow)
                            .where(SessionEventRow.session_id == session_id)
                            .where(SessionEventRow.seq > after_seq)
                            .order_by(col(SessionEventRow.seq))).all())
        lookup = _StageResults(db, session_id)
        return [SessionEventRow(
            id=row.id, session_id=row.session_id, seq=row.seq, created_at=row.created_at,
            kind=row.kind, payload={**resolve_payload(row.payload or {}, lookup),
                                    "session_id": row.session_id, "seq": row.seq,
                                    "kind": row.kind}) for row in rows]


class _StageResults:
    """The stage results of one stored session by address (``core.store.journal``), read
    from the database the first time an event points at one."""

    def __init__(self, db: Session, session_id: str) -> None:
        self._db, self._session_id = db, session_id
        self._row: SessionRow | None = None
        self._gatekeeper: dict[str, Any] | None = None
        self._invocations: dict[str, Any] | None = None

    def __call__(self, address: str) -> Any:
        kind, _, index = address.partition(":")
        if kind == "invocation":
            if self._invocations is None:
                self._invocations = {
                    str(item.invocation_id): item.model_dump(mode="json")
                    for item in session_invocations(self._db, self._session_id)}
            return self._invocations.get(index)
        if self._row is None:
            self._row = self._db.get(SessionRow, self._session_id) or SessionRow(
                id=self._session_id, question="", pack="")
            evaluation = (self._row.self_evaluation or {}).get("verifier_evaluation") or {}
            self._gatekeeper = with_checked_bindings(self._db, self._session_id,
                                                     evaluation.get("gatekeeper_result"))
        row = self._row
        evaluation = (row.self_evaluation or {}).get("verifier_evaluation") or {}
        direct = {"plan": row.plan, "executor_output": row.executor_output,
                  "parse_status": row.parse_status, "composer_output": row.composer_output,
                  "gatekeeper_result": self._gatekeeper,
                  "tool_trace_summary": evaluation.get("tool_trace_summary"),
                  "verifier_result": evaluation.get("verifier_result")}
        if kind in direct:
            return direct[kind]
        parent, key = {"checked_binding": ("gatekeeper_result", "checked_bindings"),
                       "claim_result": ("verifier_result", "claim_results")}.get(kind, ("", ""))
        items = (direct.get(parent) or {}).get(key) or []
        return items[int(index)] if index.isdigit() and int(index) < len(items) else None
