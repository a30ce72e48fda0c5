"""Does a no-hit query cover what a negative observation claims is absent?

"未检索到 inventory-service 的内存使用率过高日志" is supported by a query that looked for memory
lines of inventory-service and found none -- not by a connection-pool query, whatever the
claim's subject fields say. So the claim's subject is read from everything it states:

* services: ``Claim.subject_services`` plus every service its ``claim_text`` names;
* topics: ``Claim.subject_topics`` plus every lexicon topic its ``claim_text`` names.

Each (service, topic) pair of the claim -- a claim naming no service or no topic stands for
"any" -- must be covered by at least one of the claim's no-hit queries, and every cited query
must cover at least one pair (a query about something else supports nothing). A query's scope:

* services: its ``service`` arguments, else the services its search text names
  (``query=inventory-service`` only finds lines that name it), else any service; a claim that
  names no service is covered only by a query that looked at every service;
* topics: one filter per topic argument (``topic``, ``alert_name``, ``metric`` ...) and per
  search unit (``query``, each of ``terms`` ...) -- the tools intersect them; with
  ``match=any`` the search units are one filter (a line holding any of them). A filter naming
  topics searched those and the topics they include (``memory`` includes ``gc``; ``HikariCP``
  is ``connection_pool``): it covers a claimed topic only if the topic is among them -- a GC
  query says nothing about memory, and a claim naming no topic is broader than any topic
  filter. A filter of plain words (no topic, no service) covers a claim that names no topic
  (its words are compared by ``searched``, ``exclude`` by ``exclusions``, levels and time
  windows by ``narrowing``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from core.contracts import Claim, Invocation
from core.gatekeeper import searched
from core.gatekeeper.exclusions import exclusion_problem
from core.gatekeeper.narrowing import effective_arguments
from core.language import lexicon
from core.language.text import normalize
from core.tools.args import PHRASE_ARGS, SERVICE_ARGS, TOPIC_ARGS, UNIT_ARGS, argument_values

_ANY = ""  # a claim naming no service (topic) stands for any service (topic)


@dataclass(frozen=True)
class Scope:
    """What one query looked at: ``services`` (None: every service) and one topic set per
    search filter (``None`` in the tuple: a filter of plain words)."""

    services: frozenset[str] | None
    filters: tuple[frozenset[str] | None, ...]
    text: str

    def covers(self, service: str, topic: str) -> bool:
        if self.services is not None and service not in self.services:
            return False
        if topic == _ANY:
            return all(found is None for found in self.filters)
        # a filter of plain words next to one naming the topic narrows it: ``searched``
        # requires the claim to say those words
        named = [found for found in self.filters if found is not None]
        if not self.filters:
            return True  # an unfiltered query looked at everything
        return bool(named) and all(topic in found for found in named)


def scope_of(invocation: Invocation, known_services: Iterable[str] = ()) -> Scope:
    """The scope of ``invocation``'s arguments (``known_services`` helps find names in text)."""
    known = list(known_services)
    arguments = invocation.arguments
    services = {value.casefold() for value in argument_values(arguments, SERVICE_ARGS)}
    named: set[str] = set()
    filters: list[frozenset[str] | None] = []
    units: list[frozenset[str] | None] = []
    for key_set, into in ((TOPIC_ARGS, filters), (UNIT_ARGS, units)):
        for key in key_set:
            for value in argument_values(arguments, (key,)):
                in_text = lexicon.services_in(value, known)
                named |= set(in_text)
                normalized = normalize(value)
                if key in PHRASE_ARGS:
                    # an exact phrase finds lines holding it, not every line of a topic it names
                    # (``terms=[OOMKilled]`` is not ``topic=oom``)
                    topics = []
                else:
                    topics = ([normalized] if normalized in lexicon.TOPICS
                              else [mention.topic for mention in lexicon.topic_mentions(normalized)])
                if topics:
                    into.append(frozenset(lexicon.expand_topics(topics)))
                elif _has_words_beyond(normalized, in_text):
                    into.append(None)
    if not filters and not units and _has_level(invocation):
        # a query that only looked at a level searched no topic: it covers a claim that
        # names none (the level itself is judged by ``narrowing``)
        filters.append(None)
    if units and str(arguments.get("match") or "").strip().casefold() == "any":
        searched = frozenset().union(*(unit for unit in units if unit is not None))
        units = [searched or None]
    found = services or named
    text = " ".join(argument_values(arguments, TOPIC_ARGS + UNIT_ARGS))
    return Scope(frozenset(found) if found else None, (*filters, *units), text)


def _has_level(invocation: Invocation) -> bool:
    level = effective_arguments(invocation).get("level")
    return isinstance(level, str) and bool(level.strip())


def _has_words_beyond(normalized: str, services: list[str]) -> bool:
    for service in services:
        normalized = normalized.replace(service, " ")
    return any(char.isalnum() for char in normalized)


def claim_subject(claim: Claim, known_services: Iterable[str] = (),
                  phrases: Iterable[str] = ()) -> tuple[list[str], list[str]]:
    """The claim's services and topics: its subject fields plus what its text names. A service
    the claim declares is not read as a topic where its text names it (``mysql``, ``redis``),
    nor is a word of the text that is one of ``phrases`` (the exact phrases the cited queries
    searched): it names that phrase, not its topic ("No HikariCP lines" for ``terms=[HikariCP]``)."""
    declared = [service.strip().casefold() for service in claim.subject_services]
    services = dict.fromkeys(declared + lexicon.services_in(claim.claim_text, [*declared, *known_services]))
    text = lexicon.without_names(claim.claim_text, [*declared, *phrases])
    topics = dict.fromkeys([*lexicon.declared_topics(claim.subject_topics), *lexicon.topics_in(text)])
    return list(services), list(topics)


def _unnamed_subject(claim: Claim, known: list[str]) -> str:
    """A subject field the claim's text does not name, when the text names a subject: the text
    (what the reader sees) claims more than its fields, which the query covers
    ("inventory-service logged nothing at all" with ``subject_topics: [connection_pool]``)."""
    in_text = set(lexicon.services_in(claim.claim_text, [*claim.subject_services, *known]))
    named_topics = set(lexicon.expand_topics(lexicon.topics_in(claim.claim_text)))
    if not in_text and not named_topics:
        return ""  # a text that names no subject ("No matching logs.") says no more than its fields
    missing = [service for service in claim.subject_services if service.casefold() not in in_text]
    missing += [topic for topic in claim.subject_topics
                if topic in lexicon.TOPICS and topic not in named_topics]
    if missing:
        return (f"the claim's text does not name {', '.join(missing)} of its subject fields: it "
                "says more than the query covered")
    return ""


def coverage_problem(claim: Claim, invocation: Invocation, claim_queries: Sequence[Invocation]) -> str:
    """Why ``invocation`` (one of ``claim_queries``, the claim's cited no-hit queries) does not
    support the claim's absence ('' when the queries together cover every pair it covers)."""
    known = [value.casefold() for query in claim_queries for value in argument_values(query.arguments, SERVICE_ARGS)]
    phrases = {" ".join(normalize(phrase).split())
               for query in claim_queries for phrase in argument_values(query.arguments, PHRASE_ARGS)}
    services, topics = claim_subject(claim, known, phrases)
    pairs = [(service, topic) for service in services or [_ANY] for topic in topics or [_ANY]]
    scope = scope_of(invocation, [*services, *known])
    if not any(scope.covers(service, topic) for service, topic in pairs):
        return _not_about(scope, services, topics)
    scopes = [scope_of(query, [*services, *known]) for query in claim_queries]
    gaps = [pair for pair in pairs if not any(other.covers(*pair) for other in scopes)]
    if gaps:
        shown = ", ".join(f"{service or 'any service'} / {topic or 'any topic'}" for service, topic in gaps)
        return f"no cited query covers {shown} of the claim (read from its text and subject fields)"
    return (_unnamed_subject(claim, known)
            or exclusion_problem(claim.claim_text, services, topics, invocation)
            or searched.searched_problem(claim.claim_text, claim_queries, topics))


def _not_about(scope: Scope, services: list[str], topics: list[str]) -> str:
    if scope.services is not None:
        if not services:
            return (f"the cited query only looked at service {', '.join(sorted(scope.services))}; the "
                    f"claim names no service, so it claims more than the query covered")
        if scope.services.isdisjoint(services):
            return (f"the cited query is about service {', '.join(sorted(scope.services))}, "
                    f"the claim is about {', '.join(services)}")
    if not topics:
        return (f"the cited query only looked for {scope.text}; the claim names no topic, so it "
                f"claims more than the query covered")
    missed = [topic for topic in topics if not any(scope.covers(service, topic) for service in services or [_ANY])]
    return (f"the cited query ({scope.text}) does not look for topic(s) {', '.join(missed)} "
            f"of the claim")
