"""Every rule the verifier can report, with what it does to the verdict.

A rule names why a claim, a recommended action or a gap (``missing_info``) was not passed.
Forbidden content -- something the question excluded, runbook text stated as current fact, a
repair where only evidence gathering is allowed -- grades ``REJECT``: it contaminates the
answer, the grade the seed gives forged evidence. Everything else grades ``LOW_CONFID``: the
output over-reached, but nothing was forged. ``docs/verifier-rules.md`` documents each rule (a
test keeps the two in step). Both engines (rules and llm) report only these names.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from core.contracts import ClaimResult, Verdict

VerifierRuleName = Literal[
    "verifier.scope",
    "verifier.runbook_as_fact",
    "verifier.repair_action",
    "verifier.missing_field",
    "verifier.unsupported_root_cause",
    "verifier.wrong_role",
    "verifier.unsupported_fact",
    "verifier.no_verified_evidence",
    "verifier.not_judged",
    "verifier.action_unfounded",
    "verifier.gap_asserts_state",
    "verifier.step_withheld",
]
# What the rule applies to: a claim, or a next step (recommended action or missing_info).
RuleTarget = Literal["claim", "step"]


@dataclass(frozen=True)
class VerifierRule:
    """A named judgement and the verdict it allows at best when it fires."""

    name: VerifierRuleName
    grade: Verdict
    target: RuleTarget
    description: str


SCOPE: VerifierRuleName = "verifier.scope"
RUNBOOK_AS_FACT: VerifierRuleName = "verifier.runbook_as_fact"
REPAIR_ACTION: VerifierRuleName = "verifier.repair_action"
MISSING_FIELD: VerifierRuleName = "verifier.missing_field"
UNSUPPORTED_ROOT_CAUSE: VerifierRuleName = "verifier.unsupported_root_cause"
WRONG_ROLE: VerifierRuleName = "verifier.wrong_role"
UNSUPPORTED_FACT: VerifierRuleName = "verifier.unsupported_fact"
NO_EVIDENCE: VerifierRuleName = "verifier.no_verified_evidence"
NOT_JUDGED: VerifierRuleName = "verifier.not_judged"
ACTION_UNFOUNDED: VerifierRuleName = "verifier.action_unfounded"
GAP_ASSERTS_STATE: VerifierRuleName = "verifier.gap_asserts_state"
STEP_WITHHELD: VerifierRuleName = "verifier.step_withheld"

# In order of seriousness: when an item breaks several rules, the first is its rule.
_ALL: tuple[VerifierRule, ...] = (
    VerifierRule(SCOPE, "REJECT", "claim",
                 "The claim is about a subject the question excluded, or a service or topic "
                 "outside the question's scope."),
    VerifierRule(RUNBOOK_AS_FACT, "REJECT", "claim",
                 "A claim states runbook text (lookup_knowledge) as current state: only a runbook "
                 "supports it and it states no value the runbook does not hold, or a fact or a "
                 "sentence of it is found only in runbook text."),
    VerifierRule(REPAIR_ACTION, "REJECT", "step",
                 "A recommended action (or a missing_info entry) is a repair (restart, roll "
                 "back, scale, raise a limit, delete, kill, fix ...) where only evidence "
                 "gathering is allowed."),
    VerifierRule(MISSING_FIELD, "LOW_CONFID", "claim",
                 "A required field is missing: the claim's claim_type, or a binding's tool_name."),
    VerifierRule(UNSUPPORTED_ROOT_CAUSE, "LOW_CONFID", "claim",
                 "A cause or diagnosis (root cause, leak, 导致 ...) no verified excerpt states, or "
                 "a root_cause / risk claim whose excerpts only show symptoms."),
    VerifierRule(WRONG_ROLE, "LOW_CONFID", "claim",
                 "A value is in the verified evidence, but not in the role the claim gives it: a "
                 "threshold stated as the current value, an old sample as the current one, used "
                 "and total swapped, a duration in another unit, another subject's value."),
    VerifierRule(UNSUPPORTED_FACT, "LOW_CONFID", "claim",
                 "A number, time, identifier, state, negation or sentence of the claim is not in "
                 "any verified excerpt or matched ref of the claim."),
    VerifierRule(NO_EVIDENCE, "LOW_CONFID", "claim",
                 "No binding of the claim passed the gatekeeper (for a negative observation: no "
                 "verified no-hit invocation), or the only ones that did cite runbook text that "
                 "holds none of the claim's values."),
    VerifierRule(NOT_JUDGED, "LOW_CONFID", "claim",
                 "The verifier returned no judgement for the claim."),
    VerifierRule(ACTION_UNFOUNDED, "LOW_CONFID", "step",
                 "A recommended action does not follow from the claims or the missing "
                 "information: it names a service or topic none of them is about, or gathers "
                 "nothing."),
    VerifierRule(GAP_ASSERTS_STATE, "LOW_CONFID", "step",
                 "A missing_info entry (or an action) asserts current state or a diagnosis "
                 "(\"内存泄漏已确认\", \"the leak is confirmed\") instead of naming what is missing."),
    VerifierRule(STEP_WITHHELD, "PASS", "step",
                 "A next step mentions a subject the question excluded (不要分析原因 and a gap "
                 "naming a cause): it is kept out of the answer, and the verdict is not lowered "
                 "-- a gap or an evidence-gathering action is not a finding."),
)

_SEVERITY: dict[str, int] = {"REJECT": 0, "LOW_CONFID": 1, "PASS": 2}
RULES: dict[str, VerifierRule] = {rule.name: rule for rule in _ALL}


def is_rule(name: str | None) -> bool:
    """Whether ``name`` is a registered verifier rule."""
    return name in RULES


def most_serious(names: set[str]) -> VerifierRuleName | None:
    """Of the rules that fired, the one that names the item: the worst grade first, then the
    order above (None when none did)."""
    fired = [rule for rule in _ALL if rule.name in names]
    if not fired:
        return None
    return min(fired, key=lambda rule: _SEVERITY[rule.grade]).name


def grade(name: str | None) -> Verdict:
    """The best verdict an item failed by ``name`` allows (an unknown rule: LOW_CONFID)."""
    rule = RULES.get(name) if name is not None else None
    return rule.grade if rule is not None else "LOW_CONFID"


def not_judged(claim_id: str, *, by: str = "the verifier") -> ClaimResult:
    """The result of a claim a verifier returned no judgement for: not entailed."""
    return ClaimResult(claim_id=claim_id, entailed=False, rule=NOT_JUDGED, rules=[NOT_JUDGED],
                       reasons=[f"{by} returned no judgement for this claim"])
