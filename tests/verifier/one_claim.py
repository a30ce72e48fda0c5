"""One observation judged by the rules verifier against refs the gatekeeper passed as quoted
whole: the harness the verifier's battery tests share (each gives its claims and refs)."""

from __future__ import annotations

from collections.abc import Sequence

from core.contracts import (
    CheckedBinding,
    Claim,
    ClaimResult,
    EvidenceBinding,
    ExecutorOutput,
    GatekeeperResult,
    Plan,
    VerifierInput,
)
from core.verifier import judge


def judge_observation(text: str, service: str, refs: Sequence[tuple[str, str]],
                      arguments: dict[str, object] | None = None) -> ClaimResult:
    """``text`` as an observation about ``service`` citing each ``(raw_path, ref)`` of one
    ``query_logs`` call (invocation 3, whose arguments are ``service`` and ``arguments``)."""
    bindings, checked = [], []
    for index, (path, ref) in enumerate(refs):
        bindings.append(EvidenceBinding(tool_name="query_logs", source_invocation_id=3, raw_path=path,
                                        evidence_excerpt=ref))
        checked.append(CheckedBinding(claim_id="claim-1", binding_index=index, tool_name="query_logs",
                                      source_invocation_id=3, raw_path=path, evidence_excerpt=ref, status="pass",
                                      matched_text=ref, match_kind="exact", spans=[(0, len(ref))]))
    claim = Claim(claim_id="claim-1", claim_type="observation", claim_text=text, evidence_bindings=bindings,
                  subject_services=[service])
    verifier_input = VerifierInput(
        original_query=f"what is wrong with {service}?", executor_structured_output=ExecutorOutput(claims=[claim]),
        gatekeeper_result=GatekeeperResult(status="pass", severity="none", checked_bindings=checked),
        invocation_arguments={3: {"service": service, **(arguments or {})}})
    return judge(verifier_input, Plan(question=verifier_input.original_query, services=[service]))[0][0]
