"""What a text is about, in the plan's terms: the scope tests every engine shares.

The rules executor uses them to drop refs, the verifier (both engines) to fail claims and
steps, and the composers to keep excluded subjects out of the answer, so all agree on what
"mentions user-service" or "is about the connection pool" means.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from typing import TYPE_CHECKING

from core.language.lexicon import (
    alert_names_in,
    declared_topics,
    expand_topics,
    services_in,
    topics_in,
)
from core.language.text import normalize

if TYPE_CHECKING:  # the contracts carry a reading of this package: no import back at run time
    from core.contracts import Exclusions


def excluded_mentions(text: str, exclusions: Exclusions) -> list[str]:
    """The excluded services, topics, alert names and terms ``text`` mentions."""
    if not text:
        return []
    return list(_excluded_mentions(text, tuple(exclusions.services), tuple(exclusions.topics),
                                   tuple(exclusions.alert_names), tuple(exclusions.terms)))


# Asked of every ref, claim and step of a session against the same exclusions, and of the same
# lines session after session: a pure function of the text and the excluded names.
@lru_cache(maxsize=8192)
def _excluded_mentions(text: str, services: tuple[str, ...], topics: tuple[str, ...],
                       alert_names: tuple[str, ...], terms: tuple[str, ...]) -> tuple[str, ...]:
    excluded_topics = set(expand_topics(list(topics)))
    normalized = normalize(text)
    hits = [s for s in services_in(text, services) if s in services]
    hits += [t for t in topics_in(text) if t in excluded_topics]
    hits += alert_names_in(text, alert_names)
    hits += [term for term in terms if _whole_term(normalize(term)).search(normalized)]
    return tuple(dict.fromkeys(hits))


def _whole_term(term: str) -> re.Pattern[str]:
    """An excluded term as whole words at its letter/digit edges ("error" is not in "errors",
    "WARN" not in "severity=warning"); a Chinese edge is a plain substring."""
    head = r"(?<![a-z0-9])" if term[:1].isascii() and term[:1].isalnum() else ""
    tail = r"(?![a-z0-9])" if term[-1:].isascii() and term[-1:].isalnum() else ""
    return re.compile(head + re.escape(term) + tail)


def subjects_excluded(services: list[str], topics: list[str], exclusions: Exclusions) -> list[str]:
    """Declared subjects (a claim's ``subject_services`` / ``subject_topics``) that are excluded."""
    excluded_topics = set(expand_topics(exclusions.topics))
    return ([s for s in services if s in exclusions.services]
            + [t for t in declared_topics(topics) if t in excluded_topics])


# The ``service=`` field of an alert ref (``core.tools.refs.alert_ref_text``): the service as
# the data spells it, which need not look like ``xxx-service`` (``checkout``, ``payments``).
_REF_SERVICE = re.compile(r"(?:^|[\s,;])service=([^\s,;]+)")


def services_mentioned(text: str) -> list[str]:
    """``xxx-service`` identifiers in text (pods resolve to their service), and the service an
    alert ref names in its ``service=`` field."""
    return list(dict.fromkeys([*services_in(text),
                               *(name.lower() for name in _REF_SERVICE.findall(text))]))


def topics_in_scope(topics: Iterable[str]) -> set[str]:
    """The topics and every topic they include (a memory question covers GC)."""
    return set(expand_topics(list(topics)))
