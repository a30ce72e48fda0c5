"""Reviewers' annotations in the audit store (``core.annotations`` says what they mean).

An annotation is never edited: marking the same target again adds a row that names the one it
supersedes, and the session's *current* annotations are the rows nothing supersedes. Each row
is sealed in the audit chain (``core.store.chain``, kind ``annotation``) in the transaction that
adds it, so who said what, and when, is as tamper-evident as the session it judges.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

from sqlalchemy import Select, and_, exists, insert, select
from sqlalchemy.orm import aliased

from core.store.chain import lock_chain, record_table, seal
from core.store.db import Store
from core.store.models import AnnotationRow, utcnow

_ROW = record_table("annotation")
_SESSIONS = record_table("session")
# Worst first: a session's state is its worst current annotation (core.annotations).
STATES: tuple[str, ...] = ("wrong", "unsure", "right")


def new_annotation_id() -> str:
    """``ann-`` and 12 hex digits: unique, short enough to show."""
    return f"ann-{uuid.uuid4().hex[:12]}"


def add_annotation(store: Store, *, session_id: str, reviewer: str, target: str,
                   target_index: int | None, target_label: str, verdict: str,
                   note: str) -> AnnotationRow:
    """Add one annotation, superseding the current one of the same target, sealed in the chain
    in the same transaction. The caller checked the target (``core.annotations.annotate``);
    a session gone meanwhile is a ``KeyError``."""
    row = AnnotationRow(id=new_annotation_id(), session_id=session_id, created_at=utcnow(),
                        reviewer=reviewer, target=target, target_index=target_index,
                        target_label=target_label, verdict=verdict, note=note)
    with store.begin() as connection:
        lock_chain(connection)  # two reviewers marking one target: one supersedes the other
        if connection.execute(select(_SESSIONS.c.id).where(_SESSIONS.c.id == session_id)) \
                .first() is None:
            raise KeyError(session_id)
        previous = connection.execute(
            _current(select(_ROW.c.id))
            .where(_ROW.c.session_id == session_id, _ROW.c.target == target,
                   _same_index(target_index))
            .order_by(_ROW.c.created_at.desc()).limit(1)).scalar()
        row.supersedes = previous
        connection.execute(insert(_ROW).values(**row.model_dump()))
        seal(connection, "annotation", row.id)
    return row


def _same_index(target_index: int | None) -> Any:
    return _ROW.c.target_index.is_(None) if target_index is None \
        else _ROW.c.target_index == target_index


def _current(query: Select[Any]) -> Select[Any]:
    """``query`` of annotation rows narrowed to those no later row supersedes."""
    later = aliased(_ROW)
    return query.where(~exists().where(later.c.supersedes == _ROW.c.id))


def list_annotations(store: Store, *, session_id: str,
                     current_only: bool = False) -> list[AnnotationRow]:
    """A session's annotations, oldest first (all of them, or only the current ones)."""
    query = select(_ROW).where(_ROW.c.session_id == session_id)
    if current_only:
        query = _current(query)
    with store.begin() as connection:
        rows = connection.execute(query.order_by(_ROW.c.created_at, _ROW.c.id)).mappings().all()
    return [AnnotationRow.model_validate(dict(row)) for row in rows]


def current_annotations(store: Store, *, verdict: str | None = None,
                        limit: int = 10_000) -> list[AnnotationRow]:
    """Every session's current annotations (of one verdict, or all), oldest first."""
    query = _current(select(_ROW))
    if verdict:
        query = query.where(_ROW.c.verdict == verdict)
    with store.begin() as connection:
        rows = connection.execute(query.order_by(_ROW.c.created_at, _ROW.c.id)
                                  .limit(limit)).mappings().all()
    return [AnnotationRow.model_validate(dict(row)) for row in rows]


def annotation_states(store: Store, session_ids: Sequence[str]) -> dict[str, str]:
    """The state of each session that has a current annotation: its worst verdict (wrong,
    unsure, right). Sessions without one are absent."""
    if not session_ids:
        return {}
    with store.begin() as connection:
        rows = connection.execute(_current(select(_ROW.c.session_id, _ROW.c.verdict))
                                  .where(_ROW.c.session_id.in_(list(session_ids)))).all()
    states: dict[str, str] = {}
    for session_id, verdict in rows:
        known = states.get(str(session_id))
        if known is None or STATES.index(str(verdict)) < STATES.index(known):
            states[str(session_id)] = str(verdict)
    return states


def annotation_condition(state: str, session_id_column: Any) -> Any:
    """A condition on sessions for the Sessions filter ``annotation=STATE``: ``any`` (some
    annotation), ``none`` (no annotation), or a state (the worst current verdict is it)."""
    def has(verdicts: Sequence[str] | None) -> Any:
        later = aliased(_ROW)
        own = aliased(_ROW)
        condition = and_(own.c.session_id == session_id_column,
                         ~exists().where(later.c.supersedes == own.c.id))
        if verdicts is not None:
            condition = and_(condition, own.c.verdict.in_(list(verdicts)))
        return exists().where(condition)

    if state == "any":
        return has(None)
    if state == "none":
        return ~has(None)
    worse = STATES[:STATES.index(state)]
    return and_(has([state]), ~has(worse)) if worse else has([state])
