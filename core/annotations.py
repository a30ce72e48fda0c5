"""Annotations: a reviewer marks a session's answer, one claim or one binding right, wrong or
unsure, with a note (docs/store.md *Annotations*, README *QA workflow*).

This module says what an annotation may name and checks it against the session before anything
is written; ``core.store.annotations`` stores it (never edited: a new one supersedes) and seals
it in the audit chain; ``core.evals.fromannotations`` turns one into an eval case.

Targets are numbered from 0: a claim by its place in the executor's output, a binding by its
place in the Binding inspector's list (every claim's bindings in order, then every recommended
action's), so ``--binding 2`` is the inspector's third binding.
"""

from __future__ import annotations

import getpass
import os
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from core.contracts import SessionDocument
from core.errors import AnnotationError
from core.inputs.text import text_problem

if TYPE_CHECKING:
    from core.store import Store
    from core.store.models import AnnotationRow

VERDICTS: tuple[str, ...] = ("wrong", "right", "unsure")
TARGETS: tuple[str, ...] = ("answer", "claim", "binding")
# The Sessions filter: "any" annotation, a session's worst current verdict, or "none".
FILTER_CHOICES: tuple[str, ...] = ("any", "wrong", "unsure", "right", "none")
REVIEWER_VARIABLE = "SUPERBIZ_REVIEWER"
MAX_NOTE_CHARS = 4000
MAX_REVIEWER_CHARS = 120


def default_reviewer(given: str | None = None) -> str:
    """Who annotates: ``given`` (``--by``, the console's Reviewer field), else
    ``$SUPERBIZ_REVIEWER``, else the OS user."""
    for candidate in (given, os.environ.get(REVIEWER_VARIABLE)):
        if candidate and candidate.strip():
            return candidate.strip()
    try:
        return getpass.getuser()
    except (OSError, KeyError):  # no user name in the environment nor in the password file
        return "unknown"


def binding_owners(document: SessionDocument) -> list[tuple[str, int]]:
    """``(owner id, index within the owner)`` of every binding, in the inspector's order."""
    output = document.executor_output
    if output is None:
        return []
    owners = [(claim.claim_id, claim.evidence_bindings) for claim in output.claims]
    owners += [(action.action_id, action.evidence_bindings)
               for action in output.recommended_actions]
    return [(owner, index) for owner, bindings in owners for index in range(len(bindings))]


def target_label(document: SessionDocument, target: str, index: int | None) -> str:
    """What ``target``/``index`` names in ``document`` (``answer``, ``claim c1``, ``binding 2
    (c1 #0)``), or ``AnnotationError`` when the session has no such thing."""
    if target == "answer":
        return "answer"
    if index is None or index < 0:
        raise AnnotationError(f"a {target} is named by its number, from 0")
    if target == "claim":
        claims = document.executor_output.claims if document.executor_output else []
        if index >= len(claims):
            raise AnnotationError(f"session {document.session_id} has no claim {index} "
                                  f"({_count(len(claims), 'claim')}, numbered from 0)")
        return f"claim {claims[index].claim_id}"
    if target == "binding":
        owners = binding_owners(document)
        if index >= len(owners):
            raise AnnotationError(f"session {document.session_id} has no binding {index} "
                                  f"({_count(len(owners), 'binding')}, numbered from 0)")
        owner, within = owners[index]
        return f"binding {index} ({owner} #{within})"
    raise AnnotationError(f"unknown target {target!r} (one of {', '.join(TARGETS)})")


def _count(number: int, noun: str) -> str:
    return f"it has {number} {noun}{'' if number == 1 else 's'}" if number else f"it has no {noun}s"


def check_fields(*, verdict: str, note: str, reviewer: str) -> tuple[str, str, str]:
    """The verdict, note and reviewer, checked and stripped (``AnnotationError`` otherwise)."""
    if verdict not in VERDICTS:
        raise AnnotationError(f"unknown verdict {verdict!r} (one of {', '.join(VERDICTS)})")
    for name, text, limit in (("note", note, MAX_NOTE_CHARS),
                              ("reviewer", reviewer, MAX_REVIEWER_CHARS)):
        problem = text_problem(text)
        if problem:
            raise AnnotationError(f"the {name} {problem}")
        if len(text.strip()) > limit:
            raise AnnotationError(f"the {name} is {len(text.strip()):,} characters long "
                                  f"(at most {limit:,})")
    if not reviewer.strip():
        raise AnnotationError("the reviewer is blank: give --by NAME or set SUPERBIZ_REVIEWER")
    return verdict, note.strip(), reviewer.strip()


def annotate(store: Store, *, session_id: str, verdict: str, note: str = "",
             reviewer: str | None = None, target: str = "answer",
             index: int | None = None) -> AnnotationRow:
    """Check everything against the stored session, then add the annotation (sealed in the
    audit chain). Nothing is written when any check fails."""
    from core.store.annotations import add_annotation
    from core.store.history import load_session_document

    verdict, note, who = check_fields(verdict=verdict, note=note,
                                      reviewer=default_reviewer(reviewer))
    document = load_session_document(store, session_id=session_id)
    if document is None:
        raise AnnotationError(f"no session {session_id!r} in the audit store")
    if document.status == "running":
        raise AnnotationError(f"session {session_id} is still running: annotate it once it "
                              "has finished")
    label = target_label(document, target, index)
    try:
        return add_annotation(store, session_id=session_id, reviewer=who, target=target,
                              target_index=None if target == "answer" else index,
                              target_label=label, verdict=verdict, note=note)
    except KeyError:
        raise AnnotationError(f"session {session_id!r} is gone from the audit store") from None


def current(annotations: Iterable[AnnotationRow]) -> list[AnnotationRow]:
    """The annotations no other one of the list supersedes, in their order."""
    rows = list(annotations)
    superseded = {row.supersedes for row in rows if row.supersedes}
    return [row for row in rows if row.id not in superseded]


def session_state(annotations: Iterable[AnnotationRow]) -> str | None:
    """A session's state: its worst current verdict (wrong, then unsure, then right), None
    when it has no annotation."""
    verdicts = {row.verdict for row in current(annotations)}
    return next((state for state in ("wrong", "unsure", "right") if state in verdicts), None)


def annotation_json(row: AnnotationRow) -> dict[str, Any]:
    """One annotation as plain JSON values (export, ``sessions annotations --json``)."""
    return {"annotation_id": row.id, "session_id": row.session_id,
            "created_at": _utc(row.created_at).isoformat(), "reviewer": row.reviewer,
            "target": row.target, "target_index": row.target_index,
            "target_label": row.target_label, "verdict": row.verdict, "note": row.note,
            "supersedes": row.supersedes}


def _utc(moment: datetime) -> datetime:
    # SQLite hands datetimes back naive; they were stored as UTC (core.store.models.utcnow).
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def document_with_annotations(document: SessionDocument,
                              annotations: Sequence[AnnotationRow]) -> dict[str, Any]:
    """The session document as JSON with its annotations (every one, oldest first, superseded
    ones too: the audit trail) under ``annotations``: what ``sessions show --json``, ``sessions
    export`` and the console's exports write. Reading it back as a document ignores the key."""
    return {**document.model_dump(mode="json"),
            "annotations": [annotation_json(row) for row in annotations]}
