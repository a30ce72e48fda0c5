"""The three tools: their one declaration (``spec``), arguments (``args``), ref recipes
(``refs``), what ``query_logs`` arguments mean (``logquery``, run by the log store,
``core.sources.logstore``) and the in-memory implementations a pack's sources run for metrics
and runbooks (``metrics``, ``knowledge``).

``core.tools.spec.call_tool(world, name, arguments)`` is the single entry the recorder, CLI and
console use: it validates the arguments (one-line ``ToolArgumentError`` / ``UnknownToolError``),
asks the world's source of the tool's capability and returns the result contract as JSON, with
the source's id and the request it served. Every tool is deterministic and never invents data:
no match is ``success: true`` with an empty list.

Only the light declarations are re-exported here; the in-memory tools (which load packs) are
imported from their modules.
"""

from core.tools.args import LookupKnowledgeArgs, QueryLogsArgs, QueryMetricsArgs
from core.tools.spec import (
    TOOL_ARGS,
    TOOL_DESCRIPTIONS,
    TOOL_SPECS,
    call_tool,
    run_tool,
    validate_arguments,
)

__all__ = [
    "TOOL_ARGS",
    "TOOL_DESCRIPTIONS",
    "TOOL_SPECS",
    "LookupKnowledgeArgs",
    "QueryLogsArgs",
    "QueryMetricsArgs",
    "call_tool",
    "run_tool",
    "validate_arguments",
]
