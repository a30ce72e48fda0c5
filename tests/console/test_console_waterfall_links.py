"""The waterfall explains its gaps (wait bars), colours a stage that rejected the session red,
and links each bar to the event it ends with (core/views/waterfall.py)."""

from __future__ import annotations

from core.events import GatekeeperFinished, PipelineEvent, SessionFinished, ToolReturned
from core.pipeline import run_investigation
from core.store import Store
from core.views.timeline import load_view, view_from_events
from core.views.waterfall import _FAILED_COLOUR, MIN_WAIT_MS, build_waterfall, waterfall_figure
from tests.console.console_helpers import SEED_QUESTION


def _events(store: Store, **options: object) -> list[PipelineEvent]:
    return list(run_investigation(SEED_QUESTION, store=store, **options))  # type: ignore[arg-type]


def test_no_unexplained_gap_between_stages(tmp_store: Store) -> None:
    events = _events(tmp_store)
    finished = events[-1]
    assert isinstance(finished, SessionFinished)
    waterfall = build_waterfall(load_view(events, finished.document), events)
    assert waterfall.timing == "recorded"
    rows = [span for span in waterfall.spans if span.kind != "tool"]
    covered = 0.0
    for span in rows:  # each row starts where the one before it ended (a wait bar or a stage)
        assert span.start_ms - covered < MIN_WAIT_MS
        covered = max(covered, span.end_ms)
        if span.kind == "wait":
            assert span.state == "waiting"
            assert "before" in span.detail or "opening" in span.detail
    execute = next(span for span in rows if span.label == "execute" and span.kind == "stage")
    assert "tool call(s)" in execute.detail and "the executor itself" in execute.detail
    # Live (from the events' times) the same rows, in the same order, as stored.
    live = build_waterfall(view_from_events(events[:-1]), events[:-1])
    assert live.timing == "events"
    stages = [span.label for span in waterfall.spans if span.kind == "stage"]
    assert [span.label for span in live.spans if span.kind == "stage"][:-1] == stages[:-1]


def test_each_bar_links_to_its_event(tmp_store: Store) -> None:
    events = _events(tmp_store)
    finished = events[-1]
    assert isinstance(finished, SessionFinished)
    waterfall = build_waterfall(load_view(events, finished.document), events)
    by_seq = {event.seq: event for event in events}
    for span in waterfall.spans:
        if span.kind == "wait":
            assert span.event_seq is None
            continue
        assert span.event_seq is not None, span.label
        event = by_seq[span.event_seq]
        if span.kind == "tool":
            assert isinstance(event, ToolReturned)
            assert span.label.endswith(f"#{event.invocation.invocation_id}")
        elif span.label == "gatekeeper":
            assert isinstance(event, GatekeeperFinished)
    figure = waterfall_figure(waterfall)
    assert list(figure.data[0].customdata) == [span.event_seq for span in waterfall.spans]


def test_a_rejecting_stage_is_red(tmp_store: Store) -> None:
    events = _events(tmp_store, executor_fault="tamper_number")
    finished = events[-1]
    assert isinstance(finished, SessionFinished)
    waterfall = build_waterfall(load_view(events, finished.document), events)
    states = {span.label: span.state for span in waterfall.spans if span.kind == "stage"}
    assert states["gatekeeper"] == "rejected" and states["plan"] == "done"
    colours = list(waterfall_figure(waterfall).data[0].marker.color)
    gatekeeper = next(n for n, span in enumerate(waterfall.spans)
                      if span.kind == "stage" and span.label == "gatekeeper")
    assert colours[gatekeeper] == _FAILED_COLOUR


def test_a_clicked_bar_shows_its_event(tmp_store: Store) -> None:
    from streamlit.testing.v1 import AppTest

    from tests.console.console_helpers import APP

    events = _events(tmp_store)
    session_id = events[0].session_id
    app = AppTest.from_file(str(APP), default_timeout=30)
    app.query_params["session"] = session_id
    app.run()
    assert not app.exception
    finished = events[-1]
    assert isinstance(finished, SessionFinished)
    waterfall = build_waterfall(load_view(events, finished.document), events)
    tool = next(n for n, span in enumerate(waterfall.spans) if span.kind == "tool")
    app.session_state[f"waterfall_{session_id}"] = {
        "selection": {"points": [{"point_index": tool}], "point_indices": [tool], "box": [],
                      "lasso": []}}
    app.run()
    assert not app.exception
    shown = " ".join(element.value for element in app.get("html") if hasattr(element, "value"))
    assert f"Event #{waterfall.spans[tool].event_seq} tool_returned" in shown
