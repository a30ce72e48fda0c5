"""Quantifiers as far as the cited evidence bears them out (issue 30, item 1): a universal
("every", "all", "each", 所有, 全部, 每个) is held when the claim counts or names its members and
its cited lines are exactly those members; an amount word ("plenty", 充足, "half") is judged
against the value its evidence gives what it quantifies (``idle=0`` contradicts "plenty of idle
connections"); a zero value bears out "no idle connections". Each case is an observation judged
against refs the gatekeeper passed (``tests/verifier/one_claim.py``): only the claim's words vary.
"""

from __future__ import annotations

import pytest

from core.contracts import ClaimResult
from tests.verifier.one_claim import judge_observation

LINES = {
    "pod_a": ("order-service", "[2026-07-08T11:10:00+00:00][WARN][order-service] pod order-service-7d9f "
                               "restarted, restart count 3"),
    "pod_a_again": ("order-service", "[2026-07-08T11:12:00+00:00][WARN][order-service] pod order-service-7d9f "
                                     "restarted, restart count 4"),
    "pod_b": ("order-service", "[2026-07-08T11:11:00+00:00][WARN][order-service] pod order-service-8a1c "
                               "restarted, restart count 1"),
    "pod_c": ("order-service", "[2026-07-08T11:11:30+00:00][WARN][order-service] pod order-service-b2e4 "
                               "restarted, restart count 2"),
    "cpu": ("payment-service", "HighCPUUsage firing, service=payment-service, current=92%, threshold=80%, "
                               "duration=25m, severity=warning"),
    "latency": ("payment-service", "HighLatency firing, service=payment-service, current=2300ms, "
                                   "threshold=500ms, duration=10m, severity=critical"),
    "idle_many": ("inventory", "[2026-04-01T08:00:00+00:00][INFO][inventory] DB pool stats: active=10/50, "
                               "idle=40, pending=0"),
    "idle_few": ("inventory", "[2026-04-01T08:00:00+00:00][INFO][inventory] DB pool stats: active=45/50, "
                              "idle=5, pending=0"),
    "idle_none": ("inventory", "[2026-04-01T08:00:00+00:00][WARN][inventory] DB pool stats: active=20/20, "
                               "idle=0, pending=17"),
    "idle_of_total": ("inventory", "[2026-04-01T08:00:00+00:00][INFO][inventory] pool idle=40, total=50"),
    "pod_d": ("order-service", "[2026-07-08T11:13:00+00:00][WARN][order-service] pod order-service-c5f0 "
                               "restarted, restart count 1"),
    "half": ("inventory", "[2026-04-01T08:00:00+00:00][INFO][inventory] DB pool stats: active=25/50, "
                          "idle=25, pending=0"),
}


def _judge(text: str, cited: str) -> ClaimResult:
    lines = [LINES[name] for name in cited.split("+")]
    return judge_observation(text, lines[0][0], [(f"$.logs[{index}]", line) for index, (_, line) in enumerate(lines)])


CONTRADICTS = "verifier.contradicts_evidence"
UNSUPPORTED = "verifier.unsupported_fact"

# (cited lines, honest claim)
HONEST = [
    # the claim counts its members, and cites each
    ("pod_a+pod_b+pod_c", "All 3 pods of order-service restarted."),
    ("pod_a+pod_b+pod_c", "Each of the 3 order-service pods restarted."),
    ("pod_a+pod_b+pod_c", "All three order-service pods restarted: order-service-7d9f, order-service-8a1c "
                          "and order-service-b2e4."),
    ("pod_a+pod_b+pod_c", "order-service 的 3 个 pod 全部重启了。"),
    ("pod_a+pod_b+pod_c", "order-service 的所有 3 个 pod 都重启了。"),
    ("cpu+latency", "Each of the two alerts of payment-service is firing."),
    ("cpu+latency", "payment-service 的两个告警全部在触发。"),
    # the claim names its members, and cites each
    ("pod_a+pod_b", "Pods order-service-7d9f and order-service-8a1c all restarted."),
    ("pod_a+pod_b+pod_c+pod_d", "order-service 的全部四个 pod 均已重启。"),
    ("cpu+latency", "HighCPUUsage and HighLatency of payment-service are all firing."),
    # an amount its value bears out
    ("idle_many", "inventory has plenty of idle connections (idle=40, active=10/50)."),
    ("idle_many", "inventory 的连接池空闲连接充足（idle=40）。"),
    ("idle_of_total", "inventory has ample idle connections: idle=40, total=50."),
    ("half", "The inventory pool is half used: active=25/50."),
    # a negation a zero value bears out
    ("idle_none", "inventory 的连接池没有空闲连接，17 个请求在等待。"),
    ("idle_none", "The inventory pool has no idle connections: idle=0, pending=17."),
]

# (cited lines, forged claim, the rule that names it)
FORGED = [
    # a universal its citations do not count
    ("pod_a", "Every pod of order-service restarted.", UNSUPPORTED),
    ("pod_a", "order-service 的所有 pod 都重启了。", UNSUPPORTED),
    ("pod_a+pod_b+pod_c", "All pods of order-service restarted.", UNSUPPORTED),  # how many is not said
    ("pod_a+pod_b", "All 3 pods of order-service restarted.", UNSUPPORTED),  # two cited
    ("pod_a+pod_a_again", "Both restarts show that all 2 pods of order-service restarted.", UNSUPPORTED),
    ("cpu", "Each of the two alerts of payment-service is firing.", UNSUPPORTED),
    ("cpu", "payment-service 的每个告警都在触发。", UNSUPPORTED),
    ("pod_a+pod_b", "order-service-7d9f restarted: all pods of order-service restarted.", UNSUPPORTED),
    # an amount its value contradicts or does not reach
    ("idle_none", "inventory has plenty of idle connections.", CONTRADICTS),
    ("idle_none", "inventory 的连接池有充足的空闲连接。", CONTRADICTS),
    ("idle_none", "inventory has lots of idle connections.", CONTRADICTS),
    ("idle_few", "inventory has plenty of idle connections.", UNSUPPORTED),
    ("idle_few", "inventory 的空闲连接充足。", UNSUPPORTED),
    ("idle_many", "The inventory pool is half used.", UNSUPPORTED),
    ("idle_none", "The inventory pool is half used (active=20/20).", UNSUPPORTED),
    ("idle_none", "inventory 的连接池一半在用：active=20/20。", UNSUPPORTED),
    # a negation no zero value bears out
    ("idle_few", "inventory 的连接池没有空闲连接。", UNSUPPORTED),
    ("idle_none", "The inventory pool has no pending requests.", UNSUPPORTED),
]


@pytest.mark.parametrize(("cited", "text"), HONEST)
def test_a_quantifier_its_evidence_bears_out_is_entailed(cited: str, text: str) -> None:
    result = _judge(text, cited)
    assert result.entailed, result.reasons


@pytest.mark.parametrize(("cited", "text", "rule"), FORGED)
def test_a_quantifier_beyond_its_evidence_is_not_entailed(cited: str, text: str, rule: str) -> None:
    result = _judge(text, cited)
    assert not result.entailed, text
    assert rule in result.rules, result.reasons


def test_one_member_cited_twice_is_one_member() -> None:
    # Two lines of one pod (its times and counts apart) count one pod: "both pods" is two.
    result = _judge("All 2 pods of order-service restarted.", "pod_a+pod_a_again")
    assert not result.entailed
    assert any("'all'" in reason for reason in result.reasons), result.reasons
