"""The rules planner: what a question asks about, what it narrows to, what it excludes.

Services, topics and alert names come from ``core.lexicon`` (with the world's own service and
alert names, ``World.vocabulary``, as the known vocabulary); scope from ``scope``. Subjects named inside an exclusion
clause go to ``plan.exclusions`` and never into ``plan.services`` / ``plan.topics``. An alert
named without a service keeps ``plan.services`` empty: the executor finds the service from the
world's alert of that name when it runs.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, TypeVar

from core.agents.rules.scope import exclusion_clauses, narrow_markers, without_clauses
from core.charclasses import HAN
from core.contracts import Exclusions, Language, Plan, ToolName
from core.lexicon import TOPICS, alert_names_in, services_in, topics_in

if TYPE_CHECKING:
    from core.sources.base import World

_HAN_RE = re.compile(f"[{HAN}]")
# "订单123", "order 123", "order #123", "order-123": an order id, excluded under both spellings.
_ORDER_RE = re.compile(r"(?:订单|\border)\s*[#:\-]?\s*(\d+)", re.IGNORECASE)
_ALERT_WORDS_RE = re.compile(r"告警|报警|alert|alarm|firing|指标|metric", re.IGNORECASE)
_T = TypeVar("_T")


def question_language(question: str) -> Language:
    """``zh`` when the question has Chinese characters, else ``en``."""
    return "zh" if _HAN_RE.search(question) else "en"


def alert_topics(alert_name: str) -> list[str]:
    """Topics an alert is about: the lexicon's ``related_alerts``, else the words in its name."""
    related = [name for name, topic in TOPICS.items() if alert_name in topic.related_alerts]
    return related or topics_in(alert_name)


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
        known_services = list(world.vocabulary.services)
        known_alerts = list(world.vocabulary.known_alert_names)  # firing or only a rule
        clauses = exclusion_clauses(question)
        exclusions = self._exclusions([item for c in clauses for item in c.items],
                                      known_services, known_alerts)
        asked = without_clauses(question, clauses)

        alert_names = [a for a in alert_names_in(asked, known_alerts)
                       if a not in exclusions.alert_names]
        topics = topics_in(asked) + [t for a in alert_names for t in alert_topics(a)]
        topics = [t for t in unique(topics) if t not in exclusions.topics]
        services = [s for s in services_in(asked, known_services) if s not in exclusions.services]

        notes = [f"service {s} is not in pack {world.name}" for s in services
                 if s not in known_services]
        if alert_names and not services:
            notes.append("services come from the pack's alerts named "
                         + ", ".join(alert_names) + " at execution time")
        wants_alerts = bool(alert_names or _ALERT_WORDS_RE.search(asked))
        # Excluding a subject narrows the question as much as "只确认" does.
        markers = unique(narrow_markers(question)
                         + [clause.trigger.lower() for clause in clauses if clause.items])
        return Plan(
            question=question, language=question_language(question), services=services,
            topics=topics, alert_names=alert_names, narrow=bool(markers), scope_markers=markers,
            exclusions=exclusions, tools=self._tools(topics, wants_alerts), notes=notes)

    @staticmethod
    def _exclusions(items: list[str], known_services: list[str],
                    known_alerts: list[str]) -> Exclusions:
        services: list[str] = []
        topics: list[str] = []
        alert_names: list[str] = []
        terms: list[str] = []
        for item in items:
            if item.endswith("s") and not (topics_in(item) or services_in(item, known_services)):
                item = item[:-1]  # "HTTP 500s", "restarts": the lexicon knows the singular
            item_services = services_in(item, known_services)
            item_alerts = alert_names_in(item, known_alerts)
            item_topics = topics_in(item) + [t for a in item_alerts for t in alert_topics(a)]
            item_orders = order_terms(item)
            services += item_services
            alert_names += item_alerts
            topics += item_topics
            terms += item_orders
            if not (item_services or item_alerts or item_topics or item_orders):
                terms.append(item)  # a subject the lexicon does not know is still forbidden
        return Exclusions(services=unique(services), topics=unique(topics),
                          alert_names=unique(alert_names), terms=unique(terms))

    @staticmethod
    def _tools(topics: list[str], wants_alerts: bool) -> list[ToolName]:
        """Metrics for alerts and alert-backed topics; logs for topics (or for a question that
        names neither topic nor alert); runbooks when a topic is known (what to check)."""
        alert_backed = any(TOPICS[t].related_alerts for t in topics)
        tools: list[ToolName] = []
        if wants_alerts or alert_backed or not topics:
            tools.append("query_metrics")
        if topics or not wants_alerts:
            tools.append("query_logs")
        if topics:
            tools.append("lookup_knowledge")
        return tools
