"""The rules composer: the answer holds only entailed claims, in the question's language."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from core.agents.rules.composer import RulesComposer, asks_for_reference, claims_answer_kind, is_yes_no_question
from core.contracts import (
    CheckedBinding,
    Claim,
    ClaimResult,
    ComposerOutput,
    EvidenceBinding,
    Exclusions,
    ExecutorOutput,
    GatekeeperResult,
    MissingInfo,
    Plan,
    RecommendedAction,
    StepResult,
    TraceSummaryEntry,
    VerifierInput,
    VerifierResult,
)
from core.pipeline import ask
from core.sources.pack import load_world

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
             output_extra: dict[str, Any] | None = None,
             failed_steps: frozenset[str] = frozenset(), question: str = "q") -> str:
    composed = _composed(claims, entailed, verdict=verdict, gate_severity=gate_severity,
                         language=language, exclusions=exclusions, output_extra=output_extra,
                         failed_steps=failed_steps, question=question)
    return composed.user_facing_answer + "\n@status=" + composed.status


def _composed(claims: list[Claim], entailed: dict[str, bool], *, verdict: str = "PASS",
              gate_severity: str = "none", language: str = "zh",
              exclusions: Exclusions | None = None,
              output_extra: dict[str, Any] | None = None,
              failed_steps: frozenset[str] = frozenset(), question: str = "q") -> ComposerOutput:
    """The rules composer's output; every next step passed the verifier unless named in
    ``failed_steps``."""
    plan = Plan(question=question, language=language, exclusions=exclusions or Exclusions())
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
    steps = [StepResult(step_id=info.info_id, kind="missing_info", passed=info.info_id not in failed_steps,
                        rule="verifier.gap_asserts_state" if info.info_id in failed_steps else None)
             for info in output.missing_info]
    steps += [StepResult(step_id=action.action_id, kind="action", passed=action.action_id not in failed_steps,
                         rule="verifier.repair_action" if action.action_id in failed_steps else None)
              for action in output.recommended_actions]
    verifier_result = VerifierResult(verdict=verdict, groundedness_score=0.5,
                                     claim_results=results, step_results=steps)
    composed = RulesComposer().compose(plan, verifier_input, verifier_result)
    assert composed.language == language
    return composed


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


def test_a_step_the_verifier_did_not_pass_never_reaches_the_answer() -> None:
    extra = {"recommended_actions": [RecommendedAction(action_id="a-1", action_text="查看 GC 日志。"),
                                     RecommendedAction(action_id="a-2", action_text="立即重启 order-service。")],
             "missing_info": [MissingInfo(info_id="m-1", description="内存泄漏已确认。")]}
    answer = _compose([_claim("claim-1", FOUND)], {"claim-1": True}, verdict="LOW_CONFID",
                      output_extra=extra, failed_steps=frozenset({"a-2", "m-1"}))
    assert "查看 GC 日志。" in answer
    assert "重启" not in answer and "内存泄漏" not in answer
    assert "下一步建议未通过核验" in answer  # why it is blocked: the steps, not the findings


def test_a_yes_no_question_is_answered_yes_first() -> None:
    composed = _composed([_claim("claim-1", FOUND)], {"claim-1": True},
                         question="确认 order-service 是否存在 HighMemoryUsage 告警")
    assert composed.answer_kind == "yes"
    assert composed.user_facing_answer.startswith("是")
    assert FOUND in composed.user_facing_answer


def test_a_verified_negative_is_answered_no_and_told_apart() -> None:
    composed = _composed([_claim("claim-1", ABSENT, "negative_observation")], {"claim-1": True},
                         question="确认 inventory-service 是否存在 HikariCP 连接池耗尽")
    assert composed.answer_kind == "no" and composed.status == "no_evidence"
    assert composed.user_facing_answer.startswith("否")
    english = _composed([_claim("claim-1", "No records were found.", "negative_observation")],
                        {"claim-1": True}, language="en",
                        question="Is there HikariCP connection pool exhaustion in inventory-service?")
    assert english.answer_kind == "no" and english.user_facing_answer.startswith("No")


def test_a_blocked_yes_no_answer_says_it_cannot_tell() -> None:
    composed = _composed([_claim("claim-1", FOUND)], {"claim-1": False}, verdict="LOW_CONFID",
                         language="en", question="Does order-service have a HighMemoryUsage alert?")
    assert composed.answer_kind == "unknown"
    assert composed.user_facing_answer.startswith("Cannot tell")


def test_found_and_absent_together_is_partly() -> None:
    composed = _composed([_claim("claim-1", FOUND), _claim("claim-2", ABSENT, "negative_observation")],
                         {"claim-1": True, "claim-2": True}, question="order-service 有没有内存告警和连接池耗尽？")
    assert composed.answer_kind == "partly" and composed.user_facing_answer.startswith("部分是")


def test_open_questions_have_no_yes_no_lead() -> None:
    composed = _composed([_claim("claim-1", FOUND)], {"claim-1": True},
                         question="只确认 HighCPUUsage，不要分析订单123")
    assert composed.answer_kind is None
    assert composed.user_facing_answer.startswith("结论")


@pytest.mark.parametrize("keywords, concepts, kind", [
    ([["order"], ["through"]], [], None),  # "Did order 1002 go through?" searched 1002 only
    ([], ["timeout"], None),               # "Did blk_1 time out?": its timeouts were not searched
    ([], [], "yes"),                       # "Was 1002 logged?": the term is the whole question
])
def test_no_yes_or_no_when_words_of_the_question_were_not_searched(
        keywords: list[list[str]], concepts: list[str], kind: str | None) -> None:
    plan = Plan(question="Did order 1002 go through?", language="en", terms=["1002"],
                keywords=keywords, concepts=concepts)
    found = Claim(claim_id="claim-1", claim_type="observation", claim_text="payments logged lines with 1002.")
    assert claims_answer_kind(plan, [found], blocked=False) == kind


@pytest.mark.parametrize("question, kind", [
    ("Is anything wrong with a-service or b-service?", "yes"),  # one of them is enough
    ("a-service 或 b-service 有没有错误？", "yes"),
    ("Do a-service and b-service have errors?", "partly"),    # both were asked about
])
def test_a_question_about_either_service_is_a_yes_when_one_has_it(question: str, kind: str) -> None:
    plan = Plan(question=question, language="en", services=["a-service", "b-service"])
    found = Claim(claim_id="claim-1", claim_type="observation", claim_text="a-service logged errors.")
    absent = Claim(claim_id="claim-2", claim_type="negative_observation", claim_text="No errors for b-service.")
    assert claims_answer_kind(plan, [found, absent], blocked=False) == kind


@pytest.mark.parametrize("question, yes_no", [
    ("spark 在 20:10 到 20:11 之间记录了什么？", False),  # 什么？ asks "what", not 么？
    ("spark 为什么？", False), ("spark 怎么了？", False),
    ("spark 有错误么？", True), ("spark 正常吗？", False), ("spark 有错误吗？", True),
])
def test_what_questions_in_chinese_are_not_yes_no(question: str, yes_no: bool) -> None:
    assert is_yes_no_question(question) is yes_no


@pytest.mark.parametrize("question", ["Is inventory-service healthy?", "inventory-service 正常吗？",
                                      "Is inventory-service running normally?"])
def test_a_health_question_is_never_led_by_no_when_no_trouble_was_found(question: str) -> None:
    """The searches look for trouble: none found is the health question's "yes", so leading
    with "No" would invert what was verified. Such a question has no yes/no lead."""
    composed = _composed([_claim("claim-1", ABSENT, "negative_observation")], {"claim-1": True},
                         question=question)
    assert composed.answer_kind is None and composed.status == "no_evidence"
    assert not composed.user_facing_answer.startswith(("No", "否"))
    # ... and "abnormal?" keeps its yes/no lead
    composed = _composed([_claim("claim-1", FOUND)], {"claim-1": True}, question="inventory-service 是否不正常？")
    assert composed.answer_kind == "yes"


@pytest.mark.parametrize("question, reference", [
    ("HighCPUUsage 的 runbook 怎么说？", True), ("What does the runbook say about HighCPUUsage?", True),
    ("How do I fix HighCPUUsage on payment-service?", True), ("HighCPUUsage 告警怎么处理？", True),
    ("What does HighCPUUsage mean?", True), ("Is HighCPUUsage firing?", False),
])
def test_how_to_and_runbook_questions_are_answered_with_the_runbook_as_reference(
        question: str, reference: bool) -> None:
    assert asks_for_reference(question) is reference
    if reference:
        document = ask(question, pack=load_world("demo"))
        assert document.composer_output is not None
        answer = document.composer_output.user_facing_answer
        assert "runbooks/high-cpu.md" in answer and "jstack" in answer, question


def test_a_runbook_named_after_the_alert_answers_what_to_do_about_it(tmp_path: Path) -> None:
    """A runbook of an upstream collection is titled by its alert ("TargetDown / Diagnosis"),
    not by a topic: asked what it says, its checks are the reference (they were left out)."""
    (tmp_path / "runbooks").mkdir()
    (tmp_path / "pack.yaml").write_text("name: targets\n", encoding="utf-8")
    (tmp_path / "alerts.yaml").write_text(
        "- alert_name: TargetDown\n  state: firing\n  service: zookeeper\n  severity: warning\n"
        "  started_at: '2015-08-25T11:26:28+00:00'\n  summary: One or more targets are unreachable.\n",
        encoding="utf-8")
    (tmp_path / "runbooks" / "TargetDown.md").write_text(
        "# TargetDown\n\n## Meaning\n\nOne or more scrape targets are down.\n\n"
        "## Diagnosis\n\nOpen the /targets page of Prometheus to read the scrape error.\n", encoding="utf-8")
    for question in ("What does the TargetDown runbook say?", "TargetDown 告警怎么处理？"):
        document = ask(question, pack=load_world(str(tmp_path)))
        assert document.composer_output is not None
        assert "Open the /targets page of Prometheus" in document.composer_output.user_facing_answer, question
