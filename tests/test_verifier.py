"""The rules verifier and the verdict rule, on real invocations checked by the real gatekeeper."""

from __future__ import annotations

import pytest

from core.agents.rules.executor import RulesExecutor
from core.agents.rules.planner import RulesPlanner
from core.agents.rules.verifier import RulesVerifier
from core.contracts import (
    Claim,
    ClaimResult,
    EvidenceBinding,
    ExecutorOutput,
    GatekeeperResult,
    Invocation,
    ParseStatus,
    Plan,
    VerifierInput,
    VerifierResult,
)
from core.gatekeeper import check_citations
from core.recorder import Recorder
from core.sources.base import World
from core.trace import build_trace_summary
from core.verdict import final_verdict

SESSION = "s-test-verifier"


class Case:
    """A question run through planner and executor; claims can then be edited and re-judged."""

    def __init__(self, question: str, world: World) -> None:
        self.plan: Plan = RulesPlanner().plan(question, world)
        self.recorder = Recorder(world=world, session_id=SESSION)
        generator = RulesExecutor().run(self.plan, self.recorder)
        while True:
            try:
                next(generator)
            except StopIteration as finished:
                self.output: ExecutorOutput = finished.value[0]
                break

    @property
    def invocations(self) -> list[Invocation]:
        return self.recorder.invocations

    def judge(self, output: ExecutorOutput | None = None) -> tuple[GatekeeperResult, VerifierResult]:
        output = output or self.output
        gatekeeper = check_citations(session_id=SESSION, invocations=self.invocations,
                                     executor_output=output, parse_status=ParseStatus())
        verifier_input = VerifierInput(original_query=self.plan.question,
                                       executor_structured_output=output,
                                       gatekeeper_result=gatekeeper,
                                       tool_trace_summary=build_trace_summary(self.invocations),
                                       invocation_arguments={inv.invocation_id: inv.arguments
                                                             for inv in self.invocations})
        return gatekeeper, RulesVerifier().verify(verifier_input, self.plan)

    def binding(self, tool_name: str, containing: str = "") -> EvidenceBinding:
        """A faithful binding to the first ref of the tool whose text holds ``containing``."""
        invocation = next(inv for inv in self.invocations if inv.tool_name == tool_name)
        assert invocation.retrieval_details is not None
        ref = next(ref for ref in invocation.retrieval_details.evidence_refs
                   if containing in ref.text)
        return EvidenceBinding(tool_name=tool_name, source_invocation_id=invocation.invocation_id,
                               raw_path=ref.raw_path, evidence_excerpt=ref.text)

    def with_claim(self, claim: Claim) -> ExecutorOutput:
        return ExecutorOutput(claims=[*self.output.claims, claim])


@pytest.fixture
def memory_case(demo_world: World) -> Case:
    return Case("只确认 order-service 是否存在 HighMemoryUsage 告警。", demo_world)


def _result(verifier: VerifierResult, claim_id: str) -> ClaimResult:
    return next(result for result in verifier.claim_results if result.claim_id == claim_id)


def test_executor_claims_are_entailed(memory_case: Case) -> None:
    gatekeeper, verifier = memory_case.judge()
    assert gatekeeper.status == "pass"
    assert verifier.verdict == "PASS"
    assert verifier.groundedness_score == 1.0
    assert all(result.entailed and result.reasons for result in verifier.claim_results)


def test_a_number_the_excerpts_do_not_hold_is_not_entailed(memory_case: Case) -> None:
    claim = Claim(claim_id="claim-9", claim_type="observation",
                  claim_text="order-service 当前内存使用率 19%，已持续 15m。",
                  evidence_bindings=[memory_case.binding("query_metrics")],
                  subject_services=["order-service"], subject_topics=["memory"])
    gatekeeper, verifier = memory_case.judge(memory_case.with_claim(claim))
    assert gatekeeper.status == "pass"  # the citation is real; the claim is not
    result = _result(verifier, "claim-9")
    assert not result.entailed and result.rule == "verifier.unsupported_fact"
    assert any("19%" in reason for reason in result.reasons)
    assert verifier.verdict == "LOW_CONFID" and verifier.groundedness_score == 0.5


def test_equal_numbers_in_other_spellings_are_entailed(memory_case: Case) -> None:
    claim = Claim(claim_id="claim-9", claim_type="observation",
                  claim_text="order-service 日志中内存使用率为 91%。",
                  evidence_bindings=[memory_case.binding("query_logs", "91.0%")],
                  subject_services=["order-service"], subject_topics=["memory"])
    _, verifier = memory_case.judge(memory_case.with_claim(claim))
    assert _result(verifier, "claim-9").entailed


def test_an_added_negation_is_not_entailed(memory_case: Case) -> None:
    claim = Claim(claim_id="claim-9", claim_type="observation",
                  claim_text="order-service 当前不存在 HighMemoryUsage 告警。",
                  evidence_bindings=[memory_case.binding("query_metrics")],
                  subject_services=["order-service"], subject_topics=["memory"])
    _, verifier = memory_case.judge(memory_case.with_claim(claim))
    result = _result(verifier, "claim-9")
    assert not result.entailed and any("negation" in reason for reason in result.reasons)


def test_runbook_text_never_supports_current_state(memory_case: Case) -> None:
    runbook = memory_case.binding("lookup_knowledge")
    claim = Claim(claim_id="claim-9", claim_type="observation",
                  claim_text="order-service 当前已确认：" + runbook.evidence_excerpt[:40],
                  evidence_bindings=[runbook], subject_services=["order-service"],
                  subject_topics=["memory"])
    gatekeeper, verifier = memory_case.judge(memory_case.with_claim(claim))
    assert gatekeeper.status == "pass"
    assert _result(verifier, "claim-9").rule == "verifier.runbook_as_fact"
    assert verifier.verdict == "REJECT"


def test_root_cause_without_a_stated_cause_is_not_confirmed(memory_case: Case) -> None:
    claim = Claim(claim_id="claim-9", claim_type="root_cause",
                  claim_text="根因已确认：order-service 存在内存泄漏。",
                  evidence_bindings=[memory_case.binding("query_metrics")],
                  subject_services=["order-service"], subject_topics=["memory"])
    _, verifier = memory_case.judge(memory_case.with_claim(claim))
    assert _result(verifier, "claim-9").rule == "verifier.unsupported_root_cause"
    assert verifier.verdict == "LOW_CONFID"


def test_diagnosis_words_in_an_observation_need_evidence_too(memory_case: Case) -> None:
    claim = Claim(claim_id="claim-9", claim_type="observation",
                  claim_text="order-service 内存泄漏已确认。",
                  evidence_bindings=[memory_case.binding("query_metrics")],
                  subject_services=["order-service"], subject_topics=["memory"])
    _, verifier = memory_case.judge(memory_case.with_claim(claim))
    assert _result(verifier, "claim-9").rule == "verifier.unsupported_root_cause"


def test_claims_about_excluded_subjects_fail_scope(demo_world: World) -> None:
    case = Case("只确认 HighCPUUsage，不要分析订单123、OOM、数据库慢查询、连接池或 user-service", demo_world)
    leak_invocation = case.recorder.call("query_metrics", {"service": "user-service"})
    assert leak_invocation.retrieval_details is not None
    ref = leak_invocation.retrieval_details.evidence_refs[0]
    claim = Claim(claim_id="claim-9", claim_type="observation",
                  claim_text=f"user-service 当前存在告警：{ref.text}",
                  evidence_bindings=[EvidenceBinding(
                      tool_name="query_metrics", source_invocation_id=leak_invocation.invocation_id,
                      raw_path=ref.raw_path, evidence_excerpt=ref.text)],
                  subject_services=["user-service"])
    gatekeeper, verifier = case.judge(case.with_claim(claim))
    assert gatekeeper.status == "pass"
    result = _result(verifier, "claim-9")
    assert result.rule == "verifier.scope" and any("user-service" in r for r in result.reasons)
    assert verifier.verdict == "REJECT"


def test_narrow_question_fails_claims_about_other_services(memory_case: Case) -> None:
    other = memory_case.recorder.call("query_metrics", {"service": "payment-service"})
    assert other.retrieval_details is not None
    ref = other.retrieval_details.evidence_refs[0]
    claim = Claim(claim_id="claim-9", claim_type="observation",
                  claim_text=ref.text,
                  evidence_bindings=[EvidenceBinding(
                      tool_name="query_metrics", source_invocation_id=other.invocation_id,
                      raw_path=ref.raw_path, evidence_excerpt=ref.text)],
                  subject_services=["payment-service"], subject_topics=["cpu"])
    _, verifier = memory_case.judge(memory_case.with_claim(claim))
    assert _result(verifier, "claim-9").rule == "verifier.scope"


def test_only_bindings_that_passed_the_gatekeeper_count(memory_case: Case) -> None:
    forged = memory_case.binding("query_metrics").model_copy(update={"raw_path": "$.alerts[99]"})
    claim = Claim(claim_id="claim-9", claim_type="observation",
                  claim_text="order-service 当前存在 HighMemoryUsage 告警。",
                  evidence_bindings=[forged], subject_services=["order-service"],
                  subject_topics=["memory"])
    gatekeeper, verifier = memory_case.judge(memory_case.with_claim(claim))
    assert gatekeeper.severity == "reject"
    assert _result(verifier, "claim-9").rule == "verifier.no_verified_evidence"
    assert verifier.verdict == "REJECT"


def test_negative_observation_is_entailed_by_its_verified_no_hit(demo_world: World) -> None:
    case = Case("确认 inventory-service 是否存在 HikariCP 连接池耗尽", demo_world)
    gatekeeper, verifier = case.judge()
    assert gatekeeper.status == "pass"
    assert [r.entailed for r in verifier.claim_results] == [True]
    assert verifier.verdict == "PASS"


def test_negative_observation_citing_a_query_that_found_evidence_fails(demo_world: World) -> None:
    case = Case("确认 order-service 是否存在 HikariCP 连接池耗尽", demo_world)
    hit = next(inv for inv in case.invocations if inv.tool_name == "query_logs")
    claim = Claim(claim_id="claim-9", claim_type="negative_observation",
                  claim_text="未检索到 order-service 的连接池相关记录。",
                  evidence_bindings=[EvidenceBinding(tool_name="query_logs",
                                                     source_invocation_id=hit.invocation_id,
                                                     evidence_excerpt="total=0")],
                  subject_services=["order-service"], subject_topics=["connection_pool"])
    gatekeeper, verifier = case.judge(case.with_claim(claim))
    assert "evidence.negative_mismatch" in gatekeeper.failed_rules
    assert not _result(verifier, "claim-9").entailed
    assert verifier.verdict == "REJECT"


# ---------------------------------------------------------------- the verdict rule


def _gate(severity: str) -> GatekeeperResult:
    return GatekeeperResult(status="pass" if severity == "none" else "fail",
                            severity=severity, failed_rules=[] if severity == "none" else ["x"])


def _claimed(verdict: str, *entailed: bool) -> VerifierResult:
    return VerifierResult(verdict=verdict, groundedness_score=1.0,
                          claim_results=[ClaimResult(claim_id=f"claim-{i}", entailed=value)
                                         for i, value in enumerate(entailed, start=1)])


@pytest.mark.parametrize("severity, expected", [("reject", "REJECT"), ("low_confid", "LOW_CONFID")])
def test_a_verifier_cannot_turn_a_gatekeeper_failure_into_pass(severity: str, expected: str) -> None:
    result = final_verdict(_gate(severity), _claimed("PASS", True, True))
    assert result.verdict == expected
    assert result.groundedness_score == 1.0


def test_pass_needs_every_claim_entailed_and_at_least_one_claim() -> None:
    assert final_verdict(_gate("none"), _claimed("PASS", True, True)).verdict == "PASS"
    partly = final_verdict(_gate("none"), _claimed("PASS", True, False))
    assert partly.verdict == "LOW_CONFID" and partly.groundedness_score == 0.5
    empty = final_verdict(_gate("none"), _claimed("PASS"))
    assert empty.verdict == "LOW_CONFID" and empty.groundedness_score == 0.0


def test_a_claim_the_verifier_skipped_counts_as_not_entailed() -> None:
    result = final_verdict(_gate("none"), _claimed("PASS", True), claim_ids=["claim-1", "claim-2"])
    assert result.verdict == "LOW_CONFID"
    assert result.groundedness_score == 0.5
    assert _result(result, "claim-2").rule == "verifier.not_judged"


def test_a_stricter_verifier_is_kept() -> None:
    assert final_verdict(_gate("none"), _claimed("REJECT", True)).verdict == "REJECT"


def test_an_absence_may_name_its_searched_topic_by_label_but_not_another_number(demo_world: World) -> None:
    # "HTTP 5xx 错误" is the http_error topic's own label, and topic=http_error is what the no-hit
    # queries searched; "HTTP 503" is a number no query had.
    case = Case("order-service 有没有HTTP 5xx 错误超时？", demo_world)
    absence = next(claim for claim in case.output.claims if claim.claim_type == "negative_observation")
    assert "HTTP 5xx" in absence.claim_text
    gatekeeper, verifier = case.judge()
    assert gatekeeper.status == "pass" and _result(verifier, absence.claim_id).entailed
    forged = absence.model_copy(update={"claim_id": "claim-9",
                                        "claim_text": absence.claim_text.replace("5xx", "503")})
    _, verifier = case.judge(case.with_claim(forged))
    assert _result(verifier, "claim-9").rule == "verifier.unsupported_fact"
