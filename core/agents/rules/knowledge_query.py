"""What the rules executor asks ``lookup_knowledge``: the question's subjects in words a runbook uses.

The query is built from the plan's reading, never from the raw question: the alert names it
names, its lexicon topics (their English labels), its diagnosis concepts (their names:
``timeout``, ``connection``), its exact terms (services aside: a runbook is about a kind of
trouble, not one service) and its keywords (each as its first stem: ``restarting`` ->
``restart``), and the Chinese words of the question the reading knows (topic, concept and
translated words, outside its exclusion clauses: a runbook may be written in Chinese, and what
the question forbids is never looked up; the rest is asking and grammar). ``lookup_knowledge``
ranks sections by these words against their titles and text (``core.tools.knowledge``).
"""

from __future__ import annotations

import re

from core.contracts import Plan
from core.language.chars import HAN_RUN
from core.language.concepts import CONCEPTS
from core.language.lexicon import TOPICS
from core.language.question_words import han_dictionary
from core.language.read import unique
from core.language.scope import exclusion_clauses, without_clauses
from core.language.segment import segment
from core.language.text import normalize
from core.tools.knowledge import same_word, split_camel_case


def knowledge_query(plan: Plan) -> str:
    """The ``lookup_knowledge`` query of ``plan`` (empty when it names nothing to look up)."""
    labels = [TOPICS[topic].label_en for topic in plan.topics if topic in TOPICS]
    first: dict[str, str] = {}
    for word in [*plan.alert_names, *labels, *question_words(plan)]:
        first.setdefault(word.casefold(), word)
    return " ".join(first.values())


def question_words(plan: Plan) -> list[str]:
    """The question's own words for a runbook: its concepts, exact terms (not services), keyword
    stems and Chinese names (not its topics' labels, nor its alert names)."""
    reading = plan.reading
    services = {service.casefold() for service in [*plan.services, *reading.unknown_subjects]}
    concepts = [name.replace("_", " ") for name in reading.concepts if name in CONCEPTS]
    terms = [term for term in reading.terms if term.casefold() not in services]
    keywords = [alternatives[0] for alternatives in reading.keywords if alternatives]
    return unique([*concepts, *terms, *keywords, *_chinese_words(plan)])


def names_title(title: str, plan: Plan) -> bool:
    """Whether the question's own words name a runbook section's title: one of them is a
    word of the title, or a form of one ("restarting" and "Restart"), or (Chinese) in it."""
    words = re.findall(r"[a-z0-9]+", normalize(split_camel_case(title)))
    for word in question_words(plan):
        folded = normalize(word)
        if not folded.isascii():
            if folded in normalize(title):
                return True
        elif any(same_word(part, candidate) for part in folded.split() for candidate in words):
            return True
    return False


def _chinese_words(plan: Plan) -> list[str]:
    """The question's Chinese names (``han_dictionary().names``) outside its exclusion clauses."""
    asked = without_clauses(plan.question, exclusion_clauses(plan.question))
    dictionary = han_dictionary()
    return [run[start:end] for run in HAN_RUN.findall(asked)
            for start, end in segment(run, dictionary.words, dictionary.longest)
            if end - start >= 2 and run[start:end] in dictionary.names]
