"""Which invocation a binding cites, and whether its refs are what its raw output says.

Lookup: the document's own invocations, or -- when the gatekeeper is given the audit store
(``StoredInvocations``) -- the store's, which win: a stored invocation replaces the document's
copy (output and refs), an invocation the store recorded for another session is rejected
whatever the document says (its ``session_id`` nulled or rewritten), and an id the store does
not hold is rejected when the store holds the document's session (the document lists an
invocation that session never made).

Refs: the refs of a cited invocation are recomputed from its raw ``output`` with the recorder's
own recipe (``core.tools.spec.extract_evidence_refs``); a document whose refs disagree (text or
fields) has been edited (``evidence.refs_tampered``). Refs stored before refs had fields are
compared on their text alone (``with_fields`` gives them the recomputed fields).

Back-fill (docs/design.md §4, kept for compatibility): a binding without ``source_invocation_id``
gets one only when the session holds exactly one invocation of the binding's tool; raw_path is
never back-filled, and the caller must never let a back-filled binding pass.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from core.contracts import EvidenceRef, Invocation, RetrievalDetails
from core.errors import ToolError
from core.gatekeeper.rules import INVOCATION_REF, INVOCATION_SESSION
from core.tools.spec import extract_evidence_refs, find_spec


class StoredInvocations(Protocol):
    """What the audit store knows about invocations (``core.pipeline.store_lookup``)."""

    def invocation(self, invocation_id: int) -> Invocation | None:
        """The stored invocation with this id, whatever its session (None: not stored)."""
        ...

    def holds_session(self, session_id: str) -> bool:
        """Whether the store recorded this session (then it knows all its invocations)."""
        ...


@dataclass(frozen=True)
class Resolved:
    """The cited invocation, or the rule and message saying why there is none."""

    invocation: Invocation | None = None
    rule: str = ""
    message: str = ""


class SessionInvocations:
    """The current session's invocations, indexed for citation checks (lookups cached)."""

    def __init__(self, session_id: str | None, invocations: Sequence[Invocation],
                 stored: StoredInvocations | None = None) -> None:
        self.session_id = session_id
        self.stored = stored
        self.by_id: dict[int, Invocation] = {}
        # Ids the document lists more than once: which copy is the record? Neither.
        self.repeated: set[int] = set()
        for invocation in invocations:
            if invocation.invocation_id in self.by_id:
                self.repeated.add(invocation.invocation_id)
            self.by_id.setdefault(invocation.invocation_id, invocation)
        self._resolved: dict[int, Resolved] = {}
        self._refs_problems: dict[tuple[int, bool], str] = {}
        self._session_stored: bool | None = None

    def _is_foreign(self, invocation: Invocation) -> bool:
        return bool(self.session_id) and invocation.session_id != self.session_id

    def resolve(self, invocation_id: int) -> Resolved:
        """The invocation a binding names, if it is real and this session's."""
        if invocation_id not in self._resolved:
            self._resolved[invocation_id] = self._resolve(invocation_id)
        return self._resolved[invocation_id]

    def _resolve(self, invocation_id: int) -> Resolved:
        listed = self.by_id.get(invocation_id)
        if self.stored is not None:
            stored = self.stored.invocation(invocation_id)
            if stored is not None:
                if not (self.session_id and stored.session_id == self.session_id):
                    return Resolved(rule=INVOCATION_SESSION, message=(
                        f"source_invocation_id {invocation_id} belongs to session "
                        f"{stored.session_id or '(unknown)'} in the store, not "
                        f"{self.session_id or '(the document names no session)'}"))
                return Resolved(invocation=stored)
            if self._holds_session():
                return Resolved(rule=INVOCATION_REF, message=(
                    f"source_invocation_id {invocation_id} is not an invocation the store recorded "
                    f"for session {self.session_id}" + (" (the document lists one it never made)" if listed else "")))
            if listed is None:
                return Resolved(rule=INVOCATION_REF, message=(
                    f"source_invocation_id {invocation_id} is not a recorded invocation in this "
                    "session or anywhere in the store"))
        if listed is None:
            return Resolved(rule=INVOCATION_REF, message=(
                f"source_invocation_id {invocation_id} is not a recorded invocation of this session"))
        if self._is_foreign(listed):
            return Resolved(rule=INVOCATION_SESSION, message=(
                f"source_invocation_id {invocation_id} belongs to session "
                f"{listed.session_id or '(none: its session_id is empty)'}, not {self.session_id}"))
        return Resolved(invocation=listed)

    def _holds_session(self) -> bool:
        if self._session_stored is None:
            self._session_stored = bool(self.session_id and self.stored is not None
                                        and self.stored.holds_session(self.session_id))
        return self._session_stored

    def listed(self) -> list[Invocation]:
        """The document's own invocations, in order."""
        return list(self.by_id.values())

    def unrecorded(self, invocation: Invocation) -> str:
        """Why a listed invocation is not one the store recorded for this session ('' when it
        is, or when there is no store or it does not hold the session): the document lists a
        call the session never made (uncited, its output still reaches the verifier)."""
        if self.stored is None or not self._holds_session():
            return ""
        if self.stored.invocation(invocation.invocation_id) is not None:
            return ""
        return (f"invocation {invocation.invocation_id} of the document is not one the store "
                f"recorded for session {self.session_id}")

    def candidates(self, tool_name: str | None) -> list[Invocation]:
        """This session's invocations of ``tool_name`` (back-fill candidates)."""
        if not tool_name:
            return []
        return [inv for inv in self.by_id.values()
                if inv.tool_name == tool_name and not self._is_foreign(inv)]

    def refs_problem(self, invocation: Invocation) -> str:
        """Why the invocation (as resolved: the store's copy when there is one) and the
        document's copy of it are not what was recorded ('' when they are; a legacy record
        without refs is not compared: ``refs_missing`` says so): refs that are not the
        recorder's reading of the raw output, an id listed twice, a copy that differs from the
        store's."""
        key = (invocation.invocation_id, invocation is self.by_id.get(invocation.invocation_id))
        if key not in self._refs_problems:
            problem = refs_disagreement(invocation)
            listed = self.by_id.get(invocation.invocation_id)
            if not problem and listed is not None:
                problem = self._listed_problem(listed)
            self._refs_problems[key] = problem
        return self._refs_problems[key]

    def _listed_problem(self, listed: Invocation) -> str:
        """Why the document's own copy of an invocation is not the record ('' when it is)."""
        invocation_id = listed.invocation_id
        if invocation_id in self.repeated:
            return (f"invocation {invocation_id} is listed more than once in the document "
                    "(a recorded invocation has one record)")
        if self.stored is not None:
            stored = self.stored.invocation(invocation_id)
            if stored is not None and stored is not listed:
                changed = [name for name in _RECORD_FIELDS
                           if getattr(stored, name) != getattr(listed, name)]
                if changed:
                    return (f"the document's copy of invocation {invocation_id} differs from the "
                            f"store's record ({', '.join(changed)})")
        return refs_disagreement(listed)


# What an invocation recorded: a document's copy must hold the same (duration and the like
# are measurements, not evidence).
_RECORD_FIELDS: tuple[str, ...] = ("session_id", "tool_name", "arguments", "output",
                                   "retrieval_details", "request")


def refs_disagreement(invocation: Invocation) -> str:
    """How ``invocation.retrieval_details`` differ from ``extract_evidence_refs`` of its output."""
    details = invocation.retrieval_details
    if details is None or (details.evidence_status == "supported" and not details.evidence_refs):
        return ""
    recomputed = _as_stored(extract_evidence_refs(invocation.tool_name, invocation.output), details)
    if recomputed == details:
        return _request_disagreement(invocation)
    return (f"retrieval_details of invocation {invocation.invocation_id} are not what the "
            f"recorder makes of its raw output: {_difference(details, recomputed)}")


def _as_stored(recomputed: RetrievalDetails, stored: RetrievalDetails) -> RetrievalDetails:
    """``recomputed`` without fields where ``stored`` has a ref without fields at the same place
    (a ref stored before refs had fields: its text is what is compared)."""
    legacy = {ref.raw_path for ref in stored.evidence_refs if ref.fields is None}
    if not legacy:
        return recomputed
    refs = [ref.model_copy(update={"fields": None}) if ref.raw_path in legacy else ref
            for ref in recomputed.evidence_refs]
    return recomputed.model_copy(update={"evidence_refs": refs})


def with_fields(invocation: Invocation, refs: list[EvidenceRef]) -> list[EvidenceRef]:
    """``refs`` of ``invocation`` (already found to be what its output gives), each with its
    fields: a ref stored without them gets them recomputed from the raw output by its recipe."""
    if all(ref.fields is not None for ref in refs):
        return refs
    recomputed = {ref.raw_path: ref for ref in
                  extract_evidence_refs(invocation.tool_name, invocation.output).evidence_refs}
    return [recomputed[ref.raw_path] if ref.fields is None and ref.raw_path in recomputed
            and recomputed[ref.raw_path].text == ref.text else ref for ref in refs]


def _request_disagreement(invocation: Invocation) -> str:
    """How the invocation's arguments differ from the request its source was sent ('' when
    they agree): a source records the validated arguments it served, so an argument edited in
    a document (a filter removed or changed) no longer matches it. Request keys that are not
    arguments of the tool (a URL, a method) are not compared."""
    spec = find_spec(invocation.tool_name)
    request = invocation.request
    if spec is None or not request:
        return ""
    fields = spec.args.model_fields
    try:
        # compared as the tool read them: a model's `` payment-service `` or ``ANY`` is the
        # request's ``payment-service`` / ``any``
        arguments = spec.validate(invocation.arguments).model_dump()
    except ToolError:
        arguments = invocation.arguments
    for key, value in request.items():
        if key not in fields:
            continue
        given = arguments.get(key, fields[key].get_default(call_default_factory=True))
        if given != value and not (_blank(given) and _blank(value)):
            return (f"arguments of invocation {invocation.invocation_id} are not the request its "
                    f"source served: {key}={given!r}, the request has {key}={value!r}")
    return ""


def _blank(value: object) -> bool:
    return value is None or value == "" or value == []


def _difference(recorded: RetrievalDetails, recomputed: RetrievalDetails) -> str:
    if recorded.evidence_status != recomputed.evidence_status:
        return (f"evidence_status {recorded.evidence_status}, the output gives "
                f"{recomputed.evidence_status}")
    real = {ref.raw_path: ref.text for ref in recomputed.evidence_refs}
    listed = {ref.raw_path: ref.text for ref in recorded.evidence_refs}
    for path, text in listed.items():
        if path not in real:
            return f"{path} is not an entry of the output"
        if real[path] != text:
            return f"{path} reads {text!r}, the output gives {real[path]!r}"
    real_fields = {ref.raw_path: ref.fields for ref in recomputed.evidence_refs}
    for ref in recorded.evidence_refs:
        if ref.fields != real_fields[ref.raw_path]:
            return f"the fields of {ref.raw_path} are not what the output gives"
    missing = [path for path in real if path not in listed]
    if missing:
        return f"{missing[0]} of the output is missing from the refs"
    return "the refs are out of order or repeated"
