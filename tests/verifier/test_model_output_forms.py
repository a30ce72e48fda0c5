"""Forms of honest model output the verifier reads as what they are, and mistakes it still
catches, found with the second model double (``tests.doubles.othermodel``): a quote of an
alert without its name, arguments padded with whitespace, a metric or product name declared as
a subject topic, a no-hit query searched by topic, a current value cited to a runbook, a
duration with a space before its unit, a total written 总共 / 合计, a repair written as a gap."""

from __future__ import annotations

from core.contracts import (
    CheckedBinding,
    Claim,
    ClaimResult,
    ClaimType,
    EvidenceBinding,
    Exclusions,
    ExecutorOutput,
    GatekeeperResult,
    GateStatus,
    MissingInfo,
    Plan,
    VerifierInput,
)
from core.language.subjects import subjects_excluded
from core.verifier import judge
from core.verifier.rules import (
    NO_EVIDENCE,
    REPAIR_ACTION,
    RUNBOOK_AS_FACT,
    SCOPE,
    UNSUPPORTED_ROOT_CAUSE,
    WRONG_ROLE,
)
from core.verifier.steps import judge_steps

ALERT = ("HighCPUUsage firing, service=payment-service, current=92%, threshold=80%, "
         "severity=warning; payment-service CPU 使用率过高")
LINE = "[2026-07-08T11:17:00+08:00][WARN][order-service] 内存使用率过高: 91.0%, JVM堆内存: 3.8GB/4GB, GC次数: 128"
RUNBOOK = ("CPU 使用率过高 (HighCPUUsage) / 排查步骤 (runbooks/high-cpu.md): - 查看线程 dump，"
           "确认是否有热点线程。\n- 数据库慢查询或锁等待。\n- 内存泄漏会导致频繁 GC。")
CPU_PLAN = Plan(question="只确认 HighCPUUsage 告警", alert_names=["HighCPUUsage"], topics=["cpu"],
                narrow=True)
MEMORY_PLAN = Plan(question="只确认 order-service 的内存使用率", services=["order-service"],
                   topics=["memory"], narrow=True)


def _checked(text: str, *, excerpt: str | None = None, tool: str = "query_logs",
             invocation: int = 7, path: str | None = "$.logs[0]", status: GateStatus = "pass",
             negative: bool = False) -> CheckedBinding:
    excerpt = excerpt if excerpt is not None else text
    start = max(text.find(excerpt), 0)
    return CheckedBinding(claim_id="claim-1", tool_name=tool, source_invocation_id=invocation,
                          raw_path=path, evidence_excerpt=excerpt, status=status,
                          matched_text=text, match_kind="negative" if negative else "exact",
                          spans=[] if negative else [(start, start + len(excerpt))])


def _judge(claim_text: str, checked: list[CheckedBinding], plan: Plan, *,
           arguments: dict[int, dict[str, object]] | None = None,
           claim_type: ClaimType | None = "observation", services: list[str] | None = None,
           topics: list[str] | None = None) -> ClaimResult:
    bindings = [EvidenceBinding(tool_name=c.tool_name, source_invocation_id=c.source_invocation_id,
                                raw_path=c.raw_path, evidence_excerpt=c.evidence_excerpt)
                for c in checked]
    claim = Claim(claim_id="claim-1", claim_type=claim_type, claim_text=claim_text,
                  evidence_bindings=bindings, subject_services=services or [],
                  subject_topics=topics or [])
    verifier_input = VerifierInput(
        original_query=plan.question, executor_structured_output=ExecutorOutput(claims=[claim]),
        gatekeeper_result=GatekeeperResult(status="pass", severity="none", checked_bindings=checked),
        invocation_arguments=arguments or {7: {"alert_name": "HighCPUUsage"}})
    return judge(verifier_input, plan)[0][0]


def test_a_quote_of_an_alerts_values_is_still_that_alerts_service() -> None:
    """The plan names the alert, not the service: the ref at the cited path ties them."""
    result = _judge("payment-service 当前 CPU 使用率 92%，阈值 80%。",
                    [_checked(ALERT, excerpt="current=92%, threshold=80%", tool="query_metrics",
                              path="$.alerts[0]")], CPU_PLAN, services=["payment-service"])
    assert result.entailed, result.reasons


def test_a_claim_with_no_verified_evidence_is_not_also_out_of_scope() -> None:
    """Which services the alert ties to the question is read from verified evidence; a claim
    whose only binding failed is graded for that (and can be repaired), not REJECTed."""
    result = _judge("payment-service 当前 CPU 使用率 92%。",
                    [_checked(ALERT, excerpt="current=93%", tool="query_metrics",
                              path="$.alerts[0]", status="fail")], CPU_PLAN,
                    services=["payment-service"])
    assert result.rules == [NO_EVIDENCE], result.reasons


def test_a_padded_service_argument_names_the_subject() -> None:
    bare = "内存使用率过高: 91.0%"
    result = _judge("order-service 内存使用率 91%。", [_checked(bare)], MEMORY_PLAN,
                    arguments={7: {"service": " order-service ", "topic": "memory"}})
    assert result.entailed, result.reasons


def test_a_metric_or_product_name_declared_as_topic_stands_for_its_topic() -> None:
    """``cpu_usage_percent`` is the cpu topic the narrow question asks about; ``HikariCP``
    is the connection pool, outside a memory question."""
    inside = _judge("payment-service 当前 CPU 使用率 92%，阈值 80%。",
                    [_checked(ALERT, tool="query_metrics", path="$.alerts[0]")], CPU_PLAN,
                    services=["payment-service"], topics=["cpu_usage_percent"])
    assert inside.entailed, inside.reasons
    outside = _judge("order-service 内存使用率 91%。", [_checked(LINE)], MEMORY_PLAN,
                     arguments={7: {"service": "order-service"}}, topics=["HikariCP"])
    assert SCOPE in outside.rules


def test_a_product_name_in_a_negative_claim_is_covered_by_its_topics_query() -> None:
    described = ("query_logs(service=inventory-service, topic=connection_pool) -> logs=[], "
                 "total=0 (evidence_status=no_hits)")
    checked = [_checked(described, path=None, negative=True)]
    plan = Plan(question="确认 inventory-service 是否存在 HikariCP 连接池耗尽",
                services=["inventory-service"], topics=["connection_pool"], narrow=True)
    arguments: dict[int, dict[str, object]] = {
        7: {"service": "inventory-service", "topic": "connection_pool"}}
    result = _judge("inventory-service 未检索到 HikariCP 连接池相关日志。", checked, plan,
                    arguments=arguments, claim_type="negative_observation",
                    services=["inventory-service"])
    assert result.entailed, result.reasons
    other = _judge("inventory-service 未检索到 OutOfMemoryError 相关日志。", checked, plan,
                   arguments=arguments, claim_type="negative_observation",
                   services=["inventory-service"])
    assert not other.entailed  # a name of another topic was not searched


def test_a_runbook_citation_is_graded_by_what_the_claim_states() -> None:
    runbook = [_checked(RUNBOOK, excerpt="数据库慢查询或锁等待。", tool="lookup_knowledge",
                        path="$.evidence_blocks[0]")]
    # Values the runbook does not hold: a miscited current value, fixable by citing the tool.
    miscited = _judge("payment-service 当前 CPU 使用率 92%。", runbook, CPU_PLAN,
                      services=["payment-service"])
    assert miscited.rules == [NO_EVIDENCE], miscited.reasons
    # What the runbook says, stated as fact.
    stated = _judge("payment-service 存在数据库慢查询或锁等待。", runbook, CPU_PLAN,
                    services=["payment-service"])
    assert stated.rules[0] == RUNBOOK_AS_FACT, stated.reasons
    # A cause is still a cause, whatever it is cited to.
    cause = _judge("payment-service CPU 使用率 92%，根因是内存泄漏。", runbook, CPU_PLAN,
                   services=["payment-service"])
    assert UNSUPPORTED_ROOT_CAUSE in cause.rules and not cause.entailed


def test_a_duration_with_a_space_before_its_unit_is_a_duration() -> None:
    line = "[2026-07-08T11:20:00+08:00][WARN][user-service] 慢请求: GET /api/users 耗时 4200ms"
    arguments: dict[int, dict[str, object]] = {7: {"service": "user-service"}}
    plan = Plan(question="只确认 user-service 的慢请求", services=["user-service"])
    same = _judge("user-service 有慢请求，耗时 4.2 s。", [_checked(line)], plan, arguments=arguments)
    assert same.entailed, same.reasons
    other = _judge("user-service 有慢请求，耗时 4.5 s。", [_checked(line)], plan, arguments=arguments)
    assert not other.entailed


def test_a_total_written_in_other_words_holds_its_role() -> None:
    arguments: dict[int, dict[str, object]] = {7: {"service": "order-service"}}
    for word in ("总共", "合计", "共"):
        right = _judge(f"order-service JVM 堆内存已使用 3.8GB，{word} 4GB。", [_checked(LINE)],
                       MEMORY_PLAN, arguments=arguments)
        assert right.entailed, (word, right.reasons)
        swapped = _judge(f"order-service JVM 堆内存已使用 4GB，{word} 3.8GB。", [_checked(LINE)],
                         MEMORY_PLAN, arguments=arguments)
        assert WRONG_ROLE in swapped.rules, (word, swapped.reasons)


def test_declared_topics_are_read_for_exclusions() -> None:
    excluded = Exclusions(topics=["connection_pool"])
    assert subjects_excluded([], ["HikariCP"], excluded) == ["connection_pool"]
    assert subjects_excluded([], ["cpu_usage_percent"], excluded) == []


def test_a_repair_written_as_missing_information_is_a_repair() -> None:
    claim = Claim(claim_id="claim-1", claim_type="observation",
                  claim_text="order-service 当前内存使用率 91%。", subject_services=["order-service"])
    gaps = ["Restart order-service now", "将 order-service 扩容到 6 个副本",
            "order-service 重启前的容器日志"]
    output = ExecutorOutput(claims=[claim], missing_info=[
        MissingInfo(info_id=f"missing-{i}", description=gap) for i, gap in enumerate(gaps, 1)])
    results = {r.step_id: r for r in judge_steps(output, MEMORY_PLAN,
                                                  claim_texts=[claim.claim_text])}
    assert results["missing-1"].rule == REPAIR_ACTION and not results["missing-1"].passed
    assert results["missing-2"].rule == REPAIR_ACTION
    assert results["missing-3"].passed  # names what is missing, a restart only as a time
