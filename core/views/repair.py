"""The repair turn as the Investigate page shows it: "repaired after 1 attempt" and what the
first attempt got wrong (``docs/llm.md``, "The repair turn").

Built from the view's superseded attempts (``InvestigationView.attempts``) and its final
verdict; pages only render what this returns.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.contracts import ExecutorAttempt, RetryFinding
from core.views.badges import Tone
from core.views.timeline import InvestigationView


@dataclass(frozen=True)
class AttemptFailures:
    """One superseded attempt: its verdict, the rules it failed, and one row per finding the
    executor was told about."""

    attempt: int
    verdict: str
    failed_rules: list[str]
    rows: list[dict[str, str]]


@dataclass(frozen=True)
class RepairSummary:
    """The headline ("repaired after 1 attempt"), its tone, and the earlier attempts."""

    headline: str
    tone: Tone
    attempts: list[AttemptFailures]


def repair_summary(view: InvestigationView) -> RepairSummary | None:
    """None for a session answered on the first attempt."""
    if not view.attempts:
        return None
    count = len(view.attempts)
    attempts = [_failures(attempt) for attempt in view.attempts]
    verdict = view.verdict
    tone: Tone
    if verdict == "PASS":
        headline, tone = f"repaired after {count} attempt{'s' * (count > 1)}", "green"
    elif verdict is None:
        headline = f"repair turn after {count} failed attempt{'s' * (count > 1)}"
        tone = "blue" if not view.finished else "gray"
    else:
        headline = (f"repair tried after {count} attempt{'s' * (count > 1)}: still {verdict}")
        tone = "amber" if verdict == "LOW_CONFID" else "red"
    return RepairSummary(headline, tone, attempts)


def _failures(attempt: ExecutorAttempt) -> AttemptFailures:
    feedback = attempt.feedback
    verdict = attempt.verifier_result.verdict if attempt.verifier_result else "?"
    return AttemptFailures(
        attempt=attempt.attempt, verdict=verdict,
        failed_rules=list(feedback.failed_rules) if feedback else [],
        rows=[_row(finding) for finding in feedback.findings] if feedback else [])


def _row(finding: RetryFinding) -> dict[str, str]:
    where = finding.claim_id or finding.action_id or ""
    if finding.binding_index is not None:
        where += f" #{finding.binding_index}"
    cited = finding.cited
    return {
        "where": where,
        "rule": finding.rule,
        "why": finding.message,
        "cited": (f"#{cited.source_invocation_id} {cited.raw_path or '(no raw_path)'}: "
                  f"{cited.evidence_excerpt}") if cited else (finding.claim_text or ""),
        "the evidence there says": finding.ref_text or " | ".join(finding.evidence),
        "found at": ", ".join(f"#{place.source_invocation_id} {place.raw_path}"
                              for place in finding.found_at),
    }
