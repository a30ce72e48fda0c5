"""The rules executor: real tool calls on the demo pack, claims built from evidence refs only."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from core.agents.rules.evidence import EvidenceItem, render_logs
from core.agents.rules.executor import RulesExecutor
from core.agents.rules.planner import RulesPlanner
from core.contracts import EvidenceRef, ExecutorOutput, Invocation, LogEntry, ParseStatus, Plan
from core.events import Event, ToolCalled, ToolReturned
from core.language.lexicon import services_in, topics_in
from core.recorder import Recorder
from core.sources.base import World
from core.verifier import facts


class Run:
    """One executor run: its plan, events, output and the invocations it made."""

    def __init__(self, question: str, world: World) -> None:
        self.plan: Plan = RulesPlanner().plan(question, world)
        recorder = Recorder(world=world, session_id="s-test-executor")
        self.events: list[Event] = []
        generator = RulesExecutor().run(self.plan, recorder)
        while True:
            try:
                self.events.append(next(generator))
            except StopIteration as finished:
                self.output: ExecutorOutput
                self.parse_status: ParseStatus
                self.output, self.parse_status = finished.value
                break
        self.invocations: list[Invocation] = recorder.invocations

    def invocation(self, invocation_id: int | None) -> Invocation:
        return next(inv for inv in self.invocations if inv.invocation_id == invocation_id)

    def ref_text(self, invocation_id: int | None, raw_path: str | None) -> str:
        details = self.invocation(invocation_id).retrieval_details
        assert details is not None
        return next(ref.text for ref in details.evidence_refs if ref.raw_path == raw_path)


@pytest.fixture
def run(demo_world: World) -> Callable[[str], Run]:
    return lambda question: Run(question, demo_world)


def test_memory_question_gives_one_claim_with_alert_log_and_trend_bindings(run: Callable[[str], Run]) -> None:
    result = run("请排查 order-service 当前是否存在 HighMemoryUsage 告警，只确认内存使用率过高这一件事。")
    assert result.parse_status.status == "valid"
    [claim] = result.output.claims
    assert claim.claim_type == "observation"
    paths = [binding.raw_path or "" for binding in claim.evidence_bindings]
    assert any(path.startswith("$.alerts[") for path in paths)
    assert sum(path.startswith("$.logs[") for path in paths) >= 5  # the samples and the Full GC line
    assert "91%" in claim.claim_text and "86.2%" in claim.claim_text  # alert value and trend start
    assert claim.subject_services == ["order-service"] and claim.subject_topics == ["memory"]
    assert "OutOfMemoryError" not in claim.claim_text  # an OOM line is another subject
    assert result.output.hypotheses == []  # narrow: no suspicion next to the facts
    assert "泄漏" not in claim.claim_text


@pytest.mark.parametrize("question", [
    "请排查 order-service 当前是否存在 HighMemoryUsage 告警，只确认内存使用率过高这一件事。",
    "Only confirm whether user-service has a SlowResponse alert and slow request logs.",
    "确认 order-service 是否存在 HikariCP 连接池耗尽",
    "只确认 log-collector 的 /data 磁盘使用率是否过高。",
    "mysql 有慢查询吗",
])
def test_every_excerpt_quotes_its_ref_and_every_claim_fact_is_in_its_excerpts(run: Callable[[str], Run],
                                                                              question: str) -> None:
    result = run(question)
    assert result.output.claims
    for claim in result.output.claims:
        excerpts = []
        for binding in claim.evidence_bindings:
            assert binding.tool_name == result.invocation(binding.source_invocation_id).tool_name
            ref_text = result.ref_text(binding.source_invocation_id, binding.raw_path)
            assert binding.evidence_excerpt == ref_text
            excerpts.append(binding.evidence_excerpt)
        assert facts.missing(claim.claim_text, excerpts) == []


def test_tool_events_come_in_called_returned_pairs(run: Callable[[str], Run]) -> None:
    result = run("只确认 payment-service 当前是否存在 CPU 使用率过高告警")
    kinds = [type(event) for event in result.events]
    assert kinds == [ToolCalled, ToolReturned] * len(result.invocations)
    returned = [event.invocation for event in result.events if isinstance(event, ToolReturned)]
    assert returned == result.invocations


def test_absent_subject_is_a_negative_observation_citing_the_empty_queries(run: Callable[[str], Run]) -> None:
    result = run("确认 inventory-service 是否存在 HikariCP 连接池耗尽")
    [claim] = result.output.claims
    assert claim.claim_type == "negative_observation"
    assert claim.subject_services == ["inventory-service"]
    assert claim.subject_topics == ["connection_pool"]
    assert claim.evidence_bindings
    for binding in claim.evidence_bindings:
        assert binding.raw_path is None
        cited = result.invocation(binding.source_invocation_id)
        assert cited.retrieval_details is not None
        assert cited.retrieval_details.evidence_status == "no_evidence"
    # Nothing borrowed from the service that does have pool logs.
    assert "order-service" not in claim.claim_text and "50/50" not in claim.claim_text


def test_alert_named_alone_finds_its_service_through_the_metrics_call(run: Callable[[str], Run]) -> None:
    result = run("只确认 HighCPUUsage 告警")
    first, *rest = result.invocations
    assert first.tool_name == "query_metrics" and first.arguments == {"alert_name": "HighCPUUsage"}
    logs_calls = [inv for inv in rest if inv.tool_name == "query_logs"]
    assert logs_calls and all(inv.arguments.get("service") == "payment-service"
                              for inv in logs_calls)


def test_exclusions_are_never_queried_nor_cited(run: Callable[[str], Run]) -> None:
    result = run("只确认 HighCPUUsage，不要分析订单123、OOM、数据库慢查询、连接池或 user-service")
    for invocation in result.invocations:
        arguments = " ".join(str(value) for value in invocation.arguments.values())
        assert "user-service" not in arguments
        assert not {"oom", "slow_query", "connection_pool"} & {
            *topics_in(arguments), str(invocation.arguments.get("topic"))}
    for claim in result.output.claims:
        for binding in claim.evidence_bindings:
            assert "user-service" not in services_in(binding.evidence_excerpt)
            assert not {"oom", "slow_query", "connection_pool"} & set(
                topics_in(binding.evidence_excerpt))
    assert [claim.subject_services for claim in result.output.claims] == [["payment-service"]]


def test_runbooks_feed_actions_never_claims(run: Callable[[str], Run]) -> None:
    result = run("确认 order-service 是否存在 HikariCP 连接池耗尽")
    assert any(inv.tool_name == "lookup_knowledge" for inv in result.invocations)
    for claim in result.output.claims:
        assert all(b.tool_name != "lookup_knowledge" for b in claim.evidence_bindings)
    runbook_actions = [action for action in result.output.recommended_actions
                       if any(b.tool_name == "lookup_knowledge" for b in action.evidence_bindings)]
    assert runbook_actions
    for action in result.output.recommended_actions:  # evidence gathering, not fixes
        assert not re.search(r"扩容|重启|回滚|修复|scale|restart|rollback|fix", action.action_text,
                             re.IGNORECASE)


def test_broad_question_adds_hypotheses_based_on_claims(run: Callable[[str], Run]) -> None:
    result = run("payment-service 现在有什么问题？")
    assert not result.plan.narrow
    claim_ids = {claim.claim_id for claim in result.output.claims}
    assert len(claim_ids) >= 2  # the CPU alert and the Redis timeouts
    assert result.output.hypotheses
    for hypothesis in result.output.hypotheses:
        assert set(hypothesis.basis_claim_ids) <= claim_ids
    assert all(claim.claim_type == "observation" for claim in result.output.claims)


def test_narrow_question_keeps_at_most_two_claims(run: Callable[[str], Run]) -> None:
    result = run("只确认 order-service 的内存、连接池和消息队列")
    assert len(result.plan.topics) == 3
    assert 1 <= len(result.output.claims) <= 2


def test_events_from_other_sources_about_the_service_are_found(run: Callable[[str], Run]) -> None:
    result = run("只确认 order-service 的 Pod 是否因为 OOMKilled 被重启。")
    texts = " ".join(claim.claim_text for claim in result.output.claims)
    assert "OOMKilled" in texts
    assert all(claim.claim_type == "observation" for claim in result.output.claims)


def _items(*messages: str) -> list[EvidenceItem]:
    invocation = Invocation(invocation_id=1, tool_name="query_logs", arguments={}, output={})
    return [EvidenceItem(invocation=invocation, ref=EvidenceRef(raw_path=f"$.logs[{index}]", text=message),
                         kind="log", service="nginx", text=message,
                         log=LogEntry(timestamp=f"2024-03-01T10:00:0{index}+00:00", level="ERROR",
                                      service="nginx", message=message))
            for index, message in enumerate(messages)]


def test_same_shaped_lines_are_a_trend_only_when_their_number_is_a_measurement() -> None:
    """"86.2% → 87.4%" tells a measurement's course; two statuses of one request line joined by an
    arrow read as a status that changed: the newest line is quoted as it is."""
    statuses = _items('10.0.0.4 "POST /api/pay HTTP/1.1" 503 87 "-" "curl/8"',
                      '10.0.0.4 "POST /api/pay HTTP/1.1" 502 166 "-" "curl/8"')
    assert render_logs(statuses) == ['10.0.0.4 "POST /api/pay HTTP/1.1" 502 166 "-" "curl/8"']
    usage = _items("内存使用率过高: 86.2%, JVM", "内存使用率过高: 87.4%, JVM")
    assert render_logs(usage) == ["内存使用率过高: 86.2% → 87.4%, JVM"]
