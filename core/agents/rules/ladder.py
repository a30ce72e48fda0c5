"""The recall ladder: what a search of the question's own words tries before it says "no".

A question's words are rarely the log's: "did the scheduler run out of worker slots?" of a
line saying "no free worker slots"; "retries" of "retried"; "job app-7 in namespace team-3" of
data without namespaces. When every exact attempt of a keyword search (``searches``) came back
empty, the executor climbs, each rung one recorded call the gatekeeper checks like any other:

1. ``word_forms``: each word by its stem (``retri`` finds "retries" and "retried");
2. ``synonyms``: a word replaced by each of its synonyms (``vocab/word_forms.yaml``);
3. probes: each word alone (stem, no level), to learn which words the data never mentions;
   then ``without_unmentioned``: the words it does mention, all in one line;
4. ``without_level``: those words without the level filter the lines may not satisfy;
5. ``any_word``: any one of them in a line.

A concept's search climbs rungs 1-2, then, when the question has other words, those words in
one line without the concept (the closest lines: a question may name a concept its lines do not
say, "view permissions" read as a denial).

Rungs 1-2 keep the question's meaning: what they find is an answer (the term relaxed to its
form). What rungs 3-5 find are only the closest lines: the terms left out are never in the
answer's evidence, so the answer is not green (``core.verifier.accounting``). "No" is said only
when every rung is empty, every word unmentioned included; the absence then binds every call.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from dataclasses import dataclass, replace
from typing import Any

from core.agents.rules.evidence import collect_items
from core.agents.rules.findings import SearchOutcome
from core.agents.rules.logsearch import COMMON_ARGUMENTS, SEARCH_LIMIT, LogSearch
from core.contracts import Invocation
from core.events import ToolEvent
from core.language.wordforms import holds_stem, stem, synonyms

# Calls one query_logs; whether it counts as a probe (kept out of the findings).
Call = Callable[[dict[str, Any], bool], Generator[ToolEvent, None, Invocation]]
MAX_SYNONYM_TRIES = 4


@dataclass(frozen=True)
class Climbed:
    """What the ladder found: the rung that found lines (as a search of its own, its call
    alone) or None, the words the data never mentions, and every call it made."""

    found: SearchOutcome | None
    rung: str | None
    unmentioned: tuple[str, ...]
    invocations: tuple[Invocation, ...]


MEANING_RUNGS = ("exact", "word_forms", "synonyms")


def climbs(search: LogSearch) -> bool:
    """Whether a search has a ladder (``LogSearch.ladder``)."""
    return search.ladder != "none" and bool(search.ladder_words)


def holds_keywords(outcome: SearchOutcome) -> bool:
    """Whether some line the outcome found holds every keyword of its search (whole tokens,
    any form): lines about a concept that say nothing of the question's other words ("session
    expired" for "sessions established with clients") do not answer it."""
    keywords = outcome.search.keywords
    if not keywords:
        return True
    return any(all(holds_stem(item.text, word) for word in keywords)
               for item in collect_items(outcome.invocations) if item.log is not None)


def _found(invocation: Invocation) -> bool:
    details = invocation.retrieval_details
    return details is not None and details.evidence_status not in ("no_evidence", "error")


def _quoted(word: str) -> str:
    return f'"{word}"' if " " in word else stem(word)


def climb(search: LogSearch, service: str | None, call: Call, *, full: bool = True
          ) -> Generator[ToolEvent, None, Climbed]:
    """Climb the ladder of ``search`` (whose exact attempts found nothing, or nothing holding
    its keywords) for ``service``; ``full``: past the meaning-keeping rungs, when its ladder is."""
    first = search.attempts[0]
    # The search's filters stay on every rung (a compound's topic too: "Redis timeout").
    common = {key: first[key] for key in (*COMMON_ARGUMENTS, "topic") if key in first}
    if search.required_terms:  # the entity asked about stays on every rung, probes too
        common["terms"] = list(search.required_terms)
    unleveled = {key: value for key, value in common.items() if key != "level"}
    words = list(search.ladder_words)
    made: list[Invocation] = []

    def rung(name: str, arguments: dict[str, Any], shown: list[str]
             ) -> Generator[ToolEvent, None, SearchOutcome | None]:
        invocation = yield from call(arguments, False)
        made.append(invocation)
        if not _found(invocation):
            return None
        label = " ".join(shown)
        # Told as the lines it found ("logged these lines: ..."): its words are not quoted, so
        # no claim names a form or synonym the evidence does not hold.
        return SearchOutcome(service, replace(search, kind="keywords", attempts=(arguments,), fallback=None,
                                              label_zh=f"包含 {label} 的", label_en=f'with "{label}"'),
                             [invocation], rung=name)

    tried = {" ".join(str(attempt.get("query", "")).split()) for attempt in search.attempts}
    query = " ".join(_quoted(word) for word in words)
    if query not in tried:
        tried.add(query)
        found = yield from rung("word_forms", {**common, "query": query, "match": "all",
                                               "limit": SEARCH_LIMIT}, words)
        if found is not None:
            return Climbed(found, "word_forms", (), tuple(made))
    tries = 0
    for index, word in enumerate(words):
        for other in synonyms(word):
            if tries >= MAX_SYNONYM_TRIES:
                break
            replaced = " ".join(_quoted(other if i == index else w) for i, w in enumerate(words))
            if replaced in tried:
                continue
            tried.add(replaced)
            tries += 1
            found = yield from rung("synonyms", {**common, "query": replaced, "match": "all",
                                                 "limit": SEARCH_LIMIT},
                                    [other if i == index else w for i, w in enumerate(words)])
            if found is not None:
                return Climbed(found, "synonyms", (), tuple(made))
    if search.ladder != "full" or not full:
        keywords = list(search.keywords)
        if full and keywords and keywords != words:
            # A concept's search found nothing in any form: the question's other words, in one
            # line without the concept, are the closest lines ("did curi get view permissions?"
            # of "users with view permissions: Set(curi)", where no line says a denial).
            query = " ".join(_quoted(word) for word in keywords)
            found = yield from rung("without_concept", {**common, "query": query, "match": "all",
                                                        "limit": SEARCH_LIMIT}, keywords)
            if found is not None:
                return Climbed(found, "without_concept", (), tuple(made))
        return Climbed(None, None, (), tuple(made))
    mentioned: list[str] = []
    unmentioned: list[str] = []
    for word in words:
        probe = yield from call({**unleveled, "query": _quoted(word), "match": "all", "limit": 1}, True)
        made.append(probe)
        (mentioned if _found(probe) else unmentioned).append(word)
    said = tuple(unmentioned)
    if not mentioned:
        return Climbed(None, None, said, tuple(made))
    kept = " ".join(_quoted(word) for word in mentioned)
    ladder: list[tuple[str, dict[str, Any]]] = []  # each with the words it searches: ``mentioned``
    if unmentioned:
        ladder.append(("without_unmentioned", {**common, "query": kept, "match": "all",
                                               "limit": SEARCH_LIMIT}))
    if "level" in common:
        ladder.append(("without_level", {**unleveled, "query": kept, "match": "all",
                                         "limit": SEARCH_LIMIT}))
    if len(mentioned) > 1:
        ladder.append(("any_word", {**unleveled, "query": kept, "match": "any",
                                    "limit": SEARCH_LIMIT}))
    for name, arguments in ladder:
        found = yield from rung(name, arguments, mentioned)
        if found is not None:
            return Climbed(found, name, said, tuple(made))
    return Climbed(None, None, said, tuple(made))
