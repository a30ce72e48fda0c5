"""Does a no-hit query's search say what a negative observation says is absent?

``coverage`` compares a claim's services and lexicon topics with a query's. The words of a
search are compared here (docs/gatekeeper-rules.md, "Negative observations"):

* a diagnosis concept the claim names (``core.concepts``: timeouts, connection problems,
  被杀, 会话过期 ... -- outside the lexicon topics it names and the search words it quotes) must
  have been searched by a cited query: every search filter of that query holds all the
  concept's log phrases (``terms``, as the rules engine searches a concept) or one of its
  stems, or the query has no search filter (a qualifier with a level -- "no errors" -- then
  needs the query's level to be at most the concept's). "No log lines about timeouts" citing a
  query for connection phrases is not covered;
* a search of plain words (no topic, no service) is stated by the claim: every word unit of it
  is in the claim's text, or it searched a whole concept the claim names ("No log lines about
  connection problems" for the twenty connection phrases). A claim that does not say what was
  searched ("zookeeper has no log lines" on a ``Connection refused`` no-hit) claims more than
  the query covered.
"""

from __future__ import annotations

from collections.abc import Sequence

from core import lexicon
from core.concepts import CONCEPTS, Concept, concept_mentions
from core.contracts import Invocation
from core.gatekeeper.narrowing import effective_arguments
from core.logfields import level_rank

_TOPIC_ARGS: tuple[str, ...] = ("topic", "topics", "alert_name", "alertname", "metric")
_UNIT_ARGS: tuple[str, ...] = ("query", "q", "keyword", "keywords", "pattern", "search", "terms")


def _values(arguments: dict[str, object], keys: tuple[str, ...]) -> list[str]:
    found: list[str] = []
    for key in keys:
        value = arguments.get(key)
        items = value if isinstance(value, (list, tuple)) else [value]
        found += [str(item) for item in items if item is not None and str(item).strip()]
    return found


def _filters(invocation: Invocation) -> list[tuple[list[str], bool]]:
    """The query's search filters, each as (its units, whether it names a lexicon topic): one
    per topic argument and per search unit, the units one filter with ``match=any``."""
    arguments = effective_arguments(invocation)
    filters = [([value], True) for value in _values(arguments, _TOPIC_ARGS)]
    units = _values(arguments, _UNIT_ARGS)
    groups = [units] if units and arguments.get("match") == "any" else [[unit] for unit in units]
    for group in groups:
        names_topic = any(_names_topic(unit) for unit in group)
        filters.append((group, names_topic))
    return filters


def _names_topic(unit: str) -> bool:
    normalized = lexicon.normalize(unit)
    return normalized in lexicon.TOPICS or bool(lexicon.topic_mentions(normalized))


def _holds(units: list[str], concept: Concept) -> bool:
    """Whether a filter searched the concept: all its log phrases, or one of its stems."""
    normalized = {" ".join(lexicon.normalize(unit).split()) for unit in units}
    phrases = {" ".join(lexicon.normalize(term).split()) for term in concept.terms}
    if phrases and phrases <= normalized:
        return True
    return any(stem in unit for stem in concept.stems for unit in normalized)


def _searched(invocation: Invocation, concept: Concept) -> bool:
    level = effective_arguments(invocation).get("level")
    if concept.level and isinstance(level, str) and level.strip():
        # a qualifier searched by its level ("no errors": lines at ERROR or above)
        wanted, rank = level_rank(concept.level), level_rank(level)
        if wanted is not None and rank is not None and rank <= wanted:
            return True
    filters = _filters(invocation)
    if not filters and isinstance(level, str) and level.strip():
        return False  # it looked at a level, not for the concept ("no timeouts" at any level)
    return all(_holds(units, concept) for units, _ in filters)


def _claimed_text(claim_text: str, queries: Sequence[Invocation]) -> str:
    """The claim's text without the search words it quotes and the lexicon topics it names
    (those are what was searched, or judged by the topic rule)."""
    text = lexicon.normalize(claim_text)
    for query in queries:
        arguments = effective_arguments(query)
        for unit in sorted(_values(arguments, _TOPIC_ARGS + _UNIT_ARGS), key=len, reverse=True):
            needle = lexicon.normalize(unit).strip()
            if needle:
                text = text.replace(needle, " ")
    for mention in sorted(lexicon.topic_mentions(text), key=lambda found: found.start, reverse=True):
        text = text[:mention.start] + " " + text[mention.end:]
    return text


def searched_problem(claim_text: str, queries: Sequence[Invocation]) -> str:
    """Why the cited no-hit queries do not search what the claim says is absent ('' when they
    do)."""
    claimed = list(dict.fromkeys(mention.concept for mention in concept_mentions(_claimed_text(claim_text, queries))))
    if any(not CONCEPTS[name].qualifier for name in claimed):
        # a qualifier next to a subject only qualifies it: "connection problems" is about
        # connections, not about every problem
        claimed = [name for name in claimed if not CONCEPTS[name].qualifier]
    for name in claimed:
        concept = CONCEPTS[name]
        if not any(_searched(query, concept) for query in queries):
            return (f"the claim speaks of {concept.label_en} ({concept.label_zh}), which no cited "
                    "query searched for")
    full = " ".join(lexicon.normalize(claim_text).split())
    named = {mention.concept for mention in concept_mentions(full)}
    for query in queries:
        for units, names_topic in _filters(query):
            if names_topic or _stated(units, full, named):
                continue
            shown = ", ".join(repr(unit) for unit in units[:3]) + (", …" if len(units) > 3 else "")
            return (f"the cited query only looked for {shown}; the claim does not say so, so it "
                    "claims more than the query covered")
    return ""


def _stated(units: list[str], text: str, named: set[str]) -> bool:
    if all(" ".join(lexicon.normalize(unit).split()) in text for unit in units):
        return True
    return any(_holds(units, CONCEPTS[name]) for name in named if CONCEPTS[name].terms)
