"""``LogSearch``: one search of the logs a question needs, and what every search keeps to.

The type the searches of a plan are built as (``searches``, ``entity_searches``), climbed
(``ladder``) and told (``findings``), in a module of its own so that none of them imports
another for it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

SearchKind = Literal["term", "keywords", "compound", "topic", "concept", "qualifier", "level",
                     "service"]
MAX_TERMS = 20  # QueryLogsArgs.terms and .exclude hold at most 20 phrases
SEARCH_LIMIT = 50  # lines a search shows; claims quote the most common shapes among them


@dataclass(frozen=True)
class LogSearch:
    """One search of the logs a question needs (without the service, added per service).

    ``attempts`` are the arguments of each call, tried in order until one finds lines (a
    Chinese keyword's other stems); ``focus`` are phrase sets a shown line must each hold one
    of (a compound of two concepts searched with ``match="any"``); ``topics`` and ``concepts``
    say what the search is about, ``label`` how to say it; ``fallback`` is another search made
    when no attempt finds lines, and told as what it is.
    """

    kind: SearchKind
    attempts: tuple[dict[str, Any], ...]
    label_zh: str
    label_en: str
    topics: tuple[str, ...] = ()
    concepts: tuple[str, ...] = ()
    focus: tuple[tuple[str, ...], ...] = ()
    keywords: tuple[str, ...] = field(default=())
    fallback: LogSearch | None = None  # searched when no attempt finds lines (told on its own)
    # The recall ladder (``ladder``): the words it climbs with (the question's keywords, and a
    # concept's own word), and how far: "full" for the question's free words (dropping words
    # the data never mentions, then the level, then all but one), "meaning" for a concept's
    # search (word forms and synonyms only: its phrases already say what a line of it is).
    ladder_words: tuple[str, ...] = ()
    ladder: Literal["none", "meaning", "full"] = "none"
    # Exact terms every call of the search must hold, on every rung too: the entity it is
    # about (``entity_searches``: root's logins, never another user's).
    required_terms: tuple[str, ...] = ()

    def label(self, language: str) -> str:
        """What was searched, as a person says it."""
        return self.label_zh if language == "zh" else self.label_en


# The arguments ``_common`` may set: what every query_logs call of a plan keeps to.
COMMON_ARGUMENTS = ("since", "until", "level", "exclude")
