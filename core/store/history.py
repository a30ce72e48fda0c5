"""Reading sessions back: the session history (``list_sessions``, ``count_sessions``, each row a
``SessionSummary``) and a whole session as its document (``load_session_document``). A running
session whose process is gone is marked ``incomplete`` as it is read (``core.store.recovery``).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any, TypedDict, TypeVar, Unpack, cast, get_args

from pydantic import BaseModel, ValidationError
from sqlalchemy import Connection, Select, and_, func, or_
from sqlalchemy import select as select_columns
from sqlmodel import col, select

from core.contracts import Outcome, SessionDocument, VerifierResult
from core.errors import StoredRowError, first_error
from core.outcome import stored_outcome
from core.store.annotations import annotation_condition
from core.store.db import Store
from core.store.invocations import session_invocations
from core.store.leases import INCOMPLETE_REASON
from core.store.models import CaseResultRow, SessionRow
from core.store.recovery import recover_rows, recover_sessions
from core.store.sessions import as_utc, unwrap_rules, with_checked_bindings
from core.verdict import withdraw_pass

_Select = TypeVar("_Select", bound=Select[Any])


class SessionQuery(TypedDict, total=False):
    """The filter keywords ``list_sessions`` and ``count_sessions`` take (``**query``)."""

    verdict: str | None
    severity: str | None
    rule: str | None
    text: str | None
    status: str | None
    pack: str | None
    outcome: str | None
    fault: str | None  # a fault mode's name, or NO_FAULT for sessions run without one
    origin: str | None  # "eval": made by an eval run (a case result names it); "manual": not
    since: datetime | None  # created at or after
    annotation: str | None  # any, none, wrong, unsure or right (core.store.annotations)


NO_FAULT = "none"
ORIGINS: tuple[str, ...] = ("manual", "eval")


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
    origin: str = "manual"  # "eval" when an eval run made it (``ORIGINS``)


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
        verdict=_text(verdict) or None,
        outcome=stored_outcome(status=_text(status), verdict=_text(verdict) or None,
                               outcome=_outcome(outcome)),
        groundedness=_number(groundedness),
        gatekeeper_severity=_text(gatekeeper_severity) or None,
        failed_rules=unwrap_rules(_text(failed_rules)), duration_ms=_number(duration_ms))


_EPOCH = datetime(1970, 1, 1)


def _text(value: Any) -> str:
    return value if isinstance(value, str) else "" if value is None else str(value)


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _outcome(value: Any) -> Outcome | None:
    return cast("Outcome", value) if isinstance(value, str) and value in _OUTCOMES else None


_OUTCOMES = frozenset(get_args(Outcome))


def list_sessions(store: Store, *, limit: int = 100, offset: int = 0,
                  **filters: Unpack[SessionQuery]) -> list[SessionSummary]:
    """Newest first, filtered; only summary columns are loaded so 100k rows stay fast."""
    query = _filter_sessions(select_columns(*_SUMMARY_COLUMNS), **filters)
    query = query.order_by(col(SessionRow.created_at).desc()).offset(offset).limit(limit)
    with store.begin() as connection:
        rows = connection.execute(query).all()
        summaries = [_summary(row) for row in rows]
        evals = _eval_session_ids(connection, [summary.session_id for summary in summaries])
    for summary in summaries:
        summary.origin = "eval" if summary.session_id in evals else "manual"
    running = [summary.session_id for summary in summaries if summary.status == "running"]
    if running:  # a long-lived reader (the console) notices a dead run when it lists it
        recovered = set(recover_sessions(store, running))
        for summary in summaries:
            if summary.session_id in recovered:
                summary.status, summary.verdict = "incomplete", None
    return summaries


def count_sessions(store: Store, **filters: Unpack[SessionQuery]) -> int:
    """How many sessions match the same filters as ``list_sessions``."""
    query = _filter_sessions(select(func.count()).select_from(SessionRow), **filters)
    with store.session() as db:
        return int(db.exec(query).one())


def failed_rule_counts(store: Store, **filters: Unpack[SessionQuery]) -> dict[str, int]:
    """How many of the sessions matching ``filters`` failed each gatekeeper rule (one query:
    sessions grouped by their ``failed_rules`` column, the rules counted from the groups)."""
    grouped = cast("Select[Any]", select_columns(col(SessionRow.failed_rules), func.count()))
    query = _filter_sessions(grouped.where(col(SessionRow.failed_rules) != ""), **filters)
    counts: dict[str, int] = {}
    with store.begin() as connection:
        for rules, count in connection.execute(query.group_by(col(SessionRow.failed_rules))):
            for rule in unwrap_rules(_text(rules)):
                counts[rule] = counts.get(rule, 0) + int(count)
    return counts


def _eval_session_ids(connection: Connection, session_ids: Sequence[str]) -> set[str]:
    """Those of ``session_ids`` an eval run made (a case result names them)."""
    if not session_ids:
        return set()
    query = (select_columns(col(CaseResultRow.session_id)).distinct()
             .where(col(CaseResultRow.session_id).in_(list(session_ids))))
    return {str(row[0]) for row in connection.execute(query)}


def _filter_sessions(query: _Select, *, verdict: str | None = None,
                     severity: str | None = None, rule: str | None = None,
                     text: str | None = None, status: str | None = None,
                     pack: str | None = None, outcome: str | None = None,
                     fault: str | None = None, origin: str | None = None,
                     since: datetime | None = None, annotation: str | None = None) -> _Select:
    """``query`` narrowed by the Sessions page's filters (each one optional, combined with AND).
    ``annotation``: any, none, wrong, unsure or right (``core.store.annotations``)."""
    if annotation:
        query = query.where(annotation_condition(annotation, col(SessionRow.id)))
    if pack:
        query = query.where(col(SessionRow.pack) == pack)
    if fault == NO_FAULT:
        query = query.where(or_(col(SessionRow.executor_fault).is_(None),
                                col(SessionRow.executor_fault) == ""))
    elif fault:
        query = query.where(col(SessionRow.executor_fault) == fault)
    if outcome:
        query = _filter_outcome(query, outcome)
    if origin in ORIGINS:
        made_by_evals = col(SessionRow.id).in_(
            select_columns(col(CaseResultRow.session_id))
            .where(col(CaseResultRow.session_id).is_not(None)))
        query = query.where(made_by_evals if origin == "eval" else ~made_by_evals)
    if since is not None:
        query = query.where(col(SessionRow.created_at) >= since)
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


def _filter_outcome(query: _Select, outcome: str) -> _Select:
    """Sessions whose outcome (``core.outcome.stored_outcome``: as read back) is ``outcome``."""
    completed = col(SessionRow.status) == "completed"
    if outcome == "error":
        return query.where(col(SessionRow.status) == "error")
    if outcome == "rejected":  # rows stored before the outcome existed say it by their verdict
        return query.where(completed, or_(col(SessionRow.outcome) == "rejected",
                                          and_(col(SessionRow.outcome).is_(None),
                                               col(SessionRow.verdict) == "REJECT")))
    return query.where(completed, col(SessionRow.outcome) == outcome)


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
        invocations = session_invocations(db, session_id)
        evaluation = (row.self_evaluation or {}).get("verifier_evaluation") or {}
        gatekeeper = with_checked_bindings(db, session_id, evaluation.get("gatekeeper_result"))
    if row.status == "running" and recover_rows(store, SessionRow, [row]):
        row.status, row.error = "incomplete", row.error or INCOMPLETE_REASON
    try:
        verifier_result = evaluation.get("verifier_result")
        if verifier_result is not None and row.status != "completed":
            verifier_result = withdraw_pass(VerifierResult.model_validate(verifier_result),
                                            f"the session did not complete ({row.status})")
        return SessionDocument(
            session_id=row.id, question=row.question, pack=row.pack, status=row.status,
            outcome=stored_outcome(status=row.status, verdict=row.verdict,
                                   outcome=_outcome(row.outcome)),
            engines=row.engines or {}, executor_fault=row.executor_fault,
            created_at=as_utc(row.created_at).isoformat(), plan=row.plan,
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


def closed_session_ids(store: Store, *, since: datetime | None = None,
                       limit: int = 1000) -> list[str]:
    """Ids of the sessions that have closed (any status but ``running``), created at or after
    ``since`` (UTC), oldest first (``export otlp``)."""
    query = select_columns(col(SessionRow.id)).where(col(SessionRow.status) != "running")
    if since is not None:  # stored as UTC (``models.utcnow``)
        query = query.where(col(SessionRow.created_at) >= as_utc(since).astimezone(UTC))
    query = query.order_by(col(SessionRow.created_at), col(SessionRow.id)).limit(limit)
    with store.begin() as connection:
        return [str(row[0]) for row in connection.execute(query).all()]
