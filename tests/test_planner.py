"""The rules planner: services, topics, alert names, narrow scope and exclusions, zh and en."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from core.agents.rules.planner import RulesPlanner, question_language
from core.contracts import Plan, SessionDocument
from core.language.scope import exclusion_clauses, narrow_markers
from core.sources.base import World

PlanOf = Callable[[str], Plan]  # the plan_of fixture: a question -> its plan on the demo world


@pytest.fixture
def plan_of(demo_world: World) -> PlanOf:
    planner = RulesPlanner()

    def plan(question: str) -> Plan:
        return planner.plan(question, demo_world)

    return plan


@pytest.mark.parametrize("question, services, topics, alerts", [
    ("只确认 payment-service 当前是否存在 CPU 使用率过高告警", ["payment-service"], ["cpu"], []),
    ("Only confirm whether payment-service currently has a high CPU usage alert.",
     ["payment-service"], ["cpu"], []),
    ("请排查 order-service 当前是否存在 HighMemoryUsage 告警，只确认内存使用率过高这一件事。",
     ["order-service"], ["memory"], ["HighMemoryUsage"]),
    ("只确认 user-service 是否存在 SlowResponse 告警和慢请求日志", ["user-service"], ["latency"],
     ["SlowResponse"]),
    ("Does order-service show HikariCP connection pool exhaustion?", ["order-service"],
     ["connection_pool"], []),
    ("order-service 的数据库连接池是否耗尽？只确认日志。", ["order-service"], ["connection_pool"], []),
    ("只确认 mysql 是否有慢查询日志。", ["mysql"], ["slow_query"], []),
    ("Only check whether disk usage on log-collector's /data volume is too high.",
     ["log-collector"], ["disk"], []),
    ("payment-service 有没有 Redis 超时？", ["payment-service"], ["redis"], []),
])
def test_subjects_of_paraphrases(plan_of: PlanOf, question: str, services: list[str],
                                 topics: list[str], alerts: list[str]) -> None:
    plan = plan_of(question)
    assert plan.services == services
    assert plan.topics == topics
    assert plan.alert_names == alerts


def test_alert_named_without_service_maps_to_its_topic_and_leaves_services_empty(plan_of: PlanOf) -> None:
    plan = plan_of("只确认 HighCPUUsage 告警")
    assert plan.alert_names == ["HighCPUUsage"]
    assert plan.topics == ["cpu"]
    assert plan.services == []  # found from the alert when the executor runs
    assert any("HighCPUUsage" in note for note in plan.notes)


@pytest.mark.parametrize("question", [
    "只确认 HighCPUUsage，不要分析订单123、OOM、数据库慢查询、连接池或 user-service",
    "Only confirm HighCPUUsage; do not analyse order 123, OOM, database slow queries, "
    "the connection pool or user-service.",
])
def test_seed_exclusions_in_both_languages(plan_of: PlanOf, question: str) -> None:
    plan = plan_of(question)
    excluded = plan.exclusions
    assert excluded.services == ["user-service"]
    assert set(excluded.topics) == {"oom", "slow_query", "connection_pool"}
    assert {"订单123", "order-123"} <= set(excluded.terms)
    assert plan.alert_names == ["HighCPUUsage"]
    assert plan.topics == ["cpu"]
    assert not set(plan.services) & set(excluded.services)
    assert not set(plan.topics) & set(excluded.topics)
    assert plan.narrow


def test_exclusion_clause_ends_where_the_question_turns_back(plan_of: PlanOf) -> None:
    plan = plan_of("不要分析连接池，只确认 order-service 的内存告警")
    assert plan.exclusions.topics == ["connection_pool"]
    assert plan.services == ["order-service"]
    assert plan.topics == ["memory"]


@pytest.mark.parametrize("question", ["Ignore HikariCP: what else did order-service log?",
                                      "忽略 HikariCP：order-service 还有什么日志？"])
def test_exclusion_clause_ends_at_a_colon_after_its_items(plan_of: PlanOf, question: str) -> None:
    plan = plan_of(question)
    assert plan.exclusions.topics == ["connection_pool"] and plan.exclusions.services == []
    assert plan.services == ["order-service"]


def test_a_colon_after_the_trigger_introduces_the_items() -> None:
    for question, items in (("exclude: HikariCP, order-service", ("HikariCP", "order-service")),
                            ("不要分析：订单123", ("订单123",))):
        [clause] = exclusion_clauses(question)
        assert clause.items == items, question


def test_besides_clause_closes_at_zhiwai(plan_of: PlanOf) -> None:
    plan = plan_of("除了 user-service 之外，还有哪些服务有告警？")
    assert plan.exclusions.services == ["user-service"]
    assert plan.services == []
    assert "query_metrics" in plan.tools


@pytest.mark.parametrize("question", ["order-service 删除了多少个数据块？", "order-service 清除了哪些缓存？",
                                      "order-service 移除了哪些节点？", "order-service 要不要扩容？",
                                      "order-service 的日志看不看得到？"])
def test_words_holding_a_trigger_are_no_exclusion_clause(question: str) -> None:
    """删除了 is "deleted": its 除了 is not "besides" (which had excluded the question's words);
    要不要 asks "should it?", its 不要 is not "do not"."""
    assert exclusion_clauses(question) == []


def test_excluded_subject_never_becomes_a_target(plan_of: PlanOf) -> None:
    plan = plan_of("Only confirm order-service's HighMemoryUsage alert. "
                   "Do not analyse the message queue or OOM.")
    assert plan.services == ["order-service"]
    assert "mq" in plan.exclusions.topics and "oom" in plan.exclusions.topics
    assert "mq" not in plan.topics and "oom" not in plan.topics


def test_unknown_term_in_an_exclusion_is_kept_as_a_forbidden_term(plan_of: PlanOf) -> None:
    plan = plan_of("只看 order-service 的内存告警，不要分析原因。")
    assert "原因" in plan.exclusions.terms
    assert plan.topics == ["memory"]


@pytest.mark.parametrize("question, narrow", [
    ("只确认 payment-service 当前是否存在 CPU 使用率过高告警", True),
    ("payment-service 的 CPU 告警现在还在吗？只看这个。", True),
    ("确认 inventory-service 是否存在 HikariCP 连接池耗尽", True),
    ("Only confirm whether user-service has a SlowResponse alert.", True),
    ("Is there HikariCP connection pool exhaustion in inventory-service?", True),
    ("排查 order-service 的内存问题", False),
    ("What is wrong with payment-service?", False),
])
def test_narrow_markers(plan_of: PlanOf, question: str, narrow: bool) -> None:
    plan = plan_of(question)
    assert plan.narrow is narrow
    assert bool(plan.scope_markers) is narrow


def test_language_follows_the_question() -> None:
    assert question_language("只确认 CPU") == "zh"
    assert question_language("Only confirm CPU") == "en"


def test_tools_follow_topics(plan_of: PlanOf) -> None:
    assert plan_of("确认 order-service 是否存在 HikariCP 连接池耗尽").tools == [
        "query_logs", "lookup_knowledge"]
    assert plan_of("只确认 payment-service 的 CPU 告警").tools == [
        "query_metrics", "query_logs", "lookup_knowledge"]
    # Alerts only, no topic: the logs would be a scope leak.
    assert plan_of("What alerts are firing right now?").tools == ["query_metrics"]


def test_unknown_service_is_planned_and_noted(plan_of: PlanOf) -> None:
    plan = plan_of("Only confirm whether billing-service has a HighMemoryUsage alert.")
    assert plan.services == [] and plan.reading.unknown_subjects == ["billing-service"]
    assert any("billing-service" in note for note in plan.notes)


def test_scope_helpers_directly() -> None:
    assert narrow_markers("只确认 X，不要扩展") == ["只确认", "不要扩展"]
    clauses = exclusion_clauses("Check CPU but do not look at memory or GC, only the alert.")
    assert [clause.items for clause in clauses] == [("memory", "GC")]


@pytest.mark.parametrize("question, excluded_topics", [
    ("只排查 payment-service 的 CPU，别分析 Redis", {"redis"}),
    ("Confirm the SlowResponse alert on user-service, skip the database and HTTP 500s.",
     {"slow_query", "http_error"}),
    ("Check order-service memory, excluding GC and OOM.", {"gc", "oom"}),
])
def test_colloquial_exclusions_narrow_the_question(plan_of: PlanOf, question: str, excluded_topics: set[str]) -> None:
    plan = plan_of(question)
    assert set(plan.exclusions.topics) == excluded_topics
    assert not set(plan.topics) & excluded_topics
    assert plan.narrow  # excluding a subject is a scope limit too


def test_the_plan_carries_the_question_reading_and_keeps_its_words_out_of_its_own_fields(
        plan_of: PlanOf) -> None:
    plan = plan_of("只确认 order-service 最近一小时是否有 ERROR 级别的 HikariCP 日志，不要看 GC")
    assert plan.reading.level == "ERROR" and plan.reading.topics == plan.topics == ["connection_pool"]
    assert plan.reading.since is not None and plan.reading.exclusions == plan.exclusions
    assert (plan.reading.services, plan.reading.scope_markers) == (plan.services, plan.scope_markers)
    dumped = plan.model_dump(mode="json")
    assert not {"terms", "keywords", "level", "since", "searchable"} & dumped.keys()
    assert Plan.model_validate(dumped) == plan


def test_a_plan_stored_before_the_reading_was_one_value_loads_with_its_words_in_its_reading() -> None:
    old = {"question": "q", "language": "en", "services": ["order-service"], "topics": ["connection_pool"],
           "tools": ["query_logs"], "terms": ["HikariCP"], "keywords": [["pool"]], "concepts": ["timeout"],
           "compounds": [["connection_pool", "timeout"]], "level": "ERROR", "unknown_subjects": ["x-service"],
           "searchable": False, "alert_states": ["firing"], "since": "2026-01-01T00:00:00",
           "until": "2026-01-01T01:00:00"}
    document = SessionDocument.model_validate({"session_id": "s-old", "question": "q", "plan": old})
    assert document.plan is not None
    reading = document.plan.reading
    assert (reading.terms, reading.keywords, reading.concepts) == (["HikariCP"], [["pool"]], ["timeout"])
    assert (reading.compounds, reading.level, reading.unknown_subjects) == (
        [["connection_pool", "timeout"]], "ERROR", ["x-service"])
    assert (reading.searchable, reading.alert_states) == (False, ["firing"])
    assert (reading.since, reading.until) == ("2026-01-01T00:00:00", "2026-01-01T01:00:00")
    assert document.plan.services == ["order-service"] and document.plan.tools == ["query_logs"]
    assert "terms" not in document.plan.model_dump()
