"""The investigation pipeline: planner -> executor -> gatekeeper -> verifier -> composer.

``run_investigation`` is a generator of typed events (``core.events``). Each event is stamped
with the session id and its sequence number; at each stage boundary the stage's results and
events are written to the audit store in one transaction (``core.store.journal``: five per
ask) and then yielded. So the CLI, the console and the store all see the same stream; a failing
stage leaves a session with status ``error`` and everything before it; a consumer that stops
iterating leaves it ``incomplete``, and so does a killed process (the store's lease check).

``ask`` consumes the stream and returns the session document; ``replay`` re-runs gatekeeper,
verifier and composer on a document's own invocations without calling any tool.

The audit store's SQLAlchemy is imported only by a run that has a store (the journal imports
the repository when it writes): ``ask --no-store`` and ``replay`` without ``--db`` never load it.
"""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Callable, Generator, Iterator, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, TypeVar

from core.agents.base import ExecutorRun, can_repair
from core.agents.faults import FaultContext, FaultMode, get_fault
from core.agents.registry import Engines, build_engines
from core.agents.rules.composer import name_failed_sources
from core.contracts import (
    ExecutorAttempt,
    ExecutorOutput,
    GatekeeperResult,
    Invocation,
    ParseStatus,
    Plan,
    RetryContext,
    SessionDocument,
    SessionStatus,
    VerifierInput,
    VerifierResult,
    build_validators,
)
from core.errors import PackError, SuperbizError
from core.events import (
    AnswerReady,
    BindingChecked,
    ClaimJudged,
    ClaimsProduced,
    Event,
    GatekeeperFinished,
    PipelineEvent,
    PipelineFailed,
    PlanMade,
    RepairFinished,
    RepairRequested,
    SessionFinished,
    SessionStarted,
    ToolCalled,
    ToolReturned,
    VerdictReached,
)
from core.gatekeeper import StoredInvocations, check_citations
from core.inputs.text import check_question
from core.outcome import closing_outcome, session_outcome
from core.recorder import Recorder
from core.redact import redact_text
from core.repair import retry_context
from core.sources.base import World
from core.sources.pack import load_world
from core.store.journal import ID_BLOCK, Journal
from core.tools.spec import is_reference_tool
from core.trace import build_trace_summary
from core.verdict import final_verdict, source_failures, withdraw_pass
from core.verifier.accounting import accounted_verdict

if TYPE_CHECKING:
    from pathlib import Path

    from core.packs import Pack
    from core.store import Store
    from core.store.grouped import GroupedWrites

logger = logging.getLogger(__name__)

_T = TypeVar("_T")
_E = TypeVar("_E", bound=Event)
# Told each stage's name as it begins: progress for a caller (a test pauses a run there).
StageHook = Callable[[str], None]


def new_session_id(now: datetime | None = None) -> str:
    """A readable, unique id: ``s-20260708-112000-3f9a2c`` (UTC time + random hex)."""
    moment = now or datetime.now(UTC)
    return f"s-{moment.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(3)}"


def run_investigation(question: str, *, pack: str | Path | Pack | World = "demo",
                      engines: Engines | None = None, executor_fault: str | None = None,
                      store: Store | None = None, session_id: str | None = None,
                      on_stage: StageHook | None = None,
                      write_at_close: bool = False,
                      grouped: GroupedWrites | None = None) -> Generator[PipelineEvent, None, None]:
    """Investigate ``question`` on ``pack`` (a pack name or folder, a loaded ``Pack``, or any
    ``World``), yielding each event as it happens.

    Usage errors (unknown pack or fault, empty question) raise at once, before any session
    exists. Everything after that is reported as events: a failing stage yields
    ``PipelineFailed`` and then ``SessionFinished`` with status ``error``; it never raises.
    ``store=None`` runs entirely in memory. ``on_stage`` is called with each stage's name
    (plan, execute, gatekeeper, verify, compose, finish; a repair's stages with a suffix) as
    the stage begins. ``write_at_close``: store the session in two transactions (the plan with
    its tool-call id reservation, and the close) instead of one per stage (``core.store.journal``:
    what a crash then leaves); an eval run, which reads sessions only once they are done, uses it.
    ``grouped``: the session is written, once closed, with others (``core.store.grouped``).
    """
    question = check_question(question)  # empty, too long, not valid Unicode: refused here
    fault = get_fault(executor_fault)
    investigation = _Investigation(
        question=question, world=load_world(pack), engines=engines or build_engines(),
        fault=fault, store=store, session_id=session_id or new_session_id(), on_stage=on_stage,
        write_at_close=write_at_close, grouped=grouped)
    return investigation.events()


def ask(question: str, **options: Any) -> SessionDocument:
    """Run an investigation to its end and return the session document."""
    document: SessionDocument | None = None
    for event in run_investigation(question, **options):
        if isinstance(event, SessionFinished):
            document = event.document
    if document is None:  # the generator always ends with SessionFinished
        raise SuperbizError("the pipeline ended without a session document")
    return document


def replay(document: SessionDocument, *, engines: Engines | None = None,
           stored_invocations: StoredInvocations | None = None) -> SessionDocument:
    """Gatekeeper, verifier and composer again on ``document``'s own invocations and output.

    No tool is called and no source is asked: the recorded outputs are what is checked, so a
    document replays where its pack or sources are gone. The plan is the document's own; a
    document without one is re-planned from its question on its world's vocabulary (planning
    calls no tool), or on an empty vocabulary when that world cannot be opened here.
    """
    engines = engines or build_engines()
    timings: dict[str, float] = {}
    starts: dict[str, float] = {}
    started = time.perf_counter()
    plan = document.plan
    if plan is None:
        plan = engines.planner.plan(document.question, _replay_world(document))
    parse_status = document.executor_output_parse_status or ParseStatus(
        status="valid" if document.executor_output is not None else "missing")
    gatekeeper_result = _timed(timings, "gatekeeper", lambda: check_citations(
        session_id=document.session_id, invocations=document.invocations,
        executor_output=document.executor_output, parse_status=parse_status,
        stored_invocations=stored_invocations), starts=starts, origin=started)
    feedback = document.attempts[-1].feedback if document.attempts else None
    verifier_input, verifier_result = _timed(timings, "verify", lambda: verify_stage(
        engines, plan, document.question, document.executor_output, parse_status,
        gatekeeper_result, document.invocations, retry_context=feedback,
        repairs=len(document.attempts)), starts=starts, origin=started)
    composer_output = _timed(timings, "compose", lambda: name_failed_sources(
        engines.composer.compose(plan, verifier_input, verifier_result),
        verifier_input.tool_trace_summary), starts=starts, origin=started)
    timings["total"] = _ms_since(started)
    outcome = session_outcome(plan, document.executor_output, verifier_result)
    return document.model_copy(update={
        "plan": plan, "status": "completed", "error": None, "outcome": outcome,
        "executor_output_parse_status": parse_status, "gatekeeper_result": gatekeeper_result,
        "tool_trace_summary": verifier_input.tool_trace_summary,
        "verifier_result": verifier_result, "composer_output": composer_output,
        "timings_ms": timings, "stage_starts_ms": starts,
        "engines": {**document.engines, **_replay_engines(engines)}})


def verify_stage(engines: Engines, plan: Plan, question: str, output: ExecutorOutput | None,
                 parse_status: ParseStatus, gatekeeper_result: GatekeeperResult,
                 invocations: list[Invocation], *, retry_context: RetryContext | None = None,
                 repairs: int = 0) -> tuple[VerifierInput, VerifierResult]:
    """Build the verifier input (docs/design.md §5), run the verifier, enforce the verdict rule.
    ``retry_context``: what the executor was told before this (repaired) attempt."""
    structured = output if output is not None else ExecutorOutput()
    verifier_input = VerifierInput(
        original_query=question, executor_structured_output=structured,
        gatekeeper_result=gatekeeper_result, tool_trace_summary=build_trace_summary(invocations),
        executor_output_parse_status=parse_status, retry_context=retry_context,
        invocation_arguments={inv.invocation_id: inv.arguments for inv in invocations},
        invocation_refs={inv.invocation_id: [ref.text for ref in inv.retrieval_details.evidence_refs]
                         for inv in invocations if inv.retrieval_details and not is_reference_tool(inv.tool_name)})
    judged = engines.verifier.verify(verifier_input, plan)
    result = final_verdict(gatekeeper_result, judged,
                           claim_ids=[claim.claim_id for claim in structured.claims])
    if plan.degraded:
        result = withdraw_pass(result, f"the plan is a fallback ({plan.degraded})")
    failed = source_failures(invocations)
    if failed:
        result = withdraw_pass(result, "a source failed, so the answer is incomplete: "
                               + "; ".join(failed))
    result = accounted_verdict(plan, output, gatekeeper_result, result, invocations)
    return verifier_input, result.model_copy(update={"repairs": repairs})


def store_lookup(store: Store | None, *, recorded: Sequence[Invocation] = (),
                 session_id: str | None = None) -> StoredInvocations | None:
    """The gatekeeper's view of the audit store, if there is one: the stored invocation wins
    over a document's copy. ``recorded``/``session_id``: the session this process is running
    (its calls are known without asking the database)."""
    if store is None:
        return None
    from core.store.lookup import StoreInvocations  # the repository loads only with a store

    return StoreInvocations(store, recorded=recorded, session_id=session_id)


def _replay_world(document: SessionDocument) -> World:
    """The document's world for re-planning, or an empty one named like it (the pack may be
    gone: replay never needs its data)."""
    try:
        return load_world(document.pack)
    except PackError:
        return World(name=document.pack, now=datetime.now(UTC))


def _replay_engines(engines: Engines) -> dict[str, str]:
    names = engines.names()
    return {role: names[role] for role in ("verifier", "composer")}


def _timed(timings: dict[str, float], stage: str, work: Callable[[], _T], *,
           starts: dict[str, float] | None = None, origin: float | None = None) -> _T:
    """Run ``work``, recording its duration in ``timings`` and, with ``starts`` and the
    session's ``origin``, when it began (ms since the origin: the console's timeline)."""
    started = time.perf_counter()
    if starts is not None and origin is not None:
        starts[stage] = round((started - origin) * 1000, 3)
    try:
        return work()
    finally:
        timings[stage] = _ms_since(started)


def _export_closed(document: SessionDocument) -> None:
    """A closed session to the trace tool ``SUPERBIZ_OTLP_ENDPOINT`` names (``core.otlp``;
    nothing to do, and nothing imported, when it is not set). Never raises."""
    from core.settings import get_settings

    if get_settings().otlp_endpoint.strip():
        from core.otlp.send import export_finished

        export_finished(document)


def _ms_since(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 3)


class _Investigation:
    """One run: the session's state, the event counter, and the store writes (batched by the
    journal: one transaction per stage boundary, ``core.store.journal``)."""

    def __init__(self, *, question: str, world: World, engines: Engines, fault: FaultMode | None,
                 store: Store | None, session_id: str, on_stage: StageHook | None = None,
                 write_at_close: bool = False, grouped: GroupedWrites | None = None) -> None:
        self.world = world
        self.on_stage = on_stage
        self.engines = engines
        self.fault = fault
        self.store = store
        self.session_id = session_id
        self.seq = 0
        self.stage = "start"  # the stage running now, named when one fails
        self.started = time.perf_counter()
        self.timings: dict[str, float] = {}
        self.stage_starts: dict[str, float] = {}  # ms since ``started``, per stage
        self.journal = Journal(store, session_id, write_at_close=write_at_close, grouped=grouped)
        self.recorder = Recorder(world=world, session_id=session_id, store=store,
                                 journal=self.journal, clock_origin=self.started)
        build_validators()  # before the session document: see there
        self.document = SessionDocument(
            session_id=session_id, question=question, pack=world.name, status="running",
            engines=engines.names(), executor_fault=fault.name if fault else None,
            created_at=datetime.now(UTC).isoformat())

    # ------------------------------------------------------------ the stages

    def events(self) -> Generator[PipelineEvent, None, None]:
        """The event stream (see ``run_investigation``). Each stage's results and events are
        stored in one batch before they are yielded (the executor's tool events are yielded as
        they happen and stored with its output)."""
        self.stage = "start"
        document = self.document
        journal = self.journal
        try:
            journal.open(document)
            yield from self._stored(SessionStarted(
                question=document.question, pack=document.pack, engines=document.engines,
                executor_fault=document.executor_fault))
            self._begin("plan")
            plan = self._time("plan",
                              lambda: self.engines.planner.plan(document.question, self.world))
            document.plan = plan
            journal.save_plan(plan)
            journal.reserve_ids(ID_BLOCK)
            yield from self._stored(PlanMade(plan=plan))

            self._begin("execute")
            output, parse_status = yield from self._execute(
                self.engines.executor.run(plan, self.recorder), "execute", fault=self.fault,
                plan=plan)
            verifier_input, verifier_result = yield from self._judge(plan, output, parse_status)
            verifier_input, verifier_result = yield from self._repair(plan, verifier_input,
                                                                      verifier_result)

            self._begin("compose")
            composer_output = self._time("compose", lambda: name_failed_sources(
                self.engines.composer.compose(plan, verifier_input, verifier_result),
                verifier_input.tool_trace_summary))
            document.composer_output = composer_output
            closing: list[PipelineEvent] = []
            if composer_output.degraded and verifier_result.verdict == "PASS":
                closing.append(self._withdraw_pass("compose", composer_output.degraded))
            closing.append(AnswerReady(composer_output=composer_output))

            self._begin("finish")
            self._close("completed")
            final = self._stored(*closing, SessionFinished(document=self._snapshot()))
            self.stage = "done"  # stored as completed: a consumer stopping now changes nothing
            _export_closed(self.document)
            yield from final
        except (GeneratorExit, KeyboardInterrupt):
            # The consumer stopped: no more yields; leave an honest ``incomplete`` record.
            if self.stage != "done":
                self._close("incomplete", error=f"stopped during stage {self.stage}")
                self._flush_quietly()
            raise
        except Exception as exc:  # a stage failure becomes events, never an exception
            # The events carry the message; an unexpected error's traceback is for --verbose.
            logger.warning("session %s: stage %s failed: %s", self.session_id, self.stage, exc,
                           exc_info=None if isinstance(exc, SuperbizError) else exc)
            yield from self._fail(self.stage, exc)

    def _begin(self, stage: str) -> None:
        """``stage`` runs from now on (named if it fails); the caller's hook hears of it first."""
        if self.on_stage is not None:
            self.on_stage(stage)
        self.stage = stage

    def _judge(self, plan: Plan, output: ExecutorOutput | None, parse_status: ParseStatus, *,
               retry: RetryContext | None = None, suffix: str = ""
               ) -> Generator[PipelineEvent, None, tuple[VerifierInput, VerifierResult]]:
        """Gatekeeper and verifier on one executor attempt: stored, then yielded."""
        document, journal = self.document, self.journal
        document.executor_output, document.executor_output_parse_status = output, parse_status
        document.invocations = list(self.recorder.invocations)
        journal.save_executor_output(output, parse_status)
        executed = self._emit(ClaimsProduced(executor_output=output, parse_status=parse_status))

        self._begin("gatekeeper" + suffix)
        gatekeeper_result = self._time("gatekeeper" + suffix,
                                       lambda: self._check(output, parse_status))
        document.gatekeeper_result = gatekeeper_result
        journal.save_gatekeeper_result(gatekeeper_result, attempt=len(document.attempts) + 1)
        # Stored with the executor's output: the gatekeeper is code and takes milliseconds,
        # so one batch holds both (a crash inside it is caught and still stores them).
        yield from self._stored(executed, *(BindingChecked(checked=checked)
                                            for checked in gatekeeper_result.checked_bindings),
                                GatekeeperFinished(result=gatekeeper_result))

        self._begin("verify" + suffix)
        verifier_input, verifier_result = self._time("verify" + suffix, lambda: verify_stage(
            self.engines, plan, document.question, output, parse_status, gatekeeper_result,
            document.invocations, retry_context=retry, repairs=len(document.attempts)))
        document.tool_trace_summary = verifier_input.tool_trace_summary
        document.verifier_result = verifier_result
        document.outcome = session_outcome(plan, output, verifier_result)
        journal.save_verification(verifier_input.tool_trace_summary, verifier_result)
        yield from self._stored(*(ClaimJudged(claim_result=claim_result)
                                  for claim_result in verifier_result.claim_results),
                                VerdictReached(result=verifier_result))
        return verifier_input, verifier_result

    def _repair(self, plan: Plan, verifier_input: VerifierInput, verifier_result: VerifierResult
                ) -> Generator[PipelineEvent, None, tuple[VerifierInput, VerifierResult]]:
        """One repair turn when the attempt failed only in ways the executor can fix
        (``core.repair``); never for an executor without one, nor under an injected fault (the
        fault wraps the one answer, which is judged once, as without a repair turn)."""
        executor, document = self.engines.executor, self.document
        if self.fault is not None or not can_repair(executor):
            return verifier_input, verifier_result
        feedback = retry_context(document.executor_output, document.invocations,
                                 verifier_input.gatekeeper_result, verifier_result)
        if feedback is None:
            return verifier_input, verifier_result
        document.attempts = [ExecutorAttempt(
            attempt=1, executor_output=document.executor_output,
            executor_output_parse_status=document.executor_output_parse_status,
            gatekeeper_result=document.gatekeeper_result, verifier_result=verifier_result,
            feedback=feedback)]
        self.journal.save_attempts(document.attempts)
        yield self._emit(RepairRequested(attempt=2, feedback=feedback))
        self.stage = "repair"
        output, parse_status = yield from self._execute(
            executor.repair(plan, self.recorder, feedback), "repair")
        repaired_input, repaired = yield from self._judge(plan, output, parse_status,
                                                          retry=feedback, suffix="_repair")
        yield self._emit(RepairFinished(
            attempt=2, repaired=repaired.verdict == "PASS", verdict=repaired.verdict,
            previous_verdict=feedback.verdict, previous_failed_rules=feedback.failed_rules))
        return repaired_input, repaired

    def _execute(self, run: ExecutorRun, timing: str, *, fault: FaultMode | None = None,
                 plan: Plan | None = None
                 ) -> Generator[PipelineEvent, None, tuple[ExecutorOutput | None, ParseStatus]]:
        """Drive an executor run, stamping its tool events; then apply the fault, if any."""
        self.stage_starts[timing] = self._now_ms()
        elapsed = 0.0
        while True:
            started = time.perf_counter()
            try:
                event = next(run)
            except StopIteration as finished:
                output, parse_status = finished.value
                break
            finally:
                elapsed += time.perf_counter() - started
            yield self._emit(event)
        self.timings[timing] = round(elapsed * 1000, 3)
        if fault is not None and plan is not None and output is not None:
            before = len(self.recorder.invocations)
            context = FaultContext(session_id=self.session_id, plan=plan,
                                   recorder=self.recorder, store=self.store)
            output = fault.apply(output, list(self.recorder.invocations), context)
            # Calls a fault made through the recorder belong to the session's trail too.
            for invocation in self.recorder.invocations[before:]:
                yield self._emit(ToolCalled(tool_name=invocation.tool_name,
                                            arguments=invocation.arguments))
                yield self._emit(ToolReturned(invocation=invocation))
        return output, parse_status

    def _check(self, output: ExecutorOutput | None, parse_status: ParseStatus) -> GatekeeperResult:
        return check_citations(session_id=self.session_id, invocations=self.recorder.invocations,
                               executor_output=output, parse_status=parse_status,
                               stored_invocations=store_lookup(
                                   self.store, recorded=self.recorder.invocations,
                                   session_id=self.session_id))

    # ------------------------------------------------------------ bookkeeping

    def _now_ms(self) -> float:
        """Milliseconds since the session started."""
        return _ms_since(self.started)

    def _time(self, stage: str, work: Callable[[], _T]) -> _T:
        """``work`` as the stage ``stage``: its duration and start are recorded."""
        return _timed(self.timings, stage, work, starts=self.stage_starts, origin=self.started)

    def _emit(self, event: _E) -> _E:
        """Stamp the event (session, sequence number, time) and hand it to the journal (stored
        by the next flush)."""
        stamped = event.model_copy(update={"session_id": self.session_id, "seq": self.seq,
                                           "at_ms": self._now_ms()})
        self.journal.event(stamped)
        self.seq += 1
        return stamped

    def _stored(self, *events: PipelineEvent) -> list[PipelineEvent]:
        """Stamp ``events`` (those not stamped yet) and store the batch; the caller yields them."""
        stamped = [event if event.session_id else self._emit(event) for event in events]
        self.journal.flush()
        return stamped

    def _snapshot(self) -> SessionDocument:
        """The final document. A shallow copy is enough: after it the run only reassigns fields
        of ``self.document`` (it never edits a stage result in place)."""
        self.document.invocations = list(self.recorder.invocations)
        return self.document.model_copy()

    def _close(self, status: SessionStatus, *, error: str | None = None) -> None:
        """Close the session in memory and in the journal (written by the next flush)."""
        self.timings["total"] = _ms_since(self.started)
        self.document.status = status
        self.document.error = error
        self.document.outcome = closing_outcome(status, self.document.outcome)
        self.document.timings_ms = dict(self.timings)
        self.document.stage_starts_ms = dict(self.stage_starts)
        self.journal.finish(self.document)

    def _flush_quietly(self) -> None:
        """Flush; if the store itself is failing, drop it and keep reporting in memory."""
        try:
            self.journal.flush()
        except Exception:
            logger.warning("session %s: the audit store failed; the rest of the session is kept "
                           "in memory only", self.session_id, exc_info=True)
            self.store = self.journal.store = None

    def _fail(self, stage: str, exc: Exception) -> Iterator[PipelineEvent]:
        """Report a failed stage: store everything first, then yield, so closing is harmless."""
        message = f"{type(exc).__name__}: {exc}" if not isinstance(exc, SuperbizError) else str(exc)
        message = redact_text(message)  # stored and exported: never a configured secret
        self.document.invocations = list(self.recorder.invocations)
        events: list[PipelineEvent] = []
        if self.document.verifier_result and self.document.verifier_result.verdict == "PASS":
            events.append(self._emit(self._withdraw_pass(stage, message)))
        events.append(self._emit(PipelineFailed(stage=stage, message=message)))
        self._close("error", error=f"{stage}: {message}")
        events.append(self._emit(SessionFinished(document=self._snapshot())))
        self._flush_quietly()
        _export_closed(self.document)
        yield from events

    def _withdraw_pass(self, stage: str, message: str) -> VerdictReached:
        """A session whose chain broke after the verdict (the composer's model failed, or its
        answer was replaced) is never left as PASS: a model step failed."""
        verdict = self.document.verifier_result
        assert verdict is not None
        withdrawn = withdraw_pass(verdict, f"stage {stage} failed ({message})")
        self.document.verifier_result = withdrawn
        self.document.outcome = session_outcome(self.document.plan, self.document.executor_output,
                                                withdrawn)
        self.journal.save_verification(self.document.tool_trace_summary, withdrawn)
        return VerdictReached(result=withdrawn)
