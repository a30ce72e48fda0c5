"""Writes of a session's row, stage by stage.

The column values of each stage are built by one function each, used both by the pipeline's
batched write path (``core.store.journal``) and by the single-stage functions here. Reading
sessions back is ``core.store.history``.
"""

from __future__ import annotations

from contextlib import suppress
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel
from sqlalchemy import insert, update
from sqlmodel import Session, col, select

from core.contracts import (
    ComposerOutput,
    ExecutorOutput,
    GatekeeperResult,
    Outcome,
    ParseStatus,
    Plan,
    SessionDocument,
    TraceSummaryEntry,
    VerifierResult,
)
from core.outcome import closing_outcome
from core.store.batches import Batch, write_batch
from core.store.db import Store
from core.store.invocations import INVOCATION_ID_RANGE
from core.store.leases import current_owner, heartbeat
from core.store.models import CheckedBindingRow, SessionRow, utcnow


def _dump(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, list):
        return [_dump(item) for item in value]
    if isinstance(value, dict):
        return {key: _dump(item) for key, item in value.items()}
    return value


def as_utc(moment: datetime) -> datetime:
    """``moment`` as UTC: SQLite hands datetimes back naive; every datetime is stored as UTC."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def new_session_values(document: SessionDocument) -> dict[str, Any]:
    """The row of a session that starts now, leased to this process."""
    now = utcnow()
    created = now
    if document.created_at:
        with suppress(ValueError):
            created = as_utc(datetime.fromisoformat(document.created_at))
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
    are the ``checked_bindings`` rows (``detail``), put back by ``with_checked_bindings``."""
    dumped = _dump(evaluation)
    gatekeeper = dumped.get("gatekeeper_result")
    if isinstance(gatekeeper, dict):
        dumped["gatekeeper_result"] = {key: value for key, value in gatekeeper.items()
                                       if key != "checked_bindings"}
    return {"verifier_evaluation": dumped}


def with_checked_bindings(db: Session, session_id: str,
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
                  error: str | None, outcome: Outcome | None = None,
                  stage_starts_ms: dict[str, float] | None = None) -> dict[str, Any]:
    """Columns of a closed session: status, verdict, outcome, answer, timings (with when each
    stage began), error; lease released. Like the verdict, the outcome (``core.outcome``) is
    final only at completion (a failed run's is ``error``)."""
    values: dict[str, Any] = {"status": status, "timings_ms": dict(timings_ms),
                              "stage_starts_ms": dict(stage_starts_ms or {}),
                              "duration_ms": timings_ms.get("total"), "error": error,
                              "outcome": closing_outcome(status, outcome),
                              **final_verdict_columns(status, verifier_result)}
    if composer_output is not None:
        values["composer_output"] = composer_output.model_dump(mode="json")
        values["answer"] = composer_output.user_facing_answer
    return values


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
                                 if checked.source_invocation_id in INVOCATION_ID_RANGE else None),
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
                   error: str | None = None, outcome: Outcome | None = None,
                   stage_starts_ms: dict[str, float] | None = None) -> None:
    """Close the session: final status, verdict, outcome, answer, timings and any error."""
    stored = _stored_evaluation(store, session_id).get("verifier_result")
    verifier_result = VerifierResult.model_validate(stored) if stored else None
    write_batch(store, session_id=session_id, batch=Batch(
        values=finish_values(status=status, composer_output=composer_output,
                             verifier_result=verifier_result, timings_ms=timings_ms,
                             error=error, outcome=outcome, stage_starts_ms=stage_starts_ms),
        closing=True))


# ``failed_rules`` is one text column, each rule between commas (``,R1,R2,``), so a filter on
# one rule is a substring match (``core.store.history``).
def _wrap_rules(rules: list[str]) -> str:
    return f",{','.join(rules)}," if rules else ""


def unwrap_rules(text: str) -> list[str]:
    """The rule names of a stored ``failed_rules`` column."""
    return [rule for rule in text.split(",") if rule]
