"""The repair turn: which failures of an executor attempt the executor may fix, and what it is
told about them (the seed's ``retry_context``).

An attempt that did not PASS earns one repair turn when every failure is one a model can fix by
citing better: a citation the gatekeeper failed (a wrong index, a paraphrased quote, a wrong
invocation id or tool, a missing raw_path or invocation id, a quote too short, a negative
observation citing a query that does not cover it, a claim without bindings) or a claim fact
the verifier found unsupported or in the wrong role (``约 4GB`` for 3.8GB, the threshold as the
current value), or a required field left out. Anything else -- forbidden content (an excluded
subject, runbook text stated as fact, a repair action), a cause no evidence states, a next step
that did not pass, an output that did not parse, a record that cannot be checked -- is not
offered a repair: the attempt stands as judged, so a model is never coached into hiding
over-reach. ``docs/llm.md`` ("The repair turn") describes the whole exchange.
"""

from __future__ import annotations

from collections.abc import Sequence

from core.contracts import (
    CheckedBinding,
    Claim,
    ClaimResult,
    EvidenceBinding,
    ExecutorOutput,
    GatekeeperResult,
    Invocation,
    RetryContext,
    RetryFinding,
    VerifierResult,
)
from core.gatekeeper import negative
from core.gatekeeper import rules as gate
from core.language.quotes import match_excerpt
from core.tools.spec import is_reference_tool
from core.verifier import rules as verifier
from core.verifier.rules import grade

# Gatekeeper rules a better citation fixes. Not: output_incomplete (the schema re-ask already
# ran), refs_missing (a legacy record nobody can cite), the back-fill warning.
FIXABLE_GATE_RULES: frozenset[str] = frozenset({
    gate.INVOCATION_REF, gate.INVOCATION_SESSION, gate.TOOL_MISMATCH, gate.RAW_PATH,
    gate.EXCERPT_MISMATCH, gate.NEGATIVE_MISMATCH, gate.NO_BINDINGS, gate.RAW_PATH_MISSING,
    gate.EXCERPT_TOO_SHORT, gate.INVOCATION_MISSING,
})
# Verifier rules a claim that says what its evidence says fixes: those declared repairable in
# core/verifier/rules.py.
FIXABLE_VERIFIER_RULES: frozenset[str] = frozenset(
    name for name, rule in verifier.RULES.items() if rule.repairable)
# At most this many places are suggested for a quote found elsewhere.
_MAX_FOUND_AT = 3


def retry_context(output: ExecutorOutput | None, invocations: Sequence[Invocation],
                  gatekeeper: GatekeeperResult, result: VerifierResult, *,
                  attempt: int = 1) -> RetryContext | None:
    """What to tell the executor about ``attempt``, or None when it earns no repair turn (it
    passed, or one of its failures is not fixable; see the module docstring)."""
    if result.verdict == "PASS" or output is None or not _all_fixable(gatekeeper, result):
        return None
    by_id = {invocation.invocation_id: invocation for invocation in invocations}
    findings = [_binding_finding(output, checked, by_id, invocations)
                for checked in gatekeeper.checked_bindings if _failed(checked)]
    findings += [RetryFinding(claim_id=issue.claim_id, rule=issue.rule, message=issue.message,
                              claim_text=_claim_text(output, issue.claim_id))
                 for issue in gatekeeper.errors if issue.rule == gate.NO_BINDINGS]
    # A claim whose failed bindings are named above is not named again for having no verified
    # evidence; anything else it failed (a missing claim_type, a value) is.
    explained = {finding.claim_id for finding in findings}
    findings += [_claim_finding(output, claim_result, gatekeeper)
                 for claim_result in result.claim_results
                 if not claim_result.entailed and (
                     claim_result.claim_id not in explained
                     or set(claim_result.rules) - {verifier.NO_EVIDENCE})]
    if not findings:
        return None
    return RetryContext(attempt=attempt, verdict=result.verdict,
                        failed_rules=list(dict.fromkeys(finding.rule for finding in findings)),
                        findings=findings)


def _failed(checked: CheckedBinding) -> bool:
    """A binding that lowered the grade (a graded-down warning does not)."""
    return checked.status == "fail" and checked.severity != "none"


def _all_fixable(gatekeeper: GatekeeperResult, result: VerifierResult) -> bool:
    if any(rule not in FIXABLE_GATE_RULES for rule in gatekeeper.failed_rules):
        return False
    for claim_result in result.claim_results:
        if claim_result.entailed:
            continue
        rules = claim_result.rules or [claim_result.rule or verifier.UNSUPPORTED_FACT]
        if any(rule not in FIXABLE_VERIFIER_RULES for rule in rules):
            return False
    return all(step.passed or grade(step.rule) == "PASS" for step in result.step_results)


def _binding_finding(output: ExecutorOutput, checked: CheckedBinding,
                     by_id: dict[int, Invocation],
                     invocations: Sequence[Invocation]) -> RetryFinding:
    cited = _cited(output, checked)
    invocation = by_id.get(cited.source_invocation_id) if cited.source_invocation_id else None
    ref_text = checked.matched_text
    if invocation is not None and cited.raw_path and invocation.retrieval_details is not None:
        ref_text = next((ref.text for ref in invocation.retrieval_details.evidence_refs
                         if ref.raw_path == cited.raw_path), ref_text)
    claim = next((claim for claim in output.claims if claim.claim_id == checked.claim_id
                  and claim.claim_type == "negative_observation"), None)
    return RetryFinding(
        claim_id=checked.claim_id, action_id=checked.action_id,
        binding_index=checked.binding_index, rule=checked.rule or gate.EXCERPT_MISMATCH,
        message=checked.message, claim_text=_claim_text(output, checked.claim_id),
        cited=cited, ref_text=ref_text,
        found_at=(_no_hits_for(claim, cited, invocations) if claim is not None
                  else _found_at(cited, invocations)))


def _cited(output: ExecutorOutput, checked: CheckedBinding) -> EvidenceBinding:
    """The binding as the executor wrote it (the checked copy may have been back-filled)."""
    owners = ([claim.evidence_bindings for claim in output.claims if claim.claim_id == checked.claim_id]
              if checked.claim_id is not None else
              [action.evidence_bindings for action in output.recommended_actions
               if action.action_id == checked.action_id])
    for bindings in owners:
        if 0 <= checked.binding_index < len(bindings):
            return bindings[checked.binding_index]
    return EvidenceBinding(tool_name=checked.tool_name,
                           source_invocation_id=checked.source_invocation_id,
                           raw_path=checked.raw_path, evidence_excerpt=checked.evidence_excerpt)


def _found_at(cited: EvidenceBinding, invocations: Sequence[Invocation]) -> list[EvidenceBinding]:
    """Refs of the session that do support the cited excerpt, other than the cited place."""
    if not cited.evidence_excerpt.strip():
        return []
    found: list[EvidenceBinding] = []
    for invocation in invocations:
        details = invocation.retrieval_details
        for ref in details.evidence_refs if details is not None else []:
            if (invocation.invocation_id, ref.raw_path) == (cited.source_invocation_id,
                                                             cited.raw_path):
                continue
            if match_excerpt(cited.evidence_excerpt, ref.text).ok:
                found.append(EvidenceBinding(tool_name=invocation.tool_name,
                                             source_invocation_id=invocation.invocation_id,
                                             raw_path=ref.raw_path, evidence_excerpt=ref.text))
                if len(found) >= _MAX_FOUND_AT:
                    return found
    return found


def _no_hits_for(claim: Claim, cited: EvidenceBinding,
                 invocations: Sequence[Invocation]) -> list[EvidenceBinding]:
    """For a negative observation: the session's no-hit queries that show its absence -- those
    whose every argument the cited excerpt names (``query_logs(service=…, query=HikariCP)``
    cited under a wrong id) first, then any that covers the claim's subject by itself."""
    named: list[EvidenceBinding] = []
    covering: list[EvidenceBinding] = []
    for invocation in invocations:
        arguments = [f"{key}={value}" for key, value in invocation.arguments.items()]
        if (invocation.invocation_id == cited.source_invocation_id or not arguments
                or invocation.retrieval_details is None or negative.evidence_problem(invocation)):
            continue
        place = EvidenceBinding(tool_name=invocation.tool_name,
                                source_invocation_id=invocation.invocation_id,
                                raw_path=None, evidence_excerpt=negative.describe(invocation))
        if all(argument in cited.evidence_excerpt for argument in arguments):
            named.append(place)
        elif not negative.coverage_problem(claim, invocation, [invocation]):
            covering.append(place)
    return [*named, *covering][:_MAX_FOUND_AT]


def _claim_finding(output: ExecutorOutput, claim_result: ClaimResult,
                   gatekeeper: GatekeeperResult) -> RetryFinding:
    # Current-state evidence only: a runbook's text is not what the claim may state.
    evidence = [checked.matched_text for checked in gatekeeper.checked_bindings
                if checked.claim_id == claim_result.claim_id and checked.status == "pass"
                and checked.matched_text and not is_reference_tool(checked.tool_name)]
    return RetryFinding(claim_id=claim_result.claim_id,
                        rule=claim_result.rule or verifier.UNSUPPORTED_FACT,
                        message="; ".join(claim_result.reasons),
                        claim_text=_claim_text(output, claim_result.claim_id),
                        evidence=list(dict.fromkeys(evidence)))


def _claim_text(output: ExecutorOutput, claim_id: str | None) -> str | None:
    return next((claim.claim_text for claim in output.claims if claim.claim_id == claim_id), None)
