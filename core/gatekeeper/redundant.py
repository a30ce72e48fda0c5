"""A narrower no-hit query next to broader ones: graded a warning, not a forged citation.

"未检索到 inventory-service 的 HikariCP 相关日志" may cite three queries that found nothing: by
topic, by keyword, and by topic at ``level=ERROR``. The ERROR-only one alone does not cover the
claim (it said nothing about WARN lines), so on its own it is ``evidence.negative_mismatch``.
But when the claim's other bindings passed -- each a no-hit query that covers the claim -- and
this query is exactly such a query narrowed by a ``level``/``state`` filter, it is an honest,
redundant citation: it is graded ``evidence.negative_redundant`` (a warning), is not counted as
support, and does not lower the grade. A query that returned something, failed, or is about
another service or topic is never graded down.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from core.contracts import CheckedBinding, Claim, Invocation
from core.gatekeeper import negative
from core.gatekeeper import rules as R

Lookup = Callable[[int], Invocation | None]


def regrade(claim: Claim, checked: Sequence[CheckedBinding], lookup: Lookup) -> list[CheckedBinding]:
    """``checked`` (the claim's bindings, in order) with each redundant narrower negative
    binding graded down to a warning."""
    passed = [item for item in checked if item.status == "pass"]
    queries = [found for item in passed if item.source_invocation_id is not None
               and (found := lookup(item.source_invocation_id)) is not None]
    # The passed queries must cover the claim by themselves (every service/topic it names).
    if (claim.claim_type != "negative_observation" or not queries
            or negative.coverage_problem(claim, queries[0], queries)):
        return list(checked)
    regraded: list[CheckedBinding] = []
    for item in checked:
        invocation = (lookup(item.source_invocation_id)
                      if item.source_invocation_id is not None else None)
        if (item.status == "fail" and item.rule == R.NEGATIVE_MISMATCH and invocation is not None
                and _narrowed_cover(claim, invocation, queries)):
            item = item.model_copy(update={
                "severity": "none", "rule": R.NEGATIVE_REDUNDANT,
                "message": (f"not counted as support: {item.message}; the claim's absence is "
                            f"covered by its binding(s) "
                            f"{', '.join(str(p.binding_index) for p in passed)}, and this query "
                            f"is the same search narrowed by a filter")})
        regraded.append(item)
    return regraded


def _narrowed_cover(claim: Claim, invocation: Invocation, queries: Sequence[Invocation]) -> bool:
    """The invocation returned nothing, has a narrowing filter, and without it is a query about
    the claim's subject (next to the passed ``queries``)."""
    narrowing = [key for key in negative.NARROWING_ARGS if invocation.arguments.get(key)]
    if not narrowing or negative.evidence_problem(invocation):
        return False
    broad = invocation.model_copy(update={"arguments": {
        key: value for key, value in invocation.arguments.items() if key not in narrowing}})
    return not negative.coverage_problem(claim, broad, [broad, *queries])
