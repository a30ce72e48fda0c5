"""The question's terms and their fates, as the CLI and the Investigate page show them.

A pure view of ``VerifierResult.question_terms`` (``core.verifier.accounting``): one row per
term, saying what became of it and whether the answer accounts for it.
"""

from __future__ import annotations

from collections.abc import Sequence

from core.contracts import QuestionTerm, VerifierResult
from core.language.reading import FATE_WORDS

_FATES = FATE_WORDS["en"]


def term_rows(verifier: VerifierResult | None) -> list[dict[str, str]]:
    """One row per term: term, kind, fate (in words), why, and whether the answer accounts for
    it (an answer-level rule named it: ``verifier.term_unaccounted`` ...)."""
    if verifier is None:
        return []
    return [{"term": term.text, "kind": term.kind, "fate": _FATES.get(term.fate or "", "—"),
             "why": term.detail, "accounted": "unaccounted" if term.accounted is False else "accounted"}
            for term in verifier.question_terms]


def terms_line(terms: Sequence[QuestionTerm]) -> str:
    """``zookeeper (subject): applied as a filter; refuse (predicate): the data never mentions it ...``."""
    return "; ".join(f"{term.text} ({term.kind}): {_FATES.get(term.fate or '', '—')}"
                     for term in terms) or "-"
