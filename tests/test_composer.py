"""The rules composer: the answer holds only entailed claims, in the question's language."""

from __future__ import annotations

import json
from typing import Any

from core.agents.rules.composer import RulesComposer
from core.contracts import (
    CheckedBinding,
    Claim,
    ClaimResult,
    EvidenceBinding,
    Exclusions,
    ExecutorOutput,
    GatekeeperResult,
    MissingInfo,
    Plan,
    RecommendedAction,
    TraceSummaryEntry,
    VerifierInput,
    VerifierResult,
)

FOUND = "order-service 当前存在 HighMemoryUsage 告警（firing）：当前值 91%。"
BLOCKED = "根因已确认：order-service 存在内存泄漏。"
ABSENT = "未检索到 inventory-service 的数据库连接池相关记录：query_logs 未返回记录。"


def _claim(claim_id: str, text: str, claim_type: str = "observation") -> Claim:
    return Claim(claim_id=claim_id, claim_type=claim_type, claim_text=text,
                 evidence_bindings=[EvidenceBinding(tool_name="query_metrics",
                                                    source_invocation_id=1, raw_path="$.alerts[0]",
                                                    evidence_excerpt="x")])


def _compose(claims: list[Claim], entailed: dict[str, bool], *, verdict: str = "PASS",
             gate_severity: str = "none", language: str = "zh",
             exclusions: Exclusions | None = None,
             output_extra: dict[str, Any] | None = None) -> str:
    plan = Plan(question="q", language=language, exclusions=exclusions or Exclusions())
    output = ExecutorOutput(claims=claims, **(output_extra or {}))
    checked = [CheckedBinding(claim_id=c.claim_id, tool_name="query_metrics",
                              source_invocation_id=1, status="pass") for c in claims]
    gatekeeper = GatekeeperResult(status="pass" if gate_severity == "none" else "fail",
                                  severity=gate_severity,
                                  checked_bindings=checked,
                                  failed_rules=[] if gate_severity == "none" else ["evidence.raw_path"])
    trace = [TraceSummaryEntry(trace_ref="trace-1", tool_name="query_logs", source_invocation_ids=[1],
                               evidence_level="none", output_summary="log_evidence: none",
                               invocation_count=1, no_hit_invocation_count=1)]
    verifier_input = VerifierInput(original_query="q", executor_structured_output=output,
                                   gatekeeper_result=gatekeeper, tool_trace_summary=trace)
    results = [ClaimResult(claim_id=c.claim_id, entailed=entailed[c.claim_id],
                           reasons=["secret verifier reason about user-service"]) for c in claims]
    verifier_result = VerifierResult(verdict=verdict, groundedness_score=0.5,
                                     claim_results=results)
    composed = RulesComposer().compose(plan, verifier_input, verifier_result)
    assert composed.language == language
    return composed.user_facing_answer + "\n@status=" + composed.status


def test_pass_states_the_entailed_claims() -> None:
    answer = _compose([_claim("claim-1", FOUND)], {"claim-1": True})
    assert FOUND in answer and "已通过证据核验" in answer
    assert answer.endswith("@status=valid")


def test_blocked_claims_never_reach_the_answer() -> None:
    answer = _compose([_claim("claim-1", FOUND), _claim("claim-2", BLOCKED, "root_cause")],
                      {"claim-1": True, "claim-2": False}, verdict="LOW_CONFID")
    assert BLOCKED not in answer and "内存泄漏" not in answer
    assert "无法核验" in answer and FOUND in answer  # only the entailed one, marked as such
    assert "secret verifier reason" not in answer
    assert answer.endswith("@status=blocked")


def test_gatekeeper_reject_says_so_in_english() -> None:
    answer = _compose([_claim("claim-1", "order-service has a firing alert.")],
                      {"claim-1": False}, verdict="REJECT", gate_severity="reject",
                      language="en")
    assert "could not be verified" in answer and "evidence.raw_path" in answer
    assert "order-service has a firing alert." not in answer


def test_absences_say_no_real_evidence_was_found() -> None:
    zh = _compose([_claim("claim-1", ABSENT, "negative_observation")], {"claim-1": True})
    assert zh.startswith("未检索到真实证据") and ABSENT in zh and "query_logs ×1" in zh
    assert zh.endswith("@status=no_evidence")
    en = _compose([], {}, verdict="LOW_CONFID", language="en")
    assert en.startswith("No real evidence was found")


def test_excluded_subjects_are_kept_out_of_every_line() -> None:
    exclusions = Exclusions(topics=["connection_pool"], services=["user-service"])
    answer = _compose(
        [_claim("claim-1", FOUND), _claim("claim-2", "user-service 当前存在 SlowResponse 告警。")],
        {"claim-1": True, "claim-2": True}, exclusions=exclusions,
        output_extra={"missing_info": [MissingInfo(info_id="m-1", description="缺少连接池指标。"),
                                       MissingInfo(info_id="m-2", description="缺少堆 dump。")]})
    assert "user-service" not in answer and "连接池" not in answer
    assert "缺少堆 dump。" in answer  # the next step that is in scope stays


def test_next_steps_are_labelled_and_dropped_on_reject() -> None:
    extra = {"recommended_actions": [RecommendedAction(action_id="a-1", action_text="查看 GC 日志。")]}
    passed = _compose([_claim("claim-1", FOUND)], {"claim-1": True}, output_extra=extra)
    assert "下一步（仅为证据收集建议，不是结论）" in passed and "查看 GC 日志。" in passed
    rejected = _compose([_claim("claim-1", FOUND)], {"claim-1": False}, verdict="REJECT",
                        gate_severity="reject", output_extra=extra)
    assert "查看 GC 日志。" not in rejected


def test_never_raw_json() -> None:
    raw = json.dumps({"claim": "x"})
    answer = _compose([_claim("claim-1", raw)], {"claim-1": True})
    assert raw not in answer and '"claim"' not in answer
