"""Searches about an entity: what the question asks of a host, a user, a pod ... is searched
among the lines naming it (``core.language.entities``; issue 29, item 4).

An entity is a subject that narrows, not the whole question: "did root log in successfully?"
asks for successful logins *of root*, not for every line naming root (a ``Failed password for
root`` line would answer it "yes"), nor for every successful login (alice's would). So each
search the question's other words need (keywords, topics, concepts, compounds, other exact
terms) is made among the lines holding the entity's name: its ``terms`` gain the name, with
``match="all"``. A search of alternatives (``match="any"``: a concept's phrases) cannot hold a
name that must be there too, so it is split into one attempt per alternative, each with the
name, tried in order until one finds lines (``LogSearch.attempts``): the first phrase that a
line of the entity holds answers, and an absence is of every phrase with the name.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from core.agents.rules.logsearch import MAX_TERMS, LogSearch


def entity_names(terms: list[str], entities: list[str]) -> list[str]:
    """The names of ``entities`` among the reading's ``terms`` (as the terms spell them)."""
    folded = {name.casefold() for name in entities}
    return [term for term in terms if term.casefold() in folded]


def _narrowed(arguments: dict[str, Any], names: list[str]) -> list[dict[str, Any]]:
    """One search's arguments among the lines holding every name: the names added to its terms;
    a search of alternatives split into one attempt per alternative (phrase or query word)."""
    if arguments.get("match") != "any":
        terms = list(dict.fromkeys([*arguments.get("terms", []), *names]))[:MAX_TERMS]
        return [{**arguments, "terms": terms, **({"match": "all"} if "match" in arguments else {})}]
    alternatives: list[dict[str, Any]] = []
    base = {key: value for key, value in arguments.items() if key not in ("terms", "query", "match")}
    for phrase in arguments.get("terms", []):
        alternatives.append({**base, "terms": list(dict.fromkeys([phrase, *names]))[:MAX_TERMS], "match": "all"})
    for word in str(arguments.get("query") or "").split():
        alternatives.append({**base, "query": word, "terms": names[:MAX_TERMS], "match": "all"})
    if not alternatives:  # a topic alone: its lines naming the entity
        alternatives.append({**base, "terms": names[:MAX_TERMS], "match": "all"})
    return alternatives


def narrowed_to(search: LogSearch, names: list[str]) -> LogSearch:
    """``search`` among the lines naming every one of ``names`` (see the module doc)."""
    shown_en = ", ".join(f'"{name}"' for name in names)
    shown_zh = "、".join(f"「{name}」" for name in names)
    first = search.attempts[0] if search.attempts else {}
    if first.get("match") == "any":
        # Its alternatives one by one, each with the names; later attempts (a net of plain
        # words at WARN+) and the fallback are left out: an absence is then of exactly the
        # phrases listed, which its label states (an exact search's: kind ``term``).
        attempts = tuple(_narrowed(first, names))
        searched = [str(a.get("query") or next(iter(a.get("terms", [])), "")) for a in attempts]
        return replace(search, kind="term", attempts=attempts, fallback=None, required_terms=tuple(names),
                       label_zh="包含" + "或".join(f"「{word}」" for word in searched) + f"及{shown_zh}的",
                       label_en="matching " + " or ".join(f'"{word}"' for word in searched) + f" with {shown_en}")
    attempts = tuple(narrowed for arguments in search.attempts for narrowed in _narrowed(arguments, names))
    return replace(search, attempts=attempts, required_terms=tuple(names),
                   label_zh=f"{search.label_zh}（包含{shown_zh}）" if search.label_zh else f"包含{shown_zh}的",
                   label_en=f"{search.label_en} with {shown_en}" if search.label_en else f"matching {shown_en}",
                   fallback=narrowed_to(search.fallback, names) if search.fallback is not None else None)
