"""Every executor fault is caught with its expected grade, and never reaches the answer."""

from __future__ import annotations

from functools import cache

import pytest

from core.agents.faults import FAULT_MODES, FaultContext, get_fault
from core.agents.rules.executor import RulesExecutor
from core.agents.rules.planner import RulesPlanner
from core.contracts import SessionDocument
from core.errors import EngineError
from core.pipeline import ask
from core.recorder import Recorder
from core.sources.base import World
from core.store import Store, repository

MEMORY_ZH = "请排查 order-service 当前是否存在 HighMemoryUsage 告警，只确认内存使用率过高这一件事。"
SLOW_EN = "Only confirm whether user-service has a SlowResponse alert and slow request logs."
CPU_EXCLUSIONS_ZH = "只确认 HighCPUUsage，不要分析订单123、OOM、数据库慢查询、连接池或 user-service"
HIKARI_EN = "Confirm whether order-service has HikariCP connection pool exhaustion."
NEGATIVE_ZH = "确认 inventory-service 是否存在 HikariCP 连接池耗尽"

MEMORY_EN = "Only confirm whether order-service has a HighMemoryUsage alert right now."
# Role faults act on a value of a given role; a question whose claims have none is left out.
_APPLIES = {"swap_used_total": (MEMORY_ZH, MEMORY_EN)}
CASES = [(fault, question) for fault in FAULT_MODES
         for question in _APPLIES.get(fault, (MEMORY_ZH, SLOW_EN))] + [
    ("scope_leak", CPU_EXCLUSIONS_ZH), ("runbook_as_fact", HIKARI_EN),
    ("fabricate_invocation", HIKARI_EN), ("tamper_number", CPU_EXCLUSIONS_ZH),
    ("swap_roles", CPU_EXCLUSIONS_ZH), ("repair_action", HIKARI_EN)]


@cache
def _clean(question: str) -> SessionDocument:
    """The same question without a fault (in memory: only its claim texts are compared)."""
    return ask(question)


def _texts(document: SessionDocument) -> list[str]:
    """Claim texts, gaps and recommended actions of a session's executor output."""
    assert document.executor_output is not None
    output = document.executor_output
    return ([claim.claim_text for claim in output.claims]
            + [info.description for info in output.missing_info]
            + [action.action_text for action in output.recommended_actions])


def _injected_texts(clean: SessionDocument, faulty: SessionDocument) -> list[str]:
    """Claims, gaps and actions the fault added or changed (absent from the clean run's)."""
    clean_texts = set(_texts(clean))
    return [text for text in _texts(faulty) if text not in clean_texts]


@pytest.mark.parametrize("fault, question", CASES)
def test_fault_is_caught_with_its_grade(tmp_store: Store, fault: str, question: str) -> None:
    mode = FAULT_MODES[fault]
    clean = _clean(question)
    faulty = ask(question, store=tmp_store, executor_fault=fault)
    assert faulty.status == "completed" and faulty.executor_fault == fault
    gatekeeper, verifier = faulty.gatekeeper_result, faulty.verifier_result
    assert gatekeeper is not None and verifier is not None and faulty.composer_output is not None

    if mode.caught_by == "gatekeeper":
        assert gatekeeper.severity == mode.expected_severity
        assert set(gatekeeper.failed_rules) & mode.expected_rules, gatekeeper.failed_rules
    else:
        assert gatekeeper.status == "pass"  # the citations are real; the claim is not entailed
        failed_rules = {result.rule for result in verifier.claim_results if not result.entailed}
        failed_rules |= {result.rule for result in verifier.step_results if not result.passed}
        assert failed_rules & mode.expected_rules, failed_rules
    assert verifier.verdict in mode.expected_verdicts
    assert verifier.verdict != "PASS"

    answer = faulty.composer_output.user_facing_answer
    assert faulty.composer_output.status == "blocked"
    injected = _injected_texts(clean, faulty)
    if mode.caught_by == "verifier":
        assert injected  # the fault added a claim; the loop below must have something to check
    for text in injected:
        assert text not in answer


def test_cross_session_cites_a_real_decoy_session_in_the_store(tmp_store: Store) -> None:
    faulty = ask(MEMORY_ZH, store=tmp_store, executor_fault="cross_session")
    assert "evidence.invocation_session" in faulty.gatekeeper_result.failed_rules
    decoy = repository.load_session_document(tmp_store, session_id=f"{faulty.session_id}-decoy")
    assert decoy is not None and decoy.invocations
    cited = {b.source_invocation_id for c in faulty.executor_output.claims
             for b in c.evidence_bindings}
    assert cited & {inv.invocation_id for inv in decoy.invocations}


def test_drop_bindings_on_a_negative_observation_is_low_confidence(tmp_store: Store) -> None:
    faulty = ask(NEGATIVE_ZH, store=tmp_store, executor_fault="drop_bindings")
    assert faulty.gatekeeper_result.severity == "low_confid"
    assert faulty.verifier_result.verdict == "LOW_CONFID"


def test_faults_never_mutate_the_real_output_and_record_what_they_inject(demo_world: World) -> None:
    plan = RulesPlanner().plan(MEMORY_ZH, demo_world)
    recorder = Recorder(world=demo_world, session_id="s-test-faults")
    generator = RulesExecutor().run(plan, recorder)
    while True:
        try:
            next(generator)
        except StopIteration as finished:
            output = finished.value[0]
            break
    snapshot = output.model_dump()
    for name, mode in FAULT_MODES.items():
        context = FaultContext(session_id="s-test-faults", plan=plan, recorder=recorder)
        faulty = mode.apply(output, list(recorder.invocations), context)
        assert output.model_dump() == snapshot, name
        assert faulty.model_dump() != snapshot, name
        if name in ("tamper_number", "runbook_as_fact", "scope_leak", "overreach_root_cause"):
            assert context.injected, name
            claim_texts = {claim.claim_text for claim in faulty.claims}
            assert set(context.injected) & claim_texts, name


def test_fault_names() -> None:
    assert get_fault(None) is None
    assert get_fault("scope_leak") is FAULT_MODES["scope_leak"]
    with pytest.raises(EngineError) as error:
        get_fault("nonsense")
    assert all(name in str(error.value) for name in FAULT_MODES)
