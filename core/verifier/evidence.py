"""What the verifier may rest a judgement on: the bindings the gatekeeper passed, read once.

A binding that passed is evidence through three things the gatekeeper checked: its excerpt, the
ref at its ``raw_path`` that the excerpt was matched against (its text, ``matched_text``, and
its fields, ``matched_fields``: a quote without the line's time, level and service is still
that service's line) and the arguments of its invocation (a query filtered by
``service=order-service`` returned order-service's lines). What the ref is comes from its
fields; its values are read from its text in their roles (``core.verifier.roles``); the spans
the excerpt covers are kept, so a support can say whether it was quoted.

Runbook text (a reference-only tool such as ``lookup_knowledge``) is kept apart: it never supports current state, and is
read only to recognise runbook content stated as fact.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import Any

from core.contracts import AlertRefFields, CheckedBinding, GroupRefFields, LogRefFields, RefFields, VerifierInput
from core.language.lexicon import SERVICE_PATTERN
from core.language.text import fold
from core.tools.spec import is_reference_tool
from core.verifier.legacy_refs import legacy_services
from core.verifier.roles import Reading, RoleFact, argument_services, read_ref


@dataclass(frozen=True)
class Item:
    """One passed binding, read: the text it rests on and what that text says."""

    claim_id: str | None
    action_id: str | None
    binding_index: int
    tool_name: str | None
    text: str                                 # the matched ref (the excerpt when there is none)
    excerpt: str
    quoted: tuple[tuple[int, int], ...]       # spans of ``text`` the excerpt covers
    reading: Reading
    arguments: dict[str, Any] = field(default_factory=dict)
    negative: bool = False

    @property
    def runbook(self) -> bool:
        """Runbook text: what to look for, never what is happening."""
        return is_reference_tool(self.tool_name)

    def quotes(self, start: int, end: int) -> bool:
        """Whether ``[start, end)`` lies in the part of the ref the excerpt quoted."""
        return any(q_start <= start and end <= q_end for q_start, q_end in self.quoted)

    def texts(self) -> list[str]:
        """Everything this binding shows: excerpt, matched ref, query arguments."""
        arguments = ", ".join(f"{key}={value}" for key, value in self.arguments.items())
        return [text for text in (self.excerpt, self.text, arguments, self.tool_name or "") if text]


def ref_services(text: str, fields: RefFields | None = None) -> list[str]:
    """The services a ref has as its own (its fields' service) or mentions; for a text without
    fields, those its layout gives (``legacy_services``)."""
    if fields is None:
        return legacy_services(text)
    own = fields.service.strip() if isinstance(fields, (AlertRefFields, LogRefFields, GroupRefFields)) else ""
    mentioned = [match.group(1) for match in SERVICE_PATTERN.finditer(fold(text))]
    return ([fold(own)] if own else []) + mentioned


class Evidence:
    """Every binding of a session the gatekeeper passed, read for roles, by claim and action."""

    def __init__(self, verifier_input: VerifierInput, extra_subjects: Iterable[str] = (),
                 unread_claims: AbstractSet[str] = frozenset()) -> None:
        """``unread_claims``: claims the verifier will not judge (past its caps): their
        bindings are not read."""
        checked = [b for b in verifier_input.gatekeeper_result.checked_bindings if b.status == "pass"
                   and (b.claim_id is None or b.claim_id not in unread_claims)]
        arguments = verifier_input.invocation_arguments
        self.known_subjects: set[str] = {fold(s) for s in extra_subjects if s}
        for binding in checked:
            self.known_subjects.update(ref_services(*_ref_of(binding)))
            self.known_subjects.update(fold(s) for s in argument_services(
                arguments.get(binding.source_invocation_id or -1, {})))
        self.items = [self._item(binding, arguments) for binding in checked]
        self._newest = _newest_samples(item for item in self.items if not item.runbook)
        # Indexed once: each claim asks for its own items and the runbooks (per claim, a scan of
        # every item made a session of thousands of claims quadratic).
        self._by_claim: dict[str, list[Item]] = {}
        for item in self.items:
            if item.claim_id is not None:
                self._by_claim.setdefault(item.claim_id, []).append(item)
        self._runbooks = [item for item in self.items if item.runbook]

    def _item(self, binding: CheckedBinding, arguments: dict[int, dict[str, Any]]) -> Item:
        call_arguments = arguments.get(binding.source_invocation_id or -1, {})
        negative = binding.match_kind == "negative" or not binding.raw_path
        text, fields = _ref_of(binding)
        quoted = tuple(binding.spans) if binding.matched_text and binding.spans else ((0, len(text)),)
        reading = read_ref(text, fields, argument_subjects=argument_services(call_arguments),
                           known_subjects=self.known_subjects)
        return Item(binding.claim_id, binding.action_id, binding.binding_index, binding.tool_name,
                    text, binding.evidence_excerpt, quoted, reading, dict(call_arguments), negative)

    def for_claim(self, claim_id: str) -> list[Item]:
        """The claim's passed bindings."""
        return list(self._by_claim.get(claim_id, ()))

    def runbooks(self) -> list[Item]:
        """Every runbook binding of the session (claims' and actions')."""
        return list(self._runbooks)

    def is_now(self, fact: RoleFact) -> bool:
        """Whether an evidence value is the present one: not a sample at a time, or the newest
        sample of its series (same subject, label and unit family) in the session's evidence."""
        if fact.time is None or fact.quantity is None:
            return True
        newest = self._newest.get(_series(fact))
        return newest is None or fact.time.key() >= newest


def _ref_of(binding: CheckedBinding) -> tuple[str, RefFields | None]:
    """The text a binding rests on (its matched ref, else its excerpt) and that ref's fields."""
    if binding.matched_text:
        return binding.matched_text, binding.matched_fields
    return binding.evidence_excerpt, None


def _series(fact: RoleFact) -> tuple[frozenset[str], str, str, str]:
    family = fact.quantity.family if fact.quantity else "time"
    return fact.subjects, re.sub(r"\s+", "", fact.label), family, fact.role


def _newest_samples(items: Iterable[Item]) -> dict[tuple[frozenset[str], str, str, str], tuple[str, int, int, int]]:
    newest: dict[tuple[frozenset[str], str, str, str], tuple[str, int, int, int]] = {}
    for item in items:
        for fact in item.reading.facts:
            if fact.quantity is None or fact.time is None:
                continue
            key = _series(fact)
            if key not in newest or fact.time.key() > newest[key]:
                newest[key] = fact.time.key()
    return newest


def passed_items(items: Sequence[Item], *, runbook: bool = False) -> list[Item]:
    """Items that are current-state evidence (or, with ``runbook``, only runbook items)."""
    if runbook:
        return [item for item in items if item.runbook]
    return [item for item in items if not item.runbook and not item.negative]
