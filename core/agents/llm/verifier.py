"""The ``llm`` verifier: a model judges entailment; code decides what the judgement is worth.

The model sees exactly the verifier input (docs/design.md §5) and answers in the ``VerifierResult`` schema.
Then code, not the model, has the last word:

- a claim the model did not judge, or judged under an id the executor never used, does not
  count as entailed;
- the rules engine's structural checks still apply to every claim, whatever the model said:
  no binding passed the gatekeeper (``verifier.no_verified_evidence``), only runbook text
  supports it (``verifier.runbook_as_fact``), or it is about an excluded or out-of-scope
  subject (``verifier.scope``) -- those overrule the model;
- ``core.verdict.final_verdict`` sets verdict and groundedness: a gatekeeper failure is never
  PASS, whatever the model said.
"""

from __future__ import annotations

from core.agents.llm import wire
from core.agents.llm.role import LLMRole
from core.agents.llm.structured import (
    output_instructions,
    request_structured,
    unusable_answer,
)
from core.agents.rules.verifier import NO_EVIDENCE, RUNBOOK_AS_FACT, SCOPE, judge_claim
from core.contracts import (
    CheckedBinding,
    Claim,
    ClaimResult,
    Plan,
    VerifierInput,
    VerifierResult,
)
from core.verdict import final_verdict

SCHEMA_NAME = "verifier_result"
# Structural failures code enforces over the model's judgement.
ENFORCED_RULES: frozenset[str] = frozenset({NO_EVIDENCE, RUNBOOK_AS_FACT, SCOPE})


class LLMVerifier(LLMRole):
    """``verify(verifier_input, plan) -> VerifierResult``, judged by a model, bounded by code."""

    role = "verifier"

    def verify(self, verifier_input: VerifierInput, plan: Plan) -> VerifierResult:
        """The model's per-claim judgements, corrected by the structural rules and the verdict
        rule. An unusable answer (after one re-ask) raises ``LLMCallError``."""
        messages = [wire.system_message(self.prompt.text),
                    wire.user_message(self._task(verifier_input))]
        judged, status = request_structured(self._complete, messages, VerifierResult,
                                            name=SCHEMA_NAME, profile=self.profile)
        if judged is None:
            raise unusable_answer(status, self.role)
        claims = verifier_input.executor_structured_output.claims
        claim_results = enforce_structure(claims, judged.claim_results, verifier_input, plan)
        corrected = judged.model_copy(update={"claim_results": claim_results,
                                              "reasons": [*judged.reasons,
                                                          f"judged by the llm verifier "
                                                          f"({self.prompt.prompt_id})"]})
        return final_verdict(verifier_input.gatekeeper_result, corrected,
                             claim_ids=[claim.claim_id for claim in claims])

    def _task(self, verifier_input: VerifierInput) -> str:
        return (f"Verifier input:\n{verifier_input.model_dump_json()}\n\n"
                f"{output_instructions(VerifierResult, self.profile)}")


def enforce_structure(claims: list[Claim], model_results: list[ClaimResult],
                      verifier_input: VerifierInput, plan: Plan) -> list[ClaimResult]:
    """One result per executor claim, in claim order: the model's judgement, overruled by a
    structural failure; claims the model skipped are not entailed."""
    by_id = {result.claim_id: result for result in model_results}
    checked_by_claim: dict[str, list[CheckedBinding]] = {}
    for checked in verifier_input.gatekeeper_result.checked_bindings:
        if checked.claim_id is not None:
            checked_by_claim.setdefault(checked.claim_id, []).append(checked)
    results: list[ClaimResult] = []
    for claim in claims:
        model = by_id.get(claim.claim_id)
        if model is None:
            results.append(ClaimResult(
                claim_id=claim.claim_id, claim_type=claim.claim_type, claim_text=claim.claim_text,
                entailed=False, rule="verifier.not_judged",
                reasons=["the verifier model returned no judgement for this claim"]))
            continue
        result = model.model_copy(update={"claim_type": claim.claim_type,
                                          "claim_text": claim.claim_text})
        structural = judge_claim(claim, checked_by_claim.get(claim.claim_id, []), plan, None)
        if structural.rule in ENFORCED_RULES:
            result = result.model_copy(update={
                "entailed": False, "rule": structural.rule,
                "reasons": [*structural.reasons,
                            *(f"model: {reason}" for reason in model.reasons)]})
        elif result.entailed:
            result = result.model_copy(update={"rule": None})
        results.append(result)
    return results
