"""The final verdict rule (docs/design.md §6), enforced in code after any verifier.

A verifier (rules or llm) judges claims; this module decides what those judgements are worth:

- gatekeeper severity ``reject``      -> REJECT (a forged citation poisons the whole output);
- gatekeeper severity ``low_confid``  -> LOW_CONFID (evidence missing, never PASS);
- otherwise PASS only when there is at least one claim, every claim is entailed and every
  next step (recommended action, ``missing_info``) passed;
- a claim or step that failed by a rule graded REJECT (``core.verifier.rules``) -> REJECT: it
  stated something the question excluded (``verifier.scope``), presented runbook text as
  current fact (``verifier.runbook_as_fact``) or recommended a repair where only evidence
  gathering is allowed (``verifier.repair_action``). That is contamination of the answer, the
  same grade forged evidence gets;
- any other failed claim or step (a fact not entailed or in the wrong role, a root cause
  without direct evidence, an action that does not follow, a gap that concludes) ->
  LOW_CONFID: the output over-reached, but nothing was forged;
- a source that failed during the session (a server down, a timeout, a partial answer:
  ``source_failures``) -> never PASS: what it would have said is unknown, so no answer that
  needed it is complete (``withdraw_pass``, applied by the pipeline after the verifier).

``groundedness_score`` = entailed claims / all claims (0.0 without claims). The verdict is the
stricter of this rule and the verifier's own verdict: a verifier may be stricter than the rule,
never more lenient, so it can never turn a gatekeeper failure into PASS.
"""

from __future__ import annotations

from collections.abc import Sequence

from core.contracts import (
    ClaimResult,
    GatekeeperResult,
    Invocation,
    StepResult,
    Verdict,
    VerifierResult,
)
from core.verifier.rules import grade, not_judged

_STRICTNESS: dict[str, int] = {"PASS": 0, "LOW_CONFID": 1, "REJECT": 2}


def stricter(first: Verdict, second: Verdict) -> Verdict:
    """The stricter of two verdicts (REJECT > LOW_CONFID > PASS)."""
    return first if _STRICTNESS[first] >= _STRICTNESS[second] else second


def groundedness(claim_results: Sequence[ClaimResult]) -> float:
    """Entailed claims / all claims, rounded to 4 places; 0.0 when there are no claims."""
    if not claim_results:
        return 0.0
    return round(sum(1 for result in claim_results if result.entailed) / len(claim_results), 4)


def rule_verdict(gatekeeper: GatekeeperResult, claim_results: Sequence[ClaimResult],
                 step_results: Sequence[StepResult] = ()) -> tuple[Verdict, str]:
    """The verdict the rule gives, and the reason for it."""
    if gatekeeper.severity == "reject":
        return "REJECT", "gatekeeper rejected the citations: " + _rules_text(gatekeeper)
    if gatekeeper.severity == "low_confid" or gatekeeper.status == "fail":
        return "LOW_CONFID", "gatekeeper could not verify the citations: " + _rules_text(gatekeeper)
    if not claim_results:
        return "LOW_CONFID", "no claims to verify"
    failed = [(r.claim_id, r.rule) for r in claim_results if not r.entailed]
    # A withheld step (graded PASS) is kept out of the answer without lowering the verdict.
    failed_steps = [(r.step_id, r.rule) for r in step_results if not r.passed and grade(r.rule) != "PASS"]
    forbidden = [(item, rule) for item, rule in [*failed, *failed_steps] if grade(rule) == "REJECT"]
    if forbidden:
        return "REJECT", f"forbidden content: {_names(forbidden)}"
    if failed:
        return "LOW_CONFID", f"claims not entailed by verified evidence: {_names(failed)}"
    if failed_steps:
        return "LOW_CONFID", f"next steps that did not pass: {_names(failed_steps)}"
    return "PASS", "every claim is entailed by gatekeeper-verified excerpts"


def _names(items: Sequence[tuple[str, str | None]]) -> str:
    return ", ".join(f"{item} ({rule or 'not entailed'})" for item, rule in items)


def final_verdict(gatekeeper: GatekeeperResult, verifier: VerifierResult, *,
                  claim_ids: Sequence[str] | None = None) -> VerifierResult:
    """Apply the verdict rule to a verifier's result and return the corrected result.

    ``claim_ids`` (the executor's claims, when known) makes a claim the verifier did not judge
    count as not entailed, so a verifier cannot raise groundedness by skipping claims.
    """
    claim_results = list(verifier.claim_results)
    if claim_ids is not None:
        judged = {result.claim_id for result in claim_results}
        claim_results += [not_judged(claim_id) for claim_id in claim_ids if claim_id not in judged]
    verdict, reason = rule_verdict(gatekeeper, claim_results, verifier.step_results)
    final = stricter(verdict, verifier.verdict)
    reasons = list(verifier.reasons)
    if reason not in reasons:
        reasons.append(reason)
    if final != verifier.verdict:
        reasons.append(f"verdict set to {final} by the verdict rule (verifier said {verifier.verdict})")
    return VerifierResult(verdict=final, groundedness_score=groundedness(claim_results),
                          claim_results=claim_results, step_results=verifier.step_results,
                          reasons=reasons)


def _rules_text(gatekeeper: GatekeeperResult) -> str:
    return ", ".join(gatekeeper.failed_rules) or gatekeeper.severity


def source_failures(invocations: Sequence[Invocation]) -> list[str]:
    """``<source>: <why>`` of every call whose source failed. Invalid calls (``failure:
    call``) and tools the world has no source for (``no_source``) are not source failures."""
    lines: list[str] = []
    for invocation in invocations:
        output, details = invocation.output, invocation.retrieval_details
        failed = output.get("success") is False or (details is not None
                                                    and details.evidence_status == "error")
        if not failed or output.get("failure") in ("call", "no_source"):
            continue
        reason = " ".join(str(output.get("error") or "the call failed").split())
        lines.append(f"{invocation.source or 'unknown source'}: {reason}")
    return list(dict.fromkeys(lines))


def withdraw_pass(result: VerifierResult, why: str) -> VerifierResult:
    """PASS becomes LOW_CONFID, saying why: a model step failed, so nobody can vouch for it."""
    if result.verdict != "PASS":
        return result
    return result.model_copy(update={"verdict": "LOW_CONFID",
                                     "reasons": [*result.reasons, f"PASS withdrawn: {why}"]})
