"""Pydantic models of every JSON shape the chain exchanges.

These are the wire contracts of docs/design.md (§2-§9): tool results and their
evidence refs, the executor's structured output, the gatekeeper result, the trace summary, the
verifier's input and result, the composer's output and the session document that ties them
together. Storage tables live in ``core.store``; these models are what crosses stage boundaries,
the CLI and the console.
"""

# No ``from __future__ import annotations`` here: pydantic would evaluate every field's annotation
# from its string (a compile() each: a fifth of this module's own import); the one forward
# reference is quoted.
from typing import Annotated, Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, model_validator

# The reading of a question is the language layer's (the plan carries it); re-exported here.
from core.language.reading import Exclusions as Exclusions
from core.language.reading import QuestionReading as QuestionReading
from core.language.reading import QuestionTerm as QuestionTerm

# The tools' names, for typing (``Plan.tools``); everything else about a tool is its
# ``core.tools.spec.ToolSpec``, which checks at import that its table has exactly these names.
ToolName = Literal["query_metrics", "query_logs", "lookup_knowledge"]
TOOL_NAMES: tuple[str, ...] = get_args(ToolName)
EvidenceStatus = Literal["supported", "no_evidence", "error"]
ClaimType = Literal["observation", "negative_observation", "root_cause", "risk"]
Verdict = Literal["PASS", "LOW_CONFID", "REJECT"]
GateStatus = Literal["pass", "fail"]
GateSeverity = Literal["none", "low_confid", "reject"]
Language = Literal["zh", "en"]
# What an answer found, as a person reads it (docs/design.md §12): verified evidence answers the
# question; a query that covered the question's terms returned nothing; the service or alert is
# not in the data; the question names nothing searchable; a citation was rejected; the run
# failed. Only found and absent can PASS.
Outcome = Literal["found", "absent", "unknown_subject", "not_understood", "rejected", "error"]
AnswerKind = Literal["yes", "no", "partly", "unknown"]


def empty_list() -> list[Any]:
    """A new empty list: the default of list fields, in the contracts and the other models.

    ``Field(default_factory=list)`` means the same, but pydantic reads a factory's signature
    each time it builds a validator holding the field, and a builtin's is parsed from its text
    (a quarter of a millisecond, some 70 times in an ``ask``); a function's is read from its
    code.
    """
    return []


class Contract(BaseModel):
    """Base of all contracts: unknown keys are kept out, values are validated on assignment."""

    # defer_build: a command that never validates a contract (--help, packs list) does not pay
    # for building every validator at import.
    model_config = ConfigDict(extra="ignore", validate_assignment=True, defer_build=True)


# ---------------------------------------------------------------- tools


class Alert(Contract):
    """One alert as ``query_metrics`` returns it (``$.alerts[i]``)."""

    alert_name: str
    state: str = "firing"
    service: str
    namespace: str | None = None
    pod: str | None = None
    severity: str | None = None
    metric: str | None = None
    current: str | None = None
    threshold: str | None = None
    duration: str | None = None
    started_at: str | None = None
    summary: str | None = None
    details: list[str] = Field(default_factory=empty_list)


class SeriesPoint(Contract):
    """One sample of a metric series."""

    ts: str
    value: float


class MetricSeries(Contract):
    """A metric series of a service, sampled at a fixed step, with its alert threshold."""

    service: str
    metric: str
    unit: str = ""
    threshold: float | None = None
    points: list[SeriesPoint] = Field(default_factory=empty_list)


class LogEntry(Contract):
    """One log line as ``query_logs`` returns it (``$.logs[i]``)."""

    timestamp: str
    level: str
    service: str
    message: str
    source: str | None = None
    host: str | None = None


class EvidenceBlock(Contract):
    """One runbook section as ``lookup_knowledge`` returns it (``$.evidence_blocks[i]``)."""

    title: str
    source: str
    content: str
    score: float = 0.0


class MetricsResult(Contract):
    """Result of ``query_metrics``."""

    success: bool = True
    alerts: list[Alert] = Field(default_factory=empty_list)
    series: dict[str, MetricSeries] | None = None
    total: int = 0
    message: str = ""


class LogGroup(Contract):
    """Matching lines of one template (``$.groups[i]``): repeated lines told once, with their count.

    The template is Drain-style (variable tokens as ``<*>``); ``count`` and the time range cover
    every matching line of the template, not only the lines shown in ``logs``.
    """

    template: str
    count: int
    service: str
    level: str
    first_timestamp: str
    last_timestamp: str
    # Indexes into the result's ``logs`` of this group's lines that are shown there.
    sample_indexes: list[int] = Field(default_factory=empty_list)


class LogsResult(Contract):
    """Result of ``query_logs``: lines ranked by relevance (newest first on ties), and the
    templates of all matching lines, largest first."""

    success: bool = True
    logs: list[LogEntry] = Field(default_factory=empty_list)
    groups: list[LogGroup] = Field(default_factory=empty_list)
    total: int = 0
    message: str = ""


class KnowledgeResult(Contract):
    """Result of ``lookup_knowledge``."""

    success: bool = True
    evidence_blocks: list[EvidenceBlock] = Field(default_factory=empty_list)
    total: int = 0
    message: str = ""


class EvidenceRef(Contract):
    """A stable locator into one invocation's output, the minimal evidence text found there and
    the facts that text was written from (``fields``).

    ``text`` is what a citation quotes (the gatekeeper matches excerpts against it); ``fields``
    is what a reader of the ref's facts reads (the verifier), so a change in how the text is laid
    out never changes what the ref says. Both come from the same recipe (``core.tools.refs``).
    Refs stored before ``fields`` existed have none: their fields are recomputed from the raw
    output by the same recipe (the gatekeeper), or, failing that, read from the text.
    """

    raw_path: str
    text: str
    fields: "RefFields | None" = None


class AlertRefFields(Contract):
    """The facts of an alert ref (``$.alerts[i]``): the alert's name, state, service and values."""

    kind: Literal["alert"] = "alert"
    alert_name: str
    state: str
    service: str
    severity: str | None = None
    current: str | None = None
    threshold: str | None = None
    duration: str | None = None


class LogRefFields(Contract):
    """The facts of a log line ref (``$.logs[i]``): the line's four parts, and where it came
    from (``source``: the logger, program or request context; ``host``) when the line says."""

    kind: Literal["log"] = "log"
    timestamp: str
    level: str
    service: str
    message: str
    source: str | None = None
    host: str | None = None


class GroupRefFields(Contract):
    """The facts of a log group ref (``$.groups[i]``): its template, count, level, service and
    the time range of its lines."""

    kind: Literal["group"] = "group"
    template: str
    count: int
    level: str
    service: str
    first_timestamp: str
    last_timestamp: str


class KnowledgeRefFields(Contract):
    """The facts of a runbook section ref (``$.evidence_blocks[i]``) besides its content (which
    the text holds whole): its title and source."""

    kind: Literal["knowledge"] = "knowledge"
    title: str
    source: str


# The fields of one ref, told apart by ``kind`` (alert, log, group, knowledge).
RefFields = Annotated[AlertRefFields | LogRefFields | GroupRefFields | KnowledgeRefFields,
                      Field(discriminator="kind")]


class RetrievalDetails(Contract):
    """What the recorder extracted from an invocation's output, by code and without inference."""

    evidence_status: EvidenceStatus
    evidence_refs: list[EvidenceRef] = Field(default_factory=empty_list)


class Invocation(Contract):
    """One recorded tool call, exactly as it appears in a session document."""

    invocation_id: int
    session_id: str | None = None
    tool_name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    output: dict[str, Any] = Field(default_factory=dict)
    retrieval_details: RetrievalDetails | None = None
    duration_ms: float | None = None
    # When the call began, in ms since its session started (the console's timeline).
    started_ms: float | None = None
    # Which source answered (``pack:demo``, ``logstore:/data/app.db``, ``prometheus:http://...``)
    # and the exact request it was sent, credentials removed. Replay never re-sends it.
    source: str | None = None
    request: dict[str, Any] | None = None


# ---------------------------------------------------------------- executor


class EvidenceBinding(Contract):
    """A citation: which invocation, which locator in it, and the quoted text."""

    tool_name: str | None = None
    source_invocation_id: int | None = None
    raw_path: str | None = None
    evidence_excerpt: str = ""


class Claim(Contract):
    """A factual assertion to be verified, with every binding that supports it.

    ``claim_type`` is required by the seed (必填) but kept optional here, so that an output
    missing it is reported by the verifier (``verifier.missing_field``), not refused whole or
    silently defaulted; so is a binding's ``tool_name``.
    """

    claim_id: str
    claim_type: ClaimType | None = None
    claim_text: str
    evidence_bindings: list[EvidenceBinding] = Field(default_factory=empty_list)
    # What the claim is about, so scope and negative checks need no guessing from prose.
    subject_services: list[str] = Field(default_factory=empty_list)
    subject_topics: list[str] = Field(default_factory=empty_list)


class Hypothesis(Contract):
    """A suspicion, never a confirmed fact."""

    hypothesis_id: str
    hypothesis_text: str
    basis_claim_ids: list[str] = Field(default_factory=empty_list)
    missing_info: str = ""


class MissingInfo(Contract):
    """A gap in the evidence."""

    info_id: str
    description: str


class RecommendedAction(Contract):
    """An evidence-gathering action (never a fix), optionally bound to evidence."""

    action_id: str
    action_text: str
    reason: str = ""
    evidence_bindings: list[EvidenceBinding] = Field(default_factory=empty_list)


class ExecutorOutput(Contract):
    """The executor's structured output (docs/design.md §3)."""

    claims: list[Claim] = Field(default_factory=empty_list)
    hypotheses: list[Hypothesis] = Field(default_factory=empty_list)
    missing_info: list[MissingInfo] = Field(default_factory=empty_list)
    recommended_actions: list[RecommendedAction] = Field(default_factory=empty_list)


class ParseStatus(Contract):
    """Whether the executor's output parsed into the contract (docs/design.md §3)."""

    status: Literal["valid", "repaired", "invalid", "missing"] = "valid"
    detail: str = ""


# ---------------------------------------------------------------- gatekeeper


class GateIssue(Contract):
    """A warning or error raised by a gatekeeper rule."""

    rule: str
    message: str
    claim_id: str | None = None
    action_id: str | None = None
    binding_index: int | None = None


class CheckedBinding(Contract):
    """The gatekeeper's verdict on one binding, with what it matched and where."""

    claim_id: str | None = None
    action_id: str | None = None
    binding_index: int = 0
    tool_name: str | None = None
    source_invocation_id: int | None = None
    raw_path: str | None = None
    evidence_excerpt: str = ""
    status: GateStatus
    severity: GateSeverity = "none"
    rule: str | None = None
    message: str = ""
    matched_text: str | None = None
    # The facts of the matched ref (its ``EvidenceRef.fields``): what the verifier reads.
    matched_fields: RefFields | None = None
    score: float | None = None
    match_kind: Literal["exact", "truncated", "fuzzy", "negative", "none"] = "none"
    # Aligned spans [start, end) in matched_text (several for a truncated quote).
    spans: list[tuple[int, int]] = Field(default_factory=empty_list)
    auto_backfilled: bool = False


class GatekeeperResult(Contract):
    """The deterministic citation check, graded REJECT / LOW_CONFID (docs/design.md §4)."""

    status: GateStatus
    severity: GateSeverity
    checked_bindings: list[CheckedBinding] = Field(default_factory=empty_list)
    failed_rules: list[str] = Field(default_factory=empty_list)
    warnings: list[GateIssue] = Field(default_factory=empty_list)
    errors: list[GateIssue] = Field(default_factory=empty_list)
    version: str = ""


class TraceSummaryEntry(Contract):
    """A navigation summary of one tool's invocations; never evidence (docs/design.md §7)."""

    trace_ref: str
    tool_name: str
    source_invocation_ids: list[int]
    evidence_level: Literal["direct", "indirect", "none"]
    output_summary: str
    invocation_count: int
    # Calls that succeeded and found nothing; failed calls are counted apart: a failure is
    # evidence of nothing, not an absence.
    no_hit_invocation_count: int
    failed_invocation_count: int = 0
    # One line per failed call: ``<source>: <why>`` (a source down, a timeout, a bad answer).
    failures: list[str] = Field(default_factory=empty_list)


# ---------------------------------------------------------------- verifier, composer


class RetryFinding(Contract):
    """One failure of an executor attempt that the executor can fix, as it is told about it.

    A binding finding (``binding_index`` set) quotes what was cited and what the ref at that
    place actually says; a claim finding (``binding_index`` None) quotes the verifier's reason.
    """

    claim_id: str | None = None
    action_id: str | None = None
    binding_index: int | None = None
    rule: str
    message: str
    claim_text: str | None = None
    cited: EvidenceBinding | None = None
    # The ref text at the cited (invocation, raw_path), when that place exists.
    ref_text: str | None = None
    # Where the cited excerpt really is, when it is found elsewhere in the session's refs.
    found_at: list[EvidenceBinding] = Field(default_factory=empty_list)
    # What the claim's verified evidence says (for a claim finding).
    evidence: list[str] = Field(default_factory=empty_list)


class RetryContext(Contract):
    """The seed's ``retry_context``: why an executor attempt failed and what was asked of it
    (``docs/llm.md``, "The repair turn")."""

    attempt: int                     # the attempt that failed (1)
    verdict: Verdict                 # its verdict
    failed_rules: list[str] = Field(default_factory=empty_list)
    findings: list[RetryFinding] = Field(default_factory=empty_list)


class VerifierInput(Contract):
    """Everything the verifier may read, and nothing else (docs/design.md §5)."""

    original_query: str
    executor_structured_output: ExecutorOutput
    gatekeeper_result: GatekeeperResult
    tool_trace_summary: list[TraceSummaryEntry] = Field(default_factory=empty_list)
    executor_output_parse_status: ParseStatus = Field(default_factory=ParseStatus)
    # Set on a repaired attempt: what the executor was told its previous attempt got wrong.
    retry_context: RetryContext | None = None
    # The arguments of each invocation (by id): a query's own service filter is evidence of
    # whose lines it returned, so a quote without its ``[time][LEVEL][service]`` prefix still
    # shows whose line it is.
    invocation_arguments: dict[int, dict[str, Any]] = Field(default_factory=dict)
    # The ref texts of every invocation of the session (by id), cited or not: a negative
    # observation another call contradicts is not entailed (core/verifier/negatives.py). Kept
    # out of the dump (the llm verifier's prompt, documents): the session's own calls hold it.
    invocation_refs: dict[int, list[str]] = Field(default_factory=dict, exclude=True)


class FactSupport(Contract):
    """Why one fact of a claim holds: the evidence that gives that value in that role."""

    fact: str                        # the claim's words, e.g. "当前值 91%", "order-service"
    role: str                        # subject, current, threshold, duration, used, total, sample, time ...
    claim_span: tuple[int, int]      # [start, end) in the claim text
    binding_index: int               # which of the claim's bindings supports it
    # Where: the quoted span of the matched ref, the rest of that ref, or the invocation's arguments.
    source: Literal["excerpt", "ref", "arguments"]
    span: tuple[int, int]            # [start, end) in the binding's matched_text (for arguments: in evidence)
    evidence: str                    # the evidence's words at that span, e.g. "current=91%"


class ClaimResult(Contract):
    """The verifier's judgement of one claim."""

    claim_id: str
    claim_type: ClaimType | None = None
    claim_text: str = ""
    entailed: bool
    reasons: list[str] = Field(default_factory=empty_list)
    rule: str | None = None
    # Every rule the claim failed, worst first (``rule`` is the first); empty when entailed.
    rules: list[str] = Field(default_factory=empty_list)
    # How each value and time of the claim was aligned with its evidence (for the console).
    supports: list[FactSupport] = Field(default_factory=empty_list)


class StepResult(Contract):
    """The verifier's judgement of one next step: a recommended action or a missing_info entry.

    Only passed steps may reach the answer; a repair action or a gap that asserts current state
    does not pass (``docs/verifier-rules.md``).
    """

    step_id: str
    kind: Literal["action", "missing_info"]
    text: str = ""
    passed: bool
    rule: str | None = None
    reasons: list[str] = Field(default_factory=empty_list)


class VerifierResult(Contract):
    """Verdict, groundedness (entailed / all claims), per-claim and per-step results."""

    verdict: Verdict
    groundedness_score: float
    claim_results: list[ClaimResult] = Field(default_factory=empty_list)
    reasons: list[str] = Field(default_factory=empty_list)
    step_results: list[StepResult] = Field(default_factory=empty_list)
    # Repair turns before the attempt judged here (0: the executor's first answer).
    repairs: int = 0
    # Every content term of the question with its fate in this run (``core.verifier.accounting``):
    # a PASS accounts for each.
    question_terms: list[QuestionTerm] = Field(default_factory=empty_list)
    # The answer-level rules that withheld PASS (``verifier.term_unaccounted`` ...), if any.
    answer_rules: list[str] = Field(default_factory=empty_list)


class ComposerOutput(Contract):
    """The user-facing answer, built only from what the verifier allowed."""

    status: Literal["valid", "no_evidence", "blocked", "error"]
    user_facing_answer: str
    language: Language = "zh"
    passed_claim_ids: list[str] = Field(default_factory=empty_list)
    # How the answer was produced when that matters to an auditor (e.g. an llm answer replaced
    # by the rules composer's because it leaked blocked content).
    notes: list[str] = Field(default_factory=empty_list)
    # Set when the configured composer's answer was replaced (unusable, or it leaked blocked
    # content): a failed model step, so the session's verdict can no longer be PASS.
    degraded: str | None = None
    # For a yes/no question ("是否存在 …", "whether …", "is there …"): the answer it leads with.
    # ``yes``: verified evidence of it; ``no``: a verified negative; ``partly``: some of what was
    # asked was found and some verified absent; ``unknown``: nothing could be verified.
    # None for other questions.
    answer_kind: AnswerKind | None = None


# ---------------------------------------------------------------- plan, session


class PlanChoices(Contract):
    """What any planner decides (a model fills them): the services, topics and alert names to
    look at, whether the question is narrow, what it excludes, which tools to call."""

    question: str
    language: Language = "zh"
    services: list[str] = Field(default_factory=empty_list)
    topics: list[str] = Field(default_factory=empty_list)
    alert_names: list[str] = Field(default_factory=empty_list)
    narrow: bool = False
    scope_markers: list[str] = Field(default_factory=empty_list)
    exclusions: Exclusions = Field(default_factory=Exclusions)
    tools: list[ToolName] = Field(default_factory=empty_list)
    notes: list[str] = Field(default_factory=empty_list)


class Plan(PlanChoices):
    """What the planner decided to look at (the fields before ``reading``: any planner's
    choices, a model's too), and the question's own reading.

    ``reading`` is what the question's words ask the data for, read by code
    (``core.language.read``; DESIGN.md section 10): exact terms, keywords, concepts, compounds,
    a minimum level, alert states, the time window, the names the data lacks, whether anything
    is searchable. An executor that does not read it still works from the planner's choices.
    """

    reading: QuestionReading = Field(default_factory=QuestionReading)
    # Set when the configured planner's answer could not be used and a fallback planned
    # instead: a failed model step, so the session's verdict can no longer be PASS.
    degraded: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _reading_of_old_documents(cls, data: Any) -> Any:
        """A plan stored before the reading was one value held its fields at the top level
        (``plan.terms``, ``plan.since``...): they are its reading's (and over a reading given
        with them)."""
        if not isinstance(data, dict) or not _OLD_READING_KEYS & data.keys():
            return data
        plan = {key: value for key, value in data.items() if key not in _OLD_READING_KEYS}
        reading = data.get("reading") or {}
        if isinstance(reading, QuestionReading):
            reading = reading.model_dump()
        plan["reading"] = {**reading, **{key: data[key] for key in _OLD_READING_KEYS & data.keys()}}
        return plan


# The fields of the question's reading that plans stored before ``Plan.reading`` held at their
# top level.
_OLD_READING_KEYS = frozenset({"terms", "keywords", "concepts", "compounds", "level",
                               "unknown_subjects", "searchable", "alert_states", "since", "until"})


class ExecutorAttempt(Contract):
    """An executor answer that a repair turn superseded, as it was checked, and the feedback
    the executor got about it. The session document's own fields hold the final attempt."""

    attempt: int
    executor_output: ExecutorOutput | None = None
    executor_output_parse_status: ParseStatus | None = None
    gatekeeper_result: GatekeeperResult | None = None
    verifier_result: VerifierResult | None = None
    feedback: RetryContext | None = None


SessionStatus = Literal["running", "completed", "error", "incomplete"]


class SessionDocument(Contract):
    """The unit of exchange (docs/design.md §9): one whole investigation, replayable."""

    session_id: str
    question: str
    pack: str = "demo"
    status: SessionStatus = "completed"
    outcome: Outcome | None = None
    engines: dict[str, str] = Field(default_factory=dict)
    executor_fault: str | None = None
    created_at: str | None = None
    plan: Plan | None = None
    invocations: list[Invocation] = Field(default_factory=empty_list)
    executor_output: ExecutorOutput | None = None
    executor_output_parse_status: ParseStatus | None = None
    gatekeeper_result: GatekeeperResult | None = None
    tool_trace_summary: list[TraceSummaryEntry] = Field(default_factory=empty_list)
    verifier_result: VerifierResult | None = None
    composer_output: ComposerOutput | None = None
    # Earlier executor attempts a repair turn superseded (oldest first; empty without one).
    attempts: list[ExecutorAttempt] = Field(default_factory=empty_list)
    timings_ms: dict[str, float] = Field(default_factory=dict)
    # When each stage of ``timings_ms`` began, in ms since the session started (the timeline).
    stage_starts_ms: dict[str, float] = Field(default_factory=dict)
    error: str | None = None


def build_validators() -> None:
    """Build every contract's validator now, each after the contracts it holds.

    Builds are deferred (``Contract``), and a contract built first generates the schemas of
    all the contracts it holds, each of which then generates its own again when first used.
    An investigation uses nearly every contract, the session document (which holds them all)
    first: built in the order they are defined, leaves first, each schema is generated once
    and reused by the contracts holding it.
    """
    # The question's reading first: the plan holds it. A contract that is a base of others
    # (``PlanChoices``) is never validated itself: its subclasses are built in its place.
    models: list[type[BaseModel]] = [Exclusions, QuestionReading, *_validated_contracts(Contract)]
    for model in models:
        model.model_rebuild()


def _validated_contracts(base: type[Contract]) -> list[type[Contract]]:
    """The contracts below ``base`` that are validated, in the order they were defined (CPython
    lists subclasses so; another order is only slower)."""
    return [found for contract in base.__subclasses__()
            for found in (_validated_contracts(contract) if contract.__subclasses__() else [contract])]
