"""The rules planner: what a question asks about, what it narrows to, what it excludes.

The question is read by ``question.read_question`` against the world's own vocabulary
(``World.vocabulary``: services and alert names as the data spells them); scope by ``scope``.
Subjects named inside an exclusion clause go to ``plan.exclusions`` and never into what is
asked. An alert named without a service keeps ``plan.services`` empty: the executor finds the
service from the world's alert of that name when it runs. Alert names are also read as words
(``HostOutOfDiskSpace`` is a disk question). Services and alerts the data lacks are listed in
``plan.unknown_subjects``; a question with nothing to search plans no tool at all. A time
window the question names ("in the last hour", "18:00 到 18:10"; ``window``) bounds every log
search (``plan.since``/``plan.until``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, TypeVar

from core.contracts import Exclusions, Language, Plan, ToolName
from core.language.chars import HAN_RUN
from core.language.concepts import CONCEPTS, concepts_in
from core.language.lexicon import TOPICS, alert_words, topics_in
from core.language.names import strip_markup
from core.language.question import QuestionReading, read_question
from core.language.scope import blanked, exclusion_clauses, narrow_markers, without_clauses
from core.language.time import time_window

if TYPE_CHECKING:
    from core.sources.base import World

# "订单123", "order 123", "order #123", "order-123": an order id, excluded under both spellings.
_ORDER_RE = re.compile(r"(?:订单|\border)\s*[#:\-]?\s*(\d+)", re.IGNORECASE)
_T = TypeVar("_T")


def question_language(question: str) -> Language:
    """``zh`` when the question has Chinese characters, else ``en``."""
    return "zh" if HAN_RUN.search(question) else "en"


def alert_topics(alert_name: str) -> list[str]:
    """Topics an alert is about: the lexicon's ``related_alerts``, else the words of its name
    (``HostOutOfDiskSpace`` -> host out of disk space -> disk)."""
    related = [name for name, topic in TOPICS.items() if alert_name in topic.related_alerts]
    return related or topics_in(alert_words(alert_name))


def alert_concepts(alert_name: str) -> list[str]:
    """Diagnosis concepts the words of an alert's name say (``KubePodCrashLooping`` -> crash)."""
    return [name for name in concepts_in(alert_words(alert_name)) if not CONCEPTS[name].qualifier]


def order_terms(text: str) -> list[str]:
    """Both spellings of each order id in ``text`` (``订单123`` and ``order-123``)."""
    terms: list[str] = []
    for match in _ORDER_RE.finditer(text):
        terms += [f"订单{match.group(1)}", f"order-{match.group(1)}"]
    return terms


def unique(values: Iterable[_T]) -> list[_T]:
    """Values without repeats, first occurrence kept."""
    return list(dict.fromkeys(values))


class RulesPlanner:
    """Offline, deterministic planner (``plan(question, world) -> Plan``)."""

    engine = "rules"

    def plan(self, question: str, world: World) -> Plan:
        """The plan of ``question`` against ``world``'s vocabulary."""
        vocabulary = world.vocabulary
        known_services = list(vocabulary.services)
        known_alerts = list(vocabulary.known_alert_names)  # firing or only a rule
        text = strip_markup(question)
        clauses = exclusion_clauses(text)
        exclusions = _exclusions([item for c in clauses for item in c.items], known_services,
                                 known_alerts)
        asked = without_clauses(text, clauses)
        window = time_window(asked, world.now)
        if window is not None:  # "30" and "18:05" of "since 18:05" are not search terms
            timed, asked = asked, blanked(asked, window.spans)
        reading = read_question(asked, services=known_services, alert_names=known_alerts)

        # A source that could not list its names (a server down when the world opened) leaves
        # the vocabulary incomplete: a name missing from it is searched, not called unknown.
        complete = not vocabulary.unavailable
        services = [s for s in [*reading.services, *([] if complete else reading.unknown_services)]
                    if s not in exclusions.services]
        alert_names = [a for a in [*reading.alert_names, *reading.unknown_alerts]
                       if a not in exclusions.alert_names]
        clock = world.clock(services)
        if window is not None and clock != world.now:
            window = time_window(timed, clock)  # the end of their own recordings
        from_alerts = [t for a in alert_names for t in alert_topics(a)]
        topics = [t for t in unique([*reading.topics, *from_alerts]) if t not in exclusions.topics]
        # Concepts an alert's name says (TargetDown -> down) choose which alerts are relevant,
        # not what the logs are searched for: the question asked about the alert.
        concepts = [c for c in reading.concepts if c not in exclusions.concepts]
        unknown = unique([*reading.unknown_services, *reading.unknown_alerts]) if complete else []
        notes = [f"{name} is not in the data of {world.name}" for name in unknown]
        if alert_names and not services:
            notes.append("services come from the pack's alerts named "
                         + ", ".join(alert_names) + " at execution time")
        # Excluding a subject narrows the question as much as "只确认" does.
        markers = unique(narrow_markers(question)
                         + [clause.trigger.lower() for clause in clauses if clause.items])
        searchable = reading.searchable
        if not searchable:
            notes.append("nothing in the question names a service, alert, symptom or search term")
        return Plan(
            question=question, language=question_language(question), services=services,
            topics=topics, alert_names=alert_names, narrow=bool(markers), scope_markers=markers,
            exclusions=exclusions, notes=notes,
            tools=_tools(reading, topics, concepts, alert_names, known_alerts) if searchable else [],
            terms=[t for t in reading.terms if t.casefold() not in
                   {e.casefold() for e in exclusions.terms}],
            keywords=reading.keywords, concepts=concepts,
            compounds=[[m for m in group if m not in exclusions.topics and m not in exclusions.concepts]
                       for group in reading.compounds],
            level=reading.level, unknown_subjects=unknown, searchable=searchable,
            alert_states=reading.alert_states,
            since=window.since if window else None, until=window.until if window else None)



def _exclusions(items: list[str], known_services: list[str], known_alerts: list[str]) -> Exclusions:
    services: list[str] = []
    topics: list[str] = []
    alert_names: list[str] = []
    terms: list[str] = []
    levels: list[str] = []
    concepts: list[str] = []
    for item in items:
        if item.endswith("s") and not (topics_in(item) or concepts_in(item)
                                       or read_question(item, services=known_services).services):
            item = item[:-1]  # "HTTP 500s", "restarts": the lexicon knows the singular
        reading = read_question(item, services=known_services, alert_names=known_alerts)
        item_alerts = [*reading.alert_names, *reading.unknown_alerts]
        item_topics = reading.topics + [t for a in item_alerts for t in alert_topics(a)]
        item_orders = order_terms(item)
        services += reading.services + reading.unknown_services
        alert_names += item_alerts
        topics += item_topics
        levels += [reading.level] if reading.level else []
        concepts += [c for c in reading.concepts if not CONCEPTS[c].qualifier]
        terms += item_orders + ([] if item_orders else reading.terms)
        named = (reading.services or reading.unknown_services or item_alerts or item_topics
                 or item_orders or reading.level or reading.concepts or reading.terms)
        if not named:
            terms.append(item)  # a subject nobody knows is still forbidden
    return Exclusions(services=unique(services), topics=unique(topics),
                      alert_names=unique(alert_names), terms=unique(terms), levels=unique(levels),
                      concepts=unique(concepts))


def related_alerts(known_alerts: Iterable[str], topics: list[str], concepts: list[str]) -> list[str]:
    """The world's alerts whose names are about one of the topics or concepts."""
    return [name for name in known_alerts
            if set(alert_topics(name)) & set(topics) or set(alert_concepts(name)) & set(concepts)]


def _tools(reading: QuestionReading, topics: list[str], concepts: list[str],
           alert_names: list[str], known_alerts: list[str]) -> list[ToolName]:
    """Metrics for alerts, alert-backed topics and broad questions; logs for anything the logs
    can be searched for (or a question that is not about alerts); runbooks for what to check."""
    narrow_concepts = [c for c in concepts if not CONCEPTS[c].broad]
    log_subjects = bool(topics or narrow_concepts or reading.terms or reading.keywords or reading.level)
    alert_backed = (any(TOPICS[t].related_alerts for t in topics if t in TOPICS)
                    or bool(related_alerts(known_alerts, topics, concepts)))
    tools: list[ToolName] = []
    if reading.wants_alerts or alert_names or alert_backed or not log_subjects:
        tools.append("query_metrics")
    if log_subjects or not reading.wants_alerts:
        tools.append("query_logs")
    if topics or alert_names:
        tools.append("lookup_knowledge")
    return tools
