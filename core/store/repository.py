"""Repository functions of the audit store: the store first, everything else keyword-only.

Each function is one short transaction. The pipeline writes a session in a few batches
(``write_batch``, filled by ``core.store.journal``), one per stage boundary, so a session is on
disk stage by stage as it runs and a crash leaves everything up to the stage that was running.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, TypedDict, TypeVar, get_args

from pydantic import BaseModel, ValidationError
from sqlalchemy import Select, and_, func, insert, or_, text, update
from sqlalchemy import select as select_columns
from sqlalchemy.engine import Connection
from sqlmodel import Session, SQLModel, col, select

from core.contracts import (
    ComposerOutput,
    ExecutorOutput,
    GatekeeperResult,
    Invocation,
    Outcome,
    ParseStatus,
    Plan,
    RetrievalDetails,
    SessionDocument,
    TraceSummaryEntry,
    VerifierResult,
)
from core.errors import StoredRowError, StoreError, first_error
from core.store.db import Store
from core.store.journal import resolve_payload
from core.store.leases import (
    INCOMPLETE_REASON,
    current_owner,
    heartbeat,
    lease_timeout_s,
    owner_is_gone,
)
from core.store.models import (
    CaseResultRow,
    CheckedBindingRow,
    EvalRunRow,
    InvocationRow,
    SessionEventRow,
    SessionRow,
    utcnow,
)
from core.verdict import withdraw_pass

_Select = TypeVar("_Select", bound=Select[Any])


class SessionQuery(TypedDict, total=False):
    """The filter keywords ``list_sessions`` and ``count_sessions`` take (``**query``)."""

    verdict: str | None
    severity: str | None
    rule: str | None
    text: str | None
    status: str | None


class SessionSummary(BaseModel):
    """One row of the session history, as the Sessions page and ``sessions list`` show it."""

    session_id: str
    created_at: datetime
    question: str
    pack: str
    engines: dict[str, Any]
    executor_fault: str | None
    status: str
    verdict: str | None
    outcome: str | None
    groundedness: float | None
    gatekeeper_severity: str | None
    failed_rules: list[str]
    duration_ms: float | None


# ---------------------------------------------------------------- sessions
#
# The column values of each stage are built by one function each, used both by the pipeline's
# batched write path (``core.store.journal``) and by the single-stage functions below.


def _dump(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, list):
        return [_dump(item) for item in value]
    if isinstance(value, dict):
        return {key: _dump(item) for key, item in value.items()}
    return value


def _as_utc(moment: datetime) -> datetime:
    # SQLite hands datetimes back naive; every datetime is stored as UTC.
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def new_session_values(document: SessionDocument) -> dict[str, Any]:
    """The row of a session that starts now, leased to this process."""
    now = utcnow()
    created = now
    if document.created_at:
        with suppress(ValueError):
            created = _as_utc(datetime.fromisoformat(document.created_at))
    return {"id": document.session_id, "created_at": created, "question": document.question,
            "pack": document.pack, "engines": dict(document.engines),
            "executor_fault": document.executor_fault, "status": "running",
            "failed_rules": "", **current_owner().columns(now)}


def plan_values(plan: Plan) -> dict[str, Any]:
    """Columns of the planner's plan."""
    return {"plan": plan.model_dump(mode="json"), "language": plan.language}


def executor_values(output: ExecutorOutput | None, parse_status: ParseStatus) -> dict[str, Any]:
    """Columns of the executor's output and how it parsed."""
    return {"executor_output": output.model_dump(mode="json") if output is not None else None,
            "parse_status": parse_status.model_dump(mode="json")}


def _evaluation_json(evaluation: dict[str, Any]) -> dict[str, Any]:
    """The stored self-evaluation. The gatekeeper result's checked bindings are left out: they
    are the ``checked_bindings`` rows (``detail``), put back by ``_with_checked_bindings``."""
    dumped = _dump(evaluation)
    gatekeeper = dumped.get("gatekeeper_result")
    if isinstance(gatekeeper, dict):
        dumped["gatekeeper_result"] = {key: value for key, value in gatekeeper.items()
                                       if key != "checked_bindings"}
    return {"verifier_evaluation": dumped}


def _with_checked_bindings(db: Session, session_id: str,
                           gatekeeper: dict[str, Any] | None) -> dict[str, Any] | None:
    """A stored gatekeeper result whole again: its checked bindings from their rows (results
    stored by older versions hold them inline and are returned as they are)."""
    if not isinstance(gatekeeper, dict) or "checked_bindings" in gatekeeper:
        return gatekeeper
    rows = db.exec(select(CheckedBindingRow.detail, CheckedBindingRow.attempt)
                   .where(CheckedBindingRow.session_id == session_id)
                   .order_by(col(CheckedBindingRow.id))).all()
    # A repaired session has rows of each attempt; the stored result is the last attempt's.
    last = max((attempt or 1 for _, attempt in rows), default=1)
    return {**gatekeeper, "checked_bindings": [detail for detail, attempt in rows
                                               if (attempt or 1) == last]}


def gatekeeper_values(result: GatekeeperResult, evaluation: dict[str, Any]) -> dict[str, Any]:
    """Columns of the gatekeeper result; ``evaluation`` is the whole verifier evaluation."""
    return {"self_evaluation": _evaluation_json(evaluation),
            "gatekeeper_status": result.status, "gatekeeper_severity": result.severity,
            "failed_rules": _wrap_rules(result.failed_rules)}


def verification_values(evaluation: dict[str, Any]) -> dict[str, Any]:
    """Columns after the verifier: the evaluation only. The ``verdict`` column waits for the
    session's end (``finish_values``): a verdict is not final before."""
    return {"self_evaluation": _evaluation_json(evaluation)}


def final_verdict_columns(status: str, verifier_result: VerifierResult | None) -> dict[str, Any]:
    """``verdict`` and ``groundedness`` of a session ending with ``status``: never a PASS for a
    session that did not complete."""
    if verifier_result is None:
        return {"verdict": None, "groundedness": None}
    verdict: str | None = verifier_result.verdict
    if status != "completed" and verdict == "PASS":
        verdict = None
    return {"verdict": verdict, "groundedness": verifier_result.groundedness_score}


def finish_values(*, status: str, composer_output: ComposerOutput | None,
                  verifier_result: VerifierResult | None, timings_ms: dict[str, float],
                  error: str | None, outcome: str | None = None,
                  stage_starts_ms: dict[str, float] | None = None) -> dict[str, Any]:
    """Columns of a closed session: status, verdict, outcome, answer, timings (with when each
    stage began), error; lease released. Like the verdict, the outcome (``core.outcome``) is
    final only at completion."""
    values: dict[str, Any] = {"status": status, "timings_ms": dict(timings_ms),
                              "stage_starts_ms": dict(stage_starts_ms or {}),
                              "duration_ms": timings_ms.get("total"), "error": error,
                              "outcome": outcome if status == "completed" else None,
                              **final_verdict_columns(status, verifier_result)}
    if composer_output is not None:
        values["composer_output"] = composer_output.model_dump(mode="json")
        values["answer"] = composer_output.user_facing_answer
    return values


# Ids are INTEGER on PostgreSQL: a cited id outside that range (a fabricated one) names no
# stored invocation; the column stays empty and ``detail`` keeps the number.
_ID_RANGE = range(-(2**31), 2**31)


def binding_rows(session_id: str, result: GatekeeperResult, *,
                 attempt: int = 1) -> list[dict[str, Any]]:
    """One ``checked_bindings`` row per binding the gatekeeper checked."""
    created_at = utcnow()
    return [{
        "session_id": session_id, "created_at": created_at, "gatekeeper_version": result.version,
        "attempt": attempt,
        "claim_id": checked.claim_id, "action_id": checked.action_id,
        "binding_index": checked.binding_index, "tool_name": checked.tool_name,
        "source_invocation_id": (checked.source_invocation_id
                                 if checked.source_invocation_id in _ID_RANGE else None),
        "raw_path": checked.raw_path,
        "status": checked.status, "severity": checked.severity, "rule": checked.rule,
        "score": checked.score, "match_kind": checked.match_kind,
        "detail": checked.model_dump(mode="json")} for checked in result.checked_bindings]


def create_session(store: Store, *, session_id: str, question: str, pack: str,
                   engines: dict[str, str], executor_fault: str | None = None) -> None:
    """Write the session row before anything runs, so even a crash at once leaves a trace."""
    document = SessionDocument(session_id=session_id, question=question, pack=pack,
                               engines=engines, executor_fault=executor_fault, status="running")
    with store.begin() as connection:
        connection.execute(insert(SessionRow).values(**new_session_values(document)))
    heartbeat.hold(store, "sessions", session_id)


def _update(store: Store, session_id: str, **values: Any) -> None:
    with store.begin() as connection:
        result = connection.execute(update(SessionRow).where(col(SessionRow.id) == session_id)
                                    .values(**values))
        if result.rowcount == 0:
            raise KeyError(session_id)


def _stored_evaluation(store: Store, session_id: str) -> dict[str, Any]:
    """The stored verifier evaluation (a new dict, never the stored one mutated)."""
    with store.begin() as connection:
        current = connection.execute(select(SessionRow.self_evaluation)
                                     .where(col(SessionRow.id) == session_id)).first()
    if current is None:
        raise KeyError(session_id)
    return dict((current[0] or {}).get("verifier_evaluation") or {})


def save_plan(store: Store, *, session_id: str, plan: Plan) -> None:
    """Store the planner's plan."""
    _update(store, session_id, **plan_values(plan))


def save_executor_output(store: Store, *, session_id: str, output: ExecutorOutput | None,
                         parse_status: ParseStatus) -> None:
    """Store the executor's structured output and how it parsed."""
    _update(store, session_id, **executor_values(output, parse_status))


def save_gatekeeper_result(store: Store, *, session_id: str, result: GatekeeperResult) -> None:
    """Store the gatekeeper result in the self-evaluation and one row per checked binding."""
    evaluation = {**_stored_evaluation(store, session_id), "gatekeeper_result": result}
    write_batch(store, session_id=session_id, batch=Batch(
        values=gatekeeper_values(result, evaluation),
        bindings=binding_rows(session_id, result)))


def save_verification(store: Store, *, session_id: str, trace_summary: list[TraceSummaryEntry],
                      verifier_result: VerifierResult) -> None:
    """Store the verifier's result (and the trace summary it was given) in the self-evaluation."""
    evaluation = {**_stored_evaluation(store, session_id), "tool_trace_summary": trace_summary,
                  "verifier_result": verifier_result}
    _update(store, session_id, **verification_values(evaluation))


def finish_session(store: Store, *, session_id: str, status: str,
                   composer_output: ComposerOutput | None, timings_ms: dict[str, float],
                   error: str | None = None, outcome: str | None = None,
                   stage_starts_ms: dict[str, float] | None = None) -> None:
    """Close the session: final status, verdict, outcome, answer, timings and any error."""
    stored = _stored_evaluation(store, session_id).get("verifier_result")
    verifier_result = VerifierResult.model_validate(stored) if stored else None
    write_batch(store, session_id=session_id, batch=Batch(
        values=finish_values(status=status, composer_output=composer_output,
                             verifier_result=verifier_result, timings_ms=timings_ms,
                             error=error, outcome=outcome, stage_starts_ms=stage_starts_ms),
        closing=True))


# ---------------------------------------------------------------- batches


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
                               [_invocation_values(item) for item in batch.invocations])
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
    if batch.create is not None:
        heartbeat.hold(store, "sessions", session_id)
    if batch.closing:
        heartbeat.release(store, "sessions", session_id)
    return reserved


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


def _wrap_rules(rules: list[str]) -> str:
    return f",{','.join(rules)}," if rules else ""


def _unwrap_rules(text: str) -> list[str]:
    return [rule for rule in text.split(",") if rule]


# What a session summary reads: never the JSON of plans, outputs and evaluations.
_SUMMARY_COLUMNS = tuple(col(column) for column in (
    SessionRow.id, SessionRow.created_at, SessionRow.question, SessionRow.pack, SessionRow.engines,
    SessionRow.executor_fault, SessionRow.status, SessionRow.verdict, SessionRow.outcome, SessionRow.groundedness,
    SessionRow.gatekeeper_severity, SessionRow.failed_rules, SessionRow.duration_ms))


def _summary(values: Sequence[Any]) -> SessionSummary:
    """A summary from one row of ``_SUMMARY_COLUMNS`` (straight from the tuple: building a
    ``SessionRow`` first cost more than the query itself). Read defensively: a value of the
    wrong type (a corrupt row, an older version's) becomes empty instead of failing the list."""
    (session_id, created_at, question, pack, engines, executor_fault, status, verdict, outcome,
     groundedness, gatekeeper_severity, failed_rules, duration_ms) = values
    if status != "completed" and verdict == "PASS":  # a verdict is final only at completion
        verdict = None
    return SessionSummary(
        session_id=str(session_id), created_at=created_at if isinstance(created_at, datetime)
        else _EPOCH, question=_text(question), pack=_text(pack),
        engines=engines if isinstance(engines, dict) else {},
        executor_fault=_text(executor_fault) or None, status=_text(status) or "unknown",
        verdict=_text(verdict) or None, outcome=_outcome(outcome),
        groundedness=_number(groundedness),
        gatekeeper_severity=_text(gatekeeper_severity) or None,
        failed_rules=_unwrap_rules(_text(failed_rules)), duration_ms=_number(duration_ms))


_EPOCH = datetime(1970, 1, 1)


def _text(value: Any) -> str:
    return value if isinstance(value, str) else "" if value is None else str(value)


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _outcome(value: Any) -> str | None:
    return value if isinstance(value, str) and value in _OUTCOMES else None


_OUTCOMES = frozenset(get_args(Outcome))


def list_sessions(store: Store, *, verdict: str | None = None, severity: str | None = None,
                  rule: str | None = None, text: str | None = None, status: str | None = None,
                  limit: int = 100, offset: int = 0) -> list[SessionSummary]:
    """Newest first, filtered; only summary columns are loaded so 100k rows stay fast."""
    query = _filter_sessions(select_columns(*_SUMMARY_COLUMNS), verdict=verdict,
                             severity=severity, rule=rule, text=text, status=status)
    query = query.order_by(col(SessionRow.created_at).desc()).offset(offset).limit(limit)
    with store.begin() as connection:
        rows = connection.execute(query).all()
    summaries = [_summary(row) for row in rows]
    running = [summary.session_id for summary in summaries if summary.status == "running"]
    if running:  # a long-lived reader (the console) notices a dead run when it lists it
        recovered = set(_recover_sessions(store, _session_leases(store, running)))
        for summary in summaries:
            if summary.session_id in recovered:
                summary.status, summary.verdict = "incomplete", None
    return summaries


def count_sessions(store: Store, *, verdict: str | None = None, severity: str | None = None,
                   rule: str | None = None, text: str | None = None,
                   status: str | None = None) -> int:
    """How many sessions match the same filters as ``list_sessions``."""
    query = _filter_sessions(select(func.count()).select_from(SessionRow), verdict=verdict,
                             severity=severity, rule=rule, text=text, status=status)
    with store.session() as db:
        return int(db.exec(query).one())


def _filter_sessions(query: _Select, *, verdict: str | None, severity: str | None,
                     rule: str | None, text: str | None, status: str | None) -> _Select:
    """``query`` narrowed by the Sessions page's filters (each one optional, combined with AND)."""
    if verdict:
        query = query.where(col(SessionRow.verdict) == verdict)
        if verdict == "PASS":  # rows of older versions stored PASS before the session ended
            query = query.where(col(SessionRow.status) == "completed")
    if severity:
        query = query.where(col(SessionRow.gatekeeper_severity) == severity)
    if status:
        query = query.where(col(SessionRow.status) == status)
    # autoescape: "_" in rule names and "%" or "_" typed in a search are literal characters.
    if rule:
        query = query.where(col(SessionRow.failed_rules).contains(f",{rule},", autoescape=True))
    if text:
        query = query.where(or_(col(SessionRow.question).contains(text, autoescape=True),
                                col(SessionRow.id).contains(text, autoescape=True)))
    return query


def latest_session_id(store: Store) -> str | None:
    """The newest session's id, if any."""
    with store.session() as db:
        return db.exec(select(SessionRow.id).order_by(col(SessionRow.created_at).desc())
                       .limit(1)).first()


def session_exists(store: Store, *, session_id: str) -> bool:
    """Whether the store holds this session (the gatekeeper then trusts only its invocations)."""
    with store.session() as db:
        return db.get(SessionRow, session_id) is not None


def load_session_document(store: Store, *, session_id: str) -> SessionDocument | None:
    """The session document (docs/design.md §9), rebuilt from the stored rows.

    A running session whose process is gone is marked ``incomplete`` first (see
    ``recover_abandoned``); a session that did not complete never reads as PASS.
    """
    with store.session() as db:
        row = db.get(SessionRow, session_id)
        if row is None:
            return None
        invocations = _session_invocations(db, session_id)
        evaluation = (row.self_evaluation or {}).get("verifier_evaluation") or {}
        gatekeeper = _with_checked_bindings(db, session_id, evaluation.get("gatekeeper_result"))
    if row.status == "running" and _recover_sessions(store, [_lease_of(row)]):
        row.status, row.error = "incomplete", row.error or INCOMPLETE_REASON
    try:
        verifier_result = evaluation.get("verifier_result")
        if verifier_result is not None and row.status != "completed":
            verifier_result = withdraw_pass(VerifierResult.model_validate(verifier_result),
                                            f"the session did not complete ({row.status})")
        return SessionDocument(
            session_id=row.id, question=row.question, pack=row.pack, status=row.status,
            outcome=row.outcome if row.status == "completed" else None,
            engines=row.engines or {}, executor_fault=row.executor_fault,
            created_at=_as_utc(row.created_at).isoformat(), plan=row.plan,
            invocations=invocations,
            executor_output=row.executor_output,
            executor_output_parse_status=row.parse_status,
            gatekeeper_result=gatekeeper,
            tool_trace_summary=evaluation.get("tool_trace_summary") or [],
            verifier_result=verifier_result,
            composer_output=row.composer_output,
            attempts=evaluation.get("attempts") or [],
            timings_ms=row.timings_ms or {}, stage_starts_ms=row.stage_starts_ms or {},
            error=row.error)
    except (ValidationError, AttributeError, TypeError) as exc:  # a corrupt or foreign row
        detail = first_error(exc) if isinstance(exc, ValidationError) else str(exc)
        raise StoredRowError(f"session {session_id}: the stored row cannot be read back "
                             f"({detail})") from None


# ---------------------------------------------------------------- recovery


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
                marked.append(lease.row_id)
    return marked


def _equal_or_null(column: Any, value: Any) -> Any:
    return column.is_(None) if value is None else column == value


def _recover_sessions(store: Store, leases: Sequence[_Lease]) -> list[str]:
    gone = _gone(leases)
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


# ---------------------------------------------------------------- invocations


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


def _invocation_values(invocation: Invocation) -> dict[str, Any]:
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


def _invocation(row: InvocationRow) -> Invocation:
    return Invocation(invocation_id=row.id or 0, session_id=row.session_id, tool_name=row.tool_name,
                      arguments=row.arguments or {}, output=row.output or {},
                      retrieval_details=row.retrieval_details,
                      duration_ms=row.duration_ms, started_ms=row.started_ms, source=row.source,
                      request=row.request)


def get_invocation(store: Store, *, invocation_id: int) -> Invocation | None:
    """Any invocation in the store, whatever its session (the gatekeeper's cross-session check).
    An id no row could have (a model's invention beyond the column's range) is simply absent."""
    if invocation_id not in _ID_RANGE:
        return None
    with store.session() as db:
        row = db.get(InvocationRow, invocation_id)
        return _invocation(row) if row is not None else None


def list_invocations(store: Store, *, session_id: str) -> list[Invocation]:
    """A session's invocations in call order."""
    with store.session() as db:
        return _session_invocations(db, session_id)


def _session_invocations(db: Session, session_id: str) -> list[Invocation]:
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


# ---------------------------------------------------------------- events


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
                    for item in _session_invocations(self._db, self._session_id)}
            return self._invocations.get(index)
        if self._row is None:
            self._row = self._db.get(SessionRow, self._session_id) or SessionRow(
                id=self._session_id, question="", pack="")
            evaluation = (self._row.self_evaluation or {}).get("verifier_evaluation") or {}
            self._gatekeeper = _with_checked_bindings(self._db, self._session_id,
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


# ---------------------------------------------------------------- evals


def create_eval_run(store: Store, *, run_id: str, suite: str, total: int) -> None:
    """Open an eval run."""
    with store.begin() as connection:
        connection.execute(insert(EvalRunRow).values(
            id=run_id, created_at=utcnow(), suite=suite, total=total, status="running",
            **current_owner().columns(utcnow())))
    heartbeat.hold(store, "eval_runs", run_id)


def add_case_result(store: Store, *, run_id: str, case_id: str, session_id: str | None,
                    passed: bool, duration_ms: float | None, tags: list[str],
                    detail: dict[str, Any]) -> None:
    """Store one case's outcome, linked to its session."""
    with store.session() as db:
        db.add(CaseResultRow(run_id=run_id, case_id=case_id, session_id=session_id, passed=passed,
                             duration_ms=duration_ms, tags=list(tags), detail=detail))


def finish_eval_run(store: Store, *, run_id: str, passed: int, duration_ms: float,
                    metrics: dict[str, Any], status: str = "completed") -> None:
    """Close an eval run with its metrics."""
    with store.session() as db:
        row = db.get(EvalRunRow, run_id)
        if row is None:
            raise KeyError(run_id)
        row.passed, row.duration_ms, row.metrics, row.status = passed, duration_ms, metrics, status
        db.add(row)
    heartbeat.release(store, "eval_runs", run_id)


def list_eval_runs(store: Store, *, limit: int = 100) -> list[EvalRunRow]:
    """Eval runs, oldest first (charts read them left to right)."""
    with store.session() as db:
        rows = db.exec(select(EvalRunRow).order_by(col(EvalRunRow.created_at).desc())
                       .limit(limit)).all()
    running = [_lease_of(row) for row in rows if row.status == "running"]
    gone = set(_mark_incomplete(store, EvalRunRow, _gone(running))) if running else set()
    for row in rows:
        if row.id in gone:
            row.status = "incomplete"
    return list(reversed(rows))


def list_case_results(store: Store, *, run_id: str) -> list[CaseResultRow]:
    """The case results of one run, in the order they were stored."""
    with store.session() as db:
        return list(db.exec(select(CaseResultRow).where(CaseResultRow.run_id == run_id)
                            .order_by(col(CaseResultRow.id))).all())
