"""The always-on policy over whole verifier inputs: what the gatekeeper matched is evidence of the
subject, runbook text is not evidence, required fields are reported, a model is bounded."""

from __future__ import annotations

from core.contracts import (
    CheckedBinding,
    Claim,
    ClaimResult,
    ClaimType,
    EvidenceBinding,
    ExecutorOutput,
    GatekeeperResult,
    Plan,
    StepResult,
    VerifierInput,
)
from core.verdict import rule_verdict
from core.verifier import bound, judge

LINE = "[2026-07-08T11:17:00+08:00][WARN][order-service] 内存使用率过高: 91.0%, JVM堆内存: 3.8GB/4GB, GC次数: 128"
RUNBOOK = ("内存使用率过高 (HighMemoryUsage) / 常见原因 (Causes) (runbooks/high-memory.md): "
           "- 缓存无上限、集合只增不减等内存泄漏。\n- 数据库慢查询或锁等待。")
PLAN = Plan(question="只确认 order-service 的内存使用率", services=["order-service"], topics=["memory"])


def _input(claim_text: str, *, matched: str = LINE, excerpt: str | None = None,
           arguments: dict[str, str] | None = None, claim_type: ClaimType | None = "observation",
           tool_name: str | None = "query_logs", runbook_cited: bool = False) -> VerifierInput:
    excerpt = excerpt if excerpt is not None else matched
    binding = EvidenceBinding(tool_name=tool_name, source_invocation_id=7, raw_path="$.logs[0]",
                              evidence_excerpt=excerpt)
    claim = Claim(claim_id="claim-1", claim_type=claim_type, claim_text=claim_text,
                  evidence_bindings=[binding], subject_services=["order-service"], subject_topics=["memory"])
    start = matched.find(excerpt)
    checked = [CheckedBinding(claim_id="claim-1", binding_index=0, tool_name="query_logs",
                              source_invocation_id=7, raw_path="$.logs[0]", evidence_excerpt=excerpt,
                              status="pass", matched_text=matched, match_kind="exact",
                              spans=[(start, start + len(excerpt))])]
    if runbook_cited:
        checked.append(CheckedBinding(action_id="action-1", tool_name="lookup_knowledge",
                                      source_invocation_id=8, raw_path="$.evidence_blocks[0]",
                                      evidence_excerpt=RUNBOOK[:40], status="pass", matched_text=RUNBOOK,
                                      match_kind="exact", spans=[(0, 40)]))
    return VerifierInput(original_query=PLAN.question, executor_structured_output=ExecutorOutput(claims=[claim]),
                         gatekeeper_result=GatekeeperResult(status="pass", severity="none", checked_bindings=checked),
                         invocation_arguments={7: arguments or {"service": "order-service"}})


def _claim_result(verifier_input: VerifierInput) -> ClaimResult:
    return judge(verifier_input, PLAN)[0][0]


def test_a_quote_without_its_prefix_is_still_that_services_line() -> None:
    quoted = "内存使用率过高: 91.0%, JVM堆内存: 3.8GB/4GB"
    result = _claim_result(_input("order-service 当前内存使用率 91%，JVM 堆内存 3.8GB/4GB。", excerpt=quoted))
    assert result.entailed, result.reasons
    by_role = {s.role: s for s in result.supports}
    assert by_role["subject"].source == "ref"  # whose line it is: the matched ref's prefix
    assert by_role["current"].source == "excerpt" and by_role["current"].evidence == "91.0%"


def test_the_query_argument_names_the_subject_when_the_ref_does_not() -> None:
    bare = "内存使用率过高: 91.0%"
    with_argument = _claim_result(_input("order-service 内存使用率 91%。", matched=bare))
    assert with_argument.entailed, with_argument.reasons
    other = _claim_result(_input("order-service 内存使用率 91%。", matched=bare,
                                 arguments={"service": "payment-service"}))
    assert not other.entailed and "order-service" in " ".join(other.reasons)


def test_values_must_come_in_their_role_from_the_matched_ref() -> None:
    result = _claim_result(_input("order-service JVM 堆内存当前使用 4GB。"))
    assert result.rule == "verifier.wrong_role"
    assert any("total / limit" in reason for reason in result.reasons)
    rounded = _claim_result(_input("order-service JVM 堆内存使用约 4GB。"))
    assert rounded.rule == "verifier.wrong_role"


def test_a_runbook_sentence_appended_to_a_real_claim_is_not_evidence() -> None:
    text = "order-service 内存使用率 91%；数据库慢查询或锁等待。"
    cited = _claim_result(_input(text, runbook_cited=True))
    assert cited.rule == "verifier.runbook_as_fact"
    uncited = _claim_result(_input(text))
    assert uncited.rule == "verifier.unsupported_fact"


def test_missing_required_fields_are_reported_not_defaulted() -> None:
    no_type = _claim_result(_input("order-service 内存使用率 91%。", claim_type=None))
    assert no_type.rule == "verifier.missing_field" and "claim_type" in no_type.reasons[0]
    no_tool = _claim_result(_input("order-service 内存使用率 91%。", tool_name=None))
    assert no_tool.rule == "verifier.missing_field" and "tool_name" in no_tool.reasons[0]


def test_a_model_is_bounded_by_the_policy() -> None:
    policy = [ClaimResult(claim_id="claim-1", entailed=False, rule="verifier.wrong_role", reasons=["swap"]),
              ClaimResult(claim_id="claim-2", entailed=True),
              ClaimResult(claim_id="claim-3", entailed=True)]
    model = [ClaimResult(claim_id="claim-1", entailed=True, reasons=["looks fine"]),
             ClaimResult(claim_id="claim-2", entailed=False, rule="made.up", reasons=["too vague"])]
    results = {r.claim_id: r for r in bound(policy, model)}
    assert (results["claim-1"].entailed, results["claim-1"].rule) == (False, "verifier.wrong_role")
    assert (results["claim-2"].entailed, results["claim-2"].rule) == (False, "verifier.unsupported_fact")
    assert (results["claim-3"].entailed, results["claim-3"].rule) == (False, "verifier.not_judged")


def test_failed_steps_lower_the_verdict_by_their_grade() -> None:
    gate = GatekeeperResult(status="pass", severity="none")
    claims = [ClaimResult(claim_id="claim-1", entailed=True)]

    def step(rule: str) -> StepResult:
        return StepResult(step_id="action-1", kind="action", passed=False, rule=rule)
    assert rule_verdict(gate, claims, [step("verifier.repair_action")])[0] == "REJECT"
    assert rule_verdict(gate, claims, [step("verifier.action_unfounded")])[0] == "LOW_CONFID"
    assert rule_verdict(gate, claims, [step("verifier.step_withheld")])[0] == "PASS"
