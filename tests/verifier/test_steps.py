"""Next steps: evidence gathering passes; repairs, unfounded actions and concluding gaps do not."""

from __future__ import annotations

import pytest

from core.contracts import Claim, Exclusions, ExecutorOutput, MissingInfo, Plan, RecommendedAction
from core.verifier.steps import asserted_state, is_repair, judge_steps

REPAIRS = [
    "立即重启 order-service 并将 JVM 堆内存上限调大到 8GB 以修复内存泄漏",
    "内存泄漏已确认，立即重启 order-service 并把堆内存扩容到 8GB",
    "回滚 payment-service 到上一个版本", "将 HikariCP 最大连接数调大到 100", "杀掉占用 CPU 的线程",
    "清理 /data 目录下的旧日志", "先导出堆 dump，然后重启 order-service", "删除 order-service 的旧 Pod",
    "Restart order-service immediately and raise the JVM heap limit to 8GB",
    "Roll back the latest deployment of payment-service", "Scale payment-service to 6 replicas",
    "Increase the HikariCP maximum pool size to 100", "Delete old logs under /data on log-collector",
    "Kill the stuck threads", "Collect a heap dump, then restart order-service",
    "Collect heap dumps after restarting order-service", "Stop order-service", "Fix the memory leak in order-service",
]
GATHERING = [
    "为 order-service 开启 OOM 时自动生成堆 dump 并查看容器内存限制",
    "查看 order-service 重启前的容器日志和 Kubernetes 事件", "对慢 SQL 执行 EXPLAIN 并查看锁等待情况",
    "统计 log-collector 各目录的磁盘占用和增长速度", "确认是否需要扩容", "查看 order-service 是否被重启",
    "Read order-service's container logs before each restart and the Kubernetes events.",
    "Check restart count of order-service", "Check whether order-service was restarted",
    "Look at the increase in memory over the last hour", "Check whether the pool size should be increased",
    "Enable heap dumps on out-of-memory for order-service and check its container memory limit.",
]


@pytest.mark.parametrize("text", REPAIRS)
def test_a_repair_is_recognised_in_either_language(text: str) -> None:
    assert is_repair(text)


@pytest.mark.parametrize("text", GATHERING)
def test_evidence_gathering_is_not_a_repair_even_when_it_names_one(text: str) -> None:
    assert is_repair(text) == ""


@pytest.mark.parametrize(("text", "concludes"), [
    ("内存泄漏已确认，缺少堆 dump", True), ("根因是内存泄漏", True), ("连接池已耗尽，缺少线程栈", True),
    ("The memory leak is confirmed; heap dumps are missing", True),
    ("缺少堆 dump、对象分配统计或更长时间窗口的内存曲线，尚不能判断内存持续增长的原因。", False),
    ("Heap dumps or a longer memory curve are missing; what keeps memory growing is not known.", False),
])
def test_a_gap_that_concludes_is_told_from_one_that_names_what_is_missing(text: str, concludes: bool) -> None:
    assert bool(asserted_state(text)) is concludes


def _output(*actions: str, gaps: tuple[str, ...] = ()) -> ExecutorOutput:
    claim = Claim(claim_id="claim-1", claim_type="observation",
                  claim_text="order-service 当前存在 HighMemoryUsage 告警：当前值 91%。",
                  subject_services=["order-service"], subject_topics=["memory"])
    return ExecutorOutput(
        claims=[claim],
        missing_info=[MissingInfo(info_id=f"missing-{i}", description=gap) for i, gap in enumerate(gaps, 1)],
        recommended_actions=[RecommendedAction(action_id=f"action-{i}", action_text=text)
                             for i, text in enumerate(actions, 1)])


def _judge(output: ExecutorOutput, plan: Plan | None = None) -> dict[str, tuple[bool, str | None]]:
    plan = plan or Plan(question="只确认 order-service 的内存告警", services=["order-service"], topics=["memory"])
    results = judge_steps(output, plan, claim_texts=[c.claim_text for c in output.claims])
    return {r.step_id: (r.passed, r.rule) for r in results}


def test_actions_must_follow_from_the_claims_or_the_gaps() -> None:
    judged = _judge(_output("查看 order-service 的 GC 日志和堆 dump。", "采集 payment-service 的 CPU profile。",
                            "查看 Redis 服务端慢日志。", "Follow the runbook.", "order-service 很重要。"))
    assert judged["action-1"] == (True, None)
    assert judged["action-2"] == (False, "verifier.action_unfounded")  # another service
    assert judged["action-3"] == (False, "verifier.action_unfounded")  # another topic, nothing in common
    assert judged["action-4"] == (True, None)
    assert judged["action-5"] == (False, "verifier.action_unfounded")  # gathers nothing


def test_a_repair_action_is_graded_reject_and_a_concluding_gap_low_confid() -> None:
    judged = _judge(_output("立即重启 order-service。", gaps=("order-service 内存泄漏已确认。", "缺少堆 dump。")))
    assert judged["action-1"] == (False, "verifier.repair_action")
    assert judged["missing-1"] == (False, "verifier.gap_asserts_state")
    assert judged["missing-2"] == (True, None)


def test_a_step_about_an_excluded_subject_is_withheld_without_failing_the_session() -> None:
    plan = Plan(question="只看 order-service 的内存告警，不要分析原因", services=["order-service"],
                topics=["memory"], exclusions=Exclusions(terms=["原因"]))
    judged = _judge(_output(gaps=("缺少堆 dump，尚不能判断内存增长的原因。",)), plan)
    assert judged["missing-1"] == (False, "verifier.step_withheld")


@pytest.mark.parametrize("text", [
    "确认内存占用后把 cart-api 的副本数调到 5", "核实磁盘占用后把旧索引删掉",
    "After confirming the leak, restart cart-api",
    "Then set max connections of cart-api to 200", "查看完 GC 日志后将堆上限改为 6GB",
])
def test_a_change_after_a_look_or_a_value_set_is_a_repair(text: str) -> None:
    assert is_repair(text)


@pytest.mark.parametrize("text", [
    "是否需要调整 cart-api 的连接池上限", "Check whether the replica count was set to 5", "查看副本数被调到 5 的记录",
    "Check when the pool size was set to 20",
])
def test_asking_whether_to_change_or_looking_at_a_change_is_not_a_repair(text: str) -> None:
    assert is_repair(text) == ""


@pytest.mark.parametrize(("text", "concludes"), [
    ("Missing heap dumps; the leak in cart-api keeps memory growing", True),
    ("缺少线程栈，连接池已被慢查询占满", True),
    ("缺少堆 dump，无法定位泄漏点", True),  # doubts only where the leak is: takes the leak as given
    ("Missing heap dumps, so whether cart-api leaks memory at all is unknown", False),
    ("缺少线程栈，无法判断连接池是否已被慢查询占满", False),
])
def test_a_gap_that_takes_a_state_as_given_concludes(text: str, concludes: bool) -> None:
    assert bool(asserted_state(text)) is concludes


def test_a_repair_in_an_actions_reason_and_an_action_about_another_topic_fail() -> None:
    output = _output("查看 order-service 的 GC 日志。", "查看节点的磁盘使用率。")
    output.recommended_actions[0].reason = "确认内存占用后把堆上限调大到 8GB"
    judged = _judge(output)
    assert judged["action-1"] == (False, "verifier.repair_action")
    assert judged["action-2"] == (False, "verifier.action_unfounded")
