"""A value is bound to the metric, attribute and unit its evidence names, and read however it
is written: an honest restatement passes (a fraction for a percentage, a correct UTC conversion,
a month-name date, thousands separators, "1.25 million" / "125万", 大写 and 廿 numerals, 九成五),
the same words with a wrong value, another metric, another kind of thing counted, a clock in
the wrong zone or half of the day, a rate or a relative day no evidence states do not. Each case
is a small invented session judged by ``core.verifier.judge``, in both languages."""

from __future__ import annotations

import pytest

from core.contracts import ClaimResult
from tests.verifier.one_claim import judge_observation

SERVICE = "order-service"
EVIDENCE = {
    "cpu": ("$.alerts[0]", "HighCPUUsage firing, service=order-service, current=92%, threshold=80%, duration=15m, "
                           "severity=critical"),
    "memory": ("$.alerts[0]", "HighMemoryUsage firing, service=order-service, current=95%, threshold=80%, "
                              "duration=25m"),
    "memory20": ("$.alerts[0]", "HighMemoryUsage firing, service=order-service, current=20%, threshold=80%, "
                                "duration=25m"),
    "threads": ("$.logs[0]", "[2026-07-08T11:17:00+08:00][WARN][order-service] thread pool: active threads=245"),
    "errors": ("$.groups[0]", '12 lines like "Connection refused to <*>" [ERROR][order-service] '
                              "from 2026-07-08T11:00:00+08:00 to 2026-07-08T11:17:00+08:00"),
    "line": ("$.logs[0]", "[2026-07-08T11:17:00+08:00][ERROR][order-service] Connection refused to db"),
    "volume": ("$.logs[0]", "[2026-07-08T11:17:00+08:00][INFO][order-service] processed 15823 orders, "
                            "emitted 1250000 events"),
}


def _judge(text: str, evidence: str) -> ClaimResult:
    return judge_observation(text, SERVICE, [EVIDENCE[evidence]])


HONEST = [
    ("cpu", "order-service CPU usage is 92%"),
    ("cpu", "order-service CPU usage is at 0.92"),
    ("memory", "order-service memory usage is 0.95"),
    ("cpu", "order-service CPU 使用率为 92%"),
    ("threads", "order-service has 245 active threads"),
    ("threads", "order-service 有 245 个活跃线程"),
    ("errors", "order-service logged 12 ERROR lines"),
    ("errors", "order-service logged a dozen ERROR lines"),
    ("errors", "order-service 记录了 12 条 ERROR 日志"),
    ("line", "order-service logged Connection refused at 11:17 +08:00"),
    ("line", "order-service logged Connection refused at 03:17 UTC"),
    ("line", "order-service logged Connection refused at 11:17 AM"),
    ("line", "order-service logged Connection refused at 11:17"),
    ("line", "order-service logged Connection refused on July 8, 2026"),
    ("line", "order-service logged Connection refused on 8 July 2026"),
    ("line", "order-service logged Connection refused on July 8 at 11:17"),
    ("line", "order-service 在 2026年7月8日 11:17 报 Connection refused"),
    ("memory", "order-service 内存使用率为 玖拾伍%"),
    ("memory", "order-service 内存使用率达到九成五"),
    ("memory20", "order-service 内存使用率约两成"),
    ("memory", "order-service 内存告警已持续廿五分钟"),
    ("volume", "order-service processed 15,823 orders"),
    ("volume", "order-service emitted 1.25 million events"),
    ("volume", "order-service 处理了 125万 个事件"),
]

FORGED = [
    ("cpu", "order-service memory usage 92%", "verifier.wrong_role"),
    ("cpu", "order-service 内存使用率 92%", "verifier.wrong_role"),
    ("cpu", "order-service CPU usage is at 0.29", "verifier.unsupported_fact"),
    ("threads", "order-service has 245 processes", "verifier.wrong_role"),
    ("threads", "order-service 有 245 个进程", "verifier.wrong_role"),
    ("threads", "order-service serves 245 requests/s", None),
    ("errors", "order-service logged 3 warnings", None),
    ("errors", "order-service logged 12 warnings", "verifier.wrong_role"),
    ("errors", "order-service 记录了 12 条警告", "verifier.wrong_role"),
    ("errors", "order-service logged two dozen ERROR lines", "verifier.unsupported_fact"),
    ("errors", "order-service logs connection refused every minute", "verifier.unsupported_fact"),
    ("errors", "order-service 每分钟都报 Connection refused", "verifier.unsupported_fact"),
    ("line", "order-service logged Connection refused at 11:17 UTC", "verifier.unsupported_fact"),
    ("line", "order-service logged Connection refused at 11:17 PM", "verifier.unsupported_fact"),
    ("line", "order-service logged Connection refused on July 9, 2026", "verifier.unsupported_fact"),
    ("line", "order-service logged Connection refused on Jul 9th", "verifier.unsupported_fact"),
    ("line", "order-service logged Connection refused since yesterday", "verifier.unsupported_fact"),
    ("line", "order-service has logged Connection refused since 2 days ago", "verifier.unsupported_fact"),
    ("line", "order-service 从昨天起一直报 Connection refused", "verifier.unsupported_fact"),
    ("memory", "order-service 内存使用率为 玖拾%", "verifier.unsupported_fact"),
    ("memory", "order-service 内存使用率达到九成", "verifier.unsupported_fact"),
    ("memory", "order-service 内存使用率约两成", "verifier.unsupported_fact"),
    ("memory", "order-service memory usage is 0.59", "verifier.unsupported_fact"),
    ("memory", "order-service 内存告警已持续廿分钟", "verifier.unsupported_fact"),
    ("volume", "order-service processed 15,832 orders", "verifier.unsupported_fact"),
    ("volume", "order-service emitted 1.5 million events", "verifier.unsupported_fact"),
    ("volume", "order-service 处理了 126万 个事件", "verifier.unsupported_fact"),
]


@pytest.mark.parametrize(("evidence", "text"), HONEST)
def test_a_value_stated_honestly_in_any_writing_passes(evidence: str, text: str) -> None:
    result = _judge(text, evidence)
    assert result.entailed, result.reasons


@pytest.mark.parametrize(("evidence", "text", "rule"), FORGED)
def test_a_value_of_another_metric_kind_zone_or_amount_does_not_pass(evidence: str, text: str,
                                                                     rule: str | None) -> None:
    result = _judge(text, evidence)
    assert not result.entailed
    assert result.rule in ({rule} if rule else {"verifier.wrong_role", "verifier.unsupported_fact"}), result.reasons
