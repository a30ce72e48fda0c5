"""The repair turn's message: what failed in the executor's answer, in words and as JSON.

Built from the seed's ``retry_context`` (``core.repair.retry_context``): per failed binding,
what was cited, by which rule it failed and why, what the ref at that place actually says and
where the quote really is; per failed claim, the verifier's reasons and what its verified
evidence says. The prompt is ``core/prompts/repair.<version>.md``.
"""

from __future__ import annotations

from core.agents.llm.profiles import ModelProfile
from core.agents.llm.prompts import load_prompt
from core.agents.llm.structured import output_instructions
from core.contracts import EvidenceBinding, ExecutorOutput, RetryContext, RetryFinding

# Long ref texts (a runbook section) are cut in the prose; the JSON keeps them whole.
_MAX_QUOTE = 600


def repair_message(feedback: RetryContext, profile: ModelProfile) -> str:
    """The user message of the repair turn."""
    findings = "\n".join(describe_finding(finding) for finding in feedback.findings)
    return load_prompt("repair").render(
        verdict=feedback.verdict, findings=findings,
        instructions=output_instructions(ExecutorOutput, profile),
        retry_context=feedback.model_dump_json(exclude_none=True))


def describe_finding(finding: RetryFinding) -> str:
    """One finding as a few lines of prose."""
    owner = finding.claim_id or finding.action_id or "the output"
    lines: list[str] = []
    if finding.binding_index is not None and finding.cited is not None:
        lines.append(f"- {owner}, binding {finding.binding_index} ({_place(finding.cited)}) "
                     f"failed {finding.rule}: {finding.message}")
        lines.append(f"  You quoted: {_quote(finding.cited.evidence_excerpt)}")
        if finding.ref_text:
            lines.append(f"  The ref at that place says: {_quote(finding.ref_text)}")
        for place in finding.found_at:
            lines.append(f"  Your quote is found at: {_place(place)}: "
                         f"{_quote(place.evidence_excerpt)}")
    else:
        text = f" ({_quote(finding.claim_text)})" if finding.claim_text else ""
        lines.append(f"- {owner}{text} failed {finding.rule}: {finding.message}")
        for evidence in finding.evidence:
            lines.append(f"  Its verified evidence says: {_quote(evidence)}")
    return "\n".join(lines)


def _place(binding: EvidenceBinding) -> str:
    return (f"tool_name {binding.tool_name or '(none)'}, source_invocation_id "
            f"{binding.source_invocation_id if binding.source_invocation_id is not None else '(none)'}, "
            f"raw_path {binding.raw_path or '(none)'}")


def _quote(text: str | None) -> str:
    text = (text or "").strip()
    if len(text) > _MAX_QUOTE:
        text = text[:_MAX_QUOTE] + " …"
    return f"«{text}»"
