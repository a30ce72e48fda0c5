"""Fault injection: wrap an executor's real output with one known kind of fabrication.

Each mode demonstrates (and the tests prove) what the gatekeeper or the verifier catches:

=====================  ==========================================================  ===========
mode                   what it does to the real output                             caught as
=====================  ==========================================================  ===========
fabricate_invocation   a binding cites an invocation id that does not exist         REJECT (gk)
fabricate_path         a binding cites ``$.alerts[99]`` (a locator with no ref)     REJECT (gk)
tamper_number          a number in an excerpt and its claim changes (91% -> 19%)    REJECT (gk)
swap_invocation        a real excerpt is cited under another invocation of the run  REJECT (gk)
cross_session          a binding cites a real invocation of another session         REJECT (gk)
drop_bindings          every binding is removed                                     LOW_CONFID
runbook_as_fact        a claim states a runbook's cause as current fact             REJECT (vf)
scope_leak             a claim about an excluded / out-of-scope subject             REJECT (vf)
overreach_root_cause   a ``root_cause`` claim "root cause confirmed: memory leak"   LOW_CONFID
=====================  ==========================================================  ===========

Nine more (``core.agents.role_faults``: a value in the wrong role, a duration in another unit,
a rounded value, runbook text appended, a repair action, a concluding gap) keep every citation
real: only the verifier catches them (LOW_CONFID; ``repair_action`` REJECT).

A mode never mutates the output it is given. What it injects is recorded in
``FaultContext.injected`` so tests can assert the final answer never shows it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from core.agents.names import FAULT_NAMES
from core.agents.role_faults import ROLE_FAULTS
from core.contracts import (
    Claim,
    ClaimType,
    EvidenceBinding,
    EvidenceRef,
    ExecutorOutput,
    Invocation,
    Plan,
    Verdict,
)
from core.errors import EngineError
from core.tools.spec import RAW_PATH_PREFIXES, is_reference_tool, parse_raw_path

if TYPE_CHECKING:
    from core.recorder import Recorder
    from core.store import Store

# An id no store hands out: SQLite rowids are far below it and unstored ids start at 1e9.
FABRICATED_INVOCATION_ID = 9_007_199_254_740_991


@dataclass
class FaultContext:
    """What a fault may use: the session, its plan, its recorder (to make real calls) and store."""

    session_id: str
    plan: Plan
    recorder: Recorder
    store: Store | None = None
    injected: list[str] = field(default_factory=list)


FaultApply = Callable[[ExecutorOutput, list[Invocation], FaultContext], ExecutorOutput]


@dataclass(frozen=True)
class FaultMode:
    """One fault: how to apply it and how it must be caught.

    ``expected_severity`` is the gatekeeper severity (``reject`` / ``low_confid``) for faults
    the gatekeeper catches, or the verdict (``REJECT`` / ``LOW_CONFID``) for faults only the
    verifier can catch (the citations are real; the claim is not entailed).
    """

    name: str
    description: str
    caught_by: Literal["gatekeeper", "verifier"]
    expected_severity: str
    expected_rules: frozenset[str]
    expected_verdicts: frozenset[Verdict]
    apply: FaultApply


# ---------------------------------------------------------------- helpers


def _copy(output: ExecutorOutput) -> ExecutorOutput:
    return output.model_copy(deep=True)


def _next_claim_id(output: ExecutorOutput) -> str:
    numbers = [int(m.group(1)) for c in output.claims if (m := re.search(r"(\d+)$", c.claim_id))]
    return f"claim-{max(numbers, default=0) + 1}"


def _positive_bindings(output: ExecutorOutput) -> Iterator[tuple[Claim, EvidenceBinding]]:
    """Bindings that cite a locator (not negative observations), metrics first."""
    pairs = [(claim, binding) for claim in output.claims for binding in claim.evidence_bindings
             if binding.raw_path and binding.source_invocation_id is not None]
    pairs.sort(key=lambda pair: pair[1].tool_name != "query_metrics")
    yield from pairs


def _refs(invocation: Invocation) -> list[EvidenceRef]:
    details = invocation.retrieval_details
    return list(details.evidence_refs) if details else []


def _ref_at(invocation: Invocation, raw_path: str | None) -> EvidenceRef | None:
    return next((ref for ref in _refs(invocation) if ref.raw_path == raw_path), None)


def _is_zh(plan: Plan) -> bool:
    return plan.language == "zh"


def _subject_service(plan: Plan, output: ExecutorOutput) -> str:
    for claim in output.claims:
        if claim.subject_services:
            return claim.subject_services[0]
    return plan.services[0] if plan.services else "the service"


def _anchor(output: ExecutorOutput, invocations: list[Invocation], context: FaultContext, *,
            quote_if_missing: bool = False) -> tuple[Claim, EvidenceBinding]:
    """A real citation to corrupt: the first positive binding; else any binding (a negative
    observation's); else -- or first, with ``quote_if_missing`` -- a new claim quoting a real
    ref; else a new unbacked claim (the fault always has something to act on)."""
    for claim, binding in _positive_bindings(output):
        return claim, binding
    existing = [(claim, claim.evidence_bindings[0]) for claim in output.claims
                if claim.evidence_bindings]
    if existing and not quote_if_missing:
        return existing[0]
    # Evidence refs before runbook refs: the new claim should look like an observation.
    for invocation in sorted(invocations, key=lambda inv: is_reference_tool(inv.tool_name)):
        for ref in _refs(invocation):
            return _add_claim(output, context, text=ref.text, invocation=invocation, ref=ref)
    if existing:
        return existing[0]
    binding = EvidenceBinding(tool_name="query_metrics", raw_path="$.alerts[0]",
                              evidence_excerpt="an alert no tool returned")
    claim = Claim(claim_id=_next_claim_id(output), claim_text=binding.evidence_excerpt,
                  evidence_bindings=[binding])
    output.claims.append(claim)
    context.injected.append(claim.claim_text)
    return claim, binding


def _add_claim(output: ExecutorOutput, context: FaultContext, *, text: str,
               invocation: Invocation, ref: EvidenceRef, claim_type: ClaimType = "observation",
               services: list[str] | None = None,
               topics: list[str] | None = None) -> tuple[Claim, EvidenceBinding]:
    binding = EvidenceBinding(tool_name=invocation.tool_name,
                              source_invocation_id=invocation.invocation_id,
                              raw_path=ref.raw_path, evidence_excerpt=ref.text)
    claim = Claim(claim_id=_next_claim_id(output), claim_type=claim_type,
                  claim_text=text, evidence_bindings=[binding],
                  subject_services=services if services is not None else list(context.plan.services),
                  subject_topics=topics if topics is not None else list(context.plan.topics))
    output.claims.append(claim)
    context.injected.append(text)
    return claim, binding


# ---------------------------------------------------------------- citation faults (gatekeeper)


def fabricate_invocation(output: ExecutorOutput, invocations: list[Invocation],
                         context: FaultContext) -> ExecutorOutput:
    """Cite an invocation id that no tool call ever had."""
    faulty = _copy(output)
    _, binding = _anchor(faulty, invocations, context)
    binding.source_invocation_id = FABRICATED_INVOCATION_ID
    context.injected.append(str(FABRICATED_INVOCATION_ID))
    return faulty


def fabricate_path(output: ExecutorOutput, invocations: list[Invocation],
                   context: FaultContext) -> ExecutorOutput:
    """Cite a locator the invocation does not have (``$.alerts[99]``)."""
    faulty = _copy(output)
    _, binding = _anchor(faulty, invocations, context)
    prefixes = RAW_PATH_PREFIXES.get(binding.tool_name or "", ("$.alerts",))
    located = parse_raw_path(binding.raw_path or "")
    cited = f"$.{located[0]}" if located else ""
    binding.raw_path = f"{cited if cited in prefixes else prefixes[0]}[99]"
    return faulty


_NUMBER_RE = re.compile(r"(?<![\d.])\d+(?:\.\d+)?(?![\d.])")


def _tampered(number: str) -> str:
    """91 -> 19, 92.0 -> 29.0 (digits reversed); palindromes such as 88 get +7 instead."""
    whole, dot, fraction = number.partition(".")
    flipped = whole[::-1].lstrip("0") or "0"
    if flipped == whole:
        flipped = str(int(whole) + 7)
    return flipped + dot + fraction


def tamper_number(output: ExecutorOutput, invocations: list[Invocation],
                  context: FaultContext) -> ExecutorOutput:
    """Change a number in a quoted excerpt, and the same number in its claim (91% -> 19%)."""
    faulty = _copy(output)
    target: tuple[Claim, EvidenceBinding, str] | None = None
    for claim, binding in _positive_bindings(faulty):
        shared = [n for n in _NUMBER_RE.findall(binding.evidence_excerpt)
                  if re.search(rf"(?<![\d.]){re.escape(n)}(?![\d])", claim.claim_text)]
        if shared:
            target = (claim, binding, shared[0])
            break
    if target is None:  # a negative excerpt is not text-checked: tamper a quoted one
        claim, binding = _anchor(faulty, invocations, context, quote_if_missing=True)
        found = _NUMBER_RE.findall(binding.evidence_excerpt)
        if not found:
            binding.evidence_excerpt += " current=19%"
            context.injected.append("current=19%")
            return faulty
        target = (claim, binding, found[0])
    claim, binding, number = target
    changed = _tampered(number)
    pattern = re.compile(rf"(?<![\d.]){re.escape(number)}(?![\d])")
    binding.evidence_excerpt = pattern.sub(changed, binding.evidence_excerpt, count=1)
    claim.claim_text = pattern.sub(changed, claim.claim_text)
    context.injected.append(claim.claim_text)
    return faulty


def swap_invocation(output: ExecutorOutput, invocations: list[Invocation],
                    context: FaultContext) -> ExecutorOutput:
    """Cite a real excerpt under another real invocation of this session, which says otherwise."""
    faulty = _copy(output)
    _, binding = _anchor(faulty, invocations, context)
    # Invocations that returned something first: swapping a no-hit for an equivalent no-hit
    # would cite an absence that is just as real.
    others = sorted((inv for inv in invocations
                     if inv.invocation_id != binding.source_invocation_id),
                    key=lambda inv: not _refs(inv))
    # Prefer the subtle swap: same tool, and the locator there holds a different text.
    for other in others:
        ref = _ref_at(other, binding.raw_path)
        if other.tool_name == binding.tool_name and _refs(other) and (
                ref is None or binding.evidence_excerpt not in ref.text):
            binding.source_invocation_id = other.invocation_id
            return faulty
    if others:
        binding.source_invocation_id = others[0].invocation_id
        binding.tool_name = others[0].tool_name
        return faulty
    binding.source_invocation_id = FABRICATED_INVOCATION_ID
    return faulty


def cross_session(output: ExecutorOutput, invocations: list[Invocation],
                  context: FaultContext) -> ExecutorOutput:
    """Cite the same tool output, recorded in a separate decoy session (or never recorded)."""
    from core.recorder import Recorder
    from core.store import repository

    faulty = _copy(output)
    _, binding = _anchor(faulty, invocations, context)
    source = next((inv for inv in invocations if inv.invocation_id == binding.source_invocation_id),
                  None)
    decoy_id = f"{context.session_id}-decoy"
    store = context.store
    if store is not None:
        repository.create_session(store, session_id=decoy_id,
                                  question=f"decoy session of the cross_session fault in "
                                           f"{context.session_id}",
                                  pack=context.recorder.world.name, engines={},
                                  executor_fault="cross_session")
    decoy = Recorder(world=context.recorder.world, session_id=decoy_id, store=store)
    if source is not None:
        decoy_invocation = decoy.call(source.tool_name, source.arguments)
    else:
        decoy_invocation = decoy.call("query_metrics", {})
    if store is not None:
        repository.finish_session(store, session_id=decoy_id, status="completed",
                                  composer_output=None, timings_ms={})
    binding.source_invocation_id = decoy_invocation.invocation_id
    return faulty


def drop_bindings(output: ExecutorOutput, invocations: list[Invocation],
                  context: FaultContext) -> ExecutorOutput:
    """Remove every binding: claims without any citation."""
    faulty = _copy(output)
    for claim in faulty.claims:
        claim.evidence_bindings = []
    for action in faulty.recommended_actions:
        action.evidence_bindings = []
    return faulty


# ---------------------------------------------------------------- entailment faults (verifier)


def runbook_as_fact(output: ExecutorOutput, invocations: list[Invocation],
                    context: FaultContext) -> ExecutorOutput:
    """State a runbook's cause as a current observation, citing the (real) runbook block."""
    faulty = _copy(output)
    knowledge = [inv for inv in invocations if is_reference_tool(inv.tool_name)]
    found = _cause_line(knowledge, causes_only=True)
    if found is None:  # ask the runbooks for their causes section, through the recorder
        topic = (context.plan.topics or ["cpu"])[0]
        knowledge.append(context.recorder.call("lookup_knowledge",
                                               {"query": f"{topic} causes 常见原因"}))
        found = _cause_line(knowledge, causes_only=True) or _cause_line(knowledge)
    if found is None:
        return faulty
    invocation, ref, line = found
    service = _subject_service(context.plan, faulty)
    text = (f"{service} 当前已确认：{line}" if _is_zh(context.plan)
            else f"Confirmed for {service} right now: {line}")
    _, binding = _add_claim(faulty, context, text=text, invocation=invocation, ref=ref,
                            services=[service])
    binding.evidence_excerpt = line
    return faulty


_CAUSE_RE = re.compile(r"cause|原因", re.IGNORECASE)


def _cause_line(knowledge: list[Invocation], *,
                causes_only: bool = False) -> tuple[Invocation, EvidenceRef, str] | None:
    """The first line of a runbook's causes section (or of any section), quoted exactly."""
    for invocation in knowledge:
        for ref in _refs(invocation):
            # A ref is "title (source): content"; the lines worth quoting are the content's.
            header, _, content = ref.text.partition("): ")
            if causes_only and not _CAUSE_RE.search(header):
                continue
            for raw_line in content.splitlines():
                line = raw_line.strip().lstrip("-*").strip()
                if len(line) >= 8:
                    return invocation, ref, line
    return None


def scope_leak(output: ExecutorOutput, invocations: list[Invocation],
               context: FaultContext) -> ExecutorOutput:
    """Add a claim, with a real binding, about a subject the question excluded or never asked."""
    faulty = _copy(output)
    plan = context.plan
    in_scope = set(plan.services) | {s for c in output.claims for s in c.subject_services}
    known_services = [s for s in context.recorder.world.vocabulary.services if s not in in_scope]
    candidates = [*plan.exclusions.services, *known_services]
    for service in candidates:
        for tool_name, arguments in (("query_metrics", {"service": service}),
                                     ("query_logs", {"service": service})):
            invocation = context.recorder.call(tool_name, arguments)
            refs = _refs(invocation)
            if refs:
                text = (f"{service} 当前同样存在异常：{refs[0].text}" if _is_zh(plan)
                        else f"{service} is also affected right now: {refs[0].text}")
                _add_claim(faulty, context, text=text, invocation=invocation, ref=refs[0],
                           services=[service], topics=[])
                return faulty
    return faulty


def overreach_root_cause(output: ExecutorOutput, invocations: list[Invocation],
                         context: FaultContext) -> ExecutorOutput:
    """Add a ``root_cause`` claim ("root cause confirmed: memory leak") bound to a real alert."""
    faulty = _copy(output)
    anchor_claim, anchor_binding = _anchor(faulty, invocations, context)
    service = (anchor_claim.subject_services or [_subject_service(context.plan, faulty)])[0]
    text = (f"根因已确认：{service} 存在内存泄漏。" if _is_zh(context.plan)
            else f"Root cause confirmed: memory leak in {service}.")
    claim = Claim(claim_id=_next_claim_id(faulty), claim_type="root_cause", claim_text=text,
                  evidence_bindings=[anchor_binding.model_copy()],
                  subject_services=[service], subject_topics=list(anchor_claim.subject_topics))
    faulty.claims.append(claim)
    context.injected.append(text)
    return faulty


_REJECT: frozenset[Verdict] = frozenset({"REJECT"})
_LOW_CONFID: frozenset[Verdict] = frozenset({"LOW_CONFID"})
FAULT_MODES: dict[str, FaultMode] = {mode.name: mode for mode in (
    FaultMode("fabricate_invocation", "cite an invocation id that does not exist",
              "gatekeeper", "reject", frozenset({"evidence.invocation_ref"}), _REJECT,
              fabricate_invocation),
    FaultMode("fabricate_path", "cite a raw_path ($.alerts[99]) the invocation does not have",
              "gatekeeper", "reject", frozenset({"evidence.raw_path"}), _REJECT,
              fabricate_path),
    FaultMode("tamper_number", "change a number in an excerpt and its claim (91% -> 19%)",
              "gatekeeper", "reject", frozenset({"evidence.excerpt_mismatch"}), _REJECT,
              tamper_number),
    FaultMode("swap_invocation", "cite a real excerpt under another invocation of the session",
              "gatekeeper", "reject",
              frozenset({"evidence.excerpt_mismatch", "evidence.raw_path", "evidence.tool_mismatch"}),
              _REJECT, swap_invocation),
    FaultMode("cross_session", "cite a real invocation recorded in another session",
              "gatekeeper", "reject",
              frozenset({"evidence.invocation_session", "evidence.invocation_ref"}),
              _REJECT, cross_session),
    FaultMode("drop_bindings", "remove every evidence binding",
              "gatekeeper", "low_confid", frozenset({"evidence.no_bindings"}),
              _LOW_CONFID, drop_bindings),
    FaultMode("runbook_as_fact", "state a runbook's cause as a current fact, citing the runbook",
              "verifier", "REJECT", frozenset({"verifier.runbook_as_fact"}), _REJECT,
              runbook_as_fact),
    FaultMode("scope_leak", "add a claim about an excluded or out-of-scope subject",
              "verifier", "REJECT", frozenset({"verifier.scope"}), _REJECT, scope_leak),
    FaultMode("overreach_root_cause", "add a root_cause claim 'root cause confirmed: memory leak'",
              "verifier", "LOW_CONFID", frozenset({"verifier.unsupported_root_cause"}),
              _LOW_CONFID, overreach_root_cause),
    # Faults that keep every citation real: only the verifier's policy catches them.
    *(FaultMode(name, description, "verifier", grade, rules, verdicts, apply)
      for name, description, grade, rules, verdicts, apply in ROLE_FAULTS),
)}
if tuple(FAULT_MODES) != FAULT_NAMES:  # the command line offers core.agents.names' list
    raise RuntimeError(f"core.agents.names.FAULT_NAMES {FAULT_NAMES} != fault modes {tuple(FAULT_MODES)}")


def get_fault(name: str | None) -> FaultMode | None:
    """The fault mode called ``name``; ``None`` passes through (no fault)."""
    if name is None or name == "":
        return None
    try:
        return FAULT_MODES[name]
    except KeyError:
        raise EngineError(f"unknown executor fault {name!r}; valid faults: "
                          f"{', '.join(FAULT_MODES)}") from None
