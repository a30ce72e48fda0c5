"""``read``: the reading of a whole question (``core.language.reading.QuestionReading``).

What it excludes is read first (``scope.exclusion_clauses``; each excluded item is read as a
question of its own) and taken out of what it asks; then the time window it names
(``time.time_window``: its numbers are no search terms); then the rest, pass by pass
(``question.read_question``). Subjects named inside an exclusion clause never go into what is
asked. Alert names are also read as words (``HostOutOfDiskSpace`` is a disk question).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from typing import TypeVar

from core.language.concepts import CONCEPTS, concepts_in
from core.language.lexicon import TOPICS, alert_words, topics_in
from core.language.names import strip_markup
from core.language.question import read_question
from core.language.reading import Exclusions, QuestionReading
from core.language.scope import blanked, exclusion_clauses, narrow_markers, without_clauses
from core.language.terms import question_terms
from core.language.time import time_window

# "订单123", "order 123", "order #123", "order-123": an order id, excluded under both spellings.
_ORDER_RE = re.compile(r"(?:订单|\border)\s*[#:\-]?\s*(\d+)", re.IGNORECASE)
_T = TypeVar("_T")


def unique(values: Iterable[_T]) -> list[_T]:
    """Values without repeats, first occurrence kept."""
    return list(dict.fromkeys(values))


def read(question: str, *, services: Sequence[str] = (), alert_names: Sequence[str] = (),
         entities: Sequence[tuple[str, str]] = (),
         now: datetime | None = None, clock: Callable[[list[str]], datetime] | None = None,
         complete: bool = True) -> QuestionReading:
    """``question`` read against the data's ``services``, ``alert_names`` and ``entities``
    ((name, kind) pairs: the hosts, users ... its lines name, ``core.language.entities``).

    ``now`` is the data's present, for a window the question names ("in the last hour"; none
    is read without it); ``clock(services)`` the present of the services asked about (the end
    of their own recordings), when it differs. ``complete`` is False when the names are not
    all known (a source could not list its own): a name missing from them is then searched,
    not called unknown.
    """
    known_services, known_alerts = list(services), list(alert_names)
    text = strip_markup(question)
    clauses = exclusion_clauses(text)
    exclusions = _exclusions([item for c in clauses for item in c.items], known_services, known_alerts,
                             entities)
    asked = timed = without_clauses(text, clauses)
    window = time_window(asked, now) if now is not None else None
    if window is not None:  # "30" and "18:05" of "since 18:05" are not search terms
        asked = blanked(asked, window.spans)
    words = read_question(asked, services=known_services, alert_names=known_alerts, entities=entities)

    named_services = [s for s in [*words.services, *([] if complete else words.unknown_services)]
                      if s not in exclusions.services]
    named_alerts = [a for a in [*words.alert_names, *words.unknown_alerts]
                    if a not in exclusions.alert_names]
    present = clock(named_services) if clock is not None else now
    if window is not None and present is not None and present != now:
        window = time_window(timed, present)  # the end of their own recordings
    from_alerts = [t for a in named_alerts for t in alert_topics(a)]
    # Concepts an alert's name says (TargetDown -> down) choose which alerts are relevant,
    # not what the logs are searched for: the question asked about the alert.
    excluded_terms = {e.casefold() for e in exclusions.terms}
    reading = QuestionReading(
        services=named_services, alert_names=named_alerts,
        topics=[t for t in unique([*words.topics, *from_alerts]) if t not in exclusions.topics],
        concepts=[c for c in words.concepts if c not in exclusions.concepts],
        compounds=[[m for m in group if m not in exclusions.topics and m not in exclusions.concepts]
                   for group in words.compounds],
        terms=[t for t in words.terms if t.casefold() not in excluded_terms],
        keywords=words.keywords, level=words.level, alert_states=words.alert_states,
        wants_alerts=words.wants_alerts,
        unknown_subjects=unique([*words.unknown_services, *words.unknown_alerts]) if complete else [],
        entities=[e for e in words.entities if e.name.casefold() not in excluded_terms],
        searchable=words.searchable,
        since=window.since if window else None, until=window.until if window else None,
        exclusions=exclusions,
        # Excluding a subject narrows the question as much as "只确认" does.
        scope_markers=unique(narrow_markers(question)
                             + [clause.trigger.lower() for clause in clauses if clause.items]))
    return reading.model_copy(update={"question_terms": question_terms(reading, words.topics)})


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


def _exclusions(items: Iterable[str], known_services: list[str], known_alerts: list[str],
                entities: Sequence[tuple[str, str]] = ()) -> Exclusions:
    """What the excluded items name, each read as a question of its own; an item nobody knows
    is excluded as a term."""
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
        reading = read_question(item, services=known_services, alert_names=known_alerts, entities=entities)
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
