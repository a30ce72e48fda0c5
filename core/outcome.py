"""The outcome of a session: what was found, as a person reads it (DESIGN.md section 10).

Computed in one place, after the verifier (and again whenever the verdict changes):

- ``found``: the verdict is PASS and a verified observation answers the question;
- ``absent``: the verdict is PASS and every verified claim is a negative observation (a query
  that covered the question's terms returned nothing);
- ``unknown_subject``: the question names a service or alert the data lacks, and nothing was
  claimed about anything else;
- ``not_understood``: nothing in the question could be searched (no service, alert, symptom or
  search term), so nothing was;
- ``None``: no grounded answer (a verdict other than PASS for another reason, an error).

Only ``found`` and ``absent`` go with PASS; a PASS can never carry another outcome.
"""

from __future__ import annotations

from core.contracts import ExecutorOutput, Outcome, Plan, VerifierResult


def session_outcome(plan: Plan | None, output: ExecutorOutput | None,
                    verifier_result: VerifierResult | None) -> Outcome | None:
    """The outcome of a session from its plan, executor output and (final) verifier result."""
    claims = output.claims if output is not None else []
    if verifier_result is not None and verifier_result.verdict == "PASS" and claims:
        entailed = {result.claim_id for result in verifier_result.claim_results if result.entailed}
        verified = [claim for claim in claims if claim.claim_id in entailed]
        if any(claim.claim_type != "negative_observation" for claim in verified):
            return "found"
        if verified:
            return "absent"
    if plan is None or claims:
        return None
    if plan.unknown_subjects:
        return "unknown_subject"
    if not plan.searchable:
        return "not_understood"
    return None
