"""``tool_trace_summary`` (docs/design.md §7): a navigation overview of a session's tool calls.

It tells the verifier and the auditor what was looked at and what came back empty. It is never
evidence: the verifier judges claims from gatekeeper-verified excerpts only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from core.contracts import Invocation, TraceSummaryEntry
from core.tools.spec import is_reference_tool, summary_label

_MAX_SUMMARY_REFS = 5


def is_failed(invocation: Invocation) -> bool:
    """Whether the call failed: its output says ``success: false`` or its refs say ``error``."""
    details = invocation.retrieval_details
    return invocation.output.get("success") is False or (
        details is not None and details.evidence_status == "error")


def failure_line(invocation: Invocation) -> str | None:
    """``<source>: <why>`` of a failed call, ``None`` for a call that succeeded."""
    if not is_failed(invocation):
        return None
    reason = " ".join(str(invocation.output.get("error") or "the call failed").split())
    return f"{invocation.source}: {reason}" if invocation.source else reason


def build_trace_summary(invocations: Sequence[Invocation]) -> list[TraceSummaryEntry]:
    """One entry per tool, in order of first call. Hits of a reference-only tool (runbooks) are
    ``indirect`` at best; failed calls are counted and described apart from calls that found
    nothing."""
    by_tool: dict[str, list[Invocation]] = {}
    for invocation in invocations:
        by_tool.setdefault(invocation.tool_name, []).append(invocation)
    entries: list[TraceSummaryEntry] = []
    for number, (tool_name, group) in enumerate(by_tool.items(), start=1):
        texts: list[str] = []
        no_hit = 0
        failures: list[str] = []
        for invocation in group:
            failed = failure_line(invocation)
            if failed is not None:
                failures.append(failed)
                continue
            details = invocation.retrieval_details
            refs = details.evidence_refs if details else []
            if not refs:
                no_hit += 1
            texts.extend(ref.text for ref in refs)
        level: Literal["direct", "indirect", "none"] = (
            "none" if not texts else "indirect" if is_reference_tool(tool_name) else "direct")
        shown = " | ".join(text.splitlines()[0][:160] for text in texts[:_MAX_SUMMARY_REFS])
        more = f" (+{len(texts) - _MAX_SUMMARY_REFS} more)" if len(texts) > _MAX_SUMMARY_REFS else ""
        label = summary_label(tool_name)
        summary = f"{label}: {shown}{more}" if texts else f"{label}: none"
        if failures:
            summary += f" ({len(failures)} call(s) failed: {failures[0][:160]})"
        entries.append(TraceSummaryEntry(
            trace_ref=f"trace-{number}", tool_name=tool_name,
            source_invocation_ids=[i.invocation_id for i in group], evidence_level=level,
            output_summary=summary, invocation_count=len(group), no_hit_invocation_count=no_hit,
            failed_invocation_count=len(failures), failures=failures))
    return entries
