"""What the console reads from the audit store, made fit to show.

The store gives text back exactly as it was written, lone surrogates included (an older
version's rows, bytes another program wrote: ``core.store.dialects``). A page cannot show such
text: Streamlit fails to encode it and the whole page becomes an error. So every read here
replaces lone surrogates by U+FFFD, for display only (``sessions export`` keeps them). A row
that cannot be read back at all raises ``StoredRowError``; ``documents_for_export`` skips it.
Same names and arguments as ``core.store.repository``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, TypeVar

from pydantic import BaseModel

from core.contracts import Invocation, SessionDocument
from core.errors import StoredRowError
from core.inputs.text import repair_tree
from core.store import Store, repository
from core.store.models import AnnotationRow, CaseResultRow, EvalRunRow, SessionEventRow
from core.store.repository import SessionSummary

Model = TypeVar("Model", bound=BaseModel)

count_sessions = repository.count_sessions  # numbers only: nothing to repair
failed_rule_counts = repository.failed_rule_counts
latest_session_id = repository.latest_session_id
annotation_states = repository.annotation_states  # ids and verdicts: nothing to repair


def readable(item: Model) -> Model:
    """``item`` with every lone surrogate in its text replaced by U+FFFD (``item`` itself when
    it holds none)."""
    data = item.model_dump()
    repaired = repair_tree(data)
    return item if repaired == data else type(item).model_validate(repaired)


def _all(items: Sequence[Model]) -> list[Model]:
    return [readable(item) for item in items]


def list_sessions(store: Store, **filters: Any) -> list[SessionSummary]:
    """``repository.list_sessions``, fit to show."""
    return _all(repository.list_sessions(store, **filters))


def load_session_document(store: Store, *, session_id: str) -> SessionDocument | None:
    """``repository.load_session_document``, fit to show (``StoredRowError`` for a row that
    cannot be read back)."""
    document = repository.load_session_document(store, session_id=session_id)
    return readable(document) if document is not None else None


def session_exists(store: Store, *, session_id: str) -> bool:
    """Whether the store holds that session (readable or not)."""
    try:
        return repository.load_session_document(store, session_id=session_id) is not None
    except StoredRowError:
        return True


def list_events(store: Store, *, session_id: str, after_seq: int = -1) -> list[SessionEventRow]:
    """``repository.list_events``, fit to show."""
    return _all(repository.list_events(store, session_id=session_id, after_seq=after_seq))


def get_invocation(store: Store, *, invocation_id: int) -> Invocation | None:
    """``repository.get_invocation``, fit to show."""
    invocation = repository.get_invocation(store, invocation_id=invocation_id)
    return readable(invocation) if invocation is not None else None


def list_eval_runs(store: Store, *, limit: int = 100) -> list[EvalRunRow]:
    """``repository.list_eval_runs``, fit to show."""
    return _all(repository.list_eval_runs(store, limit=limit))


def list_case_results(store: Store, *, run_id: str) -> list[CaseResultRow]:
    """``repository.list_case_results``, fit to show."""
    return _all(repository.list_case_results(store, run_id=run_id))


def list_annotations(store: Store, *, session_id: str) -> list[AnnotationRow]:
    """``repository.list_annotations``, fit to show."""
    return _all(repository.list_annotations(store, session_id=session_id))


def documents_for_export(store: Store, session_ids: Sequence[str]) -> Iterator[SessionDocument]:
    """The documents of ``session_ids`` that can be read back, fit to show; the others are
    left out (the CLI's ``sessions export`` names them)."""
    for session_id in session_ids:
        try:
            document = load_session_document(store, session_id=session_id)
        except StoredRowError:
            continue
        if document is not None:
            yield document
