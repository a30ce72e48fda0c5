"""The outcome of a session: what was found, as a person reads it (DESIGN.md section 10).

Computed in one place, after the verifier (and again whenever the verdict changes):

- ``found``: the verdict is PASS and a verified observation answers the question;
- ``absent``: the verdict is PASS and every verified claim is a negative observation (a query
  that covered the question's terms returned nothing), or, for a question about an alert
  state ("is X firing?"), the observations only show alerts in other states (X pending) next
  to the verified absence of the state asked (``answers_state``);
- ``unknown_subject``: the question names a service or alert the data lacks, and nothing was
  claimed about anything else;
- ``not_understood``: nothing in the question could be searched (no service, alert, symptom or
  search term), so nothing was;
- ``rejected``: the verdict is REJECT (a citation was fabricated or does not say what was
  claimed) and neither of the two above explains it;
- ``error``: the run failed (``closing_outcome``: the session's status is ``error``);
- ``None``: no grounded answer for another reason (LOW_CONFID evidence, a killed run).

Only ``found`` and ``absent`` go with PASS; a PASS can never carry another outcome. Before
``rejected`` and ``error`` existed a rejected or failed session had no outcome at all, so the
Sessions list and ``sessions list`` showed nothing for exactly the sessions a reviewer looks
for; ``stored_outcome`` gives rows stored then theirs as they are read.
"""

from __future__ import annotations

from core.contracts import Claim, ExecutorOutput, Outcome, Plan, VerifierResult
from core.tools.refs import alert_ref_state


def answers_state(claim: Claim, plan: Plan | None) -> bool:
    """Whether an observation answers a question about an alert state: it cites an alert in
    a state the question asks about (its citations' alert ref heads, ``<name> <state>, ...``).
    Any observation answers a question that asks about no state, and so does one citing no
    alert."""
    if plan is None or not plan.reading.alert_states:
        return True
    asked = {state.casefold() for state in plan.reading.alert_states}
    states = [found[1].casefold() for binding in claim.evidence_bindings
              if binding.tool_name == "query_metrics" and binding.raw_path
              and (found := alert_ref_state(binding.evidence_excerpt)) is not None]
    return not states or bool(asked & set(states))


def session_outcome(plan: Plan | None, output: ExecutorOutput | None,
                    verifier_result: VerifierResult | None) -> Outcome | None:
    """The outcome of a session from its plan, executor output and (final) verifier result."""
    claims = output.claims if output is not None else []
    if verifier_result is not None and verifier_result.verdict == "PASS" and claims:
        entailed = {result.claim_id for result in verifier_result.claim_results if result.entailed}
        verified = [claim for claim in claims if claim.claim_id in entailed]
        absences = [claim for claim in verified if claim.claim_type == "negative_observation"]
        findings = [claim for claim in verified if claim.claim_type != "negative_observation"]
        if any(answers_state(claim, plan) for claim in findings):
            return "found"
        if absences or findings:
            return "absent" if absences else "found"
    rejected: Outcome | None = ("rejected" if verifier_result is not None
                                and verifier_result.verdict == "REJECT" else None)
    if plan is None or claims:
        return rejected
    if plan.reading.unknown_subjects:
        return "unknown_subject"
    if not plan.reading.searchable:
        return "not_understood"
    return rejected


def closing_outcome(status: str, outcome: Outcome | None) -> Outcome | None:
    """The outcome stored when a session closes with ``status``: the computed one for a
    completed session, ``error`` for a failed run, none for any other end (killed, running)."""
    if status == "completed":
        return outcome
    return "error" if status == "error" else None


def stored_outcome(*, status: str, verdict: str | None, outcome: Outcome | None) -> Outcome | None:
    """The outcome of a stored row: its own, or, for a row stored before ``rejected`` and
    ``error`` existed, the one its status and verdict imply."""
    if status == "error":
        return "error"
    if status != "completed":
        return None
    if outcome is None and verdict == "REJECT":
        return "rejected"
    return outcome
