"""The Sources view: which sources a world has, whether they answer, what they hold; and how an
invocation's request reads.

Used by the Data page, the Investigate page and ``superbiz sources``. A combined source
(Prometheus with its Alertmanager) is listed as its servers, each with its own status.
"""

from __future__ import annotations

import json
import os
import urllib.parse
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.contracts import Invocation
from core.sources.base import CAPABILITIES, Capability, Source, World

if TYPE_CHECKING:
    from core.settings import Settings

SOURCES_PREFIX = "sources:"


@dataclass(frozen=True)
class SourceRow:
    """One source of a world as the view lists it."""

    capability: Capability
    kind: str
    source_id: str
    location: str
    status: str  # "answering", "unreachable", "not configured"
    problem: str = ""
    holds: dict[str, int] = field(default_factory=dict)

    @property
    def holds_text(self) -> str:
        """``alerts 4 · rules 7 · series 23``."""
        return " · ".join(f"{name} {count:,}" for name, count in self.holds.items())

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def _parts(source: Source) -> list[Source]:
    parts = getattr(source, "parts", None)
    return list(parts) if parts else [source]


def source_rows(world: World) -> list[SourceRow]:
    """One row per source (a combined source: one per server), in capability order; a
    capability without a source is a ``not configured`` row. Asks each live source once."""
    rows: list[SourceRow] = []
    for capability in CAPABILITIES:
        source = world.source(capability)
        if source is None:
            rows.append(SourceRow(capability=capability, kind="none", source_id="", location="",
                                  status="not configured",
                                  problem=f"calls to this capability's tool fail: world "
                                          f"{world.name} has no {capability} source"))
            continue
        for part in _parts(source):
            described = part.describe()
            rows.append(SourceRow(
                capability=capability, kind=described.kind, source_id=described.source_id,
                location=described.location,
                status="unreachable" if described.problem else "answering",
                problem=described.problem or "", holds=dict(described.holds)))
    return rows


def rows_table(rows: list[SourceRow]) -> list[dict[str, str]]:
    """The rows as a table's records."""
    return [{"capability": row.capability, "kind": row.kind, "status": row.status,
             "holds": row.holds_text, "source": row.source_id, "location": row.location,
             "problem": row.problem} for row in rows]


# ---------------------------------------------------------------- requests


def request_lines(invocation: Invocation) -> list[str]:
    """How the request an invocation's source served reads: one ``GET url?params`` line per
    HTTP call, the filters applied to the answer, or the JSON of a pack's or store's request."""
    request = invocation.request
    if not request:
        return []
    calls = request.get("calls")
    if isinstance(calls, list) and all(isinstance(call, Mapping) for call in calls):
        lines = [_call_line(call) for call in calls]
        filters = request.get("filters")
        if filters:
            lines.append("filters applied to the answer: " + json.dumps(filters, ensure_ascii=False))
        return lines
    if {"method", "url"} <= set(request):
        return [_call_line(request)]
    return [json.dumps(request, ensure_ascii=False)]


def _call_line(call: Mapping[str, Any]) -> str:
    params = call.get("params") or {}
    query = f"?{urllib.parse.urlencode(params)}" if isinstance(params, Mapping) and params else ""
    return f"{call.get('method', 'GET')} {call.get('url', '')}{query}"


def failure_text(invocation: Invocation) -> str | None:
    """Why a call failed, or ``None`` when it succeeded."""
    if invocation.output.get("success") is not False:
        return None
    return str(invocation.output.get("error") or "the call failed")


# ---------------------------------------------------------------- choosing a world


def world_choices(packs: list[str], sources_files: list[Path]) -> list[str]:
    """What a picker offers: every pack, then every sources file (``sources:<path>``)."""
    return [*packs, *(f"{SOURCES_PREFIX}{path}" for path in sources_files)]


def choice_label(choice: str) -> str:
    """``demo`` / ``sources file prod.yaml``."""
    if choice.startswith(SOURCES_PREFIX):
        return f"sources file {os.path.basename(choice[len(SOURCES_PREFIX):])}"
    return choice


def open_choice(choice: str) -> World:
    """The world of a picker's choice: a sources file's, or a pack's with the live servers of
    ``SUPERBIZ_PROMETHEUS_URL`` / ``SUPERBIZ_ALERTMANAGER_URL`` as its metrics."""
    from core.sources.config import open_world

    if choice.startswith(SOURCES_PREFIX):
        return open_world(sources=choice[len(SOURCES_PREFIX):])
    return open_world(choice)


def configured_servers(settings: Settings) -> list[str]:
    """The live servers and sources files the environment configures, credentials removed."""
    from core.redact import public_url

    found = [f"{name} {public_url(url)}" for name, url in (
        ("SUPERBIZ_PROMETHEUS_URL", settings.prometheus_url),
        ("SUPERBIZ_ALERTMANAGER_URL", settings.alertmanager_url),
        ("SUPERBIZ_CLICKHOUSE_URL", settings.clickhouse_url)) if url.strip()]
    found += [f"SUPERBIZ_SOURCES {path}" for path in settings.sources_files()]
    return found
