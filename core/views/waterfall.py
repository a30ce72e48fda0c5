"""The timeline of one investigation: each stage and each tool call as a bar from its start, the
waterfall trace consoles draw (plotly).

A finished session is drawn from what it recorded: ``stage_starts_ms`` + ``timings_ms`` per
stage and ``started_ms`` + ``duration_ms`` per invocation, so a stored session redraws the same
waterfall. A running one is drawn from its events' ``at_ms`` (a stage runs from the event that
ended the stage before it to the event that ends it; the running stage reaches the latest
event). A session of an older version, without either, is laid out one stage after the other
from its durations, and says so.

Live and stored, a stage's row runs from where the stage before it ended: the time between the
two (storing the stage, handing it over; opening the session before the plan) is drawn gray on
the stage's own row, a ``wait`` bar, so a stored session shows no unexplained gap and looks
like the live one. The execute stage's hover splits its time between the tool calls and the
executor itself (model time, recording the calls). A stage that failed, or whose result
rejected the session (the gatekeeper's ``reject``, the verifier's REJECT), is red. Each bar
names the event it ends with (``event_seq``), so a click on it shows that event.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import plotly.graph_objects as go

from core.events import (
    AnswerReady,
    ClaimsProduced,
    GatekeeperFinished,
    PipelineEvent,
    PipelineFailed,
    PlanMade,
    RepairRequested,
    ToolCalled,
    ToolReturned,
    VerdictReached,
)
from core.views.timeline import InvestigationView, ToolCallView

SpanState = Literal["done", "running", "failed", "rejected", "waiting"]
Timing = Literal["recorded", "events", "estimated"]
# The pipeline's stages in order, with the event that ends each. A repair turn (after the
# verdict, ``RepairRequested``) runs ``repair``, ``gatekeeper_repair`` and ``verify_repair``
# before ``compose``: the names ``timings_ms`` records.
STAGE_ENDS: tuple[tuple[str, type[PipelineEvent]], ...] = (
    ("plan", PlanMade), ("execute", ClaimsProduced), ("gatekeeper", GatekeeperFinished),
    ("verify", VerdictReached), ("compose", AnswerReady))
_NEXT_STAGE = {"plan": "execute", "execute": "gatekeeper", "gatekeeper": "verify",
               "verify": "compose", "repair": "gatekeeper_repair",
               "gatekeeper_repair": "verify_repair", "verify_repair": "compose"}
_STAGE_COLOUR, _TOOL_COLOUR = "#1c83e1", "#00a3a3"
_RUNNING_COLOUR, _FAILED_COLOUR, _WAIT_COLOUR = "#f0a020", "#e5484d", "#a3a8b4"
MIN_WAIT_MS = 0.5  # a shorter gap between stages is not drawn
_ARGUMENTS_SHOWN = 160  # characters of a call's arguments in its hover text


@dataclass(frozen=True)
class Span:
    """One bar: a stage or a tool call, from ``start_ms`` for ``duration_ms``."""

    kind: Literal["stage", "tool", "wait"]
    label: str  # a wait bar has its stage's label: it is drawn on that stage's row
    start_ms: float
    duration_ms: float
    state: SpanState = "done"
    detail: str = ""
    event_seq: int | None = None  # the event this bar ends with (None: a wait, not yet)

    @property
    def end_ms(self) -> float:
        """Where the bar ends."""
        return self.start_ms + self.duration_ms


@dataclass(frozen=True)
class Waterfall:
    """The bars in drawing order (stages, each followed by the calls inside it) and how they
    were timed: ``recorded`` (the session's own timings), ``events`` (live, from event times)
    or ``estimated`` (an older session: durations only)."""

    spans: list[Span]
    timing: Timing

    @property
    def total_ms(self) -> float:
        """Where the last bar ends."""
        return max((span.end_ms for span in self.spans), default=0.0)

    @property
    def note(self) -> str:
        """One line under the chart saying what the bars are."""
        return {"recorded": "Start and duration of each stage and tool call, as recorded with "
                            "the session.",
                "events": "Live: each stage from the event that began it; the running stage "
                          "grows as events arrive.",
                "estimated": "This session was stored without start times: stages are laid "
                             "out one after the other from their durations."}[self.timing]


def build_waterfall(view: InvestigationView, events: Sequence[PipelineEvent] = (),
                    *, now_ms: float | None = None) -> Waterfall:
    """The waterfall of ``view`` (see the module docstring). ``events``: the session's events
    so far (for a running session); ``now_ms``: where a running bar ends (default: the latest
    event's time)."""
    timing: Timing
    if view.stage_starts_ms:
        stages, timing = _recorded_stages(view), "recorded"
    elif any(event.at_ms is not None for event in events):
        stages, timing = _event_stages(view, events, now_ms), "events"
    else:
        stages, timing = _estimated_stages(view), "estimated"
    latest = now_ms if now_ms is not None else max(
        (event.at_ms for event in events if event.at_ms is not None), default=None)
    tools = _tool_spans(view, stages, latest)
    first_event = min((event.at_ms for event in events if event.at_ms is not None), default=None)
    stages = _linked(_explained(stages, tools, first_event if timing == "events" else None),
                     events)
    return Waterfall(_interleave(stages, _linked_tools(tools, events)), timing)


def _stage_state(view: InvestigationView, stage: str, running: bool) -> SpanState:
    if running:
        return "running"
    if view.failure and view.failure.startswith(f"{stage}:"):
        return "failed"
    base = stage.removesuffix("_repair")
    if base == "gatekeeper" and view.gatekeeper is not None and stage == _last(view, "gatekeeper"):
        return "rejected" if view.gatekeeper.severity == "reject" else "done"
    if base == "verify" and view.verifier is not None and stage == _last(view, "verify"):
        return "rejected" if view.verifier.verdict == "REJECT" else "done"
    return "done"


def _last(view: InvestigationView, stage: str) -> str:
    """The name of the last run of ``stage`` (``verify_repair`` after a repair turn): only it
    holds the result the view shows."""
    return f"{stage}_repair" if view.attempts else stage


def _explained(stages: list[Span], tools: Sequence[Span],
               session_began: float | None) -> list[Span]:
    """The stages, each preceded by a wait bar for the time since the stage before it ended
    (from 0, or ``session_began``, for the first); the execute stage's detail split between
    its tool calls and the executor itself."""
    explained: list[Span] = []
    previous_end = 0.0
    for index, stage in enumerate(stages):
        gap = stage.start_ms - previous_end
        if gap >= MIN_WAIT_MS:
            what = ("opening the session (its row, the engines)" if index == 0 else
                    f"storing {stages[index - 1].label} and handing its result over")
            explained.append(Span("wait", stage.label, previous_end, gap, "waiting",
                                  f"waiting {gap:.1f} ms before {stage.label}: {what}"))
        elif index == 0 and session_began is not None and session_began >= MIN_WAIT_MS:
            explained.append(Span("wait", stage.label, 0.0, session_began, "waiting",
                                  "opening the session (its row, the engines)"))
        if stage.label in ("execute", "repair"):
            inside = [tool for tool in tools
                      if stage.start_ms <= tool.start_ms < stage.end_ms + MIN_WAIT_MS]
            called = sum(tool.duration_ms for tool in inside)
            stage = Span(stage.kind, stage.label, stage.start_ms, stage.duration_ms, stage.state,
                         f"{len(inside)} tool call(s): {called:.1f} ms; the executor itself: "
                         f"{max(stage.duration_ms - called, 0.0):.1f} ms (model time, "
                         "recording the calls)")
        explained.append(stage)
        previous_end = max(previous_end, stage.end_ms)
    return explained


def _linked(stages: list[Span], events: Sequence[PipelineEvent]) -> list[Span]:
    """Each stage bar with the event that ended it (the n-th run of a stage: its n-th end)."""
    linked: list[Span] = []
    for span in stages:
        seq = None
        if span.kind == "stage" and span.state != "running":
            if span.state == "failed":
                ends: type[PipelineEvent] = PipelineFailed
            else:
                ends = _ends(span.label)
            matching = [event.seq for event in events if isinstance(event, ends)]
            nth = 1 if span.label.endswith("_repair") or span.label == "repair" else 0
            if span.state == "failed" or span.label == "compose":
                nth = 0
            seq = matching[nth] if len(matching) > nth else None
        linked.append(Span(span.kind, span.label, span.start_ms, span.duration_ms, span.state,
                           span.detail, seq))
    return linked


def _linked_tools(tools: list[Span], events: Sequence[PipelineEvent]) -> list[Span]:
    """Each tool bar with the event of its return (or of its call, while it is out)."""
    returned = [event.seq for event in events if isinstance(event, ToolReturned)]
    called = [event.seq for event in events if isinstance(event, ToolCalled)]
    linked: list[Span] = []
    for number, span in enumerate(tools):
        seqs = called if span.state == "running" else returned
        seq = seqs[number] if number < len(seqs) else None
        linked.append(Span(span.kind, span.label, span.start_ms, span.duration_ms, span.state,
                           span.detail, seq))
    return linked


def _recorded_stages(view: InvestigationView) -> list[Span]:
    ordered = sorted(view.stage_starts_ms.items(), key=lambda item: item[1])
    return [Span("stage", stage, start, view.timings_ms.get(stage, 0.0),
                 _stage_state(view, stage, False)) for stage, start in ordered]


def _ends(stage: str) -> type[PipelineEvent]:
    """The event that ends ``stage`` (a repair stage ends like the stage it repeats)."""
    base = "execute" if stage == "repair" else stage.removesuffix("_repair")
    return dict(STAGE_ENDS)[base]


def _event_stages(view: InvestigationView, events: Sequence[PipelineEvent],
                  now_ms: float | None) -> list[Span]:
    times = [event.at_ms for event in events if event.at_ms is not None]
    latest = now_ms if now_ms is not None else max(times, default=0.0)
    begin = min(times, default=0.0)
    spans: list[Span] = []
    stage: str | None = "plan"
    for event in events:
        if stage is None or event.at_ms is None:
            continue
        if isinstance(event, RepairRequested) and stage == "compose":
            stage, begin = "repair", event.at_ms  # the verdict asked for a repair turn
        elif isinstance(event, _ends(stage)):
            spans.append(Span("stage", stage, begin, max(event.at_ms - begin, 0.0),
                              _stage_state(view, stage, False)))
            stage, begin = _NEXT_STAGE.get(stage), event.at_ms
    if stage is not None and not view.finished:  # the stage running now reaches the latest
        spans.append(Span("stage", stage, begin, max(latest - begin, 0.0), "running"))
    return spans


def _estimated_stages(view: InvestigationView) -> list[Span]:
    spans: list[Span] = []
    begin = 0.0
    for stage, duration in view.timings_ms.items():
        if stage == "total":
            continue
        spans.append(Span("stage", stage, begin, duration, _stage_state(view, stage, False)))
        begin += duration
    return spans


def _call_detail(call: ToolCallView) -> str:
    arguments = json.dumps(call.arguments, ensure_ascii=False)
    if len(arguments) > _ARGUMENTS_SHOWN:
        arguments = arguments[:_ARGUMENTS_SHOWN] + "…"
    status = call.evidence_status or "waiting"
    return f"{arguments} · {status} · {len(call.evidence_refs)} refs"


def _tool_spans(view: InvestigationView, stages: Sequence[Span],
                latest: float | None) -> list[Span]:
    execute = next((span for span in stages if span.label == "execute"), None)
    cursor = execute.start_ms if execute is not None else 0.0
    spans: list[Span] = []
    for number, call in enumerate(view.tool_calls, start=1):
        invocation = call.invocation
        label = f"{number}. {call.tool_name}"
        if invocation is None:  # still out: from when it was called to the latest event
            start = call.called_at_ms if call.called_at_ms is not None else cursor
            end = latest if latest is not None else start
            spans.append(Span("tool", label, start, max(end - start, 0.0), "running",
                              _call_detail(call)))
            continue
        label += f" #{invocation.invocation_id}"
        duration = invocation.duration_ms or 0.0
        start = invocation.started_ms if invocation.started_ms is not None else cursor
        state: SpanState = "failed" if call.evidence_status == "error" else "done"
        spans.append(Span("tool", label, start, duration, state, _call_detail(call)))
        cursor = start + duration
    return spans


def _interleave(stages: list[Span], tools: list[Span]) -> list[Span]:
    """Stages in order, each tool call right after the stage it ran in (by start time)."""
    ordered: list[Span] = []
    remaining = list(tools)
    for index, stage in enumerate(stages):
        ordered.append(stage)
        following = stages[index + 1].start_ms if index + 1 < len(stages) else float("inf")
        inside = [tool for tool in remaining if tool.start_ms < following]
        ordered.extend(inside)
        remaining = [tool for tool in remaining if tool not in inside]
    return ordered + remaining


def _colour(span: Span) -> str:
    if span.state == "running":
        return _RUNNING_COLOUR
    if span.state in ("failed", "rejected"):
        return _FAILED_COLOUR
    if span.state == "waiting":
        return _WAIT_COLOUR
    return _STAGE_COLOUR if span.kind == "stage" else _TOOL_COLOUR


def waterfall_figure(waterfall: Waterfall) -> go.Figure:
    """Horizontal bars from each start (ms since the session started), first stage on top.

    A bar too short to see is drawn at a minimum width; its hover text gives the real duration.
    """
    spans = waterfall.spans
    total = max(waterfall.total_ms, 1.0)
    shown = [max(span.duration_ms, total * 0.004) for span in spans]
    labels = [("   " if span.kind == "tool" else "") + span.label for span in spans]
    hover = [f"<b>{span.label}</b><br>start {span.start_ms:.1f} ms · {span.duration_ms:.1f} ms"
             f" · {span.state}" + (f"<br>{_escape(span.detail)}" if span.detail else "")
             for span in spans]
    figure = go.Figure(go.Bar(
        x=shown, base=[span.start_ms for span in spans], y=labels, orientation="h",
        marker_color=[_colour(span) for span in spans],
        text=["" if span.kind == "wait" else f"{span.duration_ms:.1f} ms"
              + (" …" if span.state == "running" else "") for span in spans],
        customdata=[span.event_seq for span in spans],
        textposition="outside", cliponaxis=False, hovertext=hover, hoverinfo="text"))
    figure.update_yaxes(autorange="reversed", type="category", automargin=True)
    figure.update_xaxes(title="ms since the session started", rangemode="tozero",
                        range=[0, total * 1.25])
    figure.update_layout(height=90 + 26 * max(len(spans), 1), showlegend=False, bargap=0.25,
                         margin={"l": 10, "r": 10, "t": 10, "b": 40})
    return figure


def _escape(text: str) -> str:
    """Plotly hover text is HTML-ish: data reads literally."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
