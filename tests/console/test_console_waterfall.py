"""The timeline: start times recorded with the session, the waterfall drawn from them (the same
live at the end and stored), the demo pace, and the Investigate page consuming its own run's
stream."""

from __future__ import annotations

import re
from collections.abc import Callable
from itertools import pairwise

from streamlit.testing.v1 import AppTest

from core.contracts import SessionDocument
from core.events import PipelineEvent, SessionFinished, ToolCalled
from core.store import Store, repository
from core.views.pace import PACE_CHOICES, pace_seconds, release_times, released_count
from core.views.timeline import (
    InvestigationView,
    apply_event,
    load_view,
    parse_stored_events,
    view_from_document,
    view_from_events,
)
from core.views.waterfall import STAGE_ENDS, build_waterfall, waterfall_figure
from tests.console.console_helpers import SEED_QUESTION, wait_until_finished


def _run(store: Store | None) -> tuple[list[PipelineEvent], list[InvestigationView],
                                       SessionDocument]:
    """Events of a real run, with the view after each."""
    from core.pipeline import run_investigation

    events: list[PipelineEvent] = []
    views: list[InvestigationView] = []
    view = InvestigationView()
    document = None
    for event in run_investigation(SEED_QUESTION, store=store):
        events.append(event)
        apply_event(view, event)
        views.append(view_from_events(events))
        if isinstance(event, SessionFinished):
            document = event.document
    assert document is not None
    return events, views, document


def _bars(view: InvestigationView, events: list[PipelineEvent]) -> list[tuple[str, float, float]]:
    return [(span.label, span.start_ms, span.duration_ms)
            for span in build_waterfall(view, events).spans]


def test_a_session_records_when_each_stage_and_call_began(tmp_store: Store) -> None:
    events, _, document = _run(tmp_store)
    stages = [stage for stage, _ in STAGE_ENDS]
    assert list(document.stage_starts_ms) == stages
    starts = [document.stage_starts_ms[stage] for stage in stages]
    assert starts == sorted(starts) and starts[0] >= 0
    for before, after in pairwise(stages):  # stages do not overlap
        assert (document.stage_starts_ms[before] + document.timings_ms[before]
                <= document.stage_starts_ms[after] + 0.001)
    execute_start = document.stage_starts_ms["execute"]
    execute_end = document.stage_starts_ms["gatekeeper"]
    for invocation in document.invocations:  # each call inside the executor's stage
        assert invocation.started_ms is not None and invocation.duration_ms is not None
        assert execute_start <= invocation.started_ms <= execute_end
    times = [event.at_ms for event in events]
    assert all(t is not None for t in times) and times == sorted(times)  # type: ignore[type-var]
    # The store gives all of it back: document, invocations, events.
    stored = repository.load_session_document(tmp_store, session_id=document.session_id)
    assert stored is not None
    assert stored.stage_starts_ms == document.stage_starts_ms
    assert [i.started_ms for i in stored.invocations] == [
        i.started_ms for i in document.invocations]
    stored_events = parse_stored_events(repository.list_events(
        tmp_store, session_id=document.session_id))
    assert [event.at_ms for event in stored_events] == times


def test_the_live_waterfall_grows_and_ends_as_the_stored_one(tmp_store: Store) -> None:
    events, views, document = _run(tmp_store)
    # While running: stages appear in order, the running one last; calls appear one by one.
    seen_stages: list[list[str]] = []
    calls_seen: list[int] = []
    for count, view in enumerate(views[:-1], start=1):
        waterfall = build_waterfall(view, events[:count])
        assert waterfall.timing == "events"
        stage_spans = [span for span in waterfall.spans if span.kind == "stage"]
        seen_stages.append([span.label for span in stage_spans])
        assert all(span.state == "done" for span in stage_spans[:-1])
        calls_seen.append(sum(1 for span in waterfall.spans if span.kind == "tool"))
    assert seen_stages[0] == ["plan"] and seen_stages[-1][-1] == "compose"
    assert calls_seen == sorted(calls_seen) and calls_seen[-1] == len(document.invocations)
    assert len(set(calls_seen)) > 2  # not all at once
    # Finished: the recorded timings; the stored session redraws exactly the same bars.
    live = build_waterfall(views[-1], events)
    assert live.timing == "recorded"
    stored_view = load_view(parse_stored_events(repository.list_events(
        tmp_store, session_id=document.session_id)),
        repository.load_session_document(tmp_store, session_id=document.session_id))
    assert _bars(views[-1], events) == _bars(stored_view, []) == _bars(
        view_from_document(document), [])
    labels = [span.label for span in live.spans if span.kind != "wait"]
    assert labels[:2] == ["plan", "execute"] and labels[-3:] == ["gatekeeper", "verify", "compose"]
    assert all(re.match(r"\d+\. query_\w+ #\d+|\d+\. lookup_knowledge #\d+", label)
               for label in labels[2:-3])
    figure = waterfall_figure(live)
    assert list(figure.data[0].base) == [span.start_ms for span in live.spans]


def test_a_call_still_out_runs_to_the_latest_event() -> None:
    called = ToolCalled(session_id="s-1", seq=2, at_ms=40.0, tool_name="query_logs",
                        arguments={"service": "order-service"})
    view = view_from_events([called])
    waterfall = build_waterfall(view, [called], now_ms=55.0)
    tool = next(span for span in waterfall.spans if span.kind == "tool")
    assert (tool.start_ms, tool.duration_ms, tool.state) == (40.0, 15.0, "running")


def test_an_older_session_is_laid_out_from_its_durations() -> None:
    view = InvestigationView(status="completed",
                             timings_ms={"plan": 5.0, "execute": 10.0, "total": 15.0})
    waterfall = build_waterfall(view)
    assert waterfall.timing == "estimated" and "without start times" in waterfall.note
    assert [(s.label, s.start_ms) for s in waterfall.spans] == [("plan", 0.0), ("execute", 5.0)]


def test_the_demo_pace_releases_one_event_at_a_time() -> None:
    arrivals = [0.0, 0.01, 0.02, 5.0, 5.01]
    assert release_times(arrivals, 0.0) == arrivals
    assert release_times(arrivals, 1.0) == [0.0, 1.0, 2.0, 5.0, 6.0]
    assert [released_count(arrivals, 1.0, now) for now in (0.0, 0.5, 1.0, 2.5, 5.5, 6.0)] == [
        1, 1, 2, 3, 4, 5]
    assert pace_seconds("real time") == 0.0 and pace_seconds(None) == 0.0
    assert sorted(PACE_CHOICES.values()) == list(PACE_CHOICES.values())


def _events_shown(app: AppTest) -> int:
    label = next(e.label for e in app.expander if e.label.startswith("Pipeline events ("))
    return int(label.split("(")[1].rstrip(")"))


def test_investigate_shows_its_own_run_at_the_demo_pace(open_app: Callable[..., AppTest],
                                                        tmp_store: Store) -> None:
    from ui.runs import get_run

    app = open_app()
    app.text_area(key="question").input(SEED_QUESTION)
    app.selectbox(key="pace").set_value("slow · 2 s per event")
    app.button(key="ask").click().run()
    assert not app.exception
    session_id = app.session_state["session_id"]
    document = wait_until_finished(tmp_store, session_id)  # the pipeline runs at full speed
    handle = get_run(session_id)
    assert handle is not None and handle.pace == 2.0
    app.run()
    assert not app.exception
    total = len(handle.events)
    shown = _events_shown(app)
    assert 1 <= shown < total  # held back by the pace, though all have arrived
    assert app.button(key="ask").disabled  # still "running" on screen
    assert any(plot for plot in app.get("plotly_chart"))  # the timeline, live
    app.button(key="skip_pace").click().run()
    app.run()  # the fragment saw everything: the whole page is drawn again, inputs enabled
    assert not app.exception
    assert _events_shown(app) == total
    assert app.button(key="ask").disabled is False
    assert {m.label: m.value for m in app.metric}["Verdict"] == "PASS"
    assert document.status == "completed"


def test_a_repair_turn_has_its_own_stages_live() -> None:
    from core.contracts import (
        ComposerOutput,
        GatekeeperResult,
        ParseStatus,
        Plan,
        RetryContext,
        VerifierResult,
    )
    from core.events import (
        AnswerReady,
        ClaimsProduced,
        GatekeeperFinished,
        PlanMade,
        RepairRequested,
        SessionStarted,
        VerdictReached,
    )

    def judged(at: float) -> list[PipelineEvent]:
        return [ClaimsProduced(at_ms=at, executor_output=None, parse_status=ParseStatus()),
                GatekeeperFinished(at_ms=at + 5, result=GatekeeperResult(status="pass",
                                                                         severity="none")),
                VerdictReached(at_ms=at + 10, result=VerifierResult(verdict="REJECT",
                                                                    groundedness_score=0.0))]

    events: list[PipelineEvent] = [
        SessionStarted(at_ms=0.0, question="q", pack="demo", engines={}),
        PlanMade(at_ms=10.0, plan=Plan(question="q")), *judged(20.0),
        RepairRequested(at_ms=31.0, attempt=2, feedback=RetryContext(attempt=1,
                                                                     verdict="REJECT")),
        *judged(40.0)]
    running = build_waterfall(view_from_events(events), events)
    assert [(s.label, s.start_ms, s.duration_ms, s.state) for s in running.spans] == [
        ("plan", 0.0, 10.0, "done"), ("execute", 10.0, 10.0, "done"),
        ("gatekeeper", 20.0, 5.0, "done"), ("verify", 25.0, 5.0, "done"),
        # The verdict at 30, the repair asked for at 31: that second is a wait, not repair.
        ("repair", 30.0, 1.0, "waiting"), ("repair", 31.0, 9.0, "done"),
        ("gatekeeper_repair", 40.0, 5.0, "done"),
        # The repaired verdict is REJECT: its stage is red; the first verify is not.
        ("verify_repair", 45.0, 5.0, "rejected"), ("compose", 50.0, 0.0, "running")]
    events.append(AnswerReady(at_ms=55.0, composer_output=ComposerOutput(
        status="blocked", user_facing_answer="x")))
    done = build_waterfall(view_from_events(events), events)
    assert done.spans[-1].label == "compose" and done.spans[-1].duration_ms == 5.0
