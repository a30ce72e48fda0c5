"""The topic and identifier vocabulary: what fires, what must not, and in which order."""

from __future__ import annotations

import re

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from core.language import lexicon
from core.language.lexicon import (
    TOPICS,
    alert_names_in,
    declared_topics,
    expand_topics,
    services_in,
    tag_lines,
    topic_matches,
    topic_mentions,
    topics_in,
)
from core.language.text import normalize

REQUIRED_TOPICS = {"cpu", "memory", "gc", "latency", "http_error", "connection_pool", "disk",
                   "redis", "mq", "slow_query", "oom", "restart"}


def test_required_topics_have_labels_and_synonyms() -> None:
    assert set(TOPICS) >= REQUIRED_TOPICS
    for name, topic in TOPICS.items():
        assert topic.name == name and topic.label_zh and topic.label_en and topic.synonyms


@pytest.mark.parametrize("text, expected", [
    ("只确认内存使用率过高这一件事", ["memory"]),
    ("请排查 order-service 当前是否存在 HighMemoryUsage 告警", ["memory"]),
    ("只确认 payment-service 当前是否存在 CPU 使用率过高告警", ["cpu"]),
    ("CPU使用率过高: 92.0%", ["cpu"]),
    ("ＣＰＵ 使用率", ["cpu"]),  # full-width letters
    ("user-service P99 响应慢", ["latency"]),
    ("慢请求", ["latency"]),
    ("HTTP 500 查询超时", ["http_error"]),
    ("确认 order-service 是否存在 HikariCP 连接池耗尽", ["connection_pool"]),
    ("数据库连接池", ["connection_pool"]),  # not also "数据库" (slow_query): longest wins
    ("数据库慢查询", ["slow_query"]),
    ("MySQL slow query with full scan", ["slow_query"]),
    ("Full GC 频繁", ["gc"]),
    ("java.lang.OutOfMemoryError: Java heap space", ["oom"]),
    ("OOMKilled exit code 137", ["oom"]),
    ("pod restart CrashLoopBackOff 重启", ["restart"]),
    ("/data 磁盘使用率 89%", ["disk"]),
    ("No space left on device", ["disk"]),
    ("Container killed by YARN for exceeding memory limits", ["oom"]),
    ('"GET /v2/servers/detail HTTP/1.1" status: 503 len: 211', ["http_error"]),
    ("redis-cluster-01:6379 Redis timeout 缓存", ["redis"]),
    ("order-process-queue 消息积压", ["mq"]),
    ("只确认 HighCPUUsage，不要分析订单123、OOM、数据库慢查询、连接池或 user-service",
     ["cpu", "oom", "slow_query", "connection_pool"]),
])
def test_topics_in_reads_chinese_and_english(text: str, expected: list[str]) -> None:
    assert topics_in(text) == expected


@pytest.mark.parametrize("text", [
    "gcloud compute instances list",  # gc inside a word
    "dbus-daemon started",  # db inside a word
    "mqtt broker connected",  # mq inside a word
    "/datastore/backup finished",  # /data inside a longer path segment
    "oomx and cpux and heapdumper",
    "订单对账任务执行完成",
])
def test_topics_in_ignores_parts_of_other_words(text: str) -> None:
    assert topics_in(text) == []


def test_multi_word_synonyms_accept_separators_but_not_glued_words() -> None:
    for spelling in ("connection pool", "connection-pool", "connection_pool", "Connection  Pool"):
        assert topics_in(spelling) == ["connection_pool"], spelling
    assert topics_in("connectionpoolfactory") == []


@pytest.fixture(params=["line by line", "corpus scans"])
def tagging(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """``tag_lines`` both ways: few lines are read one by one, a corpus through two scans."""
    if request.param == "corpus scans":
        monkeypatch.setattr(lexicon, "_SMALL_CORPUS_CHARS", -1)
    return str(request.param)


def test_every_synonym_names_only_its_own_topic(tagging: str) -> None:
    # Holds tag_lines (bulk tagging) equal to per-line topic_mentions.
    for name, topic in TOPICS.items():
        for synonym in topic.synonyms:
            assert topics_in(synonym) == [name], synonym
            assert tag_lines([normalize(synonym)]) == {name: [0]}, synonym


def test_topic_mentions_give_spans_in_normalised_text() -> None:
    text = normalize("HikariCP pool stats: active=50/50, idle=0, waiting=32")
    mentions = topic_mentions(text)
    assert [m.matched for m in mentions] == ["hikaricp", "pool stats", "active=50/50", "waiting"]
    assert [m.matched for m in topic_mentions(text, in_logs=True)] == [
        "hikaricp", "pool stats", "active=50/50"]
    assert all(text[m.start:m.end] == m.matched for m in mentions)


def test_topic_matches_and_expansion() -> None:
    assert topic_matches("memory", "JVM堆内存: 3.8GB/4GB")
    assert topic_matches("memory", "Full GC 频繁")  # memory covers GC
    assert not topic_matches("gc", "内存使用率过高")
    assert not topic_matches("slow_query", "数据库连接池耗尽")
    assert expand_topics(["memory", "cpu"]) == ["memory", "gc", "cpu"]
    with pytest.raises(ValueError, match="unknown topic"):
        topic_matches("nonsense", "anything")


def test_tag_lines_indexes_each_line_once(tagging: str) -> None:
    lines = [normalize(t) for t in (
        "内存使用率过高: 91.0%, JVM堆内存: 3.8GB/4GB, GC次数: 128",
        "PacketResponder 1 for block blk_38865049064139660 terminating",
        "HikariPool-1 - Connection is not available, request timed out after 30000ms",
        "gcloud dbus",
        "Full GC 频繁",
    )]
    assert tag_lines(lines) == {"memory": [0], "gc": [0, 4], "connection_pool": [2]}


def test_shapes_are_read_where_no_synonym_is(tagging: str) -> None:
    """A shape (an access log's 5xx status) tags its line like a synonym, and no synonym holds
    a shape (so tagging line by line, which drops a shape overlapping a synonym, and the corpus
    scans, which do not, agree)."""
    synonyms = [normalize(word) for topic in TOPICS.values() for word in (*topic.synonyms, *topic.asks)]
    for topic in TOPICS.values():
        for shape in topic.shapes:
            assert not any(re.search(shape, synonym) for synonym in synonyms), shape
    lines = [normalize(line) for line in ('10.0.0.1 - - "GET /a HTTP/1.1" 503 12 "-" "curl/8"',
                                          '"GET /a HTTP/1.1" 200 503', '"GET / HTTP/2" 500 0 bad gateway')]
    assert tag_lines(lines) == {"http_error": [0, 2]}
    assert [m.matched for m in topic_mentions(lines[2], in_logs=True)] == ['http/2" 500', "bad gateway"]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.sampled_from(["cpu", "使用率", "内存", "gc", " ", "-", "connection", "pool",
                                          "连接池", "oom", "slow query", "x", "1", "超时", "timeout",
                                          'http/1.1" ', "503", "status: 5"]),
                         max_size=8).map("".join), max_size=6))
@example(["slow query", "timeout"])  # the corpus scan once joined lines with a mark \s matches
@example(["cpu使用率gc"])  # a word right after a synonym ending in Chinese (its scan consumed 率)
def test_both_ways_of_tagging_agree(texts: list[str]) -> None:
    lines = [normalize(text) for text in texts]
    line_by_line = tag_lines(lines)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(lexicon, "_SMALL_CORPUS_CHARS", -1)
        assert tag_lines(lines) == line_by_line


def test_services_in_finds_service_tokens_pods_and_known_names() -> None:
    text = ("Pod pod-order-service-5c7d8e9f1-m3n2p restarted; user-service slow; "
            "redis-cluster-01:6379 timeout; MySQL slow query; Payment-Service")
    assert services_in(text, ["mysql", "redis-cluster-01", "kernel"]) == [
        "order-service", "user-service", "redis-cluster-01", "mysql", "payment-service"]
    assert services_in("no services here, just a microservice") == []
    assert services_in("kernel: oom-kill", ["kernel"]) == ["kernel"]
    assert services_in("kernelspace", ["kernel"]) == []


def test_alert_names_in_is_literal_and_case_insensitive() -> None:
    known = ["HighCPUUsage", "HighMemoryUsage", "SlowResponse"]
    assert alert_names_in("只确认 highcpuusage 和 SlowResponse", known) == ["HighCPUUsage", "SlowResponse"]
    assert alert_names_in("CPU 使用率过高", known) == []  # topic words do not imply alerts
    assert alert_names_in("HighCPUUsageCritical", known) == []


@pytest.mark.parametrize("language", ["zh", "en"])
def test_every_topic_label_the_rules_executor_writes_names_its_topic(language: str) -> None:
    # The gatekeeper reads a negative observation's topics from its text: the label the rules
    # executor writes (digit words dropped, "HTTP 错误") must read as the topic it stands for.
    from core.agents.rules.wording import topic_label

    for name in TOPICS:
        label = topic_label(name, language)  # type: ignore[arg-type]
        assert name in topics_in(f"未检索到 svc-a 的{label}相关记录" if language == "zh"
                                 else f"No records of {label} were found"), (name, label)


def test_declared_topics_read_names_a_model_writes_for_a_topic() -> None:
    assert declared_topics(["memory", "cpu_usage_percent", "HikariCP", "慢请求", "memory"]) == [
        "memory", "cpu", "connection_pool", "latency"]
    assert declared_topics(["order 123", ""]) == []
