"""Annotations into eval cases: a wrong PASS a person found becomes a regression test that
fails until the engine is fixed (``superbiz eval cases from-annotations``, the console's
"Make an eval case").

What an annotation expects (the case format's keys, ``core.evals.cases.Expectation``), given the
session's verdict V:

| annotation | expectation |
| --- | --- |
| the answer is wrong | ``verdict``: every verdict but V (a wrong PASS expects LOW_CONFID or REJECT) |
| the answer is right | ``verdict``: V, and ``outcome``: the session's outcome (keep it right) |
| a claim is wrong | ``forbidden``: the claim's text; ``verdict``: not PASS |
| a binding is wrong | ``verdict``: not PASS (an answer resting on a wrong citation never passes) |
| unsure; a claim or binding that is right | no case: nothing a case can check |

The case asks the session's question of its pack with its injected fault, tagged
``annotation`` and the verdict; its id is ``annotation-<annotation id>``, so writing the same
annotation again adds nothing. Cases are appended to a suite file (default
``$SUPERBIZ_ANNOTATION_SUITE``, else ``annotations.yaml`` in the data folder's ``evals/``),
which ``superbiz eval FILE`` and the Evals page run.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, get_args

import yaml

from core.contracts import SessionDocument, Verdict
from core.evals.cases import load_case_file, parse_case_text
from core.outputs import write_atomically
from core.userdirs import default_data_dir

if TYPE_CHECKING:
    from core.store import Store
    from core.store.models import AnnotationRow

SUITE_VARIABLE = "SUPERBIZ_ANNOTATION_SUITE"
SUITE_LABEL = "annotations"
CASE_PREFIX = "annotation-"
NOT_PASS: list[str] = ["LOW_CONFID", "REJECT"]
_VERDICTS: tuple[str, ...] = get_args(Verdict)


def annotation_suite_path() -> Path:
    """The suite file annotations are written to when no other is named."""
    configured = os.environ.get(SUITE_VARIABLE)
    return Path(configured).expanduser() if configured else \
        default_data_dir() / "evals" / f"{SUITE_LABEL}.yaml"


def case_id(annotation: AnnotationRow) -> str:
    """The id of the case an annotation becomes (the same annotation, the same case)."""
    return f"{CASE_PREFIX}{annotation.id}"


def expectation(annotation: AnnotationRow,
                document: SessionDocument) -> tuple[dict[str, Any] | None, str]:
    """The ``expect`` mapping of the case (see the module's table), or None and why not."""
    verdict = document.verifier_result.verdict if document.verifier_result else None
    if annotation.verdict == "unsure":
        return None, "an unsure annotation expects nothing"
    if annotation.target == "answer":
        if verdict is None:
            return None, "the session has no verdict to keep or contradict"
        if annotation.verdict == "right":
            kept: dict[str, Any] = {"verdict": [verdict]}
            if document.outcome:
                kept["outcome"] = document.outcome
            return kept, ""
        return {"verdict": [other for other in _VERDICTS if other != verdict]}, ""
    if annotation.verdict == "right":
        return None, f"a right {annotation.target} is what the gatekeeper already checks"
    expect: dict[str, Any] = {"verdict": list(NOT_PASS)}
    if annotation.target == "claim":
        claims = document.executor_output.claims if document.executor_output else []
        index = annotation.target_index if annotation.target_index is not None else -1
        text = claims[index].claim_text.strip() if 0 <= index < len(claims) else ""
        if text:
            expect["forbidden"] = [text]
    return expect, ""


def case_for(annotation: AnnotationRow,
             document: SessionDocument) -> tuple[dict[str, Any] | None, str]:
    """The case (as its YAML mapping) an annotation of ``document`` becomes, or None and why."""
    expect, reason = expectation(annotation, document)
    if expect is None:
        return None, reason
    case: dict[str, Any] = {"id": case_id(annotation), "question": document.question,
                            "pack": document.pack}
    if document.executor_fault:
        case["executor_fault"] = document.executor_fault
    case["tags"] = ["annotation", annotation.verdict]
    case["expect"] = expect
    return case, ""


@dataclass
class CasesWritten:
    """What writing annotations into a suite did: the file, the case ids added, those already
    there, and the annotations that make no case (id, why)."""

    path: Path
    added: list[str] = field(default_factory=list)
    present: list[str] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)


def _comment(annotation: AnnotationRow, document: SessionDocument) -> str:
    note = " ".join(annotation.note.split())[:200]
    verdict = document.verifier_result.verdict if document.verifier_result else document.status
    return (f"# {annotation.id}: {annotation.reviewer} marked the {annotation.target_label} of "
            f"session {annotation.session_id} ({verdict}) {annotation.verdict}"
            + (f": {note}" if note else "") + "\n")


def write_cases(store: Store, annotations: Sequence[AnnotationRow],
                path: Path | None = None) -> CasesWritten:
    """Append the cases of ``annotations`` not yet in the suite file ``path`` (default
    ``annotation_suite_path()``); the file is checked as a case file before it is replaced."""
    from core.store.history import load_session_document

    target = path or annotation_suite_path()
    written = CasesWritten(target)
    existing = ""
    known: set[str] = set()
    if target.exists():
        known = {case.id for case in load_case_file(target)}
        existing = target.read_text(encoding="utf-8")
    chunks: list[str] = []
    for annotation in annotations:
        identifier = case_id(annotation)
        if identifier in known:
            written.present.append(identifier)
            continue
        document = load_session_document(store, session_id=annotation.session_id)
        case, reason = case_for(annotation, document) if document is not None else \
            (None, "the session is gone from the store")
        if case is None:
            written.skipped.append((annotation.id, reason))
            continue
        chunks.append(_comment(annotation, document) if document is not None else "")
        chunks.append(yaml.safe_dump([case], allow_unicode=True, sort_keys=False))
        known.add(identifier)
        written.added.append(identifier)
    if written.added:
        if existing and not existing.endswith("\n"):
            existing += "\n"
        text = existing + "".join(chunks)
        parse_case_text(text, source=str(target), folder=target.resolve().parent)
        write_atomically(target, [text.encode("utf-8")], make_folders=True)
    return written
