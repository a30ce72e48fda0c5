"""Natural wording a model writes, judged on real sessions (the simulated model's honest
answers, edited): what it says honestly passes, the same sentence made wrong does not.
"""

from __future__ import annotations

import pytest

from core.agents.llm.executor import LLMExecutor
from core.agents.llm.profiles import PROFILES
from core.agents.registry import Engines
from core.agents.rules import RulesComposer, RulesPlanner, RulesVerifier
from core.contracts import ClaimResult, SessionDocument
from core.pipeline import ask, replay
from tests.doubles.sim_sessions import SEED_QUESTIONS
from tests.doubles.simulated import SimulatedModel


def natural_session(question: str) -> SessionDocument:
    executor = LLMExecutor(SimulatedModel(style="natural").client(), PROFILES["stub"])
    document = ask(question, engines=Engines(RulesPlanner(), executor, RulesVerifier(),
                                             RulesComposer()))
    assert document.verifier_result is not None and document.verifier_result.verdict == "PASS"
    return document


def judged(document: SessionDocument, claim_index: int, text: str) -> ClaimResult:
    edited = document.model_copy(deep=True)
    assert edited.executor_output is not None
    claim = edited.executor_output.claims[claim_index]
    claim.claim_text = text
    result = replay(edited).verifier_result
    assert result is not None
    return next(r for r in result.claim_results if r.claim_id == claim.claim_id)


@pytest.fixture(scope="module")
def cpu() -> SessionDocument:
    return natural_session(SEED_QUESTIONS[0])


@pytest.mark.parametrize(("text", "entailed"), [
    ("payment-service 持续输出 WARN 级别日志，最新一条出现在 11:17：CPU使用率过高: 92.0%", True),
    ("payment-service 的 CPU 告警日志最新一条出现在 11:17", True),
    ("payment-service keeps logging WARN lines; the latest, at 11:17: CPU使用率过高: 92.0%", True),
    # The oldest line's time given as the latest; a time no line has; another value.
    ("payment-service 持续输出 WARN 级别日志，最新一条出现在 11:05：CPU使用率过高: 92.0%", False),
    ("payment-service 持续输出 WARN 级别日志，最新一条出现在 11:18：CPU使用率过高: 92.0%", False),
    ("payment-service 持续输出 WARN 级别日志，最新一条出现在 11:17：CPU使用率过高: 95.0%", False),
])
def test_when_the_latest_line_appeared(cpu: SessionDocument, text: str, entailed: bool) -> None:
    result = judged(cpu, 1, text)
    assert result.entailed is entailed, result.reasons


def test_the_alert_named_while_its_summary_is_quoted(cpu: SessionDocument) -> None:
    assert judged(cpu, 0, "HighCPUUsage 告警正在触发：payment-service CPU 使用率 92%，超过阈值 80%，"
                          "已持续 25 分钟").entailed
    assert not judged(cpu, 0, "HighCPUUsage 告警正在触发：payment-service CPU 使用率 80%，超过阈值 "
                              "92%，已持续 25 分钟").entailed


@pytest.fixture(scope="module")
def absent() -> SessionDocument:
    return natural_session(SEED_QUESTIONS[4])


@pytest.mark.parametrize(("text", "entailed"), [
    ("未检索到 inventory-service 的 HikariCP 相关日志", True),
    ("未检索到 inventory-service 的 HikariCP 相关日志，ERROR 级别和全部级别的查询均无结果", True),
    ("No HikariCP logs were found for inventory-service", True),
    # A cause, a runbook sentence, a present state: nothing a no-hit query can say.
    ("未检索到 inventory-service 的 HikariCP 相关日志；慢 SQL 或锁等待导致连接被长期占用。", False),
    ("未检索到 inventory-service 的 HikariCP 相关日志；数据库慢查询或锁等待。", False),
    ("No HikariCP logs were found for inventory-service; the root cause is a connection leak.",
     False),
])
def test_what_a_nothing_found_may_say(absent: SessionDocument, text: str, entailed: bool) -> None:
    result = judged(absent, 0, text)
    assert result.entailed is entailed, result.reasons


@pytest.fixture(scope="module")
def slow() -> SessionDocument:
    return natural_session(SEED_QUESTIONS[2])


@pytest.mark.parametrize(("text", "entailed"), [
    # "for user-service:" says whom the alert is for; the value after the colon is its current.
    ("The SlowResponse alert is firing for user-service: P99 4.2s against a threshold of 3s", True),
    ("SlowResponse is ongoing for user-service: P99 4.2s, threshold 3s", True),
    ("The SlowResponse alert fires for user-service: P99 latency 4.2s, threshold 3s", True),
    ("An alert is firing for user-service: SlowResponse, P99 4.2s above the 3s threshold", True),
    ("SlowResponse is ongoing for user-service, P99 4.2s, threshold 3s", True),
    ("SlowResponse 正在为 user-service 告警：P99 4.2s，阈值 3s", True),
    # A "for" right before the value still makes it a duration, which the alert does not say.
    ("The SlowResponse alert on user-service is firing for 4.2s", False),
    ("The SlowResponse alert on user-service is ongoing for 4.2s", False),
    ("SlowResponse fires for user-service: P99 4.2s for 3s", False),
])
def test_for_whom_an_alert_fires_is_no_duration(slow: SessionDocument, text: str,
                                                entailed: bool) -> None:
    result = judged(slow, 0, text)
    assert result.entailed is entailed, result.reasons
