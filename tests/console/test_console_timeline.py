"""The Investigate view folded from events: live, read back from the store, or from a document."""

from __future__ import annotations

from core.contracts import CheckedBinding, ClaimResult
from core.events import SessionFinished, ToolCalled
from core.store import Store, repository
from core.views.badges import binding_badge, claim_badge, verdict_badge
from core.views.outcomes import cell_style
from core.views.timeline import (
    InvestigationView,
    apply_event,
    event_rows,
    load_view,
    parse_stored_events,
    view_from_document,
    view_from_events,
)
from tests.console.console_helpers import SEED_QUESTION


def _summary(view: InvestigationView) -> tuple[object, ...]:
    return (view.session_id, view.question, view.status,
            [(c.tool_name, c.arguments, c.invocation.invocation_id if c.invocation else None,
              c.evidence_status, len(c.evidence_refs)) for c in view.tool_calls],
            [c.claim_id for c in view.claims],
            [(c.claim_id, c.binding_index, c.status) for c in view.checked_bindings],
            [(r.claim_id, r.entailed) for r in view.claim_results],
            view.verifier.verdict if view.verifier else None,
            view.composer.user_facing_answer if view.composer else None)


def test_live_stored_and_document_views_agree(tmp_store: Store) -> None:
    from core.pipeline import run_investigation

    live = InvestigationView()
    stages: list[str] = []
    document = None
    for event in run_investigation(SEED_QUESTION, store=tmp_store):
        apply_event(live, event)
        stages.append(type(event).__name__)
        if isinstance(event, SessionFinished):
            document = event.document
    assert document is not None and live.finished and live.status == "completed"
    assert stages[0] == "SessionStarted" and stages[-1] == "SessionFinished"

    stored_events = parse_stored_events(repository.list_events(tmp_store,
                                                               session_id=document.session_id))
    assert len(stored_events) == len(stages)
    stored = load_view(stored_events, repository.load_session_document(
        tmp_store, session_id=document.session_id))
    from_document = view_from_document(document)
    assert _summary(live) == _summary(stored) == _summary(from_document)
    log = event_rows(stored_events)
    assert [row["seq"] for row in log] == list(range(len(stages)))
    assert log[-1]["what happened"] == "session completed"
    assert any(row["what happened"].startswith("verdict PASS") for row in log)
    assert live.tool_calls and all(call.returned and call.result_bytes > 0
                                   for call in live.tool_calls)
    for claim in live.claims:
        rows = live.binding_rows(claim)
        assert [row.index for row in rows] == list(range(len(claim.evidence_bindings)))
        assert all(row.checked is not None for row in rows)


def test_a_call_still_out_is_pending() -> None:
    view = view_from_events([ToolCalled(session_id="s-1", tool_name="query_logs",
                                        arguments={"service": "order-service"})])
    assert view.session_id == "s-1" and not view.finished
    call = view.tool_calls[0]
    assert not call.returned and call.evidence_status is None and call.result_bytes == 0
    assert load_view([], None).session_id == ""


def test_badges_follow_the_grading() -> None:
    assert verdict_badge("PASS").tone == "green"
    assert verdict_badge("LOW_CONFID").tone == "amber"
    assert verdict_badge("REJECT").tone == "red"
    assert verdict_badge(None).tone == "gray"
    passing = CheckedBinding(status="pass")
    assert binding_badge(passing).label == "pass" and binding_badge(passing).tone == "green"
    assert binding_badge(CheckedBinding(status="fail", severity="low_confid")).tone == "amber"
    assert binding_badge(CheckedBinding(status="fail", severity="reject")).tone == "red"
    assert cell_style("REJECT").startswith("color: #cf222e") and cell_style("maybe") == ""
    assert cell_style("pass (backfilled)").startswith("color: #1a7f37") and cell_style("") == ""
    assert binding_badge(None).tone == "gray"
    assert claim_badge(ClaimResult(claim_id="c", entailed=False)).tone == "red"
