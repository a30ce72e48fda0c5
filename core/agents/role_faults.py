"""Faults that keep every citation real and put what a claim says in the wrong place.

They are the mistakes a model in the executor's seat makes and the rules executor never does:
a value moved to another role (current and threshold swapped, the threshold or an old trend
sample given as the current value, used and total swapped), a duration in another unit, a
rounded value that changes it, a runbook sentence appended to a real claim, a repair as a
recommended action, a gap that concludes. Each finds its target by reading the claim's values
in their roles (``core.verifier.roles``), never by matching a particular sentence, so it works
on any claim that has such a value. Only the verifier can catch them: the gatekeeper passes
every citation. ``core.agents.faults`` registers them as fault modes.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from core.contracts import Claim, ExecutorOutput, Invocation, MissingInfo, RecommendedAction, Verdict

if TYPE_CHECKING:
    from core.agents.faults import FaultContext
    from core.verifier.roles import RoleFact

_DURATION_UNIT_SWAP = {"m": "s", "s": "m", "h": "m", "min": "s", "mins": "s", "minute": "second",
                       "minutes": "seconds", "seconds": "minutes", "second": "minute", "ms": "s",
                       "分钟": "秒", "秒": "分钟", "小时": "分钟", "d": "h", "天": "小时"}
_CAUSE_HEADER = re.compile(r"cause|原因", re.IGNORECASE)


def _copy(output: ExecutorOutput) -> ExecutorOutput:
    return output.model_copy(deep=True)


def _is_zh(context: FaultContext) -> bool:
    return context.plan.language == "zh"


def _facts(claim: Claim) -> list[RoleFact]:
    # Imported here: the CLI's parser lists the fault modes, and the verifier is heavy to load.
    from core.verifier.roles import read_claim

    return list(read_claim(claim.claim_text, known_subjects=claim.subject_services,
                           default_subjects=claim.subject_services).facts)


def _edit(output: ExecutorOutput, context: FaultContext,
          change: Callable[[Claim, list[RoleFact]], str | None]) -> ExecutorOutput:
    """Apply ``change`` (new claim text, or None) to the first claim it applies to."""
    faulty = _copy(output)
    for claim in faulty.claims:
        if claim.claim_type == "negative_observation":
            continue
        changed = change(claim, _facts(claim))
        if changed is not None and changed != claim.claim_text:
            claim.claim_text = changed
            context.injected.append(changed)
            return faulty
    return faulty


def _replaced(text: str, edits: list[tuple[int, int, str]]) -> str:
    for start, end, new in sorted(edits, reverse=True):
        text = text[:start] + new + text[end:]
    return text


def _first(facts: list[RoleFact], role: str, *, now: bool = False) -> RoleFact | None:
    return next((f for f in facts if f.role == role or (now and f.now and f.role == "value")), None)


def _value(text: str, fact: RoleFact) -> str:
    return text[fact.start:fact.end]


def _current_and_threshold(facts: list[RoleFact]) -> tuple[RoleFact, RoleFact] | None:
    for current in (f for f in facts if f.role == "current" and f.quantity is not None):
        for threshold in (f for f in facts if f.role == "threshold" and f.quantity is not None):
            if current.quantity and threshold.quantity and not current.quantity.same_value(threshold.quantity):
                return current, threshold
    return None


def _threshold_moved(output: ExecutorOutput, context: FaultContext, *, swap: bool) -> ExecutorOutput:
    """The threshold's value in the current slot (and, with ``swap``, the current's in its)."""
    def change(claim: Claim, facts: list[RoleFact]) -> str | None:
        pair = _current_and_threshold(facts)
        if pair is None:
            return None
        current, threshold = pair
        text = claim.claim_text
        edits = [(current.start, current.end, _value(text, threshold))]
        if swap:
            edits.append((threshold.start, threshold.end, _value(text, current)))
        return _replaced(text, edits)
    return _edit(output, context, change)


def swap_roles(output: ExecutorOutput, invocations: list[Invocation],
               context: FaultContext) -> ExecutorOutput:
    """Swap the current value and the threshold of a claim (当前值 85%，阈值 91%)."""
    return _threshold_moved(output, context, swap=True)


def threshold_as_current(output: ExecutorOutput, invocations: list[Invocation],
                         context: FaultContext) -> ExecutorOutput:
    """Give the threshold as the current value (当前值 85% where 85% is the threshold)."""
    return _threshold_moved(output, context, swap=False)


def old_sample_as_current(output: ExecutorOutput, invocations: list[Invocation],
                          context: FaultContext) -> ExecutorOutput:
    """Move the oldest sample of a trend into the current slot (当前值 86.2%)."""
    def change(claim: Claim, facts: list[RoleFact]) -> str | None:
        currents = [f for f in facts if f.role == "current" and f.quantity is not None]
        oldest = [f for f in facts if f.trend is not None and f.order == 0 and f.quantity is not None]
        for current in currents:
            for sample in oldest:
                if (current.quantity and sample.quantity and current.quantity.family == sample.quantity.family
                        and not current.quantity.same_value(sample.quantity)):
                    text = claim.claim_text
                    return _replaced(text, [(current.start, current.end, _value(text, sample))])
        return None
    return _edit(output, context, change)


def swap_used_total(output: ExecutorOutput, invocations: list[Invocation],
                    context: FaultContext) -> ExecutorOutput:
    """Swap used and total (``3.8GB/4GB`` -> ``4GB/3.8GB``)."""
    def change(claim: Claim, facts: list[RoleFact]) -> str | None:
        text = claim.claim_text
        for used in (f for f in facts if f.role == "used"):
            total = next((f for f in facts if f.role == "total" and f.start == used.start), None)
            parts = _value(text, used).split("/")
            if total is not None and used.quantity and total.quantity and len(parts) == 2 \
                    and not used.quantity.same_value(total.quantity):
                return _replaced(text, [(used.start, used.end, f"{parts[1]}/{parts[0]}")])
        return None
    return _edit(output, context, change)


def duration_unit(output: ExecutorOutput, invocations: list[Invocation],
                  context: FaultContext) -> ExecutorOutput:
    """State a duration in another unit (已持续 15m -> 已持续 15s)."""
    def change(claim: Claim, facts: list[RoleFact]) -> str | None:
        text = claim.claim_text
        for fact in facts:
            if fact.role != "duration" or fact.quantity is None:
                continue
            unit = fact.quantity.unit
            written = _value(text, fact)
            swapped = _DURATION_UNIT_SWAP.get(unit)
            if swapped is not None and written.lower().endswith(unit):
                return _replaced(text, [(fact.end - len(unit), fact.end, swapped)])
        return None
    return _edit(output, context, change)


def rounded_value(output: ExecutorOutput, invocations: list[Invocation],
                  context: FaultContext) -> ExecutorOutput:
    """Round a used amount or current value so that it changes (3.8GB/4GB -> 约 4GB)."""
    about = "约 " if _is_zh(context) else "about "

    def change(claim: Claim, facts: list[RoleFact]) -> str | None:
        text = claim.claim_text
        for fact in facts:
            if fact.role not in ("used", "current") or fact.quantity is None:
                continue
            number = fact.quantity.number
            rounded = round(number) if round(number) != number else round(number, -1)
            if rounded == number:
                continue
            return _replaced(text, [(fact.start, fact.end, f"{about}{rounded:g}{fact.quantity.unit}")])
        return None
    return _edit(output, context, change)


def _runbook_sentence(invocations: list[Invocation]) -> str | None:
    for invocation in invocations:
        if invocation.tool_name != "lookup_knowledge" or invocation.retrieval_details is None:
            continue
        refs = sorted(invocation.retrieval_details.evidence_refs,
                      key=lambda ref: not _CAUSE_HEADER.search(ref.text.partition("): ")[0]))
        for ref in refs:
            for raw in ref.text.partition("): ")[2].splitlines():
                line = raw.strip().lstrip("-*0123456789.").strip()
                if len(line) >= 8:
                    return line
    return None


def runbook_appended(output: ExecutorOutput, invocations: list[Invocation],
                     context: FaultContext) -> ExecutorOutput:
    """Append a runbook sentence to a real claim (…；数据库慢查询或锁等待。), no new citation."""
    knowledge = [inv for inv in invocations if inv.tool_name == "lookup_knowledge"]
    sentence = _runbook_sentence(knowledge)
    if sentence is None:
        topic = (context.plan.topics or ["memory"])[0]
        sentence = _runbook_sentence([context.recorder.call(
            "lookup_knowledge", {"query": f"{topic} causes 常见原因"})])
    if sentence is None:
        return _copy(output)
    joiner = "；" if _is_zh(context) else "; "

    def change(claim: Claim, facts: list[RoleFact]) -> str | None:
        return f"{claim.claim_text.rstrip('。.')}{joiner}{sentence}"
    return _edit(output, context, change)


def _service(output: ExecutorOutput, context: FaultContext) -> str:
    for claim in output.claims:
        if claim.subject_services:
            return claim.subject_services[0]
    return context.plan.services[0] if context.plan.services else "the service"


def repair_action(output: ExecutorOutput, invocations: list[Invocation],
                  context: FaultContext) -> ExecutorOutput:
    """Recommend a repair (restart, raise a limit) where only evidence gathering is allowed."""
    faulty = _copy(output)
    service = _service(faulty, context)
    text = (f"立即重启 {service} 并将 JVM 堆内存上限调大到 8GB 以修复问题。" if _is_zh(context)
            else f"Restart {service} now and raise its JVM heap limit to 8GB to fix the problem.")
    bindings = [b.model_copy() for claim in faulty.claims for b in claim.evidence_bindings[:1]][:1]
    faulty.recommended_actions.append(RecommendedAction(
        action_id=f"action-{len(faulty.recommended_actions) + 1}", action_text=text,
        evidence_bindings=bindings))
    context.injected.append(text)
    return faulty


def gap_asserts_state(output: ExecutorOutput, invocations: list[Invocation],
                      context: FaultContext) -> ExecutorOutput:
    """A ``missing_info`` entry that concludes instead of naming a gap (内存泄漏已确认)."""
    faulty = _copy(output)
    service = _service(faulty, context)
    text = (f"{service} 内存泄漏已确认，只缺少更长时间的监控数据。" if _is_zh(context)
            else f"The memory leak in {service} is confirmed; only longer monitoring data is missing.")
    faulty.missing_info.append(MissingInfo(info_id=f"missing-{len(faulty.missing_info) + 1}",
                                           description=text))
    context.injected.append(text)
    return faulty


RoleFaultApply = Callable[[ExecutorOutput, list[Invocation], "FaultContext"], ExecutorOutput]
_WRONG_ROLE = frozenset({"verifier.wrong_role"})
_NOT_IN_ROLE = frozenset({"verifier.wrong_role", "verifier.unsupported_fact"})
_LOW: frozenset[Verdict] = frozenset({"LOW_CONFID"})
# (name, description, grade, rules that catch it, verdicts it may end with, the fault)
ROLE_FAULTS: tuple[tuple[str, str, str, frozenset[str], frozenset[Verdict], RoleFaultApply], ...] = (
    ("swap_roles", "swap a claim's current value and threshold", "LOW_CONFID", _WRONG_ROLE, _LOW, swap_roles),
    ("threshold_as_current", "give the threshold as the current value", "LOW_CONFID", _WRONG_ROLE, _LOW,
     threshold_as_current),
    ("old_sample_as_current", "give a trend's oldest sample as the current value", "LOW_CONFID",
     _WRONG_ROLE, _LOW, old_sample_as_current),
    ("swap_used_total", "swap used and total (3.8GB/4GB -> 4GB/3.8GB)", "LOW_CONFID", _WRONG_ROLE, _LOW,
     swap_used_total),
    ("duration_unit", "state a duration in another unit (15m -> 15s)", "LOW_CONFID", _NOT_IN_ROLE, _LOW,
     duration_unit),
    ("rounded_value", "round a value so that it changes (3.8GB -> about 4GB)", "LOW_CONFID", _NOT_IN_ROLE,
     _LOW, rounded_value),
    ("runbook_appended", "append a runbook sentence to a real claim", "LOW_CONFID",
     frozenset({"verifier.runbook_as_fact", "verifier.unsupported_fact", "verifier.unsupported_root_cause"}),
     frozenset({"LOW_CONFID", "REJECT"}), runbook_appended),
    ("repair_action", "recommend a repair (restart, raise a limit) as a next step", "REJECT",
     frozenset({"verifier.repair_action"}), frozenset({"REJECT"}), repair_action),
    ("gap_asserts_state", "a missing_info entry that concludes (内存泄漏已确认)", "LOW_CONFID",
     frozenset({"verifier.gap_asserts_state"}), _LOW, gap_asserts_state),
)
