"""The three tools over a scenario pack: typed arguments in, JSON-able results out.

``run_tool(pack, name, arguments)`` is the single entry the executor, CLI and console use:
it validates the arguments (one-line ``ToolArgumentError`` / ``UnknownToolError``), runs the
tool and returns the result contract dumped to a dict. Every tool is deterministic and never
invents data: no match is ``success: true`` with an empty list.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel

from core.packs import Pack
from core.tools.args import (
    TOOL_ARGS,
    TOOL_DESCRIPTIONS,
    LookupKnowledgeArgs,
    QueryLogsArgs,
    QueryMetricsArgs,
    validate_arguments,
)
from core.tools.knowledge import knowledge_index, lookup_knowledge
from core.tools.logs import log_index, query_logs, topic_index
from core.tools.metrics import query_metrics

TOOL_FUNCTIONS: dict[str, Callable[[Pack, Any], BaseModel]] = {
    "query_metrics": query_metrics,
    "query_logs": query_logs,
    "lookup_knowledge": lookup_knowledge,
}


def run_tool(pack: Pack, tool_name: str, arguments: dict[str, Any] | None) -> dict[str, Any]:
    """Validate ``arguments``, run the tool on ``pack`` and return its result as a JSON-able dict."""
    args = validate_arguments(tool_name, arguments)
    return TOOL_FUNCTIONS[tool_name](pack, args).model_dump(mode="json")


def warm_up(pack: Pack) -> None:
    """Build the pack's search indexes now rather than on the first tool call (seconds on a
    million log lines; nothing on the demo pack). They are cached on the pack."""
    log_index(pack)
    topic_index(pack)
    knowledge_index(pack)


__all__ = [
    "TOOL_ARGS",
    "TOOL_DESCRIPTIONS",
    "TOOL_FUNCTIONS",
    "LookupKnowledgeArgs",
    "QueryLogsArgs",
    "QueryMetricsArgs",
    "lookup_knowledge",
    "query_logs",
    "query_metrics",
    "run_tool",
    "validate_arguments",
    "warm_up",
]
