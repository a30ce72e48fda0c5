"""The recorder: every tool call becomes an invocation with evidence refs extracted by code.

A call runs through the tool's spec against the session's ``World`` (``core.tools.spec``); the
invocation records which source answered (``source``) and the exact request it served
(``request``). Refs come from the evidence lists the spec declares for the tool, each with its
recipe (``core.tools.refs``, through ``core.tools.spec.extract_evidence_refs``): one ref per
entry, ``$.<list>[i]``, its text and its fields. The recorder never infers anything: it copies
facts from one entry, no more.
"""

from __future__ import annotations

import itertools
import time
from typing import TYPE_CHECKING, Any

from core.contracts import Invocation, RetrievalDetails
from core.errors import NoSourceError, SourceError, ToolError
from core.tools.spec import call_tool, extract_evidence_refs

if TYPE_CHECKING:
    from core.sources.base import Request, World
    from core.store import Store
    from core.store.journal import Journal

# Ids for invocations that are not stored (benchmarks, dry runs); stored ones come from the
# database, so that ids are unique across the whole store.
_unstored_ids = itertools.count(1_000_000_000)


class Recorder:
    """Calls tools on a world for one session and records each call (in the store, if given)."""

    def __init__(self, *, world: World, session_id: str, store: Store | None = None,
                 journal: Journal | None = None, clock_origin: float | None = None) -> None:
        self.world = world
        # ``time.perf_counter()`` when the session started: each call's ``started_ms`` counts
        # from it (from the recorder's creation when not given).
        self.clock_origin = time.perf_counter() if clock_origin is None else clock_origin
        self.session_id = session_id
        self.store = store
        # The pipeline's write path: calls get reserved ids and are stored with their stage.
        self.journal = journal
        self.invocations: list[Invocation] = []

    def call(self, tool_name: str, arguments: dict[str, Any], *,
             record_failure: bool = False) -> Invocation:
        """Run a tool and record it.

        Bad arguments or an unknown tool raise ``ToolError`` and record nothing, unless
        ``record_failure``: then the failure is recorded as an ``error`` invocation (an LLM's
        invalid call is part of the audit trail). A source that cannot answer (``SourceError``)
        is always recorded as an ``error`` invocation: the call was valid, the world failed it.
        The output's ``failure`` says which: ``source`` (a source failed: the session cannot
        PASS, ``core.verdict.source_failures``), ``no_source`` (the world has no source for the
        tool) or ``call`` (the call itself was invalid).
        """
        started = time.perf_counter()
        source: str | None = None
        request: Request | None = None
        try:
            answer = call_tool(self.world, tool_name, arguments)
            output, source, request = answer.output, answer.source, answer.request
        except SourceError as exc:
            kind = "no_source" if isinstance(exc, NoSourceError) else "source"
            output = {"success": False, "error": str(exc), "failure": kind}
            source, request = exc.source, exc.request
        except ToolError as exc:
            if not record_failure:
                raise
            output = {"success": False, "error": str(exc), "failure": "call"}
        duration_ms = (time.perf_counter() - started) * 1000
        started_ms = round((started - self.clock_origin) * 1000, 3)
        invocation = self._persist(tool_name, dict(arguments), output,
                                   extract_evidence_refs(tool_name, output), duration_ms,
                                   source, request, started_ms)
        self.invocations.append(invocation)
        return invocation

    def _persist(self, tool_name: str, arguments: dict[str, Any], output: dict[str, Any],
                 details: RetrievalDetails, duration_ms: float, source: str | None,
                 request: Request | None, started_ms: float) -> Invocation:
        reserved = self.journal.next_invocation_id() if self.journal is not None else None
        if self.store is None or reserved is not None:
            invocation = Invocation(
                invocation_id=reserved if reserved is not None else next(_unstored_ids),
                session_id=self.session_id, tool_name=tool_name, arguments=arguments,
                output=output, retrieval_details=details, duration_ms=duration_ms,
                started_ms=started_ms, source=source, request=request)
            if reserved is not None and self.journal is not None:
                self.journal.add_invocation(invocation)
            return invocation
        from core.store.repository import record_invocation

        invocation = record_invocation(self.store, session_id=self.session_id, tool_name=tool_name,
                                       arguments=arguments, output=output,
                                       retrieval_details=details, duration_ms=duration_ms,
                                       source=source, request=request, started_ms=started_ms)
        if self.journal is not None:
            self.journal.known_invocation(invocation)
        return invocation
