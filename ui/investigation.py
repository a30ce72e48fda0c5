"""Rendering one investigation (live or stored): verdict, answer, and the evidence chain
plan -> tool calls -> claims with their gatekeeper-checked bindings -> verifier -> answer.

Everything shown here comes from ``core.views.timeline.InvestigationView`` (and the timeline
from ``core.views.waterfall``); data strings go through dataframes, ``st.json``, ``st.code`` or
escaped HTML, and into a Markdown label or metric only through ``escape_markdown``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

import streamlit as st

from core.contracts import Claim, Plan
from core.events import PipelineEvent
from core.views.badges import (
    Badge,
    binding_badge,
    claim_badge,
    evidence_status_badge,
    fault_badge,
    session_status_badge,
    severity_badge,
)
from core.views.inspector import binding_link, binding_positions
from core.views.outcomes import answer_lead
from core.views.repair import repair_summary
from core.views.sources import failure_text, request_lines
from core.views.terms import term_rows
from core.views.timeline import InvestigationView, ToolCallView, event_rows
from core.views.waterfall import Span, build_waterfall, waterfall_figure
from ui.render import badge, badges, escape_markdown, lead_box, literal_text, small_text
from ui.tables import folded_text, text_table

INSPECTOR_PAGE = "pages/2_Binding_inspector.py"
METRIC_WIDTH = 150  # px: five fit a desktop row, two a phone's
METRICS_ROW = "sb-metrics"  # a row that wraps on a phone (ui.render's stylesheet)
_STAGES = ("planning", "calling tools", "checking citations", "verifying claims",
           "composing the answer", "finished")


def current_stage(view: InvestigationView) -> str:
    """A person's word for what the pipeline is doing now."""
    if view.finished:
        return _STAGES[5]
    if view.attempts and view.executor_output is None:
        return f"repairing (attempt {len(view.attempts) + 1})"
    if view.verifier is not None:
        return _STAGES[4]
    if view.gatekeeper is not None:
        return _STAGES[3]
    if view.executor_output is not None or view.parse_status is not None:
        return _STAGES[2]
    if view.plan is not None:
        return _STAGES[1]
    return _STAGES[0]


def render_header(view: InvestigationView) -> None:
    """What the result means (its badge), verdict, groundedness, gatekeeper severity, claims
    and timing at a glance."""
    st.subheader("Verdict", anchor=False)
    verdict = view.verdict  # final only once the session completed
    gatekeeper = view.gatekeeper
    injected = fault_badge(view.executor_fault)
    badges([view.meaning.badge(),
            severity_badge(gatekeeper.severity if gatekeeper else None,
                           citations=len(gatekeeper.checked_bindings) if gatekeeper else None),
            session_status_badge(view.status), *([injected] if injected else [])])
    passed = sum(1 for result in view.claim_results if result.entailed)
    groundedness = view.verifier.groundedness_score if view.verifier else None
    total = view.timings_ms.get("total")
    # A wrapping row: five across on a desktop, two or three a line on a phone.
    with st.container(horizontal=True, gap="medium", key=METRICS_ROW):
        st.metric("Verdict", escape_markdown(verdict or "…"), width=METRIC_WIDTH)
        st.metric("Groundedness", f"{groundedness:.2f}" if groundedness is not None else "…",
                  help="entailed claims / all claims", width=METRIC_WIDTH)
        st.metric("Claims entailed", f"{passed} / {len(view.claims)}", width=METRIC_WIDTH)
        st.metric("Tool calls", str(len(view.tool_calls)), width=METRIC_WIDTH)
        st.metric("Duration", f"{total:.0f} ms" if total is not None else "…",
                  width=METRIC_WIDTH)


def render_lead(view: InvestigationView) -> None:
    """A yes/no question's answer word (是 · Yes, 否 · No ...), large, in the session's tone."""
    composer = view.composer
    if composer is None or not view.finished:
        return
    lead = answer_lead(composer.answer_kind, language=composer.language, meaning=view.meaning)
    if lead is None:
        return
    lead_box(lead, composer.answer_kind or "")


def render_answer(view: InvestigationView) -> None:
    """The composer's answer (escaped) in a box toned by what the result means, led by the
    yes/no word when the question asked one; or why there is none."""
    st.subheader("Answer", anchor=False)
    if view.composer is not None:
        render_lead(view)
        meaning = view.meaning
        literal_text(view.composer.user_facing_answer, answer=True,
                     tone=meaning.tone if view.finished else None)
        if view.finished:
            small_text(meaning.sentence)
        st.caption(escape_markdown(f"composer status: {view.composer.status} · language: "
                                   f"{view.composer.language} · built only from claims the "
                                   "verifier passed"))
    elif view.failure:
        st.error("The run failed; everything up to the failure is stored below.",
                 icon=":material/error:")
        small_text(view.failure)
    else:
        st.caption("The answer appears once the verifier has judged every claim.")


def render_terms(view: InvestigationView) -> None:
    """Every term of the question and what became of it: the answer answers the question only
    when each is accounted for (``core.verifier.accounting``)."""
    rows = term_rows(view.verifier)
    if not rows or not view.finished:
        return
    unaccounted = [row["term"] for row in rows if row["accounted"] == "unaccounted"]
    title = (f"Question terms — {len(unaccounted)} not accounted for" if unaccounted
             else "Question terms — every one accounted for")
    with st.expander(escape_markdown(title), expanded=bool(unaccounted), icon=":material/checklist:"):
        text_table(rows, key=f"terms_{view.session_id}", long_columns=["why"],
                   toned_columns=["accounted"])


def render_repair(view: InvestigationView) -> None:
    """"Repaired after 1 attempt" and what the earlier attempt got wrong (nothing without a
    repair turn)."""
    summary = repair_summary(view)
    if summary is None:
        return
    badge(Badge(summary.headline, summary.tone, "build_circle"))
    for number, attempt in enumerate(summary.attempts):
        with st.expander(escape_markdown(
                f"Attempt {attempt.attempt}: {attempt.verdict} "
                f"({', '.join(attempt.failed_rules)}) — what the executor was told"),
                icon=":material/history:"):
            text_table(attempt.rows, key=f"attempt_{view.session_id}_{number}",
                       long_columns=["why", "cited", "the evidence there says"])


def _plan_rows(plan: Plan) -> list[dict[str, str]]:
    exclusions = plan.exclusions
    excluded = [*exclusions.services, *exclusions.topics, *exclusions.alert_names,
                *exclusions.terms]
    rows = [("services", ", ".join(plan.services)), ("topics", ", ".join(plan.topics)),
            ("alert names", ", ".join(plan.alert_names)),
            ("narrow question", "yes" if plan.narrow else "no"),
            ("scope markers", ", ".join(plan.scope_markers)),
            ("excluded", ", ".join(excluded)), ("tools", ", ".join(plan.tools)),
            ("language", plan.language), ("notes", "; ".join(plan.notes))]
    return [{"field": name, "value": value or "—"} for name, value in rows]


def render_plan(view: InvestigationView) -> None:
    """Step 1: what the planner decided to look at."""
    with st.expander("Plan — what the planner decided to look at", expanded=not view.finished,
                     icon=":material/map:"):
        if view.plan is None:
            st.caption("Planning…")
            return
        text_table(_plan_rows(view.plan), key=f"plan_{view.session_id}", long_columns=["value"])


def _render_tool_call(number: int, call: ToolCallView, key: str) -> None:
    with st.container(border=True):
        invocation = call.invocation
        head = f"{number}. {call.tool_name}"
        if invocation is not None:
            head += f" · invocation #{invocation.invocation_id}"
        st.markdown(f"**{escape_markdown(head)}**")  # a model may name any tool
        status = evidence_status_badge(call.evidence_status)
        size = f"{len(call.evidence_refs)} refs · {call.result_bytes:,} bytes"
        if invocation is not None and invocation.duration_ms is not None:
            size += f" · {invocation.duration_ms:.1f} ms"
        if invocation is not None and invocation.source:
            size += f" · source {escape_markdown(invocation.source)}"
        badges([status])
        st.caption(size if call.returned else "waiting for the tool…")
        st.code(json.dumps(call.arguments, ensure_ascii=False), language="json")
        failed = failure_text(invocation) if invocation is not None else None
        if failed is not None:
            st.error("The call failed, so it says nothing about what the source holds: "
                     + escape_markdown(failed), icon=":material/cloud_off:")
        elif call.evidence_refs:
            text_table([{"raw_path": ref.raw_path, "text": ref.text}
                        for ref in call.evidence_refs], key=f"refs_{key}_{number}",
                       long_columns=["text"])
        elif call.returned:
            st.caption("No evidence refs: the tool found nothing for these arguments.")
        if invocation is not None:
            requested = request_lines(invocation)
            if requested:
                st.caption(f"Request sent to {escape_markdown(invocation.source or 'the source')}:")
                st.code("\n".join(requested), language="text", wrap_lines=True)
            with st.popover("Raw output", icon=":material/data_object:"):
                st.json(invocation.output, expanded=2)


def render_tool_calls(view: InvestigationView) -> None:
    """Step 2: each tool call with its arguments, size, evidence status and refs."""
    with st.expander(f"Tool calls ({len(view.tool_calls)}) — arguments, evidence status, refs",
                     expanded=not view.finished,
                     icon=":material/build:"):
        if not view.tool_calls:
            st.caption("No tool called yet.")
        for number, call in enumerate(view.tool_calls, start=1):
            _render_tool_call(number, call, view.session_id)


def _binding_rows(view: InvestigationView, claim: Claim) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    positions = binding_positions(view.executor_output)
    for row in view.binding_rows(claim):
        checked = row.checked
        position = positions.get((claim.claim_id, row.index))
        rows.append({
            "#": row.index,
            "inspect": (binding_link(view.session_id, position) if position is not None
                        and view.finished else None),
            "gatekeeper": binding_badge(checked).label,
            # The excerpt before the locator columns: on a laptop it is on screen, not past
            # the table's right edge.
            "excerpt": row.binding.evidence_excerpt,
            "rule": (checked.rule or "") if checked else "",
            "score": round(checked.score, 3) if checked and checked.score is not None else None,
            "tool": row.binding.tool_name or "",
            "invocation": row.binding.source_invocation_id,
            "raw_path": row.binding.raw_path or "",
        })
    return rows


def _render_claim(view: InvestigationView, claim: Claim, claim_key: int) -> None:
    with st.container(border=True):
        result = view.claim_result(claim.claim_id)
        # The claim id is the model's: never Markdown (an image link would be fetched).
        claim_type = claim.claim_type or "no type"
        st.markdown(f"**{escape_markdown(claim.claim_id)}** · {escape_markdown(claim_type)}")
        badges([claim_badge(result)])
        literal_text(claim.claim_text, prose=True)
        if claim.evidence_bindings:
            text_table(_binding_rows(view, claim), key=f"bindings_{view.session_id}_{claim_key}",
                       long_columns=["excerpt"], toned_columns=["gatekeeper"],
                       column_config={"inspect": st.column_config.LinkColumn(
                           "inspect", display_text="open", width="small",
                           help="Opens this binding in the Binding inspector (in a new tab)")})
        else:
            st.caption("No evidence bindings: a claim without a citation cannot pass.")
        if result is not None and result.reasons:
            small_text("Verifier: " + " · ".join(result.reasons))


def render_claims(view: InvestigationView) -> None:
    """Steps 3-4: claims with their bindings, the gatekeeper's and the verifier's verdicts."""
    label = f"Claims ({len(view.claims)}) — citations, gatekeeper and verifier judgements"
    with st.expander(label, expanded=True, icon=":material/fact_check:"):
        if view.parse_status is not None and view.parse_status.status != "valid":
            st.warning(escape_markdown(f"Executor output parse status: {view.parse_status.status}"),
                       icon=":material/warning:")
            small_text(view.parse_status.detail)
        if view.executor_output is None:
            st.caption("Waiting for the executor's claims…")
            return
        if not view.claims:
            st.caption("The executor made no claim.")
        for number, claim in enumerate(view.claims):
            _render_claim(view, claim, number)
        if view.gatekeeper is not None:
            render_gatekeeper_summary(view)
        st.page_link(INSPECTOR_PAGE, label="Inspect each binding side by side",
                     icon=":material/manage_search:", query_params={"session": view.session_id})


def render_gatekeeper_summary(view: InvestigationView) -> None:
    """The gatekeeper's overall result: failed rules, warnings and errors, version."""
    gatekeeper = view.gatekeeper
    if gatekeeper is None:
        return
    badge(severity_badge(gatekeeper.severity, citations=len(gatekeeper.checked_bindings)))
    small_text(f"gatekeeper {gatekeeper.version or '?'} · failed rules: "
               f"{', '.join(gatekeeper.failed_rules) or 'none'}")
    issues = [{"level": level, "rule": issue.rule,
               "where": issue.claim_id or issue.action_id or "", "message": issue.message}
              for level, group in (("error", gatekeeper.errors), ("warning", gatekeeper.warnings))
              for issue in group]
    if issues:
        text_table(issues, key=f"gate_issues_{view.session_id}", long_columns=["message"])


def render_extras(view: InvestigationView) -> None:
    """Hypotheses, missing information and evidence-gathering actions (never facts)."""
    output = view.executor_output
    if output is None or not (output.hypotheses or output.missing_info
                              or output.recommended_actions):
        return
    with st.expander("Hypotheses, gaps and next steps (not facts)", icon=":material/help:"):
        for hypothesis in output.hypotheses:
            st.text(f"Hypothesis {hypothesis.hypothesis_id}: {hypothesis.hypothesis_text}")
        for gap in output.missing_info:
            st.text(f"Missing {gap.info_id}: {gap.description}")
        for action in output.recommended_actions:
            st.text(f"Action {action.action_id}: {action.action_text}")


def render_event_log(events: Sequence[PipelineEvent], *, running: bool) -> None:
    """Every pipeline event in order, with its time (open while the run is going)."""
    rows = event_rows(events)
    with st.expander(f"Pipeline events ({len(rows)})", expanded=running,
                     icon=":material/event_list:"):
        if rows:
            text_table(rows, key="event_log", long_columns=["what happened"],
                       select_to_read=not running)
        else:
            st.caption("No event stored for this session.")


def render_timeline(view: InvestigationView, events: Sequence[PipelineEvent]) -> None:
    """The waterfall: each stage and tool call from its start, live while the run goes."""
    waterfall = build_waterfall(view, events)
    with st.expander("Timeline — each stage and tool call from its start", expanded=True,
                     icon=":material/waterfall_chart:"):
        if not waterfall.spans:
            st.caption("Nothing timed yet.")
            return
        figure = waterfall_figure(waterfall)
        if not view.finished:  # redrawn every poll: a selection would not survive it
            st.plotly_chart(figure, key=f"waterfall_{view.session_id}_live", width="stretch",
                            config={"displayModeBar": False})
            small_text(f"{waterfall.note} Total {waterfall.total_ms:,.1f} ms.")
            return
        chart = st.plotly_chart(figure, key=f"waterfall_{view.session_id}", width="stretch",
                                config={"displayModeBar": False}, on_select="rerun",
                                selection_mode="points")
        small_text(f"{waterfall.note} Gray: waiting between stages. Red: the stage that "
                   f"failed or rejected the session. Click a bar for its event. Total "
                   f"{waterfall.total_ms:,.1f} ms.")
        # Item access: the state is a dict when a test sets it, an attribute dict in a browser.
        state: dict[str, Any] = dict(chart or {})
        points = list((state.get("selection") or {}).get("points") or [])
        if points:
            index = points[0].get("point_index", points[0].get("point_number"))
            span = waterfall.spans[index] if isinstance(index, int) and index < len(
                waterfall.spans) else None
            if span is not None:
                _render_span_event(span, events)


def _render_span_event(span: Span, events: Sequence[PipelineEvent]) -> None:
    """What a clicked bar stands for: its timing, and the event it ended with."""
    with st.container(border=True, key="waterfall_event"):
        st.markdown(f"**{escape_markdown(span.label)}** · {span.kind} · start "
                    f"{span.start_ms:,.1f} ms · {span.duration_ms:,.1f} ms · {span.state}")
        if span.detail:
            small_text(span.detail)
        rows = [row for row in event_rows(events) if row["seq"] == span.event_seq]
        if rows:
            row = rows[0]
            small_text(f"Event #{row['seq']} {row['event']} at {row['at (ms)']} ms: "
                       f"{row['what happened']}")
        elif span.kind != "wait":
            small_text("No stored event for this bar.")


def render_investigation(view: InvestigationView, events: Sequence[PipelineEvent] = (),
                         review: Callable[[], None] | None = None) -> None:
    """The whole session: header and answer first (then ``review``: the page's review panel,
    ``ui.annotations``), then the evidence chain in order."""
    small_text(f"session {view.session_id} · pack {view.pack} · engines "
               f"{', '.join(f'{k}={v}' for k, v in view.engines.items())}"
               + (f" · injected fault {view.executor_fault}" if view.executor_fault else ""))
    folded_text(view.question, key_hint=" of the question")
    if not view.finished:
        st.info(f"Running — {current_stage(view)}…", icon=":material/progress_activity:")
        render_timeline(view, events)
        render_event_log(events, running=True)
    render_header(view)
    render_repair(view)
    render_answer(view)
    if review is not None and view.finished:
        review()
    render_terms(view)
    if view.finished:
        render_timeline(view, events)
    # Once finished, what was claimed and how it was judged comes first; the tool calls and
    # the plan behind it stay one click away. While running, they open as they happen.
    render_claims(view)
    render_tool_calls(view)
    render_plan(view)
    render_extras(view)
    if view.finished:
        render_event_log(events, running=False)
