"""Negative observations: "no HikariCP logs for inventory-service" is a citation too.

It must cite an invocation that really returned nothing (``no_evidence``, no refs, empty
result list), no narrower (``level``/``state``) than the claim, and whose arguments -- with the
claim's other cited queries -- cover every service and topic the claim names, in its subject
fields or its text (``coverage``). No particular excerpt text is required.
"""

from __future__ import annotations

from collections.abc import Sequence

from core.contracts import Claim, Invocation
from core.gatekeeper import coverage
from core.tools.spec import EVIDENCE_KEYS, find_spec

# Evidence lists of every tool's output (alerts, logs, groups, evidence_blocks); any non-empty
# one of the invocation's own tool means the invocation returned evidence.
RESULT_KEYS: tuple[str, ...] = EVIDENCE_KEYS
# Filters that narrow a query to a level or state: a negative claim must be as narrow.
NARROWING_ARGS: tuple[str, ...] = ("level", "state")


def result_keys(tool_name: str) -> tuple[str, ...]:
    """The evidence lists of a tool's output (every tool's lists for an unknown tool)."""
    spec = find_spec(tool_name)
    return tuple(evidence.key for evidence in spec.evidence) if spec is not None else RESULT_KEYS


def returned_items(invocation: Invocation) -> int:
    """How many result entries the invocation's raw output holds (0 for a true no-hit)."""
    return sum(len(invocation.output.get(key) or []) for key in result_keys(invocation.tool_name)
               if isinstance(invocation.output.get(key), list))


def evidence_problem(invocation: Invocation) -> str:
    """Why this invocation cannot back a negative observation ('' when it returned nothing)."""
    details = invocation.retrieval_details
    if details is not None and details.evidence_status == "error":
        return "the cited invocation failed (evidence_status=error); a failed call is not an absence of evidence"
    refs = len(details.evidence_refs) if details is not None else 0
    items = returned_items(invocation)
    if refs or items or (details is not None and details.evidence_status == "supported"):
        return (f"the cited invocation returned evidence ({max(refs, items)} item(s), "
                f"evidence_status={details.evidence_status if details else 'unknown'})")
    return ""


def coverage_problem(claim: Claim, invocation: Invocation, claim_queries: Sequence[Invocation]) -> str:
    """Why the invocation's arguments do not cover the claim's subject ('' when they do).

    ``claim_queries`` are the invocations all of the claim's bindings cite (this one included):
    together they must cover every service and topic the claim names (``coverage``).
    """
    for key in NARROWING_ARGS:
        value = invocation.arguments.get(key)
        if isinstance(value, str) and value.strip() and value.strip().casefold() not in claim.claim_text.casefold():
            # level=ERROR found nothing: that says nothing about WARN lines, unless the claim
            # itself is only about ERROR lines.
            return (f"the cited query only looked at {key}={value}; the claim does not say so, "
                    f"so it claims more than the query covered")
    return coverage.coverage_problem(claim, invocation, claim_queries)


def describe(invocation: Invocation) -> str:
    """What the negative citation rests on, as the audit shows it (``matched_text``)."""
    arguments = ", ".join(f"{key}={value}" for key, value in invocation.arguments.items())
    lists = ", ".join(f"{key}=[]" for key in result_keys(invocation.tool_name)
                      if key in invocation.output) or "no results"
    total = invocation.output.get("total")
    status = invocation.retrieval_details.evidence_status if invocation.retrieval_details else "unknown"
    suffix = f", total={total}" if total is not None else ""
    return f"{invocation.tool_name}({arguments}) -> {lists}{suffix} (evidence_status={status})"
