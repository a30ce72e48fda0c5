"""The Sessions page's table and exports, from the store's session summaries."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any, get_args
from urllib.parse import quote

from core.annotations import document_with_annotations
from core.contracts import Outcome, SessionDocument
from core.store.repository import NO_FAULT, ORIGINS, SessionQuery, SessionSummary
from core.views.badges import gate_label
from core.views.outcomes import result_label
from core.views.urlfilters import UrlFilter

if TYPE_CHECKING:
    from core.store.models import AnnotationRow

VERDICT_CHOICES: tuple[str, ...] = ("PASS", "LOW_CONFID", "REJECT")
SEVERITY_CHOICES: tuple[str, ...] = ("none", "low_confid", "reject")
OUTCOME_CHOICES: tuple[str, ...] = get_args(Outcome)
ORIGIN_CHOICES: tuple[str, ...] = ORIGINS
# The time range filter: its URL value -> how far back it reaches.
PERIODS: dict[str, timedelta] = {"1h": timedelta(hours=1), "24h": timedelta(days=1),
                                 "7d": timedelta(days=7), "30d": timedelta(days=30)}
PERIOD_LABELS: dict[str, str] = {"1h": "last hour", "24h": "last 24 hours", "7d": "last 7 days",
                                 "30d": "last 30 days"}
ANY = "any"
TONED_COLUMNS: tuple[str, ...] = ("result", "gatekeeper", "outcome")
# Pack, fault and origin come right after the result, before the (wide) question, so they are
# on screen at 1920 px without scrolling the table sideways.
SESSION_COLUMNS: tuple[str, ...] = (
    "time (UTC)", "open", "result", "annotation", "origin", "pack", "fault", "question",
    "gatekeeper", "failed rules", "groundedness", "outcome", "verdict", "engine", "duration (ms)",
    "status", "session")
# A link cell shows the session id it holds (``LinkColumn(display_text=...)``).
LINK_DISPLAY = r"session=(.+)$"


def session_link(session_id: str) -> str:
    """The Investigate page of ``session_id``, relative to any page of the console."""
    return f"./?session={quote(session_id, safe='')}"


@dataclass(frozen=True)
class SessionFilters:
    """What the person filtered on; empty strings, None and ``any`` mean "any"."""

    verdict: str | None = None
    severity: str | None = None
    rule: str | None = None
    text: str | None = None
    pack: str | None = None
    outcome: str | None = None
    fault: str | None = None  # a fault mode, or ``NO_FAULT`` for sessions without one
    origin: str | None = None  # ``ORIGINS``: manual, eval
    period: str | None = None  # a key of ``PERIODS``
    annotation: str | None = None  # any, wrong, unsure, right, none (core.store.annotations)

    @classmethod
    def from_values(cls, values: Mapping[str, str | None]) -> SessionFilters:
        """Filters from widget or URL values keyed by field name (``any`` and blanks: unset)."""
        fields = cls.__dataclass_fields__
        return cls(**{name: value for name, value in values.items()
                      if name in fields and value and value != ANY})

    def as_query(self, now: datetime | None = None) -> SessionQuery:
        """Keyword arguments of ``repository.list_sessions`` / ``count_sessions``; the time range
        reaches back from ``now``."""
        period = PERIODS.get(self.period or "")
        since = (now or datetime.now(UTC)) - period if period is not None else None
        return SessionQuery(verdict=self.verdict or None, severity=self.severity or None,
                            rule=self.rule or None, text=(self.text or "").strip() or None,
                            pack=self.pack or None, outcome=self.outcome or None,
                            fault=self.fault or None,
                            origin=self.origin if self.origin in ORIGINS else None, since=since,
                            annotation=self.annotation or None)

    @property
    def active(self) -> bool:
        """Whether any filter is set."""
        return any(value is not None for value in self.as_query().values())


def session_url_filters(*, packs: Sequence[str], faults: Sequence[str],
                        rules: Sequence[str]) -> list[UrlFilter]:
    """The Sessions page's filters as they appear in its URL (``?pack=demo&outcome=rejected``):
    each one's query parameter, widget key and the values it accepts."""
    def choice(name: str, choices: Sequence[str]) -> UrlFilter:
        return UrlFilter(name, f"filter_{name}", default=ANY, choices=(ANY, *choices))

    return [choice("verdict", VERDICT_CHOICES), choice("severity", SEVERITY_CHOICES),
            choice("rule", rules), choice("pack", packs), choice("outcome", OUTCOME_CHOICES),
            choice("fault", [NO_FAULT, *faults]), choice("origin", ORIGIN_CHOICES),
            choice("period", list(PERIODS)), UrlFilter("text", "filter_text")]


def rule_choice_label(rule: str, counts: Mapping[str, int]) -> str:
    """``citation.excerpt_not_found (12)``: a failed rule with how many matching sessions
    failed it (``any`` and rules no session failed stay bare)."""
    count = counts.get(rule)
    return f"{rule} ({count})" if count else rule


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
        "origin": summary.origin,
        "pack": summary.pack,
        "fault": summary.executor_fault or "",
        "question": summary.question,
        "gatekeeper": gate_label(summary.gatekeeper_severity),
        "failed rules": ", ".join(summary.failed_rules),
        "groundedness": summary.groundedness,
        "outcome": summary.outcome or "",
        "verdict": summary.verdict or "",
        "engine": engine_label(summary.engines),
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
    for value in (filters.verdict, filters.severity, filters.rule, filters.pack, filters.outcome,
                  filters.fault, filters.origin, filters.period, filters.annotation):
        if value:
            parts.append(value.replace(".", "_").lower())
    parts.append(str(count))
    return "-".join(parts) + ".jsonl"
