"""What the console shows of annotations (``core.annotations``): the badge of a session's state,
the Sessions filter kept in the URL (``?annotation=wrong``), the list of a session's annotations,
the targets a reviewer can pick, and what "Make an eval case" did."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from core.annotations import FILTER_CHOICES, binding_owners, current
from core.contracts import SessionDocument
from core.views.badges import Badge

if TYPE_CHECKING:
    from core.evals.fromannotations import CasesWritten
    from core.store.models import AnnotationRow

QUERY_KEY = "annotation"  # ?annotation=wrong on the Sessions page
_BADGES: dict[str, Badge] = {
    "wrong": Badge("reviewer: wrong", "red", "thumb_down"),
    "unsure": Badge("reviewer: unsure", "amber", "help"),
    "right": Badge("reviewer: right", "green", "thumb_up"),
}
VERDICT_ICONS: dict[str, str] = {"wrong": ":material/thumb_down:", "right": ":material/thumb_up:",
                                 "unsure": ":material/help:"}


def state_badge(state: str | None) -> Badge | None:
    """The badge of a session's annotation state (its worst current verdict); None: none."""
    return _BADGES.get(state or "")


# The Sessions filter's options, as ``?annotation=`` spells them ("" = every session) and as
# the select box labels them.
FILTER_LABELS: dict[str, str] = {"": "any session", "any": "annotated", "wrong": "wrong",
                                 "unsure": "unsure", "right": "right", "none": "not annotated"}


def filter_choices() -> list[str]:
    """The Sessions filter's options: every session, annotated, a state, not annotated."""
    return ["", *FILTER_CHOICES]


def filter_from_query(value: str | None) -> str:
    """The filter a URL's ``?annotation=`` names ("" when missing or unknown); it is the
    store's ``list_sessions(annotation=...)`` value too."""
    return value if value in FILTER_CHOICES else ""


def state_cells(session_ids: Sequence[str], states: Mapping[str, str]) -> list[str]:
    """The Sessions table's ``annotation`` column, one cell per session ("" when none)."""
    return [states.get(session_id, "") for session_id in session_ids]


@dataclass(frozen=True)
class Target:
    """Something a reviewer can mark: the answer, a claim or a binding (``index`` from 0)."""

    kind: str
    index: int | None
    label: str


def targets(document: SessionDocument) -> list[Target]:
    """The answer, then every claim, then every binding (the inspector's order)."""
    found = [Target("answer", None, "the answer")]
    claims = document.executor_output.claims if document.executor_output else []
    found += [Target("claim", number, f"claim {claim.claim_id}: {_short(claim.claim_text)}")
              for number, claim in enumerate(claims)]
    found += [Target("binding", number, f"binding {number} ({owner} #{within})")
              for number, (owner, within) in enumerate(binding_owners(document))]
    return found


def binding_target(document: SessionDocument, owner_id: str, within: int) -> Target | None:
    """The target of the inspector's binding ``owner_id`` #``within``."""
    for number, (owner, index) in enumerate(binding_owners(document)):
        if (owner, index) == (owner_id, within):
            return Target("binding", number, f"binding {number} ({owner} #{index})")
    return None


def _short(text: str, limit: int = 60) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[:limit - 1] + "…"


def annotation_rows(annotations: Sequence[AnnotationRow]) -> list[dict[str, Any]]:
    """One row per annotation, newest first; superseded ones say so."""
    live = {row.id for row in current(annotations)}
    return [{"time (UTC)": row.created_at.strftime("%Y-%m-%d %H:%M:%S"),
             "verdict": row.verdict, "target": row.target_label, "reviewer": row.reviewer,
             "note": row.note, "current": "yes" if row.id in live else "superseded",
             "annotation": row.id} for row in reversed(annotations)]


def eval_case_message(written: CasesWritten) -> tuple[bool, str]:
    """(whether a case is in the suite now, what to tell the reviewer)."""
    where = str(written.path)
    if written.added:
        return True, (f"Eval case {written.added[0]} added to {where}. Run it on the Evals "
                      "page (Cases: Annotations suite): it fails until the engine is fixed.")
    if written.present:
        return True, f"Eval case {written.present[0]} is already in {where}."
    reason = written.skipped[0][1] if written.skipped else "nothing to write"
    return False, f"No eval case: {reason}."
