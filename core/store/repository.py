"""Repository functions of the audit store: the store first, everything else keyword-only.

Each function is one short transaction, so a session is on disk stage by stage as it runs and
a crash leaves everything up to it.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, TypeVar

from pydantic import BaseModel
from sqlalchemy import Select, func, insert, or_, update
from sqlmodel import Session, col, select

from core.contracts import (
    ComposerOutput,
    ExecutorOutput,
    GatekeeperResult,
    Invocation,
    ParseStatus,
    Plan,
    RetrievalDetails,
    SessionDocument,
    TraceSummaryEntry,
    VerifierResult,
)
from core.store.db import Store
from core.store.models import (
    CaseResultRow,
    CheckedBindingRow,
    EvalRunRow,
    InvocationRow,
    SessionEventRow,
    SessionRow,
    utcnow,
)

_Select = TypeVar("_Select", bound=Select[Any])


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


def create_session(store: Store, *, session_id: str, question: str, pack: str,
                   engines: dict[str, str], executor_fault: str | None = None) -> None:
    """Write the session row before anything runs, so even a crash at once leaves a trace."""
    with store.begin() as connection:
        connection.execute(insert(SessionRow).values(
            id=session_id, created_at=utcnow(), question=question, pack=pack,
            engines=dict(engines), executor_fault=executor_fault, status="running",
            failed_rules=""))


def _update(store: Store, session_id: str, **values: Any) -> None:
    # Core update: stage saves sit on every ask's hot path; the ORM unit of work costs more
    # than the write itself.
    with store.begin() as connection:
        result = connection.execute(update(SessionRow).where(col(SessionRow.id) == session_id)
                                    .values(**values))
        if result.rowcount == 0:
            raise KeyError(session_id)


def _with_verifier_evaluation(store: Store, session_id: str, **entries: Any) -> dict[str, Any]:
    """The session's self-evaluation with ``entries`` set in ``verifier_evaluation``: a new
    dict, never the stored one mutated."""
    with store.begin() as connection:
        current = connection.execute(select(SessionRow.self_evaluation)
                                     .where(col(SessionRow.id) == session_id)).first()
    if current is None:
        raise KeyError(session_id)
    evaluation = dict(current[0] or {})
    evaluation["verifier_evaluation"] = {**(evaluation.get("verifier_evaluation") or {}), **entries}
    return evaluation


def save_plan(store: Store, *, session_id: str, plan: Plan) -> None:
    """Store the planner's plan."""
    _update(store, session_id, plan=plan.model_dump(mode="json"), language=plan.language)


def save_executor_output(store: Store, *, session_id: str, output: ExecutorOutput | None,
                         parse_status: ParseStatus) -> None:
    """Store the executor's structured output and how it parsed."""
    _update(store, session_id,
            executor_output=output.model_dump(mode="json") if output is not None else None,
            parse_status=parse_status.model_dump(mode="json"))


def save_gatekeeper_result(store: Store, *, session_id: str, result: GatekeeperResult) -> None:
    """Store the gatekeeper result in the self-evaluation and one row per checked binding."""
    evaluation = _with_verifier_evaluation(store, session_id,
                                           gatekeeper_result=result.model_dump(mode="json"))
    created_at = utcnow()
    binding_rows = [{
        "session_id": session_id, "created_at": created_at, "gatekeeper_version": result.version,
        "claim_id": checked.claim_id, "action_id": checked.action_id,
        "binding_index": checked.binding_index, "tool_name": checked.tool_name,
        "source_invocation_id": checked.source_invocation_id, "raw_path": checked.raw_path,
        "status": checked.status, "severity": checked.severity, "rule": checked.rule,
        "score": checked.score, "match_kind": checked.match_kind,
        "detail": checked.model_dump(mode="json")} for checked in result.checked_bindings]
    with store.begin() as connection:
        connection.execute(update(SessionRow).where(col(SessionRow.id) == session_id).values(
            self_evaluation=evaluation, gatekeeper_status=result.status,
            gatekeeper_severity=result.severity, failed_rules=_wrap_rules(result.failed_rules)))
        if binding_rows:
            connection.execute(insert(CheckedBindingRow), binding_rows)


def save_verification(store: Store, *, session_id: str, trace_summary: list[TraceSummaryEntry],
                      verifier_result: VerifierResult, outcome: str | None = None) -> None:
    """Store the verifier's result (and the trace summary it was given) in the self-evaluation,
    and the session's outcome (``core.outcome``)."""
    evaluation = _with_verifier_evaluation(
        store, session_id,
        tool_trace_summary=[entry.model_dump(mode="json") for entry in trace_summary],
        verifier_result=verifier_result.model_dump(mode="json"))
    _update(store, session_id, self_evaluation=evaluation, verdict=verifier_result.verdict,
            groundedness=verifier_result.groundedness_score, outcome=outcome)


def finish_session(store: Store, *, session_id: str, status: str,
                   composer_output: ComposerOutput | None, timings_ms: dict[str, float],
                   error: str | None = None) -> None:
    """Close the session: final status, answer, timings and any error."""
    values: dict[str, Any] = {"status": status, "timings_ms": dict(timings_ms),
                              "duration_ms": timings_ms.get("total"), "error": error}
    if composer_output is not None:
        values["composer_output"] = composer_output.model_dump(mode="json")
        values["answer"] = composer_output.user_facing_answer
    _update(store, session_id, **values)


def _wrap_rules(rules: list[str]) -> str:
    return f",{','.join(rules)}," if rules else ""


def _unwrap_rules(text: str) -> list[str]:
    return [rule for rule in text.split(",") if rule]


# What a session summary reads: never the JSON of plans, outputs and evaluations.
_SUMMARY_COLUMNS = (SessionRow.id, SessionRow.created_at, SessionRow.question, SessionRow.pack,
                    SessionRow.engines, SessionRow.executor_fault, SessionRow.status,
                    SessionRow.verdict, SessionRow.outcome, SessionRow.groundedness,
                    SessionRow.gatekeeper_severity, SessionRow.failed_rules, SessionRow.duration_ms)


def _summary(values: Sequence[Any]) -> SessionSummary:
    """A summary from one row of ``_SUMMARY_COLUMNS`` (straight from the tuple: building a
    ``SessionRow`` first cost more than the query itself)."""
    (session_id, created_at, question, pack, engines, executor_fault, status, verdict, outcome,
     groundedness, gatekeeper_severity, failed_rules, duration_ms) = values
    return SessionSummary(
        session_id=session_id, created_at=created_at, question=question, pack=pack,
        engines=engines or {}, executor_fault=executor_fault, status=status, verdict=verdict,
        outcome=outcome, groundedness=groundedness, gatekeeper_severity=gatekeeper_severity,
        failed_rules=_unwrap_rules(failed_rules or ""), duration_ms=duration_ms)


def list_sessions(store: Store, *, verdict: str | None = None, severity: str | None = None,
                  rule: str | None = None, text: str | None = None, status: str | None = None,
                  limit: int = 100, offset: int = 0) -> list[SessionSummary]:
    """Newest first, filtered; only summary columns are loaded so 100k rows stay fast."""
    query = _filter_sessions(select(*_SUMMARY_COLUMNS), verdict=verdict, severity=severity,
                             rule=rule, text=text, status=status)
    query = query.order_by(col(SessionRow.created_at).desc()).offset(offset).limit(limit)
    with store.session() as db:
        rows = db.exec(query).all()
    return [_summary(row) for row in rows]


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
        query = query.where(SessionRow.verdict == verdict)
    if severity:
        query = query.where(SessionRow.gatekeeper_severity == severity)
    if status:
        query = query.where(SessionRow.status == status)
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


def load_session_document(store: Store, *, session_id: str) -> SessionDocument | None:
    """The session document of DESIGN.md section 7, rebuilt from the stored rows."""
    with store.session() as db:
        row = db.get(SessionRow, session_id)
        if row is None:
            return None
        invocations = _session_invocations(db, session_id)
    evaluation = (row.self_evaluation or {}).get("verifier_evaluation") or {}
    return SessionDocument(
        session_id=row.id, question=row.question, pack=row.pack, status=row.status,  # type: ignore[arg-type]
        outcome=row.outcome,  # type: ignore[arg-type]
        engines=row.engines or {}, executor_fault=row.executor_fault,
        created_at=row.created_at.isoformat(), plan=row.plan,  # type: ignore[arg-type]
        invocations=invocations,
        executor_output=row.executor_output,  # type: ignore[arg-type]
        executor_output_parse_status=row.parse_status,  # type: ignore[arg-type]
        gatekeeper_result=evaluation.get("gatekeeper_result"),
        tool_trace_summary=evaluation.get("tool_trace_summary") or [],
        verifier_result=evaluation.get("verifier_result"),
        composer_output=row.composer_output,  # type: ignore[arg-type]
        timings_ms=row.timings_ms or {}, error=row.error)


# ---------------------------------------------------------------- invocations


def record_invocation(store: Store, *, session_id: str, tool_name: str, arguments: dict[str, Any],
                      output: dict[str, Any], retrieval_details: RetrievalDetails,
                      duration_ms: float | None = None, source: str | None = None,
                      request: dict[str, Any] | None = None) -> Invocation:
    """Persist one tool call (with the source that answered and the request it served); the
    database assigns its store-wide ``invocation_id``."""
    details = retrieval_details.model_dump(mode="json")
    with store.begin() as connection:
        inserted = connection.execute(insert(InvocationRow).values(
            session_id=session_id, created_at=utcnow(), tool_name=tool_name,
            arguments=dict(arguments), output=output, retrieval_details=details,
            evidence_status=retrieval_details.evidence_status, duration_ms=duration_ms,
            source=source, request=request))
        invocation_id = int(inserted.inserted_primary_key[0])
    return Invocation(invocation_id=invocation_id, session_id=session_id, tool_name=tool_name,
                      arguments=dict(arguments), output=output,
                      retrieval_details=retrieval_details, duration_ms=duration_ms,
                      source=source, request=request)


def _invocation(row: InvocationRow) -> Invocation:
    return Invocation(invocation_id=row.id or 0, session_id=row.session_id, tool_name=row.tool_name,
                      arguments=row.arguments or {}, output=row.output or {},
                      retrieval_details=row.retrieval_details,  # type: ignore[arg-type]
                      duration_ms=row.duration_ms, source=row.source, request=row.request)


def get_invocation(store: Store, *, invocation_id: int) -> Invocation | None:
    """Any invocation in the store, whatever its session (the gatekeeper's cross-session check)."""
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
    return [_invocation(row) for row in rows]


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
    """A session's events after ``after_seq``, in order (for live views and crash forensics)."""
    with store.session() as db:
        return list(db.exec(select(SessionEventRow)
                            .where(SessionEventRow.session_id == session_id)
                            .where(SessionEventRow.seq > after_seq)
                            .order_by(col(SessionEventRow.seq))).all())


# ---------------------------------------------------------------- evals


def create_eval_run(store: Store, *, run_id: str, suite: str, total: int) -> None:
    """Open an eval run."""
    with store.session() as db:
        db.add(EvalRunRow(id=run_id, suite=suite, total=total))


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


def list_eval_runs(store: Store, *, limit: int = 100) -> list[EvalRunRow]:
    """Eval runs, oldest first (charts read them left to right)."""
    with store.session() as db:
        rows = db.exec(select(EvalRunRow).order_by(col(EvalRunRow.created_at).desc())
                       .limit(limit)).all()
    return list(reversed(rows))


def list_case_results(store: Store, *, run_id: str) -> list[CaseResultRow]:
    """The case results of one run, in the order they were stored."""
    with store.session() as db:
        return list(db.exec(select(CaseResultRow).where(CaseResultRow.run_id == run_id)
                            .order_by(col(CaseResultRow.id))).all())
