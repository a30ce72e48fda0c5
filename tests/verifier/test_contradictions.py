"""A claim whose own words reverse or overstate its genuine, verified evidence is never entailed
(issue 30, item 1): a state or outcome word whose opposite the evidence says
(``verifier.contradicts_evidence``), a state the evidence says neither way, a negation it has
none of, a quantifier or scope it does not hold (``verifier.unsupported_fact``); the same facts
said honestly, in either language, pass. Each case is a small invented session (refs in the
formats the recorder writes) judged by ``core.verifier.judge``, its binding passed by the
gatekeeper: only the claim's words are forged."""

from __future__ import annotations

import pytest

from core.contracts import ClaimResult
from core.verifier.rules import RULES
from tests.verifier.one_claim import judge_observation

SSH_LOGIN = ("sshd", "[2026-07-08T11:17:03+00:00][INFO][sshd] Accepted password for alice from 10.0.0.7 "
                     "port 52144 ssh2")
SSH_FAILED = ("sshd", "[2026-07-08T11:17:03+00:00][WARN][sshd] Failed password for alice from 10.0.0.7 "
                      "port 52144 ssh2")
SESSION = ("sshd", "[2026-07-08T11:17:04+00:00][INFO][sshd] pam_unix(sshd:session): session opened for "
                   "user alice by (uid=0)")
ALERT = ("payment-service", "HighCPUUsage firing, service=payment-service, current=92%, threshold=80%, "
                            "duration=25m, severity=warning")
POOL = ("order-service", "[2026-07-08T11:17:00+00:00][ERROR][order-service] HikariPool-1 - Connection is "
                         "not available, request timed out after 30000ms")
POOL_STATS = ("inventory", "[2026-04-01T08:00:00+00:00][WARN][inventory] DB pool stats: active=20/20, idle=0, "
                           "pending=17")
OOM = ("order-service", "[2026-07-08T11:10:00+00:00][ERROR][order-service] container order-service "
                        "OOMKilled (exit code 137), restart count 3")
BACKLOG = ("billing-worker", "[2026-07-08T11:00:00+00:00][WARN][billing-worker] queue backlog at 12000 "
                             "messages, consumer lag growing")
RESTART = ("order-service", "[2026-07-08T11:10:00+00:00][WARN][order-service] pod order-service-7d9f "
                            "restarted, restart count 3")

EVIDENCE = {"ssh_login": SSH_LOGIN, "ssh_failed": SSH_FAILED, "session": SESSION, "alert": ALERT,
            "pool": POOL, "pool_stats": POOL_STATS, "oom": OOM, "backlog": BACKLOG, "restart": RESTART}


def _judge(text: str, evidence: str) -> ClaimResult:
    service, ref = EVIDENCE[evidence]
    return judge_observation(text, service, [("$.logs[0]", ref)])


CONTRADICTS = "verifier.contradicts_evidence"
UNSUPPORTED = "verifier.unsupported_fact"

# (evidence, forged claim, the rule that names it).
FORGED = [
    # an outcome reversed
    ("ssh_login", "User alice failed to log in from 10.0.0.7.", CONTRADICTS),
    ("ssh_login", "alice 从 10.0.0.7 登录失败。", CONTRADICTS),
    ("ssh_login", "The login of alice from 10.0.0.7 was rejected.", CONTRADICTS),
    ("ssh_failed", "alice logged in successfully from 10.0.0.7.", CONTRADICTS),
    ("ssh_failed", "alice 从 10.0.0.7 登录成功。", CONTRADICTS),
    # a session's state reversed
    ("session", "sshd closed a session for user alice.", CONTRADICTS),
    ("session", "sshd 关闭了用户 alice 的会话。", CONTRADICTS),
    # an alert's state reversed
    ("alert", "The HighCPUUsage alert of payment-service has cleared.", CONTRADICTS),
    ("alert", "payment-service 的 HighCPUUsage 已恢复正常。", CONTRADICTS),
    ("alert", "HighCPUUsage on payment-service is resolved; CPU is at 92%.", CONTRADICTS),
    ("alert", "payment-service 的 HighCPUUsage 未触发。", CONTRADICTS),
    # the same word under the other polarity
    ("pool", "For order-service, Connection is available after 30000ms.", CONTRADICTS),
    ("pool", "order-service 的 HikariPool-1 连接可用。", CONTRADICTS),
    # one way of ending for another
    ("oom", "The order-service container was Evicted (exit code 137).", CONTRADICTS),
    ("oom", "order-service 的容器被驱逐（exit code 137）。", CONTRADICTS),
    # negations the verifier's other lists lack
    ("alert", "payment-service lacks a firing HighCPUUsage alert.", CONTRADICTS),
    ("alert", "payment-service is free of HighCPUUsage alerts.", UNSUPPORTED),
    ("alert", "payment-service 缺少 HighCPUUsage 告警。", UNSUPPORTED),
    # a state the evidence says neither way
    ("backlog", "The billing-worker queue backlog cleared.", UNSUPPORTED),
    ("backlog", "billing-worker 的队列积压已清除。", UNSUPPORTED),
    ("oom", "order-service is down in production: OOMKilled (exit code 137).", UNSUPPORTED),
    # quantifiers and scopes the evidence does not hold
    ("restart", "Every pod of order-service restarted, restart count 3.", UNSUPPORTED),
    ("restart", "All pods of order-service restarted 3 times.", UNSUPPORTED),
    ("restart", "order-service 的所有 pod 都重启了 3 次。", UNSUPPORTED),
    ("restart", "order-service 的每个 pod 都重启了 3 次。", UNSUPPORTED),
    ("pool_stats", "inventory has plenty of idle connections: active=20/20.", CONTRADICTS),  # idle=0
    # an action said done that no line says: the line's nouns, and a predicate of the claim's own
    ("pool", "The order-service HikariPool-1 connection pool was scaled up.", UNSUPPORTED),
    ("pool", "order-service 的数据库连接池已扩容。", UNSUPPORTED),
    ("pool", "order-service's HikariPool-1 connection pool was restarted.", UNSUPPORTED),
    ("oom", "The order-service container was rolled back (exit code 137).", UNSUPPORTED),
    ("alert", "payment-service 的 HighCPUUsage 告警已被静默。", UNSUPPORTED),
    ("alert", "The HighCPUUsage alert of payment-service was silenced at 92%.", UNSUPPORTED),
    ("pool_stats", "inventory 的连接池一半在用：active=20/20。", UNSUPPORTED),
    ("pool_stats", "The inventory pool is half used (active=20/20).", UNSUPPORTED),
]

# (evidence, honest claim): what the evidence says, in the claim's own words.
HONEST = [
    ("ssh_login", "User alice logged in successfully from 10.0.0.7 (Accepted password)."),
    ("ssh_login", "alice 从 10.0.0.7 登录成功（Accepted password）。"),
    ("ssh_failed", "Failed password: alice failed to log in from 10.0.0.7 port 52144."),
    ("ssh_failed", "alice 从 10.0.0.7 登录失败。"),
    ("session", "sshd opened a session for user alice."),
    ("session", "sshd 的 pam_unix 为 alice 打开了 session。"),
    ("alert", "The HighCPUUsage alert of payment-service is firing: CPU at 92%, above its 80% threshold."),
    ("alert", "payment-service 的 HighCPUUsage 告警正在触发，当前值 92%，阈值 80%。"),
    ("alert", "payment-service 的 HighCPUUsage 告警尚未恢复：当前值 92%，阈值 80%。"),
    ("alert", "The HighCPUUsage alert of payment-service has not cleared: CPU at 92%."),
    ("pool", "For order-service, Connection is not available after 30000ms."),
    ("pool", "order-service 的 HikariPool-1 连接不可用，30000ms 后超时。"),
    ("pool", "order-service's HikariPool-1 connection is unavailable; requests time out after 30000ms."),
    ("oom", "The order-service container was OOMKilled (exit code 137), restart count 3."),
    ("oom", "order-service 的 container 被 OOM 杀死（OOMKilled, exit code 137），重启次数 3。"),
    ("backlog", "The billing-worker queue backlog is at 12000 messages and consumer lag is growing."),
    ("restart", "Pod order-service-7d9f of order-service restarted, restart count 3."),
    ("restart", "Pod order-service-7d9f of order-service was restarted (restart count 3)."),
    ("restart", "order-service 的 pod order-service-7d9f 已重启，重启次数 3。"),
]


@pytest.mark.parametrize(("evidence", "text", "rule"), FORGED)
def test_a_claim_against_its_own_evidence_is_not_entailed(evidence: str, text: str, rule: str) -> None:
    result = _judge(text, evidence)
    assert not result.entailed, text
    assert rule in result.rules, result.reasons


@pytest.mark.parametrize(("evidence", "text"), HONEST)
def test_the_evidence_said_in_the_claims_own_words_is_entailed(evidence: str, text: str) -> None:
    result = _judge(text, evidence)
    assert result.entailed, result.reasons


def test_a_contradiction_is_a_false_statement_and_rejects() -> None:
    # It is not over-reach (LOW_CONFID) but the opposite of the cited line, as a forged
    # excerpt is: the answer's verdict is REJECT, and no repair turn coaches it away.
    rule = RULES[CONTRADICTS]
    assert (rule.grade, rule.target, rule.repairable) == ("REJECT", "claim", False)
    result = _judge("alice 从 10.0.0.7 登录失败。", "ssh_login")
    assert result.rule == CONTRADICTS
