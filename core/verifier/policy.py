"""The always-on policy over a whole executor output, for any verifier engine.

``judge(verifier_input, plan)`` reads the gatekeeper-verified evidence once and judges every
claim (``core.verifier.claims``) and every next step (``core.verifier.steps``). The rules
engine's verdict is exactly this; the llm engine's verdict is the model's judgement bounded by
it (``bound``): a model may fail more, never pass what the policy fails.
"""

from __future__ import annotations

from collections.abc import Sequence

from core.contracts import CheckedBinding, Claim, ClaimResult, Plan, StepResult, VerifierInput
from core.language.lexicon import alert_names_in
from core.language.subjects import services_mentioned
from core.verifier.claims import judge_claim
from core.verifier.evidence import Evidence
from core.verifier.negatives import contradictions, refused
from core.verifier.rules import UNSUPPORTED_FACT, is_rule, not_judged
from core.verifier.steps import judge_steps


def judge(verifier_input: VerifierInput, plan: Plan) -> tuple[list[ClaimResult], list[StepResult]]:
    """Every claim's and every step's judgement under the policy, in output order."""
    output = verifier_input.executor_structured_output
    gatekeeper = verifier_input.gatekeeper_result
    evidence = Evidence(verifier_input, extra_subjects=[
        *plan.services, *(s for claim in output.claims for s in claim.subject_services)])
    allowed = allowed_services(plan, gatekeeper.checked_bindings)
    claim_results = [judge_claim(claim, evidence, plan, allowed) for claim in output.claims]
    claim_results = [_against_session(claim, result, evidence, verifier_input)
                     for claim, result in zip(output.claims, claim_results, strict=True)]
    entailed = {result.claim_id for result in claim_results if result.entailed}
    step_results = judge_steps(output, plan, claim_texts=[
        claim.claim_text for claim in output.claims if claim.claim_id in entailed])
    return claim_results, step_results


def _against_session(claim: Claim, result: ClaimResult, evidence: Evidence,
                     verifier_input: VerifierInput) -> ClaimResult:
    """A negative observation is also judged against the rest of its session."""
    if claim.claim_type != "negative_observation":
        return result
    negative = [item for item in evidence.for_claim(claim.claim_id) if item.negative]
    tools = {invocation: entry.tool_name for entry in verifier_input.tool_trace_summary
             for invocation in entry.source_invocation_ids}
    return refused(result, contradictions(claim.claim_text, negative, evidence.items,
                                          verifier_input.invocation_refs, verifier_input.invocation_arguments,
                                          tools))


def allowed_services(plan: Plan, checked: Sequence[CheckedBinding]) -> set[str] | None:
    """Services a claim may be about: the plan's, plus those the evidence ties to the plan's
    alert names (``HighCPUUsage ... service=payment-service``); ``None`` means unrestricted."""
    if not plan.services and not plan.alert_names:
        return None
    allowed = set(plan.services)
    for binding in checked:
        # The ref at the cited path, not only the quote: a quote of the alert's summary or of
        # ``current=92%, threshold=80%`` is still that alert's.
        text = binding.matched_text or binding.evidence_excerpt
        if binding.status == "pass" and alert_names_in(text, plan.alert_names):
            allowed.update(services_mentioned(text))
    return allowed


def bound(policy: Sequence[ClaimResult], model: Sequence[ClaimResult]) -> list[ClaimResult]:
    """One result per policy result (claim order): the model's judgement, overruled where the
    policy fails the claim; a claim the model did not judge is not entailed."""
    by_id = {result.claim_id: result for result in model}
    results: list[ClaimResult] = []
    for judged in policy:
        said = by_id.get(judged.claim_id)
        if said is None:
            results.append(not_judged(judged.claim_id, by="the verifier model").model_copy(
                update={"claim_type": judged.claim_type, "claim_text": judged.claim_text}))
            continue
        model_reasons = [f"model: {reason}" for reason in said.reasons]
        if not judged.entailed:
            results.append(judged.model_copy(update={"reasons": [*judged.reasons, *model_reasons]}))
        elif not said.entailed:
            rule = said.rule if is_rule(said.rule) else UNSUPPORTED_FACT
            results.append(judged.model_copy(update={
                "entailed": False, "rule": rule, "rules": [rule],
                "reasons": model_reasons or ["the verifier model judged it not entailed"]}))
        else:
            results.append(judged.model_copy(update={"reasons": [*judged.reasons, *model_reasons]}))
    return results
