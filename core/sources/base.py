"""The source seam: what tools run against, and the ``World`` the agents see.

A *source* holds data of one capability and answers that capability's tool: a
``MetricsSource`` answers ``query_metrics``, a ``LogSource`` ``query_logs``, a
``KnowledgeSource`` ``lookup_knowledge``. Each answer is the tool's result contract and the exact
request the source served (for the pack: the validated arguments; for an HTTP source: method,
url and params, never credentials), which the recorder stores on the invocation with the
source's ``source_id``. A source also says what it holds (``describe``) and which names its data
uses (``vocabulary``).

A ``World`` is one source per capability (any may be missing), a name, a clock and example
questions. Planners, executors and the recorder receive a World; they never reach into a pack.
See docs/sources.md.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property
from typing import TYPE_CHECKING, Any, Literal, Protocol

if TYPE_CHECKING:
    from core.contracts import KnowledgeResult, LogsResult, MetricsResult
    from core.tools.args import LookupKnowledgeArgs, QueryLogsArgs, QueryMetricsArgs, ToolArgs

Capability = Literal["metrics", "logs", "knowledge"]
CAPABILITIES: tuple[Capability, ...] = ("metrics", "logs", "knowledge")
# What a source was asked, as JSON: the validated arguments, or method/url/params of an HTTP
# call. Never a credential: a source removes them before it returns the request.
Request = dict[str, Any]


def served_request(args: ToolArgs) -> Request:
    """The request a source serves a tool's arguments as: the validated arguments (defaults
    included, unset filters left out). The gatekeeper holds a cited invocation's arguments to
    it, so every source that answers from arguments (a pack, a log store) records this."""
    return args.model_dump(mode="json", exclude_none=True)


def _unique(values: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(value for value in values if value))


def _unique_entities(entities: Iterable[DataEntity]) -> tuple[DataEntity, ...]:
    """Entities without repeats (a kind and a name in any case), first one kept."""
    kept: dict[tuple[str, str], DataEntity] = {}
    for entity in entities:
        kept.setdefault((entity.kind, entity.name.casefold()), entity)
    return tuple(kept.values())


# The kinds of entity a world's data names (``core.sources.logentities``): what a question
# naming one asks about.
EntityKind = Literal["host", "component", "user", "pod", "namespace", "job"]
ENTITY_KINDS: tuple[EntityKind, ...] = ("host", "component", "user", "pod", "namespace", "job")


@dataclass(frozen=True)
class DataEntity:
    """A host, component, user, pod, namespace or job the data names, as it spells it, and how
    many lines name it."""

    name: str
    kind: EntityKind
    lines: int = 0


@dataclass(frozen=True)
class Vocabulary:
    """The names a world's data uses, as the data spells them, in order of first appearance.

    ``services`` holds every service any source knows; ``log_services`` those with log lines;
    ``alert_names`` the names of alerts present in the data (firing, pending, suppressed);
    ``metrics`` the metric names of the series; ``rule_names`` the alert names of alerting
    rules the world knows (a Prometheus server's rules, rule files), firing or not: a question
    naming one asks about a real alert, and "not firing" is an answer, not an unknown subject.
    ``entities`` are the hosts, components, users, pods, namespaces and jobs the log lines name
    (the most-named of each kind: a name not among them may still be in the data).
    """

    services: tuple[str, ...] = ()
    alert_names: tuple[str, ...] = ()
    metrics: tuple[str, ...] = ()
    log_services: tuple[str, ...] = ()
    rule_names: tuple[str, ...] = ()
    entities: tuple[DataEntity, ...] = ()
    # Sources whose names could not be read (a server down when the world opened): the
    # vocabulary is incomplete, so a name missing from it is not known to be absent.
    unavailable: tuple[str, ...] = ()

    @classmethod
    def merge(cls, parts: Iterable[Vocabulary]) -> Vocabulary:
        """One vocabulary of several sources', each list without repeats, first spelling kept."""
        listed = list(parts)
        return cls(services=_unique(name for part in listed for name in part.services),
                   alert_names=_unique(name for part in listed for name in part.alert_names),
                   metrics=_unique(name for part in listed for name in part.metrics),
                   log_services=_unique(name for part in listed for name in part.log_services),
                   rule_names=_unique(name for part in listed for name in part.rule_names),
                   entities=_unique_entities(entity for part in listed for entity in part.entities),
                   unavailable=_unique(name for part in listed for name in part.unavailable))

    @property
    def known_alert_names(self) -> tuple[str, ...]:
        """Every alert name a question may name: present alerts first, then rules' names."""
        return _unique([*self.alert_names, *self.rule_names])

    def knows_service(self, name: str) -> bool:
        """Whether ``name`` is one of the services (case-insensitive)."""
        folded = name.casefold()
        return any(service.casefold() == folded for service in self.services)


@dataclass(frozen=True)
class SourceDescription:
    """What a source is and holds, for a Sources view: ``kind`` (``pack``, ``logstore``,
    ``prometheus`` ...), ``source_id``, the capability it serves, counts of what it holds
    (``{"alerts": 3, "series": 4}``) and a location (a folder, a file, a URL without
    credentials)."""

    kind: str
    source_id: str
    capability: Capability
    holds: Mapping[str, int] = field(default_factory=dict)
    location: str = ""
    # Why the source could not say what it holds (a server down, a store unreadable); None
    # when it answered.
    problem: str | None = None


class Source(Protocol):
    """What every source has: an id, a description and the names its data uses."""

    @property
    def source_id(self) -> str:
        """``kind:where`` -- ``pack:demo``, ``logstore:/data/app.db``,
        ``prometheus:http://host:9090``; never a credential (it is stored with every call)."""
        ...

    def describe(self) -> SourceDescription:
        """What the source holds (cheap: counts, not contents)."""
        ...

    def vocabulary(self) -> Vocabulary:
        """The services, alert names, metrics and log services of the source's data."""
        ...


class MetricsSource(Source, Protocol):
    """Answers ``query_metrics``: alerts and the metric series of the services involved."""

    def query_metrics(self, args: QueryMetricsArgs) -> tuple[MetricsResult, Request]:
        """The result and the exact request served; raise ``SourceError`` when it cannot answer."""
        ...


class LogSource(Source, Protocol):
    """Answers ``query_logs``: matching lines, ranked, and their groups."""

    def query_logs(self, args: QueryLogsArgs) -> tuple[LogsResult, Request]:
        """The result and the exact request served; raise ``SourceError`` when it cannot answer."""
        ...


class KnowledgeSource(Source, Protocol):
    """Answers ``lookup_knowledge``: runbook sections (reference material, never evidence)."""

    def lookup_knowledge(self, args: LookupKnowledgeArgs) -> tuple[KnowledgeResult, Request]:
        """The result and the exact request served; raise ``SourceError`` when it cannot answer."""
        ...


@dataclass(frozen=True)
class World:
    """What an investigation sees: a name, a clock, one source per capability, example questions.

    ``now`` is the world's clock (a pack's or sources file's ``now``, else its newest data; a
    world with live metrics: its opening time, see ``core.sources.config.world_clock``). A
    capability without a source (``None``) makes its tool's calls fail (``SourceError``), which
    the recorder records as ``error`` invocations, never an exception in the pipeline.
    """

    name: str
    now: datetime
    metrics: MetricsSource | None = None
    logs: LogSource | None = None
    knowledge: KnowledgeSource | None = None
    description: str = ""
    example_questions: tuple[str, ...] = ()
    # Each service's own clock, where recordings end at different times (a pack that sets no
    # ``now``: each service's newest data); a service not in it, or any in a live world, has ``now``.
    clocks: Mapping[str, datetime] = field(default_factory=dict)
    # What ``now`` is, said to the user beside a window read against it ("the data's clock:
    # its newest line", "the wall clock: live metrics", "now: in prod.yaml").
    clock_basis: str = "the world's clock"

    def clock(self, services: Iterable[str]) -> datetime:
        """What time words about ``services`` are read against: the latest of their own clocks,
        else ``now`` ("between 18:05 and 18:10" of Hadoop is on the last day of Hadoop's data)."""
        return self.clock_and_basis(services)[0]

    def clock_and_basis(self, services: Iterable[str]) -> tuple[datetime, str]:
        """``clock(services)`` and what that moment is: a service's own newest data, or
        ``clock_basis`` (the window of an answer is stated with the clock it was read against)."""
        known = {name.casefold(): (moment, name) for name, moment in self.clocks.items()}
        owned = [known[name.casefold()] for name in services if name.casefold() in known]
        if not owned:
            return self.now, self.clock_basis
        moment, name = max(owned)
        return moment, f"the data's clock: {name}'s newest data"

    def source(self, capability: Capability) -> Source | None:
        """The source of one capability, if the world has one."""
        sources: dict[Capability, Source | None] = {
            "metrics": self.metrics, "logs": self.logs, "knowledge": self.knowledge}
        return sources[capability]

    def sources(self) -> list[Source]:
        """Each distinct source, in capability order."""
        found: list[Source] = []
        for capability in CAPABILITIES:
            source = self.source(capability)
            if source is not None and all(source is not seen for seen in found):
                found.append(source)
        return found

    def describe(self) -> list[SourceDescription]:
        """Every source's description, in capability order."""
        return [source.describe() for source in self.sources()]

    @cached_property
    def vocabulary(self) -> Vocabulary:
        """The vocabularies of every source, merged (computed once per world)."""
        return Vocabulary.merge(source.vocabulary() for source in self.sources())
