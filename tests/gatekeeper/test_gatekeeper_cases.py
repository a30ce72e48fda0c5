"""The table-driven gatekeeper suite: every case of gk_cases.yaml against gk_session.yaml."""

from __future__ import annotations

from typing import Any

import pytest

from core.contracts import GatekeeperResult
from core.gatekeeper import GATEKEEPER_VERSION, RULES, check_citations
from core.tools.spec import extract_evidence_refs
from tests.gatekeeper.gk_support import TableStore, check_kwargs, load_cases, load_session

CASES = load_cases()
GRADES = {"pass": ("pass", "none"), "low_confid": ("fail", "low_confid"), "reject": ("fail", "reject")}


def test_the_table_is_big_and_ids_are_unique() -> None:
    ids = [case["id"] for case in CASES]
    assert len(ids) >= 80
    assert len(set(ids)) == len(ids)


def _run(case: dict[str, Any]) -> GatekeeperResult:
    return check_citations(**check_kwargs(case))


@pytest.mark.parametrize("case", CASES, ids=[case["id"] for case in CASES])
def test_case(case: dict[str, Any]) -> None:
    expect = case["expect"]
    result = _run(case)
    per_binding = [(b.rule, b.message) for b in result.checked_bindings]
    assert (result.status, result.severity) == GRADES[expect["grade"]], per_binding
    assert result.failed_rules == expect["failed_rules"], per_binding
    assert [b.rule for b in result.checked_bindings] == expect["rules"], per_binding
    if "kinds" in expect:
        assert [b.match_kind for b in result.checked_bindings] == expect["kinds"], per_binding
    if "warnings" in expect:
        assert [w.rule for w in result.warnings] == expect["warnings"]
    if "backfilled" in expect:
        assert [b.auto_backfilled for b in result.checked_bindings] == expect["backfilled"]
    if "message" in expect:
        messages = " | ".join([b.message for b in result.checked_bindings] + [e.message for e in result.errors])
        assert expect["message"] in messages


@pytest.mark.parametrize("case", CASES, ids=[case["id"] for case in CASES])
def test_result_invariants(case: dict[str, Any]) -> None:
    """What must hold for every result, whatever the case."""
    result = _run(case)
    assert result.version == GATEKEEPER_VERSION
    assert (result.status == "pass") == (result.severity == "none")
    emitted = ([b.rule for b in result.checked_bindings] + [e.rule for e in result.errors]
               + [w.rule for w in result.warnings] + result.failed_rules)
    assert all(rule in RULES for rule in emitted)
    assert len(result.failed_rules) == len(set(result.failed_rules))
    failing = [b for b in result.checked_bindings if b.status == "fail" and b.severity != "none"]
    binding_errors = [e for e in result.errors if e.binding_index is not None]
    assert len(binding_errors) == len(failing)
    # The only failing binding that is not an error: a redundant narrower negative citation,
    # reported as a warning.
    graded_down = [b for b in result.checked_bindings if b.status == "fail" and b.severity == "none"]
    assert all(b.rule == "evidence.negative_redundant" for b in graded_down)
    assert len(graded_down) == len([w for w in result.warnings
                                    if w.rule == "evidence.negative_redundant"])
    for checked in result.checked_bindings:
        # A binding passes only with a pass rule and a real (or negative) match.
        assert (checked.status == "pass") == (checked.rule == "evidence.ok")
        assert (checked.severity == "none") == (checked.status == "pass"
                                                or checked.rule == "evidence.negative_redundant")
        if checked.auto_backfilled:
            assert checked.status == "fail" and checked.severity in ("low_confid", "reject")
        if checked.status == "pass":
            assert checked.match_kind != "none"
        for start, end in checked.spans:
            assert 0 <= start <= end <= len(checked.matched_text or "")
    # The severity is the worst of the rules that failed.
    worst = {RULES[rule].severity for rule in result.failed_rules}
    expected = "reject" if "reject" in worst else "low_confid" if "low_confid" in worst else "none"
    assert result.severity == expected


def test_action_bindings_carry_action_id() -> None:
    case = next(c for c in CASES if c["id"] == "claim_passes_but_action_forged")
    result = _run(case)
    action_binding = result.checked_bindings[1]
    assert action_binding.action_id == "action-1" and action_binding.claim_id is None
    assert result.errors[0].action_id == "action-1"


def test_checked_binding_records_what_was_matched() -> None:
    case = next(c for c in CASES if c["id"] == "alert_exact_quote")
    checked = _run(case).checked_bindings[0]
    assert checked.matched_text is not None and checked.matched_text.startswith("HighMemoryUsage firing")
    assert checked.score == 1.0 and checked.source_invocation_id == 101
    (start, end), = checked.spans
    assert checked.matched_text[start:end] == "HighMemoryUsage firing, service=order-service, current=91%"


def test_backfilled_binding_records_the_filled_id() -> None:
    case = next(c for c in CASES if c["id"] == "backfill_unique_candidate_with_raw_path")
    result = _run(case)
    assert result.checked_bindings[0].source_invocation_id == 104
    assert result.warnings[0].claim_id == "claim-1" and result.warnings[0].binding_index == 0


def test_store_lookup_finding_this_session_is_accepted() -> None:
    """A store lookup that finds the id in this very session is not a cross-session citation."""
    case = next(c for c in CASES if c["id"] == "alert_exact_quote")
    kwargs = check_kwargs(case)
    kwargs["stored_invocations"] = TableStore(kwargs["invocations"])
    kwargs["invocations"] = []
    assert check_citations(**kwargs).status == "pass"


def test_fixture_refs_are_the_recorders_reading_of_each_output() -> None:
    """Every invocation of the fixture (but the ones marked as edited) is as the recorder
    records it, so only the edited ones can trip ``evidence.refs_tampered``. The fixture's refs
    were written before refs had fields: they are the recorder's texts, without fields."""
    session = load_session()
    for invocation in [*session.invocations, *session.store.by_id.values()]:
        details = invocation.retrieval_details
        legacy = details is None or (details.evidence_status == "supported" and not details.evidence_refs)
        if legacy or (invocation.invocation_id in session.tampered and invocation in session.invocations):
            continue
        recorded = extract_evidence_refs(invocation.tool_name, invocation.output)
        assert all(ref.fields is None for ref in details.evidence_refs), invocation.invocation_id
        assert [(ref.raw_path, ref.text) for ref in recorded.evidence_refs] == [
            (ref.raw_path, ref.text) for ref in details.evidence_refs], invocation.invocation_id
        assert recorded.evidence_status == details.evidence_status, invocation.invocation_id
    assert session.tampered


def test_check_is_deterministic() -> None:
    case = next(c for c in CASES if c["id"] == "mixed_low_then_reject_is_reject")
    assert _run(case).model_dump() == _run(case).model_dump()


def test_backfilled_negative_observation_never_passes() -> None:
    """A negative citation that would pass is still held back when its id was back-filled."""
    case = next(c for c in CASES if c["id"] == "negative_without_invocation_id")
    kwargs = check_kwargs(case)
    # Only the inventory-service no-hit query is left: it is the unique back-fill candidate.
    kwargs["invocations"] = [inv for inv in kwargs["invocations"] if inv.invocation_id == 105]
    result = check_citations(**kwargs)
    (checked,) = result.checked_bindings
    assert (result.status, result.severity) == GRADES["low_confid"]
    assert checked.rule == "evidence.invocation_missing" and checked.auto_backfilled
    assert checked.source_invocation_id == 105 and checked.match_kind == "negative"
    assert "never a basis for pass" in checked.message
    assert [w.rule for w in result.warnings] == ["evidence.invocation_auto_backfill"]
