"""Eval runs and their case results in the audit store (``core.evals`` runs the suites)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import insert, update
from sqlalchemy.engine import Connection
from sqlmodel import col, select

from core.store.chain import seal
from core.store.db import Store
from core.store.leases import current_owner, heartbeat
from core.store.models import CaseResultRow, EvalRunRow, utcnow
from core.store.recovery import recover_rows


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


def add_case_results(store: Store, *, run_id: str, results: list[dict[str, Any]]) -> None:
    """Store several cases' outcomes in one transaction (each a dict of ``add_case_result``'s
    keyword arguments but ``run_id``), in their order."""
    if not results:
        return
    with store.begin() as connection:
        write_case_results(connection, run_id=run_id, results=results)


def write_case_results(connection: Connection, *, run_id: str,
                       results: list[dict[str, Any]]) -> None:
    """``add_case_results`` in the caller's transaction (an eval run's, beside its sessions:
    ``core.store.grouped``)."""
    if results:
        connection.execute(insert(CaseResultRow), [
            {"run_id": run_id, "case_id": result["case_id"], "session_id": result["session_id"],
             "passed": result["passed"], "duration_ms": result["duration_ms"],
             "tags": list(result["tags"]), "detail": result["detail"]} for result in results])


def finish_eval_run(store: Store, *, run_id: str, passed: int, duration_ms: float,
                    metrics: dict[str, Any], status: str = "completed") -> None:
    """Close an eval run with its metrics, sealed in the same transaction (``core.store.chain``)."""
    with store.begin() as connection:
        closed = connection.execute(update(EvalRunRow).where(col(EvalRunRow.id) == run_id).values(
            passed=passed, duration_ms=duration_ms, metrics=metrics, status=status))
        if closed.rowcount == 0:
            raise KeyError(run_id)
        seal(connection, "eval_run", run_id)
    heartbeat.release(store, "eval_runs", run_id)


def list_eval_runs(store: Store, *, limit: int = 100) -> list[EvalRunRow]:
    """Eval runs, oldest first (charts read them left to right)."""
    with store.session() as db:
        rows = db.exec(select(EvalRunRow).order_by(col(EvalRunRow.created_at).desc())
                       .limit(limit)).all()
    running = [row for row in rows if row.status == "running"]
    gone = set(recover_rows(store, EvalRunRow, running)) if running else set()
    for row in rows:
        if row.id in gone:
            row.status = "incomplete"
    return list(reversed(rows))


def list_case_results(store: Store, *, run_id: str) -> list[CaseResultRow]:
    """The case results of one run, in the order they were stored."""
    with store.session() as db:
        return list(db.exec(select(CaseResultRow).where(CaseResultRow.run_id == run_id)
                            .order_by(col(CaseResultRow.id))).all())
