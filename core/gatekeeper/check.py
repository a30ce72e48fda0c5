"""``check_citations``: the gatekeeper. Pure code, deterministic, no model.

For each binding of each claim and recommended action, in this order (first failure decides):
resolve the invocation (back-filling a missing id only from a unique candidate; with
``stored_invocations`` the store's copy wins), check it is this session's and of the binding's
tool, that its refs are what the recorder makes of its raw output, then either the
negative-observation checks or:
raw_path well-formed with the tool's prefix, refs present, raw_path among the refs, excerpt
supported by that ref's text. The overall grade is the worst binding's: any reject -> fail /
reject, else any low_confid -> fail / low_confid, else pass / none.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from core.contracts import (
    CheckedBinding,
    Claim,
    EvidenceBinding,
    EvidenceRef,
    ExecutorOutput,
    GateIssue,
    GatekeeperResult,
    GateSeverity,
    Invocation,
    ParseStatus,
)
from core.gatekeeper import negative, redundant
from core.gatekeeper import rules as R
from core.gatekeeper.resolve import SessionInvocations, StoredInvocations, with_fields
from core.gatekeeper.version import GATEKEEPER_VERSION
from core.language.quotes import ExcerptMatch, match_excerpt
from core.tools.spec import RAW_PATH_PREFIXES, find_spec, parse_raw_path

_SEVERITY_RANK: dict[str, int] = {"none": 0, "low_confid": 1, "reject": 2}


@dataclass
class _Owner:
    """Whose binding this is: a claim (possibly negative) or a recommended action."""

    claim: Claim | None = None
    action_id: str | None = None


@dataclass
class _Collector:
    """Accumulates checked bindings, issues and failed rules in order of appearance."""

    checked: list[CheckedBinding] = field(default_factory=list)
    errors: list[GateIssue] = field(default_factory=list)
    warnings: list[GateIssue] = field(default_factory=list)
    failed_rules: list[str] = field(default_factory=list)

    def fail_rule(self, rule: str) -> None:
        if rule not in self.failed_rules:
            self.failed_rules.append(rule)


def check_citations(*, session_id: str | None, invocations: Sequence[Invocation],
                    executor_output: ExecutorOutput | None,
                    parse_status: ParseStatus | None = None,
                    stored_invocations: StoredInvocations | None = None) -> GatekeeperResult:
    """Check every citation of ``executor_output`` against the session's invocations.

    ``invocations`` are the document's; ``stored_invocations`` (the audit store, when the
    document is checked against one) wins over them: see ``resolve``.
    """
    session = SessionInvocations(session_id, invocations, stored_invocations)
    out = _Collector()
    if executor_output is None or (parse_status is not None and parse_status.status in ("invalid", "missing")):
        detail = "no executor output" if executor_output is None else (
            f"executor output parse status is {parse_status.status if parse_status else 'unknown'}"
            + (f": {parse_status.detail}" if parse_status and parse_status.detail else ""))
        out.errors.append(GateIssue(rule=R.OUTPUT_INCOMPLETE, message=detail))
        out.fail_rule(R.OUTPUT_INCOMPLETE)
    if executor_output is not None:
        for claim in executor_output.claims:
            if not claim.evidence_bindings:
                out.errors.append(GateIssue(rule=R.NO_BINDINGS, claim_id=claim.claim_id,
                                            message="claim has no evidence bindings"))
                out.fail_rule(R.NO_BINDINGS)
            checked = [_check_binding(session, binding, index, _Owner(claim=claim), out)
                       for index, binding in enumerate(claim.evidence_bindings)]
            for item in redundant.regrade(claim, checked, lambda found: session.resolve(found).invocation):
                _record(out, item)
        for action in executor_output.recommended_actions:
            for index, binding in enumerate(action.evidence_bindings):
                _record(out, _check_binding(session, binding, index, _Owner(action_id=action.action_id), out))
    _report_uncited_tampering(session, out)
    severity = _overall_severity(out)
    return GatekeeperResult(
        status="pass" if severity == "none" else "fail", severity=severity,
        checked_bindings=out.checked, failed_rules=out.failed_rules,
        warnings=out.warnings, errors=out.errors, version=GATEKEEPER_VERSION)


def _report_uncited_tampering(session: SessionInvocations, out: _Collector) -> None:
    """A document whose refs disagree with its raw output is rejected even where no binding
    cites the edited invocation: its refs still reach the verifier (the tool trace summary)."""
    reported = {checked.source_invocation_id for checked in out.checked
                if checked.rule in (R.REFS_TAMPERED, R.INVOCATION_REF, R.INVOCATION_SESSION)}
    for invocation in session.listed():
        if invocation.invocation_id in reported:
            continue
        if problem := session.unrecorded(invocation):
            out.errors.append(GateIssue(rule=R.INVOCATION_REF, message=f"{problem} (no binding cites it)"))
            out.fail_rule(R.INVOCATION_REF)
        elif problem := session.refs_problem(invocation):
            out.errors.append(GateIssue(rule=R.REFS_TAMPERED, message=f"{problem} (no binding cites it)"))
            out.fail_rule(R.REFS_TAMPERED)


def _overall_severity(out: _Collector) -> GateSeverity:
    worst = max((_SEVERITY_RANK[R.RULES[rule].severity] for rule in out.failed_rules), default=0)
    return "reject" if worst == 2 else "low_confid" if worst == 1 else "none"


def _record(out: _Collector, checked: CheckedBinding) -> None:
    out.checked.append(checked)
    if checked.status == "fail" and checked.severity == "none" and checked.rule:
        # Graded down to a warning (``redundant``): not support, not a failure.
        out.warnings.append(GateIssue(rule=checked.rule, message=checked.message,
                                      claim_id=checked.claim_id, binding_index=checked.binding_index))
    elif checked.status == "fail" and checked.rule:
        out.fail_rule(checked.rule)
        out.errors.append(GateIssue(rule=checked.rule, message=checked.message,
                                    claim_id=checked.claim_id, action_id=checked.action_id,
                                    binding_index=checked.binding_index))


class _Verdict:
    """Builds the CheckedBinding of one binding as the checks learn more about it."""

    def __init__(self, binding: EvidenceBinding, index: int, owner: _Owner) -> None:
        self.claim_id = owner.claim.claim_id if owner.claim else None
        self.fields: dict[str, Any] = {
            "claim_id": self.claim_id,
            "action_id": owner.action_id, "binding_index": index,
            "tool_name": binding.tool_name, "source_invocation_id": binding.source_invocation_id,
            "raw_path": binding.raw_path, "evidence_excerpt": binding.evidence_excerpt,
        }

    def with_match(self, ref: EvidenceRef, match: ExcerptMatch) -> _Verdict:
        self.fields.update(matched_text=ref.text, matched_fields=ref.fields, score=match.score,
                           match_kind=match.match_kind, spans=list(match.spans))
        return self

    def fail(self, rule: str, message: str) -> CheckedBinding:
        severity = R.RULES[rule].severity
        return CheckedBinding(**self.fields, status="fail", rule=rule, message=message,
                              severity=severity if severity in _SEVERITY_RANK else "low_confid")

    def ok(self, message: str) -> CheckedBinding:
        return CheckedBinding(**self.fields, status="pass", severity="none", rule=R.OK, message=message)


def _check_binding(session: SessionInvocations, binding: EvidenceBinding, index: int,
                   owner: _Owner, out: _Collector) -> CheckedBinding:
    verdict = _Verdict(binding, index, owner)
    invocation_id = binding.source_invocation_id
    backfilled = False
    if invocation_id is None:
        candidates = session.candidates(binding.tool_name)
        if len(candidates) != 1:
            return verdict.fail(R.INVOCATION_MISSING, (
                f"no source_invocation_id, and {len(candidates)} invocation(s) of tool "
                f"{binding.tool_name or '(none given)'} in the session: nothing to back-fill uniquely"))
        invocation_id, backfilled = candidates[0].invocation_id, True
        verdict.fields.update(source_invocation_id=invocation_id, auto_backfilled=True)
        out.warnings.append(GateIssue(
            rule=R.INVOCATION_AUTO_BACKFILL, claim_id=verdict.claim_id,
            action_id=owner.action_id, binding_index=index,
            message=("source_invocation_id was auto-filled from the unique tool invocation candidate"
                     + ("; raw_path remains missing" if not binding.raw_path else ""))))
    resolved = session.resolve(invocation_id)
    if resolved.invocation is None:
        return verdict.fail(resolved.rule, resolved.message)
    invocation = resolved.invocation
    if find_spec(invocation.tool_name) is None:
        return verdict.fail(R.TOOL_MISMATCH,
                            f"invocation {invocation_id} is of {invocation.tool_name}, not an evidence tool")
    if binding.tool_name is not None and binding.tool_name != invocation.tool_name:
        return verdict.fail(R.TOOL_MISMATCH, (
            f"binding says tool {binding.tool_name}, invocation {invocation_id} is {invocation.tool_name}"))
    verdict.fields["tool_name"] = invocation.tool_name
    if problem := session.refs_problem(invocation):
        return verdict.fail(R.REFS_TAMPERED, problem)
    if owner.claim is not None and owner.claim.claim_type == "negative_observation":
        queries = _claim_queries(session, owner.claim, invocation)
        checked = _check_negative(verdict, binding, invocation, owner.claim, queries)
    elif (owner.claim is not None and owner.claim.claim_type is None and not binding.raw_path
          and not negative.evidence_problem(invocation)):
        # Say why, so the executor can fix the claim rather than hunt for a ref that is not there.
        checked = verdict.fail(R.EXCERPT_MISMATCH, (
            "raw_path missing, and the invocation returned nothing (no evidence refs): a no-hit "
            "query backs only a negative_observation, and this claim has no claim_type"))
    else:
        checked = _check_positive(verdict, binding, invocation)
    if backfilled and checked.status == "pass":
        return verdict.fail(R.INVOCATION_MISSING, (
            "source_invocation_id was auto-filled; a back-filled citation is never a basis for pass"))
    return checked


def raw_path_problem(raw_path: str, tool_name: str) -> str:
    """Why ``raw_path`` is not a stable locator of this tool ('' when it is one): the strict
    grammar ``$.<list>[<index>]`` of ``core.tools.spec``, with a list the tool's output has."""
    prefixes = RAW_PATH_PREFIXES[tool_name]
    expected = " or ".join(f"{prefix}[i]" for prefix in prefixes)
    located = parse_raw_path(raw_path)
    if located is None:
        return (f"raw_path {raw_path!r} is not a stable locator: only {expected} is valid "
                f"for {tool_name} (no sub-fields, no nesting)")
    if f"$.{located[0]}" not in prefixes:
        return f"raw_path {raw_path!r} has the wrong prefix for {tool_name} (expects {expected})"
    return ""


def _check_positive(verdict: _Verdict, binding: EvidenceBinding, invocation: Invocation) -> CheckedBinding:
    raw_path = binding.raw_path or None
    if raw_path is not None and (problem := raw_path_problem(raw_path, invocation.tool_name)):
        return verdict.fail(R.RAW_PATH, problem)
    details = invocation.retrieval_details
    if details is None or (details.evidence_status == "supported" and not details.evidence_refs):
        return verdict.fail(R.REFS_MISSING, (
            f"invocation {invocation.invocation_id} has no retrieval_details.evidence_refs (legacy record)"))
    refs = with_fields(invocation, details.evidence_refs)
    if raw_path is None:
        return _check_without_raw_path(verdict, binding, refs)
    ref = next((ref for ref in refs if ref.raw_path == raw_path), None)
    if ref is None:
        return verdict.fail(R.RAW_PATH, f"raw_path {raw_path} not found in retrieval_details.evidence_refs "
                                         f"of invocation {invocation.invocation_id}")
    match = match_excerpt(binding.evidence_excerpt, ref.text)
    verdict.with_match(ref, match)
    if not match.ok:
        hint = _found_elsewhere(binding.evidence_excerpt, details.evidence_refs, raw_path)
        return verdict.fail(R.EXCERPT_MISMATCH, f"excerpt not supported by {raw_path}: {match.reason}{hint}")
    if match.too_short:
        return verdict.fail(R.EXCERPT_TOO_SHORT, f"excerpt too short or generic to check: {match.reason}")
    return verdict.ok(match.reason)


def _check_without_raw_path(verdict: _Verdict, binding: EvidenceBinding,
                            refs: list[EvidenceRef]) -> CheckedBinding:
    """No raw_path: still reject a forged excerpt (checked against every ref), else low."""
    best: tuple[EvidenceRef, ExcerptMatch] | None = None
    for ref in refs:
        match = match_excerpt(binding.evidence_excerpt, ref.text)
        if best is None or (match.ok, match.score) > (best[1].ok, best[1].score):
            best = (ref, match)
        if match.ok and match.match_kind == "exact":
            break
    if best is None or not best[1].ok:
        if best is not None:
            verdict.with_match(*best)
        reason = best[1].reason if best else "the invocation has no evidence refs"
        return verdict.fail(R.EXCERPT_MISMATCH,
                            f"raw_path missing and the excerpt matches no ref of the invocation: {reason}")
    verdict.with_match(*best)
    return verdict.fail(R.RAW_PATH_MISSING, (
        f"raw_path missing (the excerpt is found in {best[0].raw_path}, but a citation must name it)"))


def _found_elsewhere(excerpt: str, refs: list[EvidenceRef], cited: str) -> str:
    """Audit hint: the excerpt is a quote of another ref of the same invocation."""
    for ref in refs:
        if ref.raw_path != cited and match_excerpt(excerpt, ref.text).ok:
            return f" (it quotes {ref.raw_path} instead)"
    return ""


def _claim_queries(session: SessionInvocations, claim: Claim, invocation: Invocation) -> list[Invocation]:
    """The invocations the claim's bindings cite (resolved in this session), this one first."""
    queries = [invocation]
    for other in claim.evidence_bindings:
        if other.source_invocation_id is None or other.source_invocation_id == invocation.invocation_id:
            continue
        resolved = session.resolve(other.source_invocation_id).invocation
        if resolved is not None and all(resolved.invocation_id != seen.invocation_id for seen in queries):
            queries.append(resolved)
    return queries


def _check_negative(verdict: _Verdict, binding: EvidenceBinding, invocation: Invocation,
                    claim: Claim, claim_queries: list[Invocation]) -> CheckedBinding:
    verdict.fields.update(matched_text=negative.describe(invocation), match_kind="negative")
    if problem := negative.evidence_problem(invocation):
        return verdict.fail(R.NEGATIVE_MISMATCH, problem)
    prefixes = RAW_PATH_PREFIXES[invocation.tool_name]
    if binding.raw_path and binding.raw_path not in prefixes:
        lists = " or ".join(prefixes)
        return verdict.fail(R.RAW_PATH, (
            f"raw_path {binding.raw_path} of a negative observation: the invocation returned no "
            f"entries, so only {lists} (an empty list) or no raw_path can be cited"))
    if problem := negative.coverage_problem(claim, invocation, claim_queries):
        return verdict.fail(R.NEGATIVE_MISMATCH, problem)
    if invocation.retrieval_details is None:
        return verdict.fail(R.REFS_MISSING, (
            f"invocation {invocation.invocation_id} has no retrieval_details: its no-hit is not recorded"))
    verdict.fields["score"] = 1.0
    return verdict.ok("the cited invocation returned no evidence and its query covers the claim's subject")
