"""The question's terms and their fates, as the CLI and the Investigate page show them.

A pure view of ``VerifierResult.question_terms`` (``core.verifier.accounting``): one row per
term, saying what became of it and whether the answer accounts for it.
"""

from __future__ import annotations

from collections.abc import Sequence

from core.contracts import QuestionTerm, VerifierResult

# How each fate reads, in a sentence's middle.
FATE_WORDS = {
    "matched": "in the cited evidence",
    "filter": "applied as a filter",
    "relaxed": "relaxed",
    "unmentioned": "never mentioned by the data",
    "absent": "searched, verified absent",
    "unmatched": "searched, not in the lines found",
    "not_searched": "not searched",
}


def term_rows(verifier: VerifierResult | None) -> list[dict[str, str]]:
    """One row per term: term, kind, fate (in words), why, and whether the answer accounts for
    it (an answer-level rule named it: ``verifier.term_unaccounted`` ...)."""
    if verifier is None:
        return []
    return [{"term": term.text, "kind": term.kind, "fate": FATE_WORDS.get(term.fate or "", "—"),
             "why": term.detail, "accounted": "unaccounted" if term.accounted is False else "accounted"}
            for term in verifier.question_terms]


def terms_line(terms: Sequence[QuestionTerm]) -> str:
    """``zookeeper (subject): applied as a filter; refuse (predicate): never mentioned ...``."""
    return "; ".join(f"{term.text} ({term.kind}): {FATE_WORDS.get(term.fate or '', '—')}"
                     for term in terms) or "-"
