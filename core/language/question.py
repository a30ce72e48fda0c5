"""Reading a question: what it names and which of its words are search terms.

A question is read left to right in passes; each pass blanks out what it took, so a word is
read once:

1. markup is dropped (``<script>…</script>``, tags): it is never a subject;
2. quoted phrases ("…", “…”, 「…」, 『…』, '…') are exact search terms;
3. services: the world's own (any shape, case-insensitive); after the world's alert names,
   the hosts, users, pods, namespaces, jobs and components its data names, and name-shaped
   words beside a kind word ("host db-9": ``core.language.entities``) -> entities, exact
   search terms; then service-shaped tokens the world lacks (``billing-service``,
   ``kafka-broker 是否…``, "service X", "X 服务"; in a question about alerts also host names,
   ``for node-9``) -> unknown;
4. alerts: the world's alert names as it spells them; other CamelCase names said to be alerts
   (``TargetDown 告警``) -> alert names the data lacks (searched, and reported as unknown);
5. exception and class names (``NoRouteToHostException``, ``java.net.ConnectException``,
   ``QuorumCnxManager``) and identifiers (``blk_…``, ``appattempt_…``, ``req-…``, IPs,
   host:port, paths, hex ids) -> exact search terms;
6. the lexicon's topics, then the diagnosis concepts (``core.language.concepts``); mentions not joined by
   a conjunction ("会话过期", "因为内存超限被杀掉") form a compound: asked together;
7. in a question about alerts, the states it asks about (firing / 触发, pending, silenced /
   静默 / suppressed, resolved); then level words: ``ERROR``/``WARN``/``FATAL``/... written as
   levels, "warning", 警告, 致命 -> a minimum level;
8. what is left: English content words (stemmed) and Chinese words of ``TRANSLATIONS`` ->
   keywords, all of which a matching line must hold.

Passes 1-5 are ``names``, 6 ``subjects_asked``, 7 ``levels``, 8 ``keywords``; the words they
read by are ``vocab/question.yaml`` (``question_words``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from core.language.alternation import one_of
from core.language.entities import entity_names
from core.language.keywords import keywords
from core.language.levels import alert_states, level_asked
from core.language.names import (
    camel_names,
    http_methods,
    hyphenated_names,
    identifiers,
    known_names,
    name_aliases,
    quoted_terms,
    service_aliases,
    strip_markup,
    unknown_services,
)
from core.language.question_words import QuestionText, unique, vocabulary
from core.language.reading import Entity
from core.language.subjects_asked import subjects_asked

_ALERT_WORDS = re.compile(one_of(vocabulary().alert_words.words, english_ends_word=True)
                          + "|" + one_of(vocabulary().alert_words.anywhere), re.IGNORECASE)


@dataclass
class TextReading:
    """What a stretch of words names and searches for (see the module doc): the part of a
    question it asks, or one item it excludes. ``core.language.read`` makes the question's
    ``QuestionReading`` of them."""

    text: str
    services: list[str] = field(default_factory=list)
    unknown_services: list[str] = field(default_factory=list)
    alert_names: list[str] = field(default_factory=list)
    unknown_alerts: list[str] = field(default_factory=list)
    entities: list[Entity] = field(default_factory=list)
    topics: list[str] = field(default_factory=list)
    concepts: list[str] = field(default_factory=list)
    compounds: list[list[str]] = field(default_factory=list)
    terms: list[str] = field(default_factory=list)
    keywords: list[list[str]] = field(default_factory=list)
    level: str | None = None
    wants_alerts: bool = False
    alert_states: list[str] = field(default_factory=list)

    @property
    def searchable(self) -> bool:
        """Whether anything in the question can be searched (keywords alone are not enough:
        "qwerty zxcv" is not a question about the data)."""
        subjects = bool(self.services or self.alert_names or self.topics or self.concepts
                        or self.terms or self.level)
        return subjects or (self.wants_alerts and not self.unknown_services)


def read_question(question: str, *, services: Sequence[str] = (), alert_names: Sequence[str] = (),
                  entities: Sequence[tuple[str, str]] = ()) -> TextReading:
    """Read ``question`` against the world's services, alert names and entities ((name, kind)
    pairs: ``core.language.entities``) (see the module doc)."""
    text = QuestionText(strip_markup(question))
    reading = TextReading(text=" ".join(text.original.split()))
    reading.wants_alerts = _ALERT_WORDS.search(text.original) is not None
    reading.terms = quoted_terms(text)
    reading.services = known_names(text, sorted(services, key=len, reverse=True), service_aliases(services))
    reading.alert_names = known_names(text, sorted(alert_names, key=len, reverse=True), name_aliases(alert_names))
    reading.entities = entity_names(text, entities)
    reading.terms = unique([*reading.terms, *(entity.name for entity in reading.entities)])
    reading.unknown_services = [s for s in unknown_services(text, alert_names, bool(reading.services),
                                                             reading.wants_alerts)
                                if s.casefold() not in {k.casefold() for k in services}]
    unknown_alerts, class_names = camel_names(text, reading.wants_alerts)
    reading.unknown_alerts = unknown_alerts
    if reading.wants_alerts or reading.alert_names or reading.unknown_alerts:
        reading.alert_states = alert_states(text)
    reading.level = level_asked(text)
    reading.topics, reading.concepts, reading.compounds = subjects_asked(text)
    reading.terms = unique([*reading.terms, *class_names, *identifiers(text), *http_methods(text)])
    if not reading.searchable:  # "What happened to bank-gateway?": the name is what to look for
        reading.terms = unique([*reading.terms, *hyphenated_names(text)])
    reading.keywords = keywords(text)
    return reading


