"""SQLModel tables of the audit store. Kept apart from the wire contracts in ``core.contracts``.

JSON columns are written whole, never mutated in place: SQLAlchemy does not track in-place
changes of JSON values, and an audit trail should not change under a reader anyway.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import JSON, Column, Index, Table, Text, UniqueConstraint
from sqlalchemy.engine import Connection, Dialect
from sqlalchemy.sql.ddl import BaseDDLElement
from sqlalchemy.sql.schema import SchemaItem
from sqlmodel import Field, SQLModel


def utcnow() -> datetime:
    """Timezone-aware now; stored as UTC."""
    return datetime.now(UTC)


def _not_sqlite(ddl: BaseDDLElement, target: SchemaItem | str, bind: Connection | None,
                tables: list[Table] | None = None, state: Any = None, *, dialect: Dialect,
                **kw: Any) -> bool:
    """``Index.ddl_if`` test: create the index on every dialect but SQLite."""
    return dialect.name != "sqlite"


class SessionRow(SQLModel, table=True):
    """One investigation: its question, engines, progress, verdict and full self-evaluation."""

    __tablename__ = "sessions"
    # The Sessions page lists newest first under one filter (bench/sessions.py times it at
    # 100k rows). Each equality filter has an index that ends in created_at, so a page of 200
    # is read straight off it in order, and its count is an index range.
    __table_args__ = (
        Index("ix_sessions_verdict_created_at", "verdict", "created_at"),
        Index("ix_sessions_severity_created_at", "gatekeeper_severity", "created_at"),
        Index("ix_sessions_status_created_at", "status", "created_at"),
        # The rule and text filters are LIKE '%...%', which no B-tree can seek. On SQLite this
        # index, in time order, holds every column they read: their counts scan it instead of
        # the wide rows (kilobytes of JSON each, 10x slower), and a page checks the filter on
        # the index before it reads a row. It doubles as the created_at index; a plain one
        # next to it would be preferred by SQLite's planner and bring back the row scans.
        # Not on other dialects: PostgreSQL limits a B-tree entry to ~2.7 kB, a long
        # question would fail the insert.
        Index("ix_sessions_listing", "created_at", "failed_rules", "question", "id")
        .ddl_if(dialect="sqlite"),
        Index("ix_sessions_created_at", "created_at").ddl_if(callable_=_not_sqlite),
    )

    id: str = Field(primary_key=True)
    created_at: datetime = Field(default_factory=utcnow)
    question: str = Field(sa_column=Column(Text, nullable=False))
    pack: str = Field(index=True)
    engines: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON))
    executor_fault: str | None = None
    status: str = "running"
    verdict: str | None = None
    # What was found (found | absent | unknown_subject | not_understood; core.outcome).
    outcome: str | None = None
    groundedness: float | None = None
    gatekeeper_status: str | None = None
    gatekeeper_severity: str | None = None
    # Comma-wrapped (",a,b,") so a rule filter is one LIKE on whole names (see the index above).
    failed_rules: str = ""
    language: str | None = None
    answer: str | None = Field(default=None, sa_column=Column(Text))
    duration_ms: float | None = None
    error: str | None = Field(default=None, sa_column=Column(Text))
    plan: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON))
    executor_output: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON))
    parse_status: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON))
    # verifier_evaluation.{gatekeeper_result, ...}: where the audit record lives (docs/design.md §4)
    self_evaluation: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON))
    composer_output: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON))
    timings_ms: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON))
    # When each stage began (ms since the session started), for the console's timeline.
    stage_starts_ms: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON))
    # The lease of the process running the session (core/store/leases.py): while ``running``, a
    # session whose owner died is marked ``incomplete`` by the next process that opens the store.
    lease_host: str | None = None
    lease_pid: int | None = None
    lease_token: str | None = None
    heartbeat_at: datetime | None = None


class InvocationRow(SQLModel, table=True):
    """One tool call. Its id is the ``source_invocation_id`` citations use, unique store-wide."""

    __tablename__ = "tool_invocations"
    __table_args__ = {"sqlite_autoincrement": True}

    id: int | None = Field(default=None, primary_key=True)
    session_id: str = Field(index=True)
    created_at: datetime = Field(default_factory=utcnow)
    tool_name: str = Field(index=True)
    arguments: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON))
    output: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON))
    retrieval_details: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON))
    evidence_status: str | None = Field(default=None, index=True)
    duration_ms: float | None = None
    started_ms: float | None = None  # when the call began, ms since its session started
    # Which source answered (``pack:demo``) and the exact request it served (no credentials).
    source: str | None = None
    request: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON))


class CheckedBindingRow(SQLModel, table=True):
    """One gatekeeper verdict on one binding, so QA can filter by rule, tool or status."""

    __tablename__ = "checked_bindings"

    id: int | None = Field(default=None, primary_key=True)
    session_id: str = Field(index=True)
    created_at: datetime = Field(default_factory=utcnow)
    gatekeeper_version: str
    claim_id: str | None = None
    action_id: str | None = None
    binding_index: int = 0
    tool_name: str | None = Field(default=None, index=True)
    source_invocation_id: int | None = None
    raw_path: str | None = None
    status: str = Field(index=True)
    severity: str = "none"
    rule: str | None = Field(default=None, index=True)
    score: float | None = None
    match_kind: str | None = None
    # Which executor attempt of the session (2 after a repair turn; NULL in older stores: 1).
    attempt: int | None = None
    detail: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON))


class SessionEventRow(SQLModel, table=True):
    """The pipeline's events in order, so a running or crashed session can be read back."""

    __tablename__ = "session_events"

    id: int | None = Field(default=None, primary_key=True)
    session_id: str = Field(index=True)
    seq: int
    created_at: datetime = Field(default_factory=utcnow)
    kind: str
    payload: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON))


class EvalRunRow(SQLModel, table=True):
    """One run of an eval suite, with its metrics."""

    __tablename__ = "eval_runs"

    id: str = Field(primary_key=True)
    created_at: datetime = Field(default_factory=utcnow, index=True)
    suite: str = ""
    status: str = "running"
    total: int = 0
    passed: int = 0
    duration_ms: float | None = None
    metrics: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON))
    lease_host: str | None = None
    lease_pid: int | None = None
    lease_token: str | None = None
    heartbeat_at: datetime | None = None


class CaseResultRow(SQLModel, table=True):
    """One case of an eval run, linked to the session it produced."""

    __tablename__ = "case_results"

    id: int | None = Field(default=None, primary_key=True)
    run_id: str = Field(index=True)
    case_id: str
    session_id: str | None = None
    passed: bool
    duration_ms: float | None = None
    tags: list[str] = Field(default_factory=list, sa_column=Column(JSON))
    detail: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON))


class StoreMetaRow(SQLModel, table=True):
    """Facts about the store itself, one row per key: ``schema_version`` (``core.store.identity``)
    marks the database as an audit store and says which version of its tables it holds."""

    __tablename__ = "store_meta"
    key: str = Field(primary_key=True)
    value: str


class AuditRecordRow(SQLModel, table=True):
    """One link of the store's hash chain (``core.store.chain``): a closed session or eval run
    sealed with the SHA-256 of its content and of the record before it."""

    __tablename__ = "audit_chain"
    # One record per session or run, and no two records after the same one: a fork would need
    # two rows with one ``prev_sha256``.
    __table_args__ = (UniqueConstraint("kind", "record_id", name="uq_audit_chain_record"),
                      UniqueConstraint("prev_sha256", name="uq_audit_chain_prev"))

    seq: int = Field(primary_key=True, sa_column_kwargs={"autoincrement": False})
    kind: str  # "session" or "eval_run"
    record_id: str
    created_at: datetime = Field(default_factory=utcnow)
    content_sha256: str
    prev_sha256: str
    sha256: str


class AnnotationRow(SQLModel, table=True):
    """A reviewer's verdict on a session's answer, one claim or one binding (``core.store.
    annotations``). Never edited: a later annotation of the same target supersedes it (names it
    in ``supersedes``). Each is sealed in the audit chain as it is written."""

    __tablename__ = "annotations"

    id: str = Field(primary_key=True)
    session_id: str = Field(index=True)
    created_at: datetime = Field(default_factory=utcnow)
    reviewer: str
    target: str  # "answer", "claim" or "binding"
    # The claim's position in the executor output, or the binding's in the inspector's list
    # (claims' bindings first, then actions'), from 0; NULL for the answer.
    target_index: int | None = None
    target_label: str = ""  # what the target was when annotated: "claim c1", "binding 3 (c1 #0)"
    verdict: str  # "right", "wrong" or "unsure"
    note: str = Field(default="", sa_column=Column(Text, nullable=False))
    supersedes: str | None = Field(default=None, index=True)
