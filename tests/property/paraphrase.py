"""Deterministic paraphrases of a question: the same ask in other surface forms.

Each rewrite changes how the question is written, never what it asks: case, end punctuation,
full- or half-width commas, a polite prefix ("please" / "请"), and a "only ..." / "只 ..."
clause moved to the other end of the question. A rewrite that leaves the question as it was is
dropped, so every paraphrase is a new input.
"""

from __future__ import annotations

import re

_HAN = re.compile(r"[\u4e00-\u9fff]")
# Clauses split at commas and semicolons of either width, keeping the separator out.
_CLAUSE_SPLIT = re.compile(r"\s*[,，;；]\s*")
_ONLY_CLAUSE = re.compile(r"^(?:only\b|只|仅)", re.IGNORECASE)
_END_PUNCTUATION = "?？.。!！"


def _moved_only_clause(question: str) -> str | None:
    """The question with its first "only"/"只" clause moved to the other end (None when it has
    none, or only one clause)."""
    body = question.rstrip(_END_PUNCTUATION)
    end = question[len(body):]
    clauses = [clause for clause in _CLAUSE_SPLIT.split(body) if clause]
    if len(clauses) < 2:
        return None
    chinese = bool(_HAN.search(question))
    comma = "，" if chinese else ", "
    for index, clause in enumerate(clauses):
        if _ONLY_CLAUSE.match(clause):
            rest = [*clauses[:index], *clauses[index + 1:]]
            moved = [*rest, clause] if index == 0 else [clause, *rest]
            return comma.join(moved) + end
    return None


def paraphrases(question: str) -> list[str]:
    """Other ways of writing ``question`` (deterministic, each different from it)."""
    chinese = bool(_HAN.search(question))
    body = question.rstrip(_END_PUNCTUATION)
    rewrites = [
        question.lower(),
        question.upper() if not chinese else question,
        body + ("？" if chinese else "?"),
        body,
        question.replace("，", ",") if chinese else question.replace(", ", "，"),
        ("请" + question) if chinese else ("Please " + question[:1].lower() + question[1:]),
        _moved_only_clause(question),
    ]
    return [text for text in dict.fromkeys(r for r in rewrites if r) if text != question]
