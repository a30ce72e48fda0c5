"""Does a no-hit query's search say what a negative observation says is absent?

``coverage`` compares a claim's services and lexicon topics with a query's. The words of a
search are compared here (docs/gatekeeper-rules.md, "Negative observations"):

* a diagnosis concept the claim names (``core.language.concepts``: timeouts, connection problems,
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

from core.contracts import Invocation
from core.gatekeeper.narrowing import effective_arguments
from core.language import lexicon
from core.language.concepts import CONCEPTS, Concept, concept_mentions
from core.language.text import normalize
from core.logfields import level_rank
from core.tools.args import PHRASE_ARGS, TOPIC_ARGS, UNIT_ARGS


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
    filters = [([value], True) for value in _values(arguments, TOPIC_ARGS)]
    # (unit, whether it can name a topic): an exact phrase (``terms``) finds lines holding it,
    # never every line of a topic it names
    units = [(unit, key not in PHRASE_ARGS) for key in UNIT_ARGS for unit in _values(arguments, (key,))]
    groups = [units] if units and arguments.get("match") == "any" else [[unit] for unit in units]
    for group in groups:
        names_topic = any(topical and _names_topic(unit) for unit, topical in group)
        filters.append(([unit for unit, _ in group], names_topic))
    return filters


def _names_topic(unit: str) -> bool:
    normalized = normalize(unit)
    return normalized in lexicon.TOPICS or bool(lexicon.topic_mentions(normalized))


def _holds(units: list[str], concept: Concept) -> bool:
    """Whether a filter searched the concept: all its log phrases, or one of its stems."""
    normalized = {" ".join(normalize(unit).split()) for unit in units}
    phrases = {" ".join(normalize(term).split()) for term in concept.terms}
    if phrases and phrases <= normalized:
        return True
    return any(stem in unit for stem in concept.stems for unit in normalized)


def _searched(invocation: Invocation, concept: Concept, claim: _Claimed) -> bool:
    """Whether the query searched the concept: one of its filters holds it and each other
    filter (the tools AND them) searched something else the claim names -- "no OOM kills"
    for ``topic=oom`` AND the kill phrases --; or the query has no search filter."""
    level = effective_arguments(invocation).get("level")
    if concept.level and isinstance(level, str) and level.strip():
        # a qualifier searched by its level ("no errors": lines at ERROR or above)
        wanted, rank = level_rank(concept.level), level_rank(level)
        if wanted is not None and rank is not None and rank <= wanted:
            return True
    filters = _filters(invocation)
    if not filters:
        # it looked at a level, not for the concept ("no timeouts" at any level), or at all
        return not (isinstance(level, str) and level.strip())
    holding = [units for units, _ in filters if _holds(units, concept)]
    others = [(units, names_topic) for units, names_topic in filters if not _holds(units, concept)]
    return bool(holding) and all(claim.names(units, names_topic) for units, names_topic in others)


class _Claimed:
    """What a claim names, to tell whether a filter of a query is about it."""

    def __init__(self, claim_text: str, topics: Sequence[str]) -> None:
        self.text = " ".join(normalize(claim_text).split())
        self.topics = set(lexicon.expand_topics(topics))
        self.concepts = {mention.concept for mention in concept_mentions(self.text)}

    def names(self, units: list[str], names_topic: bool) -> bool:
        if names_topic:
            searched = {mention.topic for unit in units for mention in lexicon.topic_mentions(normalize(unit))}
            searched |= {normalize(unit) for unit in units if normalize(unit) in lexicon.TOPICS}
            return bool(set(lexicon.expand_topics(searched)) & self.topics)
        return _stated(units, self.text, self.concepts)


def _claimed_text(claim_text: str, queries: Sequence[Invocation]) -> str:
    """The claim's text without the search words it quotes and the lexicon topics it names
    (those are what was searched, or judged by the topic rule)."""
    text = normalize(claim_text)
    for query in queries:
        arguments = effective_arguments(query)
        for unit in sorted(_values(arguments, TOPIC_ARGS + UNIT_ARGS), key=len, reverse=True):
            needle = normalize(unit).strip()
            if needle:
                text = text.replace(needle, " ")
    for mention in sorted(lexicon.topic_mentions(text), key=lambda found: found.start, reverse=True):
        text = text[:mention.start] + " " + text[mention.end:]
    return text


def searched_problem(claim_text: str, queries: Sequence[Invocation], topics: Sequence[str] = ()) -> str:
    """Why the cited no-hit queries do not search what the claim says is absent ('' when they
    do). ``topics``: the lexicon topics the claim is about (its text and subject fields)."""
    claim = _Claimed(claim_text, topics)
    claimed = list(dict.fromkeys(mention.concept for mention in concept_mentions(_claimed_text(claim_text, queries))))
    if any(not CONCEPTS[name].qualifier for name in claimed):
        # a qualifier next to a subject only qualifies it: "connection problems" is about
        # connections, not about every problem
        claimed = [name for name in claimed if not CONCEPTS[name].qualifier]
    for name in claimed:
        concept = CONCEPTS[name]
        if not any(_searched(query, concept, claim) for query in queries):
            return (f"the claim speaks of {concept.label_en} ({concept.label_zh}), which no cited "
                    "query searched for")
    for query in queries:
        for units, names_topic in _filters(query):
            if names_topic or _stated(units, claim.text, claim.concepts):
                continue
            shown = ", ".join(repr(unit) for unit in units[:3]) + (", …" if len(units) > 3 else "")
            return (f"the cited query only looked for {shown}; the claim does not say so, so it "
                    "claims more than the query covered")
    return ""


def _stated(units: list[str], text: str, named: set[str]) -> bool:
    if all(" ".join(normalize(unit).split()) in text for unit in units):
        return True
    return any(_holds(units, CONCEPTS[name]) for name in named if CONCEPTS[name].terms)
