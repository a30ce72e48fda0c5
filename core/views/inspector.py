"""The Binding inspector: every binding of a session with what the gatekeeper made of it, and
the "tamper and re-check" box.

Re-checking runs the real gatekeeper (``check_citations``) on a copy of the session's executor
output with one binding edited, against the session's own invocations. Nothing is written: the
stored session stays exactly as it was.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal
from urllib.parse import quote

from core.contracts import (
    CheckedBinding,
    Claim,
    EvidenceBinding,
    ExecutorOutput,
    GatekeeperResult,
    Invocation,
    ParseStatus,
    RecommendedAction,
    SessionDocument,
)

if TYPE_CHECKING:
    from core.gatekeeper import StoredInvocations

OwnerKind = Literal["claim", "action"]


@dataclass(frozen=True)
class BindingKey:
    """Which binding: the claim (or recommended action) that owns it and its position."""

    owner_kind: OwnerKind
    owner_id: str
    index: int


@dataclass(frozen=True)
class InspectedBinding:
    """One binding, its owner's text, the gatekeeper's stored verdict and the cited ref text."""

    key: BindingKey
    owner_text: str
    binding: EvidenceBinding
    checked: CheckedBinding | None
    invocation: Invocation | None
    ref_text: str | None

    @property
    def label(self) -> str:
        """``claim-1 #0 · query_metrics #12 $.alerts[0] · pass`` for pickers."""
        status: str = self.checked.status if self.checked else "unchecked"
        if self.checked is not None and self.checked.status == "fail":
            status = f"{self.checked.severity} ({self.checked.rule or 'fail'})"
        where = " ".join(str(part) for part in (
            self.binding.tool_name or "?",
            f"#{self.binding.source_invocation_id}" if self.binding.source_invocation_id else "",
            self.binding.raw_path or "(no raw_path)") if part)
        return f"{self.key.owner_id} #{self.key.index} · {where} · {status}"

    @property
    def shown_ref_text(self) -> str | None:
        """The text the excerpt is shown against (see :func:`shown_ref_text`)."""
        return shown_ref_text(self.checked, self.ref_text)


def shown_ref_text(checked: CheckedBinding | None, ref_text: str | None) -> str | None:
    """What the gatekeeper matched the excerpt against, else the ref text at the locator."""
    return checked.matched_text if checked is not None and checked.matched_text else ref_text


def default_binding_index(items: Sequence[InspectedBinding]) -> int:
    """The binding a person wants first: the first failing one, else the first."""
    return next((n for n, item in enumerate(items)
                 if item.checked is not None and item.checked.status == "fail"), 0)


def binding_link(session_id: str, position: int) -> str:
    """The inspector opened at one binding (``position`` in ``session_bindings`` order),
    relative to any page of the console: ``./Binding_inspector?session=ID&binding=K``."""
    return f"./Binding_inspector?session={quote(session_id, safe='')}&binding={position}"


def binding_positions(document_output: ExecutorOutput | None) -> dict[tuple[str, int], int]:
    """(claim id, binding index) -> the binding's position in ``session_bindings`` order, for
    links from a claim's binding table to that binding."""
    if document_output is None:
        return {}
    positions: dict[tuple[str, int], int] = {}
    for claim in document_output.claims:
        for index in range(len(claim.evidence_bindings)):
            positions[(claim.claim_id, index)] = len(positions)
    return positions


def linked_binding_index(items: Sequence[InspectedBinding], linked: str | None) -> int | None:
    """The position a ``binding=`` link names, when it is one of ``items`` (None: no link, or
    one this session does not have: the page says so)."""
    if linked is None or not linked.strip().isdigit():
        return None
    position = int(linked)
    return position if position < len(items) else None


def rule_description(rule: str | None) -> str:
    """What a gatekeeper rule checks, from ``core.gatekeeper.RULES`` (empty when unknown)."""
    from core.gatekeeper import RULES

    known = RULES.get(rule or "")
    return f"{known.name} ({known.severity}): {known.description}" if known else ""


def find_invocation(document: SessionDocument, invocation_id: int | None) -> Invocation | None:
    """The session's own invocation with that id, if any."""
    if invocation_id is None:
        return None
    return next((i for i in document.invocations if i.invocation_id == invocation_id), None)


def ref_text_at(invocation: Invocation | None, raw_path: str | None) -> str | None:
    """The evidence ref text the recorder stored at ``raw_path`` of ``invocation``."""
    if invocation is None or raw_path is None or invocation.retrieval_details is None:
        return None
    return next((ref.text for ref in invocation.retrieval_details.evidence_refs
                 if ref.raw_path == raw_path), None)


def _checked_index(result: GatekeeperResult | None) -> dict[tuple[str, str, int], CheckedBinding]:
    index: dict[tuple[str, str, int], CheckedBinding] = {}
    for checked in result.checked_bindings if result else []:
        if checked.claim_id is not None:
            index[("claim", checked.claim_id, checked.binding_index)] = checked
        elif checked.action_id is not None:
            index[("action", checked.action_id, checked.binding_index)] = checked
    return index


def session_bindings(document: SessionDocument) -> list[InspectedBinding]:
    """Every binding of the session (claims first, then actions), with its stored verdict."""
    output = document.executor_output
    if output is None:
        return []
    checked = _checked_index(document.gatekeeper_result)
    owners: list[tuple[OwnerKind, str, str, list[EvidenceBinding]]] = [
        ("claim", c.claim_id, c.claim_text, c.evidence_bindings) for c in output.claims]
    owners += [("action", a.action_id, a.action_text, a.evidence_bindings)
               for a in output.recommended_actions]
    inspected: list[InspectedBinding] = []
    for kind, owner_id, text, bindings in owners:
        for index, binding in enumerate(bindings):
            invocation = find_invocation(document, binding.source_invocation_id)
            inspected.append(InspectedBinding(
                key=BindingKey(kind, owner_id, index), owner_text=text, binding=binding,
                checked=checked.get((kind, owner_id, index)), invocation=invocation,
                ref_text=ref_text_at(invocation, binding.raw_path)))
    return inspected


def tampered_output(output: ExecutorOutput, key: BindingKey,
                    replacement: EvidenceBinding) -> ExecutorOutput:
    """A copy of ``output`` with the binding at ``key`` replaced; the original is untouched."""
    copy = output.model_copy(deep=True)
    owners: list[Claim | RecommendedAction] = [
        *(copy.claims if key.owner_kind == "claim" else copy.recommended_actions)]
    for owner in owners:
        owner_id = owner.claim_id if isinstance(owner, Claim) else owner.action_id
        if owner_id == key.owner_id and 0 <= key.index < len(owner.evidence_bindings):
            bindings = list(owner.evidence_bindings)
            bindings[key.index] = replacement
            owner.evidence_bindings = bindings
            return copy
    raise KeyError(f"no binding {key.owner_id} #{key.index} in this session")


@dataclass(frozen=True)
class Recheck:
    """The gatekeeper's answer for an edited binding, for the whole edited output, and the ref
    text the edited excerpt is shown against."""

    checked: CheckedBinding | None
    result: GatekeeperResult
    ref_text: str | None = None


def _check(document: SessionDocument, output: ExecutorOutput | None,
           stored_invocations: StoredInvocations | None) -> GatekeeperResult:
    """The current gatekeeper on ``output`` against the session's own invocations."""
    from core.gatekeeper import check_citations  # the gatekeeper package is heavier to import

    return check_citations(
        session_id=document.session_id, invocations=document.invocations,
        executor_output=output,
        parse_status=document.executor_output_parse_status or ParseStatus(),
        stored_invocations=stored_invocations)


def recheck_binding(document: SessionDocument, key: BindingKey, replacement: EvidenceBinding,
                    *, stored_invocations: StoredInvocations | None = None) -> Recheck:
    """Run the current gatekeeper on the session with one binding replaced (nothing stored)."""
    if document.executor_output is None:
        raise KeyError("this session has no executor output to re-check")
    edited = tampered_output(document.executor_output, key, replacement)
    result = _check(document, edited, stored_invocations)
    checked = _checked_index(result).get((key.owner_kind, key.owner_id, key.index))
    located = ref_text_at(find_invocation(document, replacement.source_invocation_id),
                          replacement.raw_path)
    return Recheck(checked=checked, result=result, ref_text=shown_ref_text(checked, located))


def recheck_session(document: SessionDocument, *,
                    stored_invocations: StoredInvocations | None = None) -> GatekeeperResult:
    """The session's stored output checked again under the current gatekeeper version."""
    return _check(document, document.executor_output, stored_invocations)


# ---------------------------------------------------------------- the verifier's side

SCORE_EXPLAINED = ("Score only locates the excerpt in the ref text (how closely the two "
                   "strings align); pass or fail is decided by the facts — every number, unit, "
                   "sign, name and negation must be the same — so a 0.99 score can still fail.")
_SOURCES = {"excerpt": "in the quoted excerpt", "ref": "elsewhere in the cited ref",
            "arguments": "in the call's own arguments"}


def support_rows(document: SessionDocument, key: BindingKey) -> list[dict[str, str]]:
    """How the verifier supported each fact of the binding's claim: the claim's words, their
    role, the evidence that gives that value in that role, which binding and where in it."""
    result = document.verifier_result
    if key.owner_kind != "claim" or result is None:
        return []
    judged = next((r for r in result.claim_results if r.claim_id == key.owner_id), None)
    if judged is None:
        return []
    rows = []
    for support in judged.supports:
        this = " (this one)" if support.binding_index == key.index else ""
        start, end = support.span
        rows.append({"fact": support.fact, "role": support.role, "evidence": support.evidence,
                     "binding": f"#{support.binding_index}{this}",
                     "where": f"{_SOURCES.get(support.source, support.source)}, "
                              f"characters {start}–{end}"})
    return rows


def claim_judgement(document: SessionDocument, key: BindingKey) -> str:
    """The verifier's judgement of the binding's claim in one line (empty for an action)."""
    result = document.verifier_result
    if key.owner_kind != "claim" or result is None:
        return ""
    judged = next((r for r in result.claim_results if r.claim_id == key.owner_id), None)
    if judged is None:
        return "The verifier did not judge this claim."
    if judged.entailed:
        return "The verifier found every fact of the claim in its verified evidence."
    return "Not entailed: " + ("; ".join(judged.reasons) or judged.rule or "no reason given")
