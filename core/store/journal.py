"""The pipeline's write path: a session's stage results and events, written in a few batches.

One ``ask`` is five transactions: the session row (before anything runs), the plan, the
executor's calls and output with the gatekeeper's checks, the verifier's judgement, and the
answer with the session's close. Within a stage, events and tool calls wait in memory; a crash
(even ``kill -9``) leaves the session and every stage before the one that was running, and the
lease check (``core.store.leases``) marks it ``incomplete``. Written at close
(``write_at_close``, as eval runs do) a session is two transactions: the plan with its tool-call
id reservation (and the session row and events before it) and the close (everything else); a
crash in between leaves the row and its plan, marked ``incomplete`` as above, and a crash before
the plan is stored leaves nothing. Grouped (``grouped``, an eval run's sessions) it is one: the
row as it starts, its tool-call ids from the group's pool, and the rest waits, closed, to be
written with other sessions' (a crash leaves the row, marked ``incomplete`` as above). Tool
calls get their store-wide ids from a block reserved ahead
(``core.store.invocations.reserve_invocation_ids``), so recording one costs no transaction.

Stored events do not repeat stage results: a field holding an object the same batch (or an
earlier one) wrote as a stage result is stored as an address under the payload's ``$ref`` key,
``{"$ref": {"plan": "plan", "document.invocations": ["invocation:12", ...]}}``, and
``resolve_payload`` puts the values back when events are read. Addresses name stage results:
``plan``, ``executor_output``, ``parse_status``, ``gatekeeper_result``, ``checked_binding:<i>``,
``tool_trace_summary``, ``verifier_result``, ``claim_result:<i>``, ``composer_output``,
``invocation:<id>``. A stage result that is replaced later (a PASS withdrawn after the verdict)
first has the events that pointed at it rewritten with their own values, so an event always
reads back as it was emitted.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from core.contracts import (
    ExecutorAttempt,
    ExecutorOutput,
    GatekeeperResult,
    Invocation,
    ParseStatus,
    Plan,
    SessionDocument,
    TraceSummaryEntry,
    VerifierResult,
)
from core.events import Event

if TYPE_CHECKING:
    from core.store.db import Store
    from core.store.grouped import GroupedWrites

REF_KEY = "$ref"
# Stamped on every event; stored in the row's own columns, not in the payload.
_ROW_FIELDS = frozenset({"session_id", "seq", "kind"})
# How many invocation ids a session reserves at once (more are reserved if it needs them).
ID_BLOCK = 16


def _dump(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, list):
        return [_dump(item) for item in value]
    return value


def _root(address: str) -> str:
    return {"checked_binding": "gatekeeper_result",
            "claim_result": "verifier_result"}.get(address.split(":", 1)[0], address)


class Journal:
    """Buffers one session's writes and flushes them in one transaction per call of ``flush``.

    With ``store=None`` nothing is written (nor computed: an in-memory run never imports the
    store's SQL modules) and ``next_invocation_id`` returns None.
    """

    def __init__(self, store: Store | None, session_id: str, *,
                 write_at_close: bool = False, grouped: GroupedWrites | None = None) -> None:
        self.store = store
        self.session_id = session_id
        self.write_at_close = write_at_close or grouped is not None
        self.grouped = grouped if store is not None else None
        self._create: dict[str, Any] | None = None
        self._values: dict[str, Any] = {}
        self._evaluation: dict[str, Any] = {}
        self._invocations: list[Invocation] = []
        self._bindings: list[dict[str, Any]] = []
        self._events: list[Event] = []
        self._rewrites: dict[int, Event] = {}
        self._ids: list[int] = []
        self._reserve = 0
        self._finished = False
        # id(object) -> (address, object): stage results written (or about to be).
        self._addresses: dict[int, tuple[str, Any]] = {}
        # root address -> stored events whose payload points into it.
        self._pointing: dict[str, list[Event]] = {}

    # ------------------------------------------------------------ stage results

    def open(self, document: SessionDocument) -> None:
        """The session row, written by the next flush (lease included)."""
        if self.store is None:  # in memory: nothing to write, and no SQLAlchemy to load
            return
        from core.store.sessions import new_session_values

        self._create = new_session_values(document)

    def reserve_ids(self, count: int) -> None:
        """Reserve ``count`` invocation ids in the next flush (grouped: from the group's pool,
        now, with no flush)."""
        if self.grouped is not None and len(self._ids) < count:
            self._ids += self.grouped.invocation_ids(count - len(self._ids))
            if len(self._ids) < count:  # this database reserves none: written as any session is
                self.grouped = None
        if self.grouped is None:
            self._reserve = max(self._reserve, count)

    def save_plan(self, plan: Plan) -> None:
        """The planner's plan."""
        if self.store is None:  # in memory: nothing to write, and no SQLAlchemy to load
            return
        from core.store.sessions import plan_values

        self._set("plan", plan, plan_values(plan))

    def add_invocation(self, invocation: Invocation) -> None:
        """A recorded tool call whose id came from ``next_invocation_id``."""
        self._invocations.append(invocation)
        self._register(f"invocation:{invocation.invocation_id}", invocation)

    def known_invocation(self, invocation: Invocation) -> None:
        """A tool call already stored by other means: events may point at it."""
        self._register(f"invocation:{invocation.invocation_id}", invocation)

    def save_executor_output(self, output: ExecutorOutput | None,
                             parse_status: ParseStatus) -> None:
        """The executor's structured output and how it parsed."""
        if self.store is None:  # in memory: nothing to write, and no SQLAlchemy to load
            return
        from core.store.sessions import executor_values

        self._values.update(executor_values(output, parse_status))
        self._register("executor_output", output)
        self._register("parse_status", parse_status)

    def save_gatekeeper_result(self, result: GatekeeperResult, *, attempt: int = 1) -> None:
        """The gatekeeper result and one row per checked binding (of executor ``attempt``: a
        repaired session has rows of both attempts, its result those of the last)."""
        if self.store is None:  # in memory: nothing to write, and no SQLAlchemy to load
            return
        from core.store.sessions import binding_rows, gatekeeper_values

        self._evaluation = {**self._evaluation, "gatekeeper_result": result}
        self._set("gatekeeper_result", result, gatekeeper_values(result, self._evaluation))
        for index, checked in enumerate(result.checked_bindings):
            self._register(f"checked_binding:{index}", checked)
        self._bindings += binding_rows(self.session_id, result, attempt=attempt)

    def save_attempts(self, attempts: list[ExecutorAttempt]) -> None:
        """Executor attempts a repair turn superseded, with the feedback after each (kept in
        the session's evaluation, whole: later stage results replace the session's own)."""
        if self.store is None:  # in memory: nothing to write, and no SQLAlchemy to load
            return
        from core.store.sessions import verification_values

        self._evaluation = {**self._evaluation, "attempts": list(attempts)}
        self._values.update(verification_values(self._evaluation))

    def save_verification(self, trace_summary: list[TraceSummaryEntry],
                          verifier_result: VerifierResult) -> None:
        """The verifier's result and the trace summary it was given (the verdict column is
        written only when the session completes: a verdict is not final before)."""
        if self.store is None:  # in memory: nothing to write, and no SQLAlchemy to load
            return
        from core.store.sessions import verification_values

        self._evaluation = {**self._evaluation, "tool_trace_summary": trace_summary,
                            "verifier_result": verifier_result}
        self._set("verifier_result", verifier_result,
                  verification_values(self._evaluation))
        self._register("tool_trace_summary", trace_summary)
        for index, claim_result in enumerate(verifier_result.claim_results):
            self._register(f"claim_result:{index}", claim_result)

    def finish(self, document: SessionDocument) -> None:
        """Close the session as ``document`` says (status, answer, verdict, timings, error)."""
        if self.store is None:  # in memory: nothing to write, and no SQLAlchemy to load
            return
        from core.store.sessions import finish_values

        self._values.update(finish_values(
            status=document.status, composer_output=document.composer_output,
            verifier_result=document.verifier_result, timings_ms=document.timings_ms,
            error=document.error, outcome=document.outcome,
            stage_starts_ms=document.stage_starts_ms))
        self._register("composer_output", document.composer_output)
        self._finished = True

    def event(self, event: Event) -> None:
        """A stamped event, written by the next flush."""
        self._events.append(event)

    # ------------------------------------------------------------ ids and flushing

    def next_invocation_id(self) -> int | None:
        """A store-wide invocation id for the next tool call; None when the store cannot
        reserve ids (then the caller records the call at once, the old way)."""
        if self.store is None:
            return None
        if not self._ids:
            self.reserve_ids(ID_BLOCK)  # grouped: taken from the pool, no flush
        if not self._ids:
            self.flush(reserving=True)  # one transaction that also writes what waits
            if not self._ids:
                return None
        return self._ids.pop(0)

    def flush(self, *, reserving: bool = False) -> None:
        """Write everything buffered in one transaction (nothing to write: no transaction).
        Written at close, only the close and a flush that reserves ids (which cannot wait: the
        plan's, or ``reserving`` more) write."""
        if self.store is None:
            self._events.clear()
            return
        # Grouped, the row is written at once (a crash leaves it, for the lease check to mark
        # incomplete), and then nothing until the close.
        starting = self.grouped is not None and self._create is not None
        if self.write_at_close and not (self._finished or reserving or self._reserve or starting):
            return
        grouped = self.grouped if self._finished and not (reserving or self._reserve) else None
        from core.store.batches import Batch, write_batch

        batch = Batch(
            create=self._create, values=dict(self._values),
            invocations=list(self._invocations), bindings=list(self._bindings),
            events=[self._stored_event(event) for event in self._events],
            rewrites=[(seq, self._inline(event)) for seq, event in self._rewrites.items()],
            reserve_ids=self._reserve, closing=self._finished)
        if batch.empty:
            return
        if grouped is not None:
            grouped.close(self.session_id, batch)  # written with others, by the eval runner
            self.grouped = None  # a later flush (none is expected) writes on its own
        else:
            self._ids += write_batch(self.store, session_id=self.session_id, batch=batch)
        self._create, self._reserve = None, 0
        self._finished = False  # closed and sealed: a later flush only adds what waits
        self._values.clear()
        self._invocations.clear()
        self._bindings.clear()
        self._events.clear()
        self._rewrites.clear()

    # ------------------------------------------------------------ references

    def _set(self, root: str, value: Any, values: dict[str, Any]) -> None:
        self._values.update(values)
        self._register(root, value)

    def _register(self, address: str, value: Any) -> None:
        if value is None:
            return
        root = _root(address)
        if address == root:
            self._replace(root, value)
        self._addresses[id(value)] = (address, value)

    def _replace(self, root: str, value: Any) -> None:
        """Before ``root`` gets a new value: forget the old one and its parts, and rewrite the
        stored events that point at them with their own values."""
        stale = [key for key, (address, old) in self._addresses.items()
                 if _root(address) == root and old is not value]
        for key in stale:
            del self._addresses[key]
        for event in self._pointing.pop(root, []) if stale else []:
            self._rewrites[event.seq] = event

    def _address(self, value: Any) -> str | None:
        entry = self._addresses.get(id(value))
        return entry[0] if entry is not None and entry[1] is value else None

    def _stored_event(self, event: Event) -> dict[str, Any]:
        refs: dict[str, Any] = {}
        payload = self._payload(event, refs)
        if refs:
            payload[REF_KEY] = refs
            for address in _flat(refs.values()):
                self._pointing.setdefault(_root(address), []).append(event)
        return {"seq": event.seq, "kind": getattr(event, "kind", type(event).__name__),
                "payload": payload}

    def _payload(self, model: BaseModel, refs: dict[str, Any], prefix: str = "") -> dict[str, Any]:
        payload: dict[str, Any] = {}
        for name in type(model).model_fields:
            if not prefix and name in _ROW_FIELDS:
                continue
            value = getattr(model, name)
            address = self._address(value)
            if address is not None:
                refs[prefix + name] = address
            elif isinstance(value, SessionDocument):
                payload[name] = self._payload(value, refs, prefix=f"{name}.")
            elif name == "invocations" and value and all(self._address(i) for i in value):
                refs[prefix + name] = [self._address(item) for item in value]
            else:
                payload[name] = _dump(value)
        return payload

    def _inline(self, event: Event) -> dict[str, Any]:
        return event.model_dump(mode="json", exclude=set(_ROW_FIELDS))


def _flat(values: Any) -> list[str]:
    flat: list[str] = []
    for value in values:
        flat += value if isinstance(value, list) else [value]
    return flat


def resolve_payload(payload: dict[str, Any], lookup: Callable[[str], Any]) -> dict[str, Any]:
    """A stored payload with every ``$ref`` address replaced by ``lookup(address)``."""
    refs = payload.get(REF_KEY)
    if not isinstance(refs, dict):
        return payload
    resolved = {key: value for key, value in payload.items() if key != REF_KEY}
    for path, address in refs.items():
        value = ([lookup(item) for item in address] if isinstance(address, list)
                 else lookup(address))
        head, _, tail = str(path).partition(".")
        if tail:
            nested = resolved.get(head)
            resolved[head] = nested = dict(nested) if isinstance(nested, dict) else {}
            nested[tail] = value
        else:
            resolved[head] = value
    return resolved
