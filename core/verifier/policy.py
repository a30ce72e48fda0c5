"""The always-on policy over a whole executor output, for any verifier engine.

``judge(verifier_input, plan)`` reads the gatekeeper-verified evidence once and judges every
claim (``core.verifier.claims``) and every next step (``core.verifier.steps``). The rules
engine's verdict is exactly this; the llm engine's verdict is the model's judgement bounded by
it (``bound``): a model may fail more, never pass what the policy fails.

What the verifier reads is capped (docs/bad-input.md): a claim longer than
``MAX_CLAIM_CHARS``, or past the first ``MAX_CLAIMS`` claims or ``MAX_OUTPUT_CLAIM_CHARS`` of
claim text, is not judged (``verifier.not_judged``, the reason names the limit) -- its reading
grows faster than its length in places, and no honest output comes near.
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

MAX_CLAIM_CHARS = 4_000  # one claim (the longest the engine writes is under 800)
MAX_CLAIMS = 200  # claims of one output
MAX_OUTPUT_CLAIM_CHARS = 100_000  # claim text of one output, all claims together


def judge(verifier_input: VerifierInput, plan: Plan) -> tuple[list[ClaimResult], list[StepResult]]:
    """Every claim's and every step's judgement under the policy, in output order."""
    output = verifier_input.executor_structured_output
    gatekeeper = verifier_input.gatekeeper_result
    over = over_limits(output.claims)
    read = [claim for index, claim in enumerate(output.claims) if index not in over]
    evidence = Evidence(verifier_input, extra_subjects=[
        *plan.services, *(s for claim in read for s in claim.subject_services)],
        unread_claims={claim.claim_id for claim in output.claims} - {claim.claim_id for claim in read})
    allowed = allowed_services(plan, gatekeeper.checked_bindings)
    claim_results = [judge_claim(claim, evidence, plan, allowed) if index not in over
                     else _not_read(claim, over[index]) for index, claim in enumerate(output.claims)]
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


def over_limits(claims: Sequence[Claim]) -> dict[int, str]:
    """Index -> why, of each claim the verifier does not read (the module docstring's caps)."""
    over: dict[int, str] = {}
    total = 0
    for index, claim in enumerate(claims):
        length = len(claim.claim_text)
        if length > MAX_CLAIM_CHARS:
            over[index] = (f"the claim is {length:,} characters long; the verifier reads claims "
                           f"of at most {MAX_CLAIM_CHARS:,}")
        elif index >= MAX_CLAIMS:
            over[index] = f"the output has {len(claims):,} claims; the verifier reads the first {MAX_CLAIMS:,}"
        elif total + length > MAX_OUTPUT_CLAIM_CHARS:
            over[index] = (f"the output's claims exceed {MAX_OUTPUT_CLAIM_CHARS:,} characters in all; "
                           "the verifier reads none past that")
        else:
            total += length
    return over


def _not_read(claim: Claim, why: str) -> ClaimResult:
    return not_judged(claim.claim_id).model_copy(update={
        "claim_type": claim.claim_type, "claim_text": claim.claim_text,
        "reasons": [f"not judged: {why} (docs/bad-input.md)"]})


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
