"""Checking a case's expectations against the session document the pipeline produced.

:func:`observe` reduces a session to the facts expectations talk about (:class:`Observed`);
:func:`check_expectations` compares them key by key and returns one :class:`ExpectationFailure`
per unmet key, carrying the expected and the actual value so a report can say exactly what
differed. The semantics of each key are documented on ``core.evals.cases.Expectation``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, Field

from core.contracts import SessionDocument
from core.evals.cases import Expectation
from core.language.text import casefold


class Observed(BaseModel):
    """What one session actually did, in the vocabulary of the ``expect`` keys."""

    status: str
    verdict: str | None = None
    outcome: str | None = None
    groundedness: float | None = None
    gatekeeper_status: str | None = None
    gatekeeper_severity: str | None = None
    failed_rules: list[str] = Field(default_factory=list)
    claim_types: list[str] = Field(default_factory=list)
    claim_count: int = 0
    answer: str = ""
    # Tools cited by at least one binding the gatekeeper passed, sorted.
    evidence_tools: list[str] = Field(default_factory=list)
    # tool -> distinct evidence_status values of its invocations, in call order.
    evidence_status: dict[str, list[str]] = Field(default_factory=dict)
    bindings_checked: int = 0
    bindings_passed: int = 0


class Leak(BaseModel):
    """A forbidden string found in a claim or in the answer."""

    term: str
    where: str  # "claim <claim_id>" or "answer"


class ExpectationFailure(BaseModel):
    """One unmet expectation key: what the case expected and what the session did."""

    key: str
    expected: Any
    actual: Any
    message: str = ""


def observe(session: SessionDocument) -> Observed:
    """Reduce a session document to the facts expectations are checked against."""
    claims = session.executor_output.claims if session.executor_output else []
    gate = session.gatekeeper_result
    checked = gate.checked_bindings if gate else []
    statuses: dict[str, list[str]] = {}
    for invocation in session.invocations:
        if invocation.retrieval_details is not None:
            seen = statuses.setdefault(invocation.tool_name, [])
            if invocation.retrieval_details.evidence_status not in seen:
                seen.append(invocation.retrieval_details.evidence_status)
    passed_tools = {b.tool_name for b in checked if b.status == "pass" and b.tool_name}
    return Observed(
        status=session.status,
        verdict=session.verifier_result.verdict if session.verifier_result else None,
        outcome=session.outcome,
        groundedness=(session.verifier_result.groundedness_score
                      if session.verifier_result else None),
        gatekeeper_status=gate.status if gate else None,
        gatekeeper_severity=gate.severity if gate else None,
        failed_rules=list(gate.failed_rules) if gate else [],
        claim_types=[claim.claim_type for claim in claims],
        claim_count=len(claims),
        answer=session.composer_output.user_facing_answer if session.composer_output else "",
        evidence_tools=sorted(passed_tools),
        evidence_status=statuses,
        bindings_checked=len(checked),
        bindings_passed=sum(1 for b in checked if b.status == "pass"),
    )


def find_leaks(terms: list[str], session: SessionDocument) -> list[Leak]:
    """Every (term, place) where a forbidden term appears: any claim's text, or the answer."""
    places: list[tuple[str, str]] = []
    if session.executor_output:
        places += [(f"claim {claim.claim_id}", casefold(claim.claim_text))
                   for claim in session.executor_output.claims]
    if session.composer_output:
        places.append(("answer", casefold(session.composer_output.user_facing_answer)))
    return [Leak(term=term, where=where)
            for term in terms for where, text in places if casefold(term) in text]


# ---------------------------------------------------------------- one checker per key

Checker = Callable[[Any, Observed, SessionDocument], ExpectationFailure | None]


def _verdict(expected: list[str], seen: Observed, _: SessionDocument) -> ExpectationFailure | None:
    if seen.verdict in expected:
        return None
    allowed = expected[0] if len(expected) == 1 else f"one of {expected}"
    return ExpectationFailure(key="verdict", expected=expected if len(expected) > 1 else expected[0],
                              actual=seen.verdict, message=f"verdict {seen.verdict}, expected {allowed}")


def _equal(key: str) -> Checker:
    def check(expected: str, seen: Observed, _: SessionDocument) -> ExpectationFailure | None:
        actual = getattr(seen, key)
        if actual == expected:
            return None
        return ExpectationFailure(key=key, expected=expected, actual=actual,
                                  message=f"{key} {actual}, expected {expected}")
    return check


def _failed_rules(expected: list[str], seen: Observed, _: SessionDocument) -> ExpectationFailure | None:
    missing = [rule for rule in expected if rule not in seen.failed_rules]
    if not missing:
        return None
    return ExpectationFailure(key="failed_rules_include", expected=expected,
                              actual=seen.failed_rules,
                              message=f"failed_rules_include: {seen.failed_rules} lack {missing}")


def _claim_types(expected: list[str], seen: Observed, _: SessionDocument) -> ExpectationFailure | None:
    stray = [claim_type for claim_type in seen.claim_types if claim_type not in expected]
    if not stray:
        return None
    return ExpectationFailure(key="claim_types", expected=expected, actual=seen.claim_types,
                              message=f"claim_types: claims of type {sorted(set(stray))}")


def _max_claims(expected: int, seen: Observed, _: SessionDocument) -> ExpectationFailure | None:
    if seen.claim_count <= expected:
        return None
    return ExpectationFailure(key="max_claims", expected=expected, actual=seen.claim_count,
                              message=f"max_claims: {seen.claim_count} claims, at most {expected} allowed")


def _answer_includes(expected: list[str], seen: Observed, _: SessionDocument) -> ExpectationFailure | None:
    answer = casefold(seen.answer)
    missing = [text for text in expected if casefold(text) not in answer]
    if not missing:
        return None
    return ExpectationFailure(key="answer_includes", expected=expected, actual=seen.answer,
                              message=f"answer_includes: answer lacks {missing}")


def _forbidden(expected: list[str], _: Observed, session: SessionDocument) -> ExpectationFailure | None:
    leaks = find_leaks(expected, session)
    if not leaks:
        return None
    found = [f"{leak.term!r} in {leak.where}" for leak in leaks]
    return ExpectationFailure(key="forbidden", expected=expected, actual=found,
                              message="forbidden: " + "; ".join(found))


def _evidence_tools(expected: list[str], seen: Observed, _: SessionDocument) -> ExpectationFailure | None:
    missing = [tool for tool in expected if tool not in seen.evidence_tools]
    if not missing:
        return None
    return ExpectationFailure(key="evidence_tools", expected=expected, actual=seen.evidence_tools,
                              message=f"evidence_tools: no passing binding cites {missing}")


def _evidence_status(expected: dict[str, str], seen: Observed,
                     _: SessionDocument) -> ExpectationFailure | None:
    unmet = {tool: status for tool, status in expected.items()
             if status not in seen.evidence_status.get(tool, [])}
    if not unmet:
        return None
    actual = {tool: seen.evidence_status.get(tool, []) for tool in expected}
    return ExpectationFailure(key="evidence_status", expected=expected, actual=actual,
                              message="evidence_status: " + "; ".join(
                                  f"no {tool} invocation with {status}" for tool, status in unmet.items()))


CHECKERS: dict[str, Checker] = {
    "verdict": _verdict,
    "outcome": _equal("outcome"),
    "gatekeeper_status": _equal("gatekeeper_status"),
    "gatekeeper_severity": _equal("gatekeeper_severity"),
    "failed_rules_include": _failed_rules,
    "claim_types": _claim_types,
    "max_claims": _max_claims,
    "answer_includes": _answer_includes,
    "forbidden": _forbidden,
    "evidence_tools": _evidence_tools,
    "evidence_status": _evidence_status,
}


def check_expectations(expect: Expectation, session: SessionDocument,
                       observed: Observed | None = None) -> list[ExpectationFailure]:
    """Every unmet expectation of ``expect`` on ``session``, in the order keys are documented.

    ``observed`` may be passed when the caller already reduced the session with :func:`observe`.
    """
    seen = observed or observe(session)
    failures: list[ExpectationFailure] = []
    for key, checker in CHECKERS.items():
        expected = getattr(expect, key)
        if expected is None:
            continue
        failure = checker(expected, seen, session)
        if failure is not None:
            failures.append(failure)
    return failures
