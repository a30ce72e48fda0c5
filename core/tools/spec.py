"""One declaration per tool (docs/design.md §12): the only table of tools.

A ``ToolSpec`` holds a tool's name, argument model, description, result model, the evidence
lists its output holds (output key, entry model, ref recipe), whether its evidence is
direct or reference-only, its trace summary label and the source capability that answers it.
Everything else is derived from it and asked of it: the argument and description tables the
LLM and CLI show, the refs of an output (``extract_evidence_refs``: the recorder's, and the
gatekeeper's when it recomputes them), the raw_path grammar and per-tool prefixes the
gatekeeper checks, the trace labels, and "is this a runbook tool?" (``is_reference_tool``).

``call_tool`` runs a tool through its spec against a ``World``: validate the arguments, ask the
world's source of the tool's capability, check the result's type, dump it to JSON.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from pydantic import BaseModel, ValidationError

from core.contracts import (
    TOOL_NAMES,
    Alert,
    EvidenceBlock,
    EvidenceRef,
    KnowledgeResult,
    LogEntry,
    LogGroup,
    LogsResult,
    MetricsResult,
    RetrievalDetails,
)
from core.errors import NoSourceError, SourceError, ToolError, UnknownToolError
from core.language.lexicon import TOPICS
from core.sources.base import World
from core.tools.args import (
    LookupKnowledgeArgs,
    QueryLogsArgs,
    QueryMetricsArgs,
    ToolArgs,
    parse_arguments,
)
from core.tools.refs import RefContent, alert_ref, block_ref, group_ref, log_ref

if TYPE_CHECKING:
    from core.packs import Pack
    from core.sources.base import (
        Capability,
        KnowledgeSource,
        LogSource,
        MetricsSource,
        Request,
    )

EntryT = TypeVar("EntryT", bound=BaseModel)


@dataclass(frozen=True)
class EvidenceList(Generic[EntryT]):
    """One list of a tool's output whose entries are evidence refs (``$.<key>[i]``)."""

    key: str
    entry: type[EntryT]
    # The entry's ref text and fields (``core.tools.refs``).
    recipe: Callable[[EntryT], RefContent]

    @property
    def prefix(self) -> str:
        """``$.<key>``: the list itself (what a negative observation may cite)."""
        return f"$.{self.key}"

    def path(self, index: int) -> str:
        """``$.<key>[index]``, the stable locator of one entry."""
        return f"{self.prefix}[{index}]"

    def refs(self, output: Mapping[str, Any]) -> list[EvidenceRef]:
        """A ref per entry of the list in ``output`` that fits the entry model (others yield
        none: nothing is invented)."""
        entries = output.get(self.key)
        if not isinstance(entries, list):
            return []
        found: list[EvidenceRef] = []
        for index, raw_entry in enumerate(entries):
            try:
                entry = self.entry.model_validate(raw_entry)
            except ValidationError:
                continue
            content = self.recipe(entry)
            found.append(EvidenceRef(raw_path=self.path(index), text=content.text, fields=content.fields))
        return found


@dataclass(frozen=True)
class ToolSpec:
    """Everything about one tool; see the module doc for what derives from it."""

    name: str
    args: type[ToolArgs]
    result: type[BaseModel]
    description: str
    evidence: tuple[EvidenceList[Any], ...]
    # Runbooks say what to look for; they are never evidence of current state.
    reference_only: bool
    summary_label: str
    capability: Capability
    # (the world's source of ``capability``, validated args) -> (result, the request served)
    run: Callable[[Any, Any], tuple[BaseModel, Request]]

    @property
    def prefixes(self) -> tuple[str, ...]:
        """``$.<key>`` of each evidence list, in output order."""
        return tuple(evidence.prefix for evidence in self.evidence)

    def validate(self, arguments: Any) -> ToolArgs:
        """The validated arguments; ``ToolArgumentError`` (one line) when they do not fit."""
        return parse_arguments(self.name, self.args, arguments)


def _ask_metrics(source: MetricsSource, args: QueryMetricsArgs) -> tuple[MetricsResult, Request]:
    return source.query_metrics(args)


def _ask_logs(source: LogSource, args: QueryLogsArgs) -> tuple[LogsResult, Request]:
    return source.query_logs(args)


def _ask_knowledge(source: KnowledgeSource,
                   args: LookupKnowledgeArgs) -> tuple[KnowledgeResult, Request]:
    return source.lookup_knowledge(args)


QUERY_METRICS = ToolSpec(
    name="query_metrics", args=QueryMetricsArgs, result=MetricsResult,
    description=(
        "Query the alerts of the monitored services. Filters (all optional, combined with AND): "
        "service (exact name, case-insensitive), alert_name (e.g. HighCPUUsage, "
        "case-insensitive), state (e.g. firing, pending, suppressed) and metric (a metric name "
        "such as cpu_usage_percent: its series, and only the alerts about it). Returns {success, "
        "alerts, series, total, message}: each alert has alert_name, state, service, pod, "
        "current, threshold, duration and details; series holds the metric samples of the "
        "services involved. No match is success with alerts=[] and total=0; a source that "
        "failed is success=false (never an absence). Cite an alert as $.alerts[i]."),
    evidence=(EvidenceList("alerts", Alert, alert_ref),),
    reference_only=False, summary_label="metric_evidence", capability="metrics",
    run=_ask_metrics)

QUERY_LOGS = ToolSpec(
    name="query_logs", args=QueryLogsArgs, result=LogsResult,
    description=(
        "Search application and system logs. Filters (all optional, combined with AND): service "
        "(exact name), level (ERROR/WARN/INFO), topic (one of: " + ", ".join(TOPICS) + ") and "
        "query, free text in Chinese or English. A query naming a topic (e.g. HikariCP, 连接池, "
        "内存, Full GC, 慢请求) matches every line about that topic, synonyms included; "
        "identifiers in the query (service names, paths, ids, numbers) must appear in the line; "
        "other words must appear only when the query names no topic. Returns {success, logs, "
        "groups, total, message}, newest first, at most limit lines (default 20, max 200); total "
        "counts all matches; groups tell repeated lines once (template, count, level, service, "
        "first and last timestamp). No match is success with logs=[] and total=0. Cite a line "
        "as $.logs[i], a group as $.groups[i]."),
    evidence=(EvidenceList("logs", LogEntry, log_ref),
              EvidenceList("groups", LogGroup, group_ref)),
    reference_only=False, summary_label="log_evidence", capability="logs", run=_ask_logs)

LOOKUP_KNOWLEDGE = ToolSpec(
    name="lookup_knowledge", args=LookupKnowledgeArgs, result=KnowledgeResult,
    description=(
        "Look up runbook sections (meaning, what to check, causes, mitigation) relevant to a "
        "question, ranked by topic and word overlap, Chinese or English. Returns {success, "
        "evidence_blocks: [{title, source, content, score}], total}. Runbooks say what to look "
        "for; they are never evidence of the current state of a service. Nothing relevant is "
        "success with evidence_blocks=[] and total=0. Cite a block as $.evidence_blocks[i]."),
    evidence=(EvidenceList("evidence_blocks", EvidenceBlock, block_ref),),
    reference_only=True, summary_label="knowledge_reference", capability="knowledge",
    run=_ask_knowledge)

TOOL_SPECS: dict[str, ToolSpec] = {spec.name: spec for spec in (QUERY_METRICS, QUERY_LOGS, LOOKUP_KNOWLEDGE)}
if tuple(TOOL_SPECS) != TOOL_NAMES:  # contracts.ToolName types Plan.tools; it must agree
    raise RuntimeError(f"core.contracts.ToolName {TOOL_NAMES} != tool specs {tuple(TOOL_SPECS)}")

# ---------------------------------------------------------------- derived tables

TOOL_ARGS: dict[str, type[ToolArgs]] = {name: spec.args for name, spec in TOOL_SPECS.items()}
TOOL_DESCRIPTIONS: dict[str, str] = {name: spec.description for name, spec in TOOL_SPECS.items()}
RAW_PATH_PREFIXES: dict[str, tuple[str, ...]] = {name: spec.prefixes for name, spec in TOOL_SPECS.items()}
# Every evidence list of every tool, in declaration order.
EVIDENCE_KEYS: tuple[str, ...] = tuple(dict.fromkeys(
    evidence.key for spec in TOOL_SPECS.values() for evidence in spec.evidence))
# The strict locator grammar: ``$.<list>[<index>]``, no leading zeros, no spaces, no sub-fields.
RAW_PATH_RE = re.compile(r"^\$\.(" + "|".join(map(re.escape, EVIDENCE_KEYS)) + r")\[(0|[1-9][0-9]*)\]$")


def find_spec(tool_name: str | None) -> ToolSpec | None:
    """The spec of a tool, or None for a name that is no tool."""
    return TOOL_SPECS.get(tool_name) if tool_name is not None else None


def get_spec(tool_name: str) -> ToolSpec:
    """The spec of a tool; ``UnknownToolError`` (one line) for a name that is no tool."""
    spec = find_spec(tool_name)
    if spec is None:
        raise UnknownToolError(f"unknown tool {tool_name!r} (known: {', '.join(TOOL_SPECS)})")
    return spec


def is_reference_tool(tool_name: str | None) -> bool:
    """Whether the tool returns reference material (runbooks), never current-state evidence."""
    spec = find_spec(tool_name)
    return spec is not None and spec.reference_only


def is_evidence_tool(tool_name: str | None) -> bool:
    """Whether the tool returns direct evidence of current state (metrics, logs)."""
    spec = find_spec(tool_name)
    return spec is not None and not spec.reference_only


def summary_label(tool_name: str) -> str:
    """The trace summary's label of a tool's output (``log_evidence``); ``evidence`` if unknown."""
    spec = find_spec(tool_name)
    return spec.summary_label if spec is not None else "evidence"


def parse_raw_path(raw_path: str) -> tuple[str, int] | None:
    """``(list key, index)`` of a well-formed locator (``$.groups[3]`` -> ``("groups", 3)``)."""
    match = RAW_PATH_RE.match(raw_path)
    return (match.group(1), int(match.group(2))) if match else None


def evidence_at(tool_name: str | None, raw_path: str) -> tuple[EvidenceList[Any], int] | None:
    """The evidence list of ``tool_name`` a locator points into, and the index; None when the
    locator is malformed or names a list the tool's output does not have."""
    spec, located = find_spec(tool_name), parse_raw_path(raw_path)
    if spec is None or located is None:
        return None
    evidence = next((item for item in spec.evidence if item.key == located[0]), None)
    return (evidence, located[1]) if evidence is not None else None


def extract_evidence_refs(tool_name: str, output: dict[str, Any]) -> RetrievalDetails:
    """Refs of one tool output (text and fields, by each list's recipe); ``error`` when the call
    failed, ``no_evidence`` when empty. The recorder stores them; the gatekeeper recomputes them
    to check a document's refs and to give refs stored without fields their fields."""
    if not output.get("success", False):
        return RetrievalDetails(evidence_status="error")
    spec = find_spec(tool_name)
    if spec is None:
        return RetrievalDetails(evidence_status="no_evidence")
    refs: list[EvidenceRef] = [ref for evidence in spec.evidence for ref in evidence.refs(output)]
    return RetrievalDetails(evidence_status="supported" if refs else "no_evidence",
                            evidence_refs=refs)


def validate_arguments(tool_name: str, arguments: Any) -> ToolArgs:
    """The validated arguments of a call: ``UnknownToolError`` for an unknown tool,
    ``ToolArgumentError`` such as ``query_logs: limit: must be <= 200 (got 500)``."""
    return get_spec(tool_name).validate(arguments)


# What a world without a source of the capability lacks, as its failed call says it.
_SOURCE_NOUNS: dict[str, str] = {"metrics": "metrics", "logs": "log", "knowledge": "knowledge"}


def no_source_reason(capability: Capability) -> str:
    """``this world has no log source``: why a call of that capability failed without asking
    anything (the composer recognises the failure by it)."""
    return f"this world has no {_SOURCE_NOUNS[capability]} source"


@dataclass(frozen=True)
class ToolAnswer:
    """A tool's output as JSON, the id of the source that answered and the request it served."""

    output: dict[str, Any]
    source: str
    request: Request


def call_tool(world: World, tool_name: str, arguments: Any) -> ToolAnswer:
    """Run a tool through its spec against ``world``.

    Raises ``UnknownToolError`` / ``ToolArgumentError`` for a bad call, ``SourceError`` when
    the world has no source for the tool or its source fails (all ``ToolError``).
    """
    spec = get_spec(tool_name)
    args = spec.validate(arguments)
    source = world.source(spec.capability)
    if source is None:
        # A failed call, never an empty success: an empty answer would read as an absence.
        raise NoSourceError(f"{tool_name}: {no_source_reason(spec.capability)} "
                            f"(world {world.name!r})")
    try:
        result, request = spec.run(source, args)
    except ToolError:
        raise
    except Exception as exc:  # a source's bug or an answer it could not read: a failed call
        raise SourceError(f"{tool_name}: source {source.source_id} failed: "
                          f"{type(exc).__name__}: {' '.join(str(exc).split())[:300]}",
                          source=source.source_id) from exc
    if not isinstance(result, spec.result):
        raise SourceError(f"{tool_name}: source {source.source_id} answered with "
                          f"{type(result).__name__}, not {spec.result.__name__}",
                          source=source.source_id, request=request)
    return ToolAnswer(output=result.model_dump(mode="json"), source=source.source_id, request=request)


def run_tool(world: World | Pack | str, tool_name: str, arguments: Any) -> dict[str, Any]:
    """The JSON output of one tool call (``call_tool`` without the provenance). For tests,
    benchmarks and scripts ``world`` may also be a pack (a name, a folder or a loaded ``Pack``)."""
    if not isinstance(world, World):
        from core.sources.pack import load_world  # packs and in-memory tools only when needed

        world = load_world(world)
    return call_tool(world, tool_name, arguments).output
