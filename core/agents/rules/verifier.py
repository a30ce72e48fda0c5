"""The rules verifier: is each claim entailed by its gatekeeper-verified excerpts?

It reads only what the seed's verifier input allows (section 4): the claims, the gatekeeper's
checked bindings and the plan's scope. Per claim, only bindings that PASSED the gatekeeper
count, and only their excerpts are read (never raw tool output, never the trace summary):

- every fact of the claim -- numbers with units (``91%`` == ``91.0%``), ratios, identifiers,
  state words, negations -- must appear in at least one verified excerpt;
- runbook text (``lookup_knowledge``) never supports a claim about current state;
- a cause (``root_cause`` / ``risk`` claims, or words such as leak / 根因 / 导致 in any claim)
  needs an excerpt that states it;
- a negative observation is entailed by a passed negative check of the invocation that
  returned nothing;
- a claim about an excluded subject, or outside the plan's services (or, for a narrow
  question, its topics), fails ``verifier.scope``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from core.agents.rules import facts
from core.agents.rules.subjects import (
    excluded_mentions,
    services_mentioned,
    subjects_excluded,
    topics_in_scope,
)
from core.contracts import (
    CheckedBinding,
    Claim,
    ClaimResult,
    Plan,
    VerifierInput,
    VerifierResult,
)
from core.gatekeeper import normalize_text
from core.lexicon import alert_names_in
from core.tools.spec import is_reference_tool
from core.verdict import groundedness, rule_verdict

NO_EVIDENCE = "verifier.no_verified_evidence"
UNSUPPORTED_FACT = "verifier.unsupported_fact"
RUNBOOK_AS_FACT = "verifier.runbook_as_fact"
UNSUPPORTED_ROOT_CAUSE = "verifier.unsupported_root_cause"
SCOPE = "verifier.scope"
# When a claim breaks several rules, the most serious one is its rule.
_RULE_PRIORITY = (SCOPE, RUNBOOK_AS_FACT, UNSUPPORTED_ROOT_CAUSE, UNSUPPORTED_FACT, NO_EVIDENCE)

# Diagnosis words: a claim may only use them when a verified excerpt does.
_DIAGNOSIS_RE = re.compile(
    r"root cause|caused by|due to|because|leak(?:s|ed|ing)?|根因|根本原因|原因|导致|由于|因为|泄漏|泄露",
    re.IGNORECASE)
_CAUSAL_RE = re.compile(r"root cause|caused by|due to|because|根因|原因|导致|由于|因为|引起",
                        re.IGNORECASE)


def _excerpts(bindings: Sequence[CheckedBinding]) -> list[str]:
    return [binding.evidence_excerpt for binding in bindings]


class RulesVerifier:
    """Offline, deterministic verifier (``verify(verifier_input, plan) -> VerifierResult``)."""

    engine = "rules"

    def verify(self, verifier_input: VerifierInput, plan: Plan) -> VerifierResult:
        """Judge every claim; the verdict follows ``core.verdict``'s rule."""
        gatekeeper = verifier_input.gatekeeper_result
        checked_by_claim: dict[str, list[CheckedBinding]] = {}
        for checked in gatekeeper.checked_bindings:
            if checked.claim_id is not None:
                checked_by_claim.setdefault(checked.claim_id, []).append(checked)
        claims = verifier_input.executor_structured_output.claims
        allowed_services = _allowed_services(plan, gatekeeper.checked_bindings)
        claim_results = [judge_claim(claim, checked_by_claim.get(claim.claim_id, []), plan,
                                     allowed_services) for claim in claims]
        verdict, reason = rule_verdict(gatekeeper, claim_results)
        return VerifierResult(verdict=verdict, groundedness_score=groundedness(claim_results),
                              claim_results=claim_results, reasons=[reason])


def _allowed_services(plan: Plan, checked: Sequence[CheckedBinding]) -> set[str] | None:
    """Services a claim may be about: the plan's, plus those the evidence ties to the plan's
    alert names (``HighCPUUsage ... service=payment-service``); ``None`` means unrestricted."""
    if not plan.services and not plan.alert_names:
        return None
    allowed = set(plan.services)
    for binding in checked:
        if binding.status == "pass" and alert_names_in(binding.evidence_excerpt, plan.alert_names):
            allowed.update(services_mentioned(binding.evidence_excerpt))
    return allowed


def judge_claim(claim: Claim, checked: Sequence[CheckedBinding], plan: Plan,
                allowed_services: set[str] | None) -> ClaimResult:
    """One claim's judgement, with every reason it failed (or why it passed)."""
    failures: dict[str, list[str]] = {}
    passed = [binding for binding in checked if binding.status == "pass"]
    if claim.claim_type == "negative_observation":
        _judge_negative(claim, passed, failures)
    else:
        _judge_positive(claim, passed, failures)
    _judge_scope(claim, plan, allowed_services, failures)
    if not failures:
        support = len([b for b in passed if not is_reference_tool(b.tool_name)])
        return ClaimResult(claim_id=claim.claim_id, claim_type=claim.claim_type,
                           claim_text=claim.claim_text, entailed=True,
                           reasons=[f"every fact is in the {support} verified excerpt(s)"])
    rule = next(name for name in _RULE_PRIORITY if name in failures)
    reasons = [reason for name in _RULE_PRIORITY for reason in failures.get(name, [])]
    return ClaimResult(claim_id=claim.claim_id, claim_type=claim.claim_type,
                       claim_text=claim.claim_text, entailed=False, reasons=reasons, rule=rule)


def _judge_negative(claim: Claim, passed: list[CheckedBinding],
                    failures: dict[str, list[str]]) -> None:
    negative = [b for b in passed if b.match_kind == "negative" or not b.raw_path]
    if not negative:
        failures.setdefault(NO_EVIDENCE, []).append(
            "no verified no-hit invocation backs this negative observation")
        return
    # The gatekeeper does not compare a negative excerpt with anything; what it verified is
    # the invocation itself, which ``matched_text`` describes (tool, arguments, empty result).
    described = [binding.matched_text or binding.evidence_excerpt for binding in negative]
    gaps = facts.missing(claim.claim_text, described, negations=False)
    if gaps:
        failures.setdefault(UNSUPPORTED_FACT, []).append(
            "not in the verified no-hit queries: " + ", ".join(gaps))


def _judge_positive(claim: Claim, passed: list[CheckedBinding],
                    failures: dict[str, list[str]]) -> None:
    evidence = [b for b in passed if not is_reference_tool(b.tool_name) and b.raw_path]
    runbooks = [b for b in passed if is_reference_tool(b.tool_name)]
    if not evidence:
        if runbooks:
            failures.setdefault(RUNBOOK_AS_FACT, []).append(
                "only runbook text supports this claim; runbooks are never evidence of "
                "current state")
        else:
            failures.setdefault(NO_EVIDENCE, []).append(
                "no binding of this claim passed the gatekeeper")
        return
    gaps = facts.missing(claim.claim_text, _excerpts(evidence))
    if gaps:
        # Facts the runbooks hold but the evidence does not: runbook text stated as fact.
        not_in_runbooks = facts.missing(claim.claim_text, _excerpts(runbooks)) if runbooks else gaps
        from_runbook = [gap for gap in gaps if gap not in not_in_runbooks]
        if from_runbook:
            failures.setdefault(RUNBOOK_AS_FACT, []).append(
                "stated only by runbook text: " + ", ".join(from_runbook))
        failures.setdefault(UNSUPPORTED_FACT, []).append(
            "not in any verified excerpt: " + ", ".join(gaps))
    evidence_text = " | ".join(facts.prepare(text) for text in _excerpts(evidence))
    unsupported_words = [word for word in _diagnosis_words(claim.claim_text)
                         if word not in evidence_text]
    if unsupported_words:
        failures.setdefault(UNSUPPORTED_ROOT_CAUSE, []).append(
            "no verified excerpt states " + ", ".join(repr(w) for w in unsupported_words))
    if claim.claim_type in ("root_cause", "risk") and not _CAUSAL_RE.search(evidence_text):
        failures.setdefault(UNSUPPORTED_ROOT_CAUSE, []).append(
            f"a {claim.claim_type} claim needs an excerpt that states the cause; "
            "the verified excerpts only show symptoms")


def _judge_scope(claim: Claim, plan: Plan, allowed_services: set[str] | None,
                 failures: dict[str, list[str]]) -> None:
    excluded = excluded_mentions(claim.claim_text, plan.exclusions) + subjects_excluded(
        claim.subject_services, claim.subject_topics, plan.exclusions)
    if excluded:
        failures.setdefault(SCOPE, []).append(
            "mentions excluded subject(s): " + ", ".join(dict.fromkeys(excluded)))
    if allowed_services is not None:
        # What the claim is about: its declared subjects, else the services its text names.
        # (A quoted line may name other services -- "oom-kill ... in container order-service"
        # -- without the claim being about them; excluded ones are caught above regardless.)
        services = claim.subject_services or services_mentioned(claim.claim_text)
        outside = [s for s in dict.fromkeys(services) if s not in allowed_services]
        if outside:
            failures.setdefault(SCOPE, []).append(
                "about service(s) the question did not ask about: " + ", ".join(outside))
    if plan.narrow and plan.topics:
        in_scope = topics_in_scope(plan)
        outside_topics = [t for t in claim.subject_topics if t not in in_scope]
        if outside_topics:
            failures.setdefault(SCOPE, []).append(
                "about topic(s) outside the narrow question: " + ", ".join(outside_topics))


def _diagnosis_words(text: str) -> list[str]:
    return list(dict.fromkeys(normalize_text(m.group()) for m in _DIAGNOSIS_RE.finditer(text)))
