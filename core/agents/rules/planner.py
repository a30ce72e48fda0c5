"""The rules planner: what a question asks about, what it narrows to, what it excludes.

The question is read by ``core.language.read.read`` against the world's own vocabulary
(``World.vocabulary``: services and alert names as the data spells them), its time window
against the world's clock. The plan takes its subjects from that reading: what is excluded
never comes back, and an alert named without a service keeps ``plan.services`` empty (the
executor finds the service from the world's alert of that name when it runs). A question with
nothing to search plans no tool at all.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, TypeVar

from core.contracts import Language, Plan, ToolName
from core.language.chars import HAN_RUN
from core.language.concepts import CONCEPTS
from core.language.lexicon import TOPICS
from core.language.read import alert_concepts, alert_topics, read
from core.language.reading import QuestionReading

if TYPE_CHECKING:
    from core.sources.base import World

__all__ = ["RulesPlanner", "alert_concepts", "alert_topics", "question_language", "related_alerts",
           "unique"]
_T = TypeVar("_T")


def question_language(question: str) -> Language:
    """``zh`` when the question has Chinese characters, else ``en``."""
    return "zh" if HAN_RUN.search(question) else "en"


def unique(values: Iterable[_T]) -> list[_T]:
    """Values without repeats, first occurrence kept."""
    return list(dict.fromkeys(values))


class RulesPlanner:
    """Offline, deterministic planner (``plan(question, world) -> Plan``)."""

    engine = "rules"

    def plan(self, question: str, world: World) -> Plan:
        """The plan of ``question`` against ``world``'s vocabulary."""
        vocabulary = world.vocabulary
        known_alerts = list(vocabulary.known_alert_names)  # firing or only a rule
        # A source that could not list its names (a server down when the world opened) leaves
        # the vocabulary incomplete: a name missing from it is searched, not called unknown.
        reading = read(question, services=list(vocabulary.services), alert_names=known_alerts,
                       entities=[(entity.name, entity.kind) for entity in vocabulary.entities],
                       now=world.now, clock=world.clock, complete=not vocabulary.unavailable)
        notes = [f"{name} is not in the data of {world.name}" for name in reading.unknown_subjects]
        if reading.alert_names and not reading.services:
            notes.append("services come from the pack's alerts named "
                         + ", ".join(reading.alert_names) + " at execution time")
        if not reading.searchable:
            notes.append("nothing in the question names a service, alert, symptom or search term")
        return Plan(
            question=question, language=question_language(question), services=reading.services,
            topics=reading.topics, alert_names=reading.alert_names,
            narrow=bool(reading.scope_markers), scope_markers=reading.scope_markers,
            exclusions=reading.exclusions, notes=notes,
            tools=_tools(reading, known_alerts) if reading.searchable else [], reading=reading)


def related_alerts(known_alerts: Iterable[str], topics: list[str], concepts: list[str]) -> list[str]:
    """The world's alerts whose names are about one of the topics or concepts."""
    return [name for name in known_alerts
            if set(alert_topics(name)) & set(topics) or set(alert_concepts(name)) & set(concepts)]


def _tools(reading: QuestionReading, known_alerts: list[str]) -> list[ToolName]:
    """Metrics for alerts, alert-backed topics and broad questions; logs for anything the logs
    can be searched for (or a question that is not about alerts); runbooks for what to check."""
    topics, concepts, alert_names = reading.topics, reading.concepts, reading.alert_names
    narrow_concepts = [c for c in concepts if not CONCEPTS[c].broad]
    log_subjects = bool(topics or narrow_concepts or reading.terms or reading.keywords or reading.level)
    alert_backed = (any(TOPICS[t].related_alerts for t in topics if t in TOPICS)
                    or bool(related_alerts(known_alerts, topics, concepts)))
    tools: list[ToolName] = []
    if reading.wants_alerts or alert_names or alert_backed or not log_subjects:
        tools.append("query_metrics")
    if log_subjects or not reading.wants_alerts:
        tools.append("query_logs")
    if topics or alert_names or narrow_concepts or reading.terms or reading.keywords:
        # A runbook may be about what the question says in its own words, lexicon or not.
        tools.append("lookup_knowledge")
    return tools
