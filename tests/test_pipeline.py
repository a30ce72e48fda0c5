"""The pipeline: the event stream, what it writes to the store as it goes, crashes, replay."""

from __future__ import annotations

import re

import pytest

from core.agents.base import Composer, Executor, ExecutorRun, Planner
from core.agents.registry import Engines, build_engines
from core.contracts import AlertRefFields, ComposerOutput, Plan, SessionDocument, VerifierInput, VerifierResult
from core.errors import EngineError, InputError
from core.events import (
    AnswerReady,
    BindingChecked,
    ClaimJudged,
    ClaimsProduced,
    Event,
    GatekeeperFinished,
    PipelineFailed,
    PlanMade,
    SessionFinished,
    SessionStarted,
    ToolCalled,
    ToolReturned,
    VerdictReached,
    parse_event,
)
from core.pipeline import ask, new_session_id, replay, run_investigation
from core.recorder import Recorder
from core.sources.base import World
from core.store import Store, repository

QUESTION = "请排查 order-service 当前是否存在 HighMemoryUsage 告警，只确认内存使用率过高这一件事。"


class CrashingExecutor:
    """A test double outside the thing under test: one real tool call, then an engine failure."""

    engine = "crashing"

    def run(self, plan: Plan, recorder: Recorder) -> ExecutorRun:
        yield ToolCalled(tool_name="query_metrics", arguments={"service": "order-service"})
        invocation = recorder.call("query_metrics", {"service": "order-service"})
        yield ToolReturned(invocation=invocation)
        raise RuntimeError("model endpoint went away")


class CrashingPlanner:
    engine = "crashing"

    def plan(self, question: str, world: World) -> Plan:
        raise ValueError("cannot plan")


class CrashingComposer:
    engine = "crashing"

    def compose(self, plan: Plan, verifier_input: VerifierInput,
                verifier_result: VerifierResult) -> ComposerOutput:
        raise RuntimeError("composer model timed out")


class FallbackComposer:
    """A composer whose model answer was unusable and was replaced (as the llm composer does)."""

    engine = "fallback"

    def compose(self, plan: Plan, verifier_input: VerifierInput,
                verifier_result: VerifierResult) -> ComposerOutput:
        from core.agents.rules.composer import RulesComposer

        answer = RulesComposer().compose(plan, verifier_input, verifier_result)
        return answer.model_copy(update={"degraded": "the model's answer leaked a blocked claim"})


def _engines(*, planner: Planner | None = None, executor: Executor | None = None,
             composer: Composer | None = None) -> Engines:
    rules = build_engines("rules")
    return Engines(planner=planner or rules.planner, executor=executor or rules.executor,
                   verifier=rules.verifier, composer=composer or rules.composer)


def test_events_in_order_with_seq_and_session(tmp_store: Store) -> None:
    events = list(run_investigation(QUESTION, store=tmp_store))
    kinds: list[type[Event]] = [type(event) for event in events]
    assert kinds[:2] == [SessionStarted, PlanMade]
    assert tuple(kinds[-3:]) == (VerdictReached, AnswerReady, SessionFinished)
    order: list[type[Event]] = [SessionStarted, PlanMade, ToolCalled, ClaimsProduced, BindingChecked,
                                GatekeeperFinished, ClaimJudged, VerdictReached, AnswerReady, SessionFinished]
    firsts = [kinds.index(kind) for kind in order]
    assert firsts == sorted(firsts)
    session_id = events[0].session_id
    assert re.fullmatch(r"s-\d{8}-\d{6}-[0-9a-f]{6}", session_id)
    assert [event.seq for event in events] == list(range(len(events)))
    assert {event.session_id for event in events} == {session_id}

    assert isinstance(events[-1], SessionFinished)
    document = events[-1].document
    gatekeeper = document.gatekeeper_result
    assert kinds.count(BindingChecked) == len(gatekeeper.checked_bindings)
    assert kinds.count(ClaimJudged) == len(document.executor_output.claims)
    assert kinds.count(ToolReturned) == len(document.invocations)


def test_every_event_and_stage_result_is_in_the_store(tmp_store: Store) -> None:
    events = list(run_investigation(QUESTION, store=tmp_store))
    assert isinstance(events[-1], SessionFinished)
    document = events[-1].document
    stored_events = repository.list_events(tmp_store, session_id=document.session_id)
    assert [row.seq for row in stored_events] == [event.seq for event in events]
    assert [parse_event(row.payload) for row in stored_events] == events

    stored = repository.load_session_document(tmp_store, session_id=document.session_id)
    assert stored is not None and stored.status == "completed"
    for field in ("plan", "executor_output", "gatekeeper_result", "verifier_result",
                  "composer_output", "tool_trace_summary", "invocations"):
        assert getattr(stored, field) == getattr(document, field), field
    assert document.verifier_result.verdict == "PASS"
    assert set(document.timings_ms) >= {"plan", "execute", "gatekeeper", "verify", "compose", "total"}


def test_in_memory_run_writes_nothing(tmp_store: Store) -> None:
    document = ask(QUESTION, store=None)
    assert document.status == "completed" and document.composer_output is not None
    assert repository.list_sessions(tmp_store) == []


def test_crash_leaves_an_error_session_with_everything_before_it(tmp_store: Store) -> None:
    events = list(run_investigation(QUESTION, store=tmp_store,
                                    engines=_engines(executor=CrashingExecutor())))
    failed = [event for event in events if isinstance(event, PipelineFailed)]
    assert len(failed) == 1 and failed[0].stage == "execute"
    assert "model endpoint went away" in failed[0].message
    assert isinstance(events[-1], SessionFinished) and events[-1].document.status == "error"

    session_id = events[0].session_id
    stored = repository.load_session_document(tmp_store, session_id=session_id)
    assert stored is not None
    assert stored.status == "error" and "model endpoint went away" in (stored.error or "")
    assert stored.plan is not None  # saved before the crash
    assert [inv.tool_name for inv in stored.invocations] == ["query_metrics"]
    kinds = [row.kind for row in repository.list_events(tmp_store, session_id=session_id)]
    assert kinds[-2:] == ["pipeline_failed", "session_finished"]


def test_a_planner_crash_is_reported_as_the_plan_stage(tmp_store: Store) -> None:
    document = ask(QUESTION, store=tmp_store, engines=_engines(planner=CrashingPlanner()))
    assert document.status == "error" and (document.error or "").startswith("plan:")


def test_a_composer_crash_never_leaves_a_pass(tmp_store: Store) -> None:
    document = ask(QUESTION, store=tmp_store, engines=_engines(composer=CrashingComposer()))
    assert document.status == "error" and (document.error or "").startswith("compose:")
    assert document.verifier_result is not None and document.verifier_result.verdict == "LOW_CONFID"
    assert any("PASS withdrawn" in reason for reason in document.verifier_result.reasons)
    stored = repository.load_session_document(tmp_store, session_id=document.session_id)
    assert stored.verifier_result.verdict == "LOW_CONFID"
    (summary,) = repository.list_sessions(tmp_store)
    assert summary.verdict == "LOW_CONFID" and summary.status == "error"


def test_a_replaced_answer_withdraws_a_pass(tmp_store: Store) -> None:
    events = list(run_investigation(QUESTION, store=tmp_store,
                                    engines=_engines(composer=FallbackComposer())))
    verdicts = [event.result.verdict for event in events if isinstance(event, VerdictReached)]
    assert verdicts == ["PASS", "LOW_CONFID"]
    document = events[-1].document
    assert document.status == "completed" and document.verifier_result.verdict == "LOW_CONFID"
    assert any("leaked a blocked claim" in reason for reason in document.verifier_result.reasons)
    stored = repository.load_session_document(tmp_store, session_id=document.session_id)
    assert stored.verifier_result.verdict == "LOW_CONFID"


def test_a_consumer_that_stops_leaves_an_incomplete_session(tmp_store: Store) -> None:
    events = run_investigation(QUESTION, store=tmp_store)
    session_id = ""
    for event in events:
        session_id = event.session_id
        if isinstance(event, ToolReturned):
            break
    events.close()
    stored = repository.load_session_document(tmp_store, session_id=session_id)
    assert stored is not None and stored.status == "incomplete"
    assert len(stored.invocations) == 1


def test_a_consumer_that_stops_at_the_last_event_leaves_it_completed(tmp_store: Store) -> None:
    events = run_investigation(QUESTION, store=tmp_store)
    finished = next(event for event in events if isinstance(event, SessionFinished))
    events.close()
    assert finished.document.status == "completed"
    stored = repository.load_session_document(tmp_store, session_id=finished.session_id)
    assert stored is not None and stored.status == "completed" and stored.error is None


def test_usage_errors_raise_before_any_session(tmp_store: Store) -> None:
    with pytest.raises(EngineError, match=r"valid faults: .*tamper_number"):
        run_investigation(QUESTION, executor_fault="no_such_fault", store=tmp_store)
    with pytest.raises(InputError, match=r"question: is empty"):
        run_investigation("   ", store=tmp_store)
    with pytest.raises(InputError, match="lone surrogate"):
        run_investigation("only confirm \ud800 CPU", store=tmp_store)
    assert repository.list_sessions(tmp_store) == []


def test_session_ids_are_unique() -> None:
    assert len({new_session_id() for _ in range(200)}) == 200


def test_replay_catches_a_tampered_excerpt_without_calling_tools(tmp_store: Store) -> None:
    original = ask(QUESTION, store=tmp_store)
    assert original.verifier_result.verdict == "PASS"
    calls_before = len(repository.list_invocations(tmp_store, session_id=original.session_id))

    same = replay(original)
    assert same.verifier_result.verdict == "PASS"
    assert same.composer_output.user_facing_answer == original.composer_output.user_facing_answer

    tampered = original.model_copy(deep=True)
    binding = tampered.executor_output.claims[0].evidence_bindings[0]
    assert "91%" in binding.evidence_excerpt
    binding.evidence_excerpt = binding.evidence_excerpt.replace("91%", "19%")
    replayed = replay(tampered)
    assert replayed.gatekeeper_result.severity == "reject"
    assert "evidence.excerpt_mismatch" in replayed.gatekeeper_result.failed_rules
    assert replayed.verifier_result.verdict == "REJECT"
    assert "19%" not in replayed.composer_output.user_facing_answer
    assert len(repository.list_invocations(tmp_store, session_id=original.session_id)) == calls_before


def _without_ref_fields(value: object) -> object:
    if isinstance(value, dict):
        return {key: _without_ref_fields(item) for key, item in value.items()
                if key not in ("fields", "matched_fields")}
    if isinstance(value, list):
        return [_without_ref_fields(item) for item in value]
    return value


def test_a_document_stored_before_refs_had_fields_replays_to_the_same_verdict() -> None:
    original = ask(QUESTION)
    assert original.verifier_result.verdict == "PASS"
    assert all(ref.fields is not None for invocation in original.invocations
               for ref in invocation.retrieval_details.evidence_refs)
    legacy = SessionDocument.model_validate(_without_ref_fields(original.model_dump(mode="json")))
    assert all(ref.fields is None for invocation in legacy.invocations
               for ref in invocation.retrieval_details.evidence_refs)
    replayed = replay(legacy)
    assert replayed.gatekeeper_result.status == "pass"
    assert replayed.verifier_result == original.verifier_result.model_copy(
        update={"repairs": replayed.verifier_result.repairs})
    # The gatekeeper gave the matched refs their fields again, from the raw output.
    assert [checked.matched_fields for checked in replayed.gatekeeper_result.checked_bindings] == [
        checked.matched_fields for checked in original.gatekeeper_result.checked_bindings]
    assert any(checked.matched_fields is not None
               for checked in replayed.gatekeeper_result.checked_bindings)


def test_replay_catches_fields_edited_apart_from_the_raw_output() -> None:
    original = ask(QUESTION)
    tampered = original.model_copy(deep=True)
    ref = next(ref for invocation in tampered.invocations
               for ref in invocation.retrieval_details.evidence_refs
               if isinstance(ref.fields, AlertRefFields))
    assert isinstance(ref.fields, AlertRefFields)
    ref.fields = ref.fields.model_copy(update={"state": "resolved"})
    replayed = replay(tampered)
    assert "evidence.refs_tampered" in replayed.gatekeeper_result.failed_rules
    assert replayed.verifier_result.verdict == "REJECT"
