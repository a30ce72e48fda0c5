"""The recorder: every tool call becomes an invocation with evidence refs extracted by code.

Refs follow one recipe per tool (docs/design.md §2): alert ->
name + state + service + value + duration (+ details), log -> timestamp + level + service +
message, knowledge block -> title + source + content. The recorder never infers anything: it
copies facts from one entry into one line of text, no more.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ValidationError

from core.contracts import (
    RAW_PATH_PREFIX,
    Alert,
    EvidenceBlock,
    EvidenceRef,
    Invocation,
    LogEntry,
    RetrievalDetails,
)
from core.errors import ToolError

if TYPE_CHECKING:
    from core.packs import Pack
    from core.store import Store

# Ids for invocations that are not stored (benchmarks, dry runs); stored ones come from the
# database, so that ids are unique across the whole store.
_unstored_ids = itertools.count(1_000_000_000)


def alert_ref_text(alert: Alert) -> str:
    """``HighMemoryUsage firing, service=order-service, current=91%, ...; JVM heap 3.8GB/4GB``."""
    fields = [("service", alert.service), ("current", alert.current),
              ("threshold", alert.threshold), ("duration", alert.duration),
              ("pod", alert.pod), ("namespace", alert.namespace), ("severity", alert.severity)]
    head = f"{alert.alert_name} {alert.state}, " + ", ".join(
        f"{name}={value}" for name, value in fields if value)
    tail = [*alert.details, *([alert.summary] if alert.summary else [])]
    return "; ".join([head, *tail])


def log_ref_text(entry: LogEntry) -> str:
    """``[timestamp][LEVEL][service] message``, the log ref shape of docs/design.md §2."""
    return f"[{entry.timestamp}][{entry.level}][{entry.service}] {entry.message}"


def block_ref_text(block: EvidenceBlock) -> str:
    """``title (source): content`` of one runbook section."""
    return f"{block.title} ({block.source}): {block.content}"


_RECIPES: dict[str, tuple[type[BaseModel], Callable[[Any], str]]] = {
    # tool -> (entry model, text recipe); the output key is the raw_path prefix's ("$.logs").
    "query_metrics": (Alert, alert_ref_text),
    "query_logs": (LogEntry, log_ref_text),
    "lookup_knowledge": (EvidenceBlock, block_ref_text),
}


def extract_evidence_refs(tool_name: str, output: dict[str, Any]) -> RetrievalDetails:
    """Refs of one tool output; ``error`` when the call failed, ``no_evidence`` when empty."""
    if not output.get("success", False):
        return RetrievalDetails(evidence_status="error")
    recipe = _RECIPES.get(tool_name)
    if recipe is None:
        return RetrievalDetails(evidence_status="no_evidence")
    model, to_text = recipe
    prefix = RAW_PATH_PREFIX[tool_name]
    key = prefix.removeprefix("$.")
    refs: list[EvidenceRef] = []
    for index, raw_entry in enumerate(output.get(key) or []):
        try:
            entry = model.model_validate(raw_entry)
        except ValidationError:
            continue  # an entry without the recipe's fields yields no ref; nothing is invented
        refs.append(EvidenceRef(raw_path=f"{prefix}[{index}]", text=to_text(entry)))
    return RetrievalDetails(evidence_status="supported" if refs else "no_evidence",
                            evidence_refs=refs)


class Recorder:
    """Calls tools on a pack for one session and records each call (in the store, if given)."""

    def __init__(self, *, pack: Pack, session_id: str, store: Store | None = None) -> None:
        self.pack = pack
        self.session_id = session_id
        self.store = store
        self.invocations: list[Invocation] = []

    def call(self, tool_name: str, arguments: dict[str, Any], *,
             record_failure: bool = False) -> Invocation:
        """Run a tool and record it. Bad arguments raise ``ToolError`` and record nothing,
        unless ``record_failure``: then the failure is recorded as an ``error`` invocation
        (an LLM's invalid call is part of the audit trail)."""
        from core.tools import run_tool  # tools import packs; keep this module light to import

        started = time.perf_counter()
        try:
            output = run_tool(self.pack, tool_name, arguments)
        except ToolError as exc:
            if not record_failure:
                raise
            output = {"success": False, "error": str(exc)}
        duration_ms = (time.perf_counter() - started) * 1000
        details = extract_evidence_refs(tool_name, output)
        invocation = self._persist(tool_name, arguments, output, details, duration_ms)
        self.invocations.append(invocation)
        return invocation

    def _persist(self, tool_name: str, arguments: dict[str, Any], output: dict[str, Any],
                 details: RetrievalDetails, duration_ms: float) -> Invocation:
        if self.store is None:
            return Invocation(invocation_id=next(_unstored_ids), session_id=self.session_id,
                              tool_name=tool_name, arguments=dict(arguments), output=output,
                              retrieval_details=details, duration_ms=duration_ms)
        from core.store.repository import record_invocation

        return record_invocation(self.store, session_id=self.session_id, tool_name=tool_name,
                                 arguments=arguments, output=output, retrieval_details=details,
                                 duration_ms=duration_ms)
