"""The rules verifier: the always-on policy of ``core.verifier``, and nothing else.

It reads only what the verifier input allows (docs/design.md §5): the claims and next steps,
the gatekeeper's checked bindings (their excerpts, matched refs and invocation arguments) and
the plan's scope -- never raw tool output, never the trace summary. Each claim is judged fact
by fact, each value in its role; each recommended action and gap as evidence gathering. The
verdict follows ``core.verdict``'s rule.
"""

from __future__ import annotations

from core.contracts import Plan, VerifierInput, VerifierResult
from core.verdict import groundedness, rule_verdict
from core.verifier import judge


class RulesVerifier:
    """Offline, deterministic verifier (``verify(verifier_input, plan) -> VerifierResult``)."""

    engine = "rules"

    def verify(self, verifier_input: VerifierInput, plan: Plan) -> VerifierResult:
        """Judge every claim and step; the verdict follows ``core.verdict``'s rule."""
        claim_results, step_results = judge(verifier_input, plan)
        verdict, reason = rule_verdict(verifier_input.gatekeeper_result, claim_results, step_results)
        return VerifierResult(verdict=verdict, groundedness_score=groundedness(claim_results),
                              claim_results=claim_results, step_results=step_results,
                              reasons=[reason])
