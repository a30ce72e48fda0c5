"""Does a no-hit query's ``exclude`` remove what a negative observation says is absent?

``query_logs(topic=connection_pool, exclude=[HikariPool])`` found nothing because it dropped the
pool lines: it cannot support "no connection pool records". An excluded word or phrase rejects
the citation when it names something the claim says is absent: a lexicon topic of the claim (or
one it includes), one of its services, a diagnosis concept its text names, or words its text
holds ("No HikariPool lines" for ``exclude=[HikariPool]``); an excluded level rejects it when
the claim names that level ("no ERROR lines" for ``exclude=[ERROR]``).

Known limit: an excluded phrase that only some lines of the claimed topic hold (``timed out``
for the pool lines) is not detected -- the gatekeeper does not rerun the query -- and an
exclusion the claim does not mention is not required to be stated (the rules engine excludes
what the question excluded, and never claims the absence of it).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from core.contracts import Invocation
from core.gatekeeper.narrowing import LEVEL_WORD_RE, ZH_LEVELS, effective_arguments
from core.language import lexicon
from core.language.concepts import concept_mentions
from core.language.text import normalize
from core.logfields import level_rank


def exclusion_problem(claim_text: str, services: Sequence[str], topics: Sequence[str],
                      invocation: Invocation) -> str:
    """Why the query's exclusions drop what the claim says is absent ('' when they do not)."""
    excluded = effective_arguments(invocation).get("exclude")
    items = excluded if isinstance(excluded, (list, tuple)) else [excluded]
    text = " ".join(normalize(claim_text).split())
    claimed_topics = set(lexicon.expand_topics(topics))
    claimed_concepts = {mention.concept for mention in concept_mentions(text)}
    named_ranks = {level_rank(ZH_LEVELS.get(match.group(), match.group()).rstrip("s"))
                   for match in LEVEL_WORD_RE.finditer(claim_text.casefold())}
    for item in items:
        if not isinstance(item, str) or not item.strip():
            continue
        term = " ".join(normalize(item).split())
        rank = level_rank(item.strip())
        if rank is not None:
            if rank in named_ranks:
                return _problem(item, "a level the claim speaks of")
            continue
        mentioned = {mention.topic for mention in lexicon.topic_mentions(term)}
        if term in lexicon.TOPICS:
            mentioned.add(term)
        if set(lexicon.expand_topics(mentioned)) & claimed_topics:
            return _problem(item, "a topic the claim says is absent")
        if lexicon.services_in(item, services) or term in services:
            return _problem(item, "a service the claim is about")
        if {mention.concept for mention in concept_mentions(term)} & claimed_concepts:
            return _problem(item, "what the claim says is absent")
        if re.search(rf"(?<![\w]){re.escape(term)}(?![\w])", text):
            return _problem(item, "words of the claim")
    return ""


def _problem(item: str, what: str) -> str:
    return (f"the cited query excluded {item!r}, {what}: its finding nothing does not show "
            "the claim's absence")
