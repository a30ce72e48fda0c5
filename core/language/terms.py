"""The content terms of a question, each with its kind (``reading.QuestionTerm``).

Read from the other fields of the reading, so every word the reader kept is one term: the
services and alert names asked about and the lexicon topics are subjects; the diagnosis
concepts, keywords and alert states are predicates (what happened); exact terms (ids, hosts,
paths, quoted phrases) are entities; the time window and the level are their own kinds; what
the question excludes is a filter. Fates are set after the run (``core.verifier.accounting``).
"""

from __future__ import annotations

from collections.abc import Sequence

from core.language.concepts import CONCEPTS
from core.language.reading import QuestionReading, QuestionTerm, TermKind


def question_terms(reading: QuestionReading, asked_topics: Sequence[str] | None = None
                   ) -> list[QuestionTerm]:
    """Every content term of ``reading``, subjects first, without repeats. ``asked_topics``:
    the topics the question's own words name (by default all the reading's), not those read
    from an alert's name (``KafkaConsumerGroupLag`` is the alert asked about, not a queue
    question)."""
    found: dict[tuple[str, str], QuestionTerm] = {}

    def add(text: str, kind: TermKind) -> None:
        if text and (text.casefold(), kind) not in found:
            found[(text.casefold(), kind)] = QuestionTerm(text=text, kind=kind)

    topics = reading.topics if asked_topics is None else [t for t in reading.topics if t in asked_topics]
    for name in [*reading.services, *reading.alert_names, *reading.unknown_subjects, *topics]:
        add(name, "subject")
    # A host, user, pod or component the question names is who it is about (searched as an
    # exact term, as the data writes it).
    named = {entity.name.casefold() for entity in reading.entities}
    for entity in reading.entities:
        add(entity.name, "subject")
    for term in reading.terms:
        if term.casefold() not in named:
            add(term, "entity")
    for name in reading.concepts:
        # A broad qualifier ("有什么问题", "anything wrong") asks for trouble at large: the
        # level its search reads is its term.
        if name in CONCEPTS and CONCEPTS[name].broad:
            continue
        add(name, "predicate")
    for keyword in reading.keywords:
        if keyword:
            add(keyword[0], "predicate")
    for state in reading.alert_states:
        add(state, "predicate")
    if reading.level:
        add(reading.level, "level")
    if reading.since or reading.until:
        add(f"{reading.since or '…'} – {reading.until or '…'}", "time")
    excluded = reading.exclusions
    for item in [*excluded.services, *excluded.alert_names, *excluded.topics, *excluded.terms,
                 *excluded.levels, *excluded.concepts]:
        add(item, "filter")
    return list(found.values())
