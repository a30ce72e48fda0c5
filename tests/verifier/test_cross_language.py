"""Chinese claims citing English evidence (issue 30, item 3): an honest one is grounded by what
its lines say in translation (``vocab/renderings_zh.yaml``, ``translations.yaml`` and the sides of
``antonyms.yaml``, through ``core/language/renderings.py``) -- not refused because it shares no
characters with them; a forged one (a state reversed, a value or service changed) is still
refused. Lines in the demo pack's formats (alerts, application logs, sshd, pool stats), each
judged as an observation against refs the gatekeeper passed (``tests/verifier/one_claim.py``).
"""

from __future__ import annotations

import pytest

from core.contracts import ClaimResult
from tests.verifier.one_claim import judge_observation

LINES = {
    "cpu": ("payment-service", "HighCPUUsage firing, service=payment-service, current=92%, threshold=80%, "
                               "duration=25m, severity=warning"),
    "memory": ("order-service", "HighMemoryUsage firing, service=order-service, current=91%, threshold=85%, "
                                "duration=12m, severity=critical"),
    "disk": ("node-1", "DiskPressure firing, node=node-1, current=93%, threshold=90%, severity=warning"),
    "pool": ("order-service", "[2026-07-08T11:17:00+00:00][ERROR][order-service] HikariPool-1 - Connection is "
                              "not available, request timed out after 30000ms"),
    "oom": ("order-service", "[2026-07-08T11:10:00+00:00][ERROR][order-service] container order-service "
                             "OOMKilled (exit code 137), restart count 3"),
    "login": ("sshd", "[2026-07-08T11:17:03+00:00][INFO][sshd] Accepted password for alice from 10.0.0.7 "
                      "port 52144 ssh2"),
    "login_failed": ("sshd", "[2026-07-08T11:17:03+00:00][WARN][sshd] Failed password for alice from "
                             "10.0.0.7 port 52144 ssh2"),
    "session": ("sshd", "[2026-07-08T11:17:04+00:00][INFO][sshd] pam_unix(sshd:session): session opened for "
                        "user alice by (uid=0)"),
    "backlog": ("billing-worker", "[2026-07-08T11:00:00+00:00][WARN][billing-worker] queue backlog at 12000 "
                                  "messages, consumer lag growing"),
    "latency": ("payment-service", "[2026-07-08T11:15:00+00:00][WARN][payment-service] p99 latency 2300ms "
                                   "exceeds SLO 500ms on /api/v1/pay"),
    "redis": ("cart-service", "[2026-07-08T11:12:00+00:00][ERROR][cart-service] Redis connection refused: "
                              "10.0.3.4:6379"),
    "upstream": ("order-service", "[2026-07-08T11:16:00+00:00][ERROR][order-service] upstream request to "
                                  "inventory timed out after 5000ms"),
    "pool_stats": ("inventory", "[2026-04-01T08:00:00+00:00][WARN][inventory] DB pool stats: active=20/20, "
                                "idle=0, pending=17"),
}


def _judge(text: str, cited: str) -> ClaimResult:
    service, line = LINES[cited]
    return judge_observation(text, service, [("$.logs[0]", line)])


# (cited line, honest Chinese claim)
HONEST = [
    ("cpu", "payment-service 的 CPU 使用率为 92%，超过 80% 阈值。"),
    ("cpu", "payment-service 的 HighCPUUsage 告警正在触发，CPU 使用率 92%。"),
    ("cpu", "payment-service CPU 使用率过高（92%），已持续 25 分钟。"),
    ("memory", "order-service 的内存使用率为 91%，超过 85% 阈值。"),
    ("memory", "order-service 的 HighMemoryUsage 告警正在触发，严重级别 critical。"),
    ("disk", "node-1 的磁盘使用率为 93%，超过 90% 阈值。"),
    ("pool", "订单服务出现连接池耗尽错误。"),
    ("pool", "order-service 的数据库连接获取超时，等待 30000ms 后失败。"),
    ("pool", "order-service 的 HikariPool-1 无可用连接，请求在 30000ms 后超时。"),
    ("oom", "order-service 容器因内存不足被杀死（OOMKilled，退出码 137），重启 3 次。"),
    ("oom", "order-service 的容器发生 OOM，退出码 137。"),
    ("login", "用户 alice 从 10.0.0.7 通过密码登录成功。"),
    ("login_failed", "用户 alice 从 10.0.0.7 的密码验证失败。"),
    ("session", "sshd 为用户 alice 建立了会话。"),
    ("backlog", "billing-worker 的队列积压达到 12000 条消息，消费延迟持续增长。"),
    ("latency", "payment-service 的 p99 延迟为 2300ms，超过 500ms 的 SLO。"),
    ("redis", "cart-service 连接 Redis 被拒绝（10.0.3.4:6379）。"),
    ("upstream", "order-service 调用 inventory 的上游请求在 5000ms 后超时。"),
    ("pool_stats", "inventory 的连接池已满：active=20/20，idle=0，pending=17。"),
    ("pool_stats", "inventory 的连接池没有空闲连接，17 个请求在等待。"),
]

CONTRADICTS = "verifier.contradicts_evidence"
UNSUPPORTED = "verifier.unsupported_fact"
WRONG_ROLE = "verifier.wrong_role"

# (cited line, forged Chinese claim, the rule that names it)
FORGED = [
    # a state reversed
    ("cpu", "payment-service 的 CPU 告警已恢复。", CONTRADICTS),
    ("memory", "order-service 的内存告警已解除。", CONTRADICTS),
    ("disk", "node-1 的磁盘告警已恢复正常。", CONTRADICTS),
    ("pool", "订单服务的连接池连接可用。", CONTRADICTS),
    ("oom", "order-service 的容器被驱逐（退出码 137）。", CONTRADICTS),
    ("login", "用户 alice 从 10.0.0.7 登录失败。", CONTRADICTS),
    ("login_failed", "用户 alice 从 10.0.0.7 登录成功。", CONTRADICTS),
    ("session", "sshd 关闭了用户 alice 的会话。", CONTRADICTS),
    ("redis", "cart-service 成功连接 Redis（10.0.3.4:6379）。", CONTRADICTS),
    ("pool_stats", "inventory 的连接池有充足的空闲连接。", CONTRADICTS),
    ("backlog", "billing-worker 的队列积压已清除。", UNSUPPORTED),
    # a wrong value
    ("cpu", "payment-service 的 CPU 使用率为 29%，超过 80% 阈值。", UNSUPPORTED),
    ("memory", "order-service 的内存使用率为 19%。", UNSUPPORTED),
    ("pool", "order-service 的连接池请求在 3000ms 后超时。", UNSUPPORTED),
    ("oom", "order-service 容器退出码为 143。", UNSUPPORTED),
    ("latency", "payment-service 的 p99 延迟为 230ms。", UNSUPPORTED),
    # a value given to another service or metric
    ("cpu", "order-service 的 CPU 使用率为 92%，超过 80% 阈值。", WRONG_ROLE),
    ("cpu", "payment-service 的内存使用率为 92%。", WRONG_ROLE),
]


@pytest.mark.parametrize(("cited", "text"), HONEST)
def test_an_honest_chinese_claim_of_english_lines_is_entailed(cited: str, text: str) -> None:
    result = _judge(text, cited)
    assert result.entailed, result.reasons


@pytest.mark.parametrize(("cited", "text", "rule"), FORGED)
def test_a_forged_chinese_claim_of_english_lines_is_not_entailed(cited: str, text: str, rule: str) -> None:
    result = _judge(text, cited)
    assert not result.entailed, text
    assert rule in result.rules, result.reasons


def test_a_translation_grounds_only_what_the_line_holds() -> None:
    # 连接池 is grounded by "HikariPool", 超时 by "timed out": a claim of the same line that adds
    # words it does not hold (磁盘, 证书过期) is still said by no verified line.
    result = _judge("order-service 的磁盘证书过期导致磁盘写满。", "pool")
    assert not result.entailed
    assert UNSUPPORTED in result.rules, result.reasons
