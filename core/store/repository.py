"""Repository functions of the audit store: the store first, everything else keyword-only.

The public surface callers import (``from core.store import repository``); each function is one
short transaction and lives in a private module of ``core.store`` by what it reads or writes:

- ``sessions``: a session's row written stage by stage (``create_session``, ``save_plan``,
  ``save_executor_output``, ``save_gatekeeper_result``, ``save_verification``,
  ``finish_session``) and the column values the pipeline's batched writes use.
- ``history``: sessions read back (``list_sessions``, ``count_sessions`` with their
  ``SessionQuery`` filters and ``SessionSummary`` rows, ``latest_session_id``,
  ``session_exists``, ``load_session_document``).
- ``invocations``: tool calls (``record_invocation``, ``get_invocation``, ``list_invocations``)
  and checked bindings for QA (``list_checked_bindings``).
- ``eventlog``: a session's pipeline events (``append_event``, ``list_events``).
- ``evalruns``: eval runs and case results (``create_eval_run``, ``add_case_result``, ``add_case_results``,
  ``finish_eval_run``, ``list_eval_runs``, ``list_case_results``).
- ``recovery``: leases of running rows (``recover_abandoned``, ``refresh_heartbeats``).
- ``annotations``: reviewers' annotations (``add_annotation``, ``list_annotations``,
  ``current_annotations``, ``annotation_states``; ``core.annotations.annotate`` checks one first).

The pipeline's write path is internal to the store and not re-exported: ``core.store.journal``
fills a ``Batch`` (``batches``) per stage boundary, with the column values of ``sessions`` and
invocation ids from ``invocations.reserve_invocation_ids``, so a session is on disk stage by
stage and a crash leaves everything up to the stage that was running.

Callers import these names from here; the modules behind it import one another directly
(``invocations`` and ``recovery`` at the bottom, ``history``, ``eventlog`` and ``evalruns`` on
top), never this module.
"""

from __future__ import annotations

from core.store.annotations import (
    add_annotation,
    annotation_states,
    current_annotations,
    list_annotations,
)
from core.store.evalruns import (
    add_case_result,
    add_case_results,
    create_eval_run,
    finish_eval_run,
    list_case_results,
    list_eval_runs,
)
from core.store.eventlog import append_event, list_events
from core.store.history import (
    NO_FAULT,
    ORIGINS,
    SessionQuery,
    SessionSummary,
    count_sessions,
    failed_rule_counts,
    latest_session_id,
    list_sessions,
    load_session_document,
    session_exists,
)
from core.store.invocations import (
    get_invocation,
    list_checked_bindings,
    list_invocations,
    record_invocation,
)
from core.store.recovery import recover_abandoned, refresh_heartbeats
from core.store.sessions import (
    create_session,
    finish_session,
    save_executor_output,
    save_gatekeeper_result,
    save_plan,
    save_verification,
)

__all__ = [
    "NO_FAULT",
    "ORIGINS",
    "SessionQuery",
    "SessionSummary",
    "add_annotation",
    "add_case_result",
    "add_case_results",
    "annotation_states",
    "append_event",
    "count_sessions",
    "create_eval_run",
    "create_session",
    "current_annotations",
    "failed_rule_counts",
    "finish_eval_run",
    "finish_session",
    "get_invocation",
    "latest_session_id",
    "list_annotations",
    "list_case_results",
    "list_checked_bindings",
    "list_eval_runs",
    "list_events",
    "list_invocations",
    "list_sessions",
    "load_session_document",
    "record_invocation",
    "recover_abandoned",
    "refresh_heartbeats",
    "save_executor_output",
    "save_gatekeeper_result",
    "save_plan",
    "save_verification",
    "session_exists",
]
