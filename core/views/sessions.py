"""The Sessions page's table and exports, from the store's session summaries."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from core.annotations import document_with_annotations
from core.contracts import SessionDocument
from core.store.repository import SessionQuery, SessionSummary
from core.views.badges import gate_label
from core.views.outcomes import result_label

if TYPE_CHECKING:
    from core.store.models import AnnotationRow

VERDICT_CHOICES: tuple[str, ...] = ("PASS", "LOW_CONFID", "REJECT")
SEVERITY_CHOICES: tuple[str, ...] = ("none", "low_confid", "reject")
TONED_COLUMNS: tuple[str, ...] = ("result", "gatekeeper")
SESSION_COLUMNS: tuple[str, ...] = (
    "time (UTC)", "open", "result", "annotation", "question", "verdict", "groundedness", "gatekeeper",
    "failed rules", "engine", "fault", "pack", "duration (ms)", "status", "session")
# A link cell shows the session id it holds (``LinkColumn(display_text=...)``).
LINK_DISPLAY = r"session=(.+)$"


def session_link(session_id: str) -> str:
    """The Investigate page of ``session_id``, relative to any page of the console."""
    return f"./?session={quote(session_id, safe='')}"


@dataclass(frozen=True)
class SessionFilters:
    """What the person filtered on; empty strings / None mean "any"."""

    verdict: str | None = None
    severity: str | None = None
    rule: str | None = None
    text: str | None = None
    annotation: str | None = None  # any, wrong, unsure, right, none (core.store.annotations)

    def as_query(self) -> SessionQuery:
        """Keyword arguments of ``repository.list_sessions`` / ``count_sessions``."""
        return SessionQuery(verdict=self.verdict or None, severity=self.severity or None,
                            rule=self.rule or None, text=(self.text or "").strip() or None,
                            annotation=self.annotation or None)

    @property
    def active(self) -> bool:
        """Whether any filter is set."""
        return any(self.as_query().values())


def rule_choices(seen: Iterable[str] = ()) -> list[str]:
    """Gatekeeper rules that can fail a session (reject / low_confid) plus any seen in data."""
    from core.gatekeeper import RULES

    failing = {name for name, rule in RULES.items() if rule.severity in ("reject", "low_confid")}
    return sorted(failing | set(seen))


def engine_label(engines: dict[str, Any]) -> str:
    """``rules`` when every role runs the same engine, else ``executor=llm, planner=rules ...``."""
    names = {str(value) for value in engines.values()}
    if not names:
        return "?"
    if len(names) == 1:
        return names.pop()
    return ", ".join(f"{role}={name}" for role, name in sorted(engines.items()))


def session_rows(summaries: Sequence[SessionSummary],
                 annotations: Mapping[str, str] | None = None) -> list[dict[str, Any]]:
    """One table row per session, newest first, in ``SESSION_COLUMNS`` order; ``annotations``:
    each annotated session's state (``repository.annotation_states``)."""
    states = annotations or {}
    return [{
        "time (UTC)": summary.created_at.strftime("%Y-%m-%d %H:%M:%S"),
        "open": session_link(summary.session_id),
        "result": result_label(verdict=summary.verdict, outcome=summary.outcome,
                               status=summary.status),
        "annotation": states.get(summary.session_id, ""),
        "question": summary.question,
        "verdict": summary.verdict or "",
        "groundedness": summary.groundedness,
        "gatekeeper": gate_label(summary.gatekeeper_severity),
        "failed rules": ", ".join(summary.failed_rules),
        "engine": engine_label(summary.engines),
        "fault": summary.executor_fault or "",
        "pack": summary.pack,
        "duration (ms)": round(summary.duration_ms, 1) if summary.duration_ms is not None else None,
        "status": summary.status,
        "session": summary.session_id,
    } for summary in summaries]


def session_pick_label(summary: SessionSummary) -> str:
    """``07-08 11:20:05 · PASS · verified finding · <question>`` for session pickers."""
    result = result_label(verdict=summary.verdict, outcome=summary.outcome,
                          status=summary.status)
    return f"{summary.created_at:%m-%d %H:%M:%S} · {result} · {summary.question[:70]}"


Annotations = Callable[[str], Sequence["AnnotationRow"]]  # a session id -> its annotations


def document_json(document: SessionDocument, annotations: Sequence[AnnotationRow] = ()) -> str:
    """One session document with its annotations as pretty JSON (the ``sessions show --json``
    shape)."""
    return json.dumps(document_with_annotations(document, annotations), ensure_ascii=False,
                      indent=2)


def documents_jsonl(documents: Iterable[SessionDocument],
                    annotations: Annotations | None = None) -> str:
    """Session documents as JSON Lines (the ``sessions export`` shape): one compact document
    per line, with its annotations (``annotations(session_id)``)."""
    return "".join(json.dumps(document_with_annotations(
        document, annotations(document.session_id) if annotations else ()),
        ensure_ascii=False) + "\n" for document in documents)


def export_file_name(filters: SessionFilters, count: int) -> str:
    """A file name that says what the export holds."""
    parts = ["sessions"]
    for value in (filters.verdict, filters.severity, filters.rule, filters.annotation):
        if value:
            parts.append(value.replace(".", "_").lower())
    parts.append(str(count))
    return "-".join(parts) + ".jsonl"
