"""The ``llm`` verifier: a model judges entailment; code decides what the judgement is worth.

The model sees exactly the verifier input (docs/design.md §5) and answers in the ``VerifierResult`` schema.
Then code, not the model, has the last word -- the always-on policy of ``core.verifier``,
the same the rules engine applies:

- every claim is judged by the policy (each fact in its role, runbook text, causes, scope,
  required fields); where the policy fails a claim, the model's PASS does not count; where the
  model fails a claim the policy passed, the model's (stricter) judgement stands;
- a claim the model did not judge, or judged under an id the executor never used, does not
  count as entailed;
- next steps (recommended actions, ``missing_info``) are judged by the policy only: a repair
  never passes, whatever the model said;
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
from core.agents.rules.verifier import RulesVerifier
from core.contracts import Plan, VerifierInput, VerifierResult
from core.verdict import final_verdict, withdraw_pass
from core.verifier import bound, judge

SCHEMA_NAME = "verifier_result"


class LLMVerifier(LLMRole):
    """``verify(verifier_input, plan) -> VerifierResult``, judged by a model, bounded by code."""

    role = "verifier"

    def verify(self, verifier_input: VerifierInput, plan: Plan) -> VerifierResult:
        """The model's per-claim judgements, bounded by the policy and the verdict rule. An
        unusable answer (after one re-ask) gives the rules verifier's judgement, never PASS
        (``_fallback``); a transport failure raises ``LLMCallError``."""
        messages = [wire.system_message(self.prompt.text),
                    wire.user_message(self._task(verifier_input))]
        notes: list[str] = []
        judged, status = request_structured(self._noting(notes), messages, VerifierResult,
                                            name=SCHEMA_NAME, profile=self.profile)
        if judged is None:
            return _fallback(verifier_input, plan, str(unusable_answer(status, self.role)), notes)
        claims = verifier_input.executor_structured_output.claims
        policy_claims, policy_steps = judge(verifier_input, plan)
        corrected = judged.model_copy(update={
            "claim_results": bound(policy_claims, judged.claim_results),
            "step_results": policy_steps,
            "reasons": [*judged.reasons, f"judged by the llm verifier ({self.prompt.prompt_id})",
                        *(f"llm endpoint: {note}" for note in notes)]})
        return final_verdict(verifier_input.gatekeeper_result, corrected,
                             claim_ids=[claim.claim_id for claim in claims])

    def _task(self, verifier_input: VerifierInput) -> str:
        return (f"Verifier input:\n{verifier_input.model_dump_json()}\n\n"
                f"{output_instructions(VerifierResult, self.profile)}")


def _fallback(verifier_input: VerifierInput, plan: Plan, failure: str, notes: list[str]) -> VerifierResult:
    """The rules verifier's judgement when the model's answer is there but unusable (a small
    model may answer with the schema itself): the session completes, saying why, and is never
    PASS -- the verifier the user chose did not judge it (as ``planner.fallback_plan`` and the
    composer's replacement). A transport failure is not forgiven: it fails the session."""
    judged = RulesVerifier().verify(verifier_input, plan)
    reason = f"the llm verifier's answer was not used, the rules verifier judged: {failure}"
    noted = judged.model_copy(update={"reasons": [*judged.reasons, reason,
                                                  *(f"llm endpoint: {note}" for note in notes)]})
    return withdraw_pass(noted, "the llm verifier gave no usable judgement")
