"""The three tools: hits, misses, filters, argument errors, and search on real public corpora."""

from __future__ import annotations

import json
import re
import shutil
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
import yaml

from core.contracts import TOOL_NAMES
from core.errors import ToolArgumentError, UnknownToolError
from core.packs import Pack, load_pack
from core.tools import (
    TOOL_ARGS,
    TOOL_DESCRIPTIONS,
    LookupKnowledgeArgs,
    QueryLogsArgs,
    run_tool,
    validate_arguments,
)

REPO_ROOT = Path(__file__).resolve().parents[1]
DEMO_DIR = REPO_ROOT / "mockdata" / "demo"

POOL_ERROR = "HikariPool-1 - Connection is not available, request timed out after 30000ms"
POOL_STATS = "HikariCP pool stats: active=50/50, idle=0, waiting=32"
# The seed's list. "waiting" is a word a question may use for the pool, not one that tags a log
# line (real lines wait for many things).
SEED_POOL_SYNONYMS = ["HikariCP", "HikariPool", "connection pool", "数据库连接池", "连接池耗尽",
                      "active=50/50", "waiting", "request timed out after 30000ms"]


def logs(pack: Pack, **arguments: object) -> dict[str, Any]:
    return run_tool(pack, "query_logs", dict(arguments))


def messages(result: dict[str, Any]) -> list[str]:
    return [entry["message"] for entry in result["logs"]]


# ---------------------------------------------------------------- query_metrics


def test_metrics_by_service(demo_pack: Pack) -> None:
    result = run_tool(demo_pack, "query_metrics", {"service": "Payment-Service"})
    assert result["success"] is True and result["total"] == 1
    assert result["message"] == "找到 1 条告警"
    alert = result["alerts"][0]
    assert (alert["alert_name"], alert["current"], alert["duration"]) == ("HighCPUUsage", "92%", "25m")
    assert list(result["series"]) == ["payment-service/cpu_usage_percent"]
    assert [p["value"] for p in result["series"]["payment-service/cpu_usage_percent"]["points"]][-1] == 92.0


def test_metrics_by_alert_name_is_case_and_separator_insensitive(demo_pack: Pack) -> None:
    for name in ("HighMemoryUsage", "highmemoryusage", "high_memory_usage"):
        result = run_tool(demo_pack, "query_metrics", {"alert_name": name})
        assert [a["service"] for a in result["alerts"]] == ["order-service"], name
        assert result["alerts"][0]["details"] == ["JVM heap 3.8GB/4GB"]
        assert list(result["series"]) == ["order-service/memory_usage_percent"]


def test_metrics_filters_combine_and_miss_cleanly(demo_pack: Pack) -> None:
    assert run_tool(demo_pack, "query_metrics", {})["total"] == 3
    assert run_tool(demo_pack, "query_metrics", {"state": "FIRING"})["total"] == 3
    assert run_tool(demo_pack, "query_metrics", {"state": "resolved"})["total"] == 0
    wrong_pair = run_tool(demo_pack, "query_metrics",
                          {"service": "order-service", "alert_name": "HighCPUUsage"})
    assert (wrong_pair["alerts"], wrong_pair["total"], wrong_pair["series"]) == ([], 0, None)
    missing = run_tool(demo_pack, "query_metrics", {"service": "inventory-service"})
    assert missing == {"success": True, "alerts": [], "series": None, "total": 0,
                       "message": "未找到匹配的告警"}


# ---------------------------------------------------------------- query_logs


@pytest.mark.parametrize("query", SEED_POOL_SYNONYMS)
def test_every_seed_synonym_finds_the_order_service_pool_lines(demo_pack: Pack, query: str) -> None:
    result = logs(demo_pack, service="order-service", query=query)
    assert result["success"] is True
    assert messages(result) == [POOL_STATS, POOL_ERROR, POOL_ERROR, POOL_ERROR]
    assert result["total"] == 4


@pytest.mark.parametrize("query", SEED_POOL_SYNONYMS)
def test_pool_synonyms_without_a_service_find_only_pool_lines(demo_pack: Pack, query: str) -> None:
    result = logs(demo_pack, query=query)
    assert set(messages(result)) == {POOL_STATS, POOL_ERROR}


def test_inventory_service_has_no_pool_lines_and_no_placeholder(demo_pack: Pack) -> None:
    expected = {"success": True, "logs": [], "groups": [], "total": 0, "message": "未找到匹配的日志"}
    assert logs(demo_pack, service="inventory-service", query="HikariCP") == expected
    assert logs(demo_pack, query="inventory-service HikariCP 连接池耗尽") == expected
    assert logs(demo_pack, query="确认 inventory-service 是否存在 HikariCP 连接池耗尽") == expected


def test_memory_query_returns_every_sample_and_the_full_gc_line(demo_pack: Pack) -> None:
    result = logs(demo_pack, service="order-service", query="内存")
    found = messages(result)
    samples = [m for m in found if m.startswith("内存使用率过高")]
    assert [m.split(",")[0] for m in samples] == [
        "内存使用率过高: 91.0%", "内存使用率过高: 89.8%", "内存使用率过高: 88.6%",
        "内存使用率过高: 87.4%", "内存使用率过高: 86.2%"]
    assert "Full GC 频繁: 10分钟内 15 次 Full GC, 平均耗时 850ms" in found
    # Memory covers heap: the OutOfMemoryError ("Java heap space") line is a memory line too.
    assert set(found) - set(samples) <= {"Full GC 频繁: 10分钟内 15 次 Full GC, 平均耗时 850ms",
                                         "java.lang.OutOfMemoryError: Java heap space"}
    assert all(e["service"] == "order-service" for e in result["logs"])
    assert POOL_STATS not in found


def test_results_are_newest_first_and_limited(demo_pack: Pack) -> None:
    full = logs(demo_pack, service="payment-service")
    stamps = [e["timestamp"] for e in full["logs"]]
    assert stamps == sorted(stamps, reverse=True)
    assert {e["service"] for e in full["logs"]} == {"payment-service"}
    short = logs(demo_pack, service="payment-service", limit=2)
    assert short["total"] == full["total"] == 7
    assert short["logs"] == full["logs"][:2]
    groups = len(full["groups"])
    assert groups >= 1 and short["message"] == f"找到 7 条日志（{groups} 类），返回最相关的 2 条"


def test_level_topic_and_identifier_filters(demo_pack: Pack) -> None:
    errors = logs(demo_pack, service="order-service", level="error")
    assert {e["level"] for e in errors["logs"]} == {"ERROR"} and errors["total"] == 4
    # level is a minimum: WARNING (= WARN) covers the ERROR lines too
    warnings = logs(demo_pack, service="order-service", level="WARNING", topic="connection_pool")
    assert messages(warnings) == [POOL_STATS] + [POOL_ERROR] * 3
    only_warn = logs(demo_pack, service="order-service", level="WARNING", topic="connection_pool",
                     exclude=["error"])
    assert messages(only_warn) == [POOL_STATS]
    slow = logs(demo_pack, service="user-service", query="慢请求")
    assert slow["total"] == 5
    orders = logs(demo_pack, query="/api/v1/users/orders")
    assert {e["service"] for e in orders["logs"]} == {"user-service"} and orders["total"] == 3
    assert logs(demo_pack, query="/api/v1/user")["total"] == 0  # an identifier is matched whole
    assert logs(demo_pack, query="/api/v1/users")["total"] == 7  # a path prefix is whole up to "/"
    assert logs(demo_pack, query="500")["total"] == 2  # "500" is not inside "1250000"
    assert messages(logs(demo_pack, query="kubernetes OOMKilled"))[0].startswith("Pod production/")
    assert logs(demo_pack, topic="HikariCP")["total"] == 4  # a synonym names its topic


def test_plain_words_must_all_appear_when_no_topic_is_named(demo_pack: Pack) -> None:
    timeouts = logs(demo_pack, query="timeout")
    assert timeouts["total"] == 3 and all("timeout" in m for m in messages(timeouts))
    assert logs(demo_pack, query="timeout quantum")["total"] == 0
    assert logs(demo_pack, query="订单123")["total"] == 0


def test_tool_output_never_holds_a_placeholder_service(demo_pack: Pack) -> None:
    calls = [("query_logs", {"query": q}) for q in ("HikariCP", "nothing-at-all", "订单123", "")]
    calls += [("query_metrics", {"service": "generic"}), ("lookup_knowledge", {"query": "连接池"})]
    for tool, arguments in calls:
        assert "generic-service" not in json.dumps(run_tool(demo_pack, tool, arguments))


def test_tools_are_deterministic(demo_pack: Pack) -> None:
    for tool, arguments in (("query_logs", {"query": "内存"}), ("lookup_knowledge", {"query": "慢"})):
        assert run_tool(demo_pack, tool, arguments) == run_tool(demo_pack, tool, arguments)


def test_mixed_zones_sort_in_time_and_filters_intersect(tmp_path: Path) -> None:
    pack = tmp_path / "mixed"
    shutil.copytree(DEMO_DIR, pack)
    noise = [{"timestamp": f"2026-07-08T10:{i // 60:02d}:{i % 60:02d}+08:00", "level": "INFO",
              "service": "noisy-service", "message": f"heartbeat {i}"} for i in range(2000)]
    quiet = [
        {"timestamp": "2026-07-08T03:30:00+00:00", "level": "INFO", "service": "quiet-service",
         "message": "Redis timeout on redis-cluster-01"},  # 11:30 at +08:00: the newest line
        {"timestamp": "2026-07-08T11:00:00+08:00", "level": "ERROR", "service": "quiet-service",
         "message": "Redis timeout again"},
        {"timestamp": "2026-07-08T09:00:00", "level": "INFO", "service": "quiet-service",
         "message": "redis ok"},  # no zone: read in the pack clock's zone (+08:00)
    ]
    (pack / "logs.jsonl").write_text(
        "".join(json.dumps(e) + "\n" for e in quiet + noise), encoding="utf-8")
    loaded = load_pack(str(pack))
    everything = logs(loaded, limit=3)
    assert [e["message"] for e in everything["logs"]][:2] == [
        "Redis timeout on redis-cluster-01", "Redis timeout again"]
    assert everything["total"] == 2003
    found = logs(loaded, service="quiet-service", level="INFO", query="redis")
    assert messages(found) == ["Redis timeout on redis-cluster-01", "Redis timeout again", "redis ok"]
    found = logs(loaded, service="quiet-service", level="ERROR", query="redis")
    assert messages(found) == ["Redis timeout again"]
    assert logs(loaded, query="heartbeat 1999")["total"] == 1
    assert logs(loaded, service="noisy-service", query="heartbeat", limit=1)["total"] == 2000


# ---------------------------------------------------------------- lookup_knowledge


def test_knowledge_ranks_the_matching_runbook_first(demo_pack: Pack) -> None:
    result = run_tool(demo_pack, "lookup_knowledge", {"query": "HikariCP 连接池耗尽 怎么排查"})
    blocks = result["evidence_blocks"]
    assert len(blocks) == 3 and result["total"] >= 3
    assert {b["source"] for b in blocks} == {"runbooks/connection-pool-exhaustion.md"}
    assert [b["score"] for b in blocks] == sorted((b["score"] for b in blocks), reverse=True)
    checks = run_tool(demo_pack, "lookup_knowledge", {"query": "CPU 使用率过高 检查项", "top_k": 1})
    assert checks["evidence_blocks"][0]["title"] == "CPU 使用率过高 (HighCPUUsage) / 检查项 (What to check)"
    assert "jstack" in checks["evidence_blocks"][0]["content"]
    english = run_tool(demo_pack, "lookup_knowledge", {"query": "disk full on /data"})
    assert english["evidence_blocks"][0]["source"] == "runbooks/high-disk.md"


def test_knowledge_without_relevant_section_is_empty(demo_pack: Pack) -> None:
    for query in ("量子计算", "order-123", "banana smoothie recipe"):
        result = run_tool(demo_pack, "lookup_knowledge", {"query": query})
        assert (result["evidence_blocks"], result["total"], result["success"]) == ([], 0, True), query


# ---------------------------------------------------------------- arguments


def test_tool_tables_cover_exactly_the_three_tools() -> None:
    assert tuple(TOOL_ARGS) == tuple(TOOL_DESCRIPTIONS) == TOOL_NAMES
    assert all(len(text) > 100 for text in TOOL_DESCRIPTIONS.values())


@pytest.mark.parametrize("tool, arguments, message", [
    ("query_logs", {"limit": 500}, "query_logs: limit: must be <= 200 (got 500)"),
    ("query_logs", {"limit": 0}, "query_logs: limit: must be >= 1 (got 0)"),
    ("query_logs", {"limit": "many"}, 'query_logs: limit: must be an integer (got "many")'),
    ("query_logs", {"servce": "x"},
     "query_logs: servce: unknown argument (allowed: service, query, terms, match, level, exclude, "
     "since, until, topic, limit)"),
    ("query_logs", {"topic": "weather"}, 'query_logs: topic: unknown topic (known: cpu, memory'),
    ("lookup_knowledge", {}, "lookup_knowledge: query: required"),
    ("lookup_knowledge", {"query": "  "}, 'lookup_knowledge: query: must not be empty (got "  ")'),
    ("lookup_knowledge", {"query": "x", "top_k": 21}, "lookup_knowledge: top_k: must be <= 20 (got 21)"),
    ("query_metrics", {"service": 3}, "query_metrics: service: must be a string (got 3)"),
    ("query_metrics", ["service"], 'query_metrics: arguments must be a JSON object, got ["service"]'),
])
def test_bad_arguments_fail_with_one_clear_line(tool: str, arguments: Any, message: str) -> None:
    with pytest.raises(ToolArgumentError) as caught:
        validate_arguments(tool, arguments)
    assert str(caught.value).startswith(message)
    assert "\n" not in str(caught.value)


def test_unknown_tool_and_argument_normalisation(demo_pack: Pack) -> None:
    with pytest.raises(UnknownToolError, match="unknown tool 'query_traces' \\(known: query_metrics"):
        run_tool(demo_pack, "query_traces", {})
    args = validate_arguments("query_logs", {"service": "  ", "topic": "连接池", "query": None})
    assert isinstance(args, QueryLogsArgs)
    assert (args.service, args.topic, args.query, args.limit) == (None, "connection_pool", None, 20)
    knowledge = validate_arguments("lookup_knowledge", {"query": " 内存 "})
    assert isinstance(knowledge, LookupKnowledgeArgs) and knowledge.query == "内存"


# ---------------------------------------------------------------- public corpora


def _hdfs_entry(line: str) -> dict[str, str]:
    """A loghub HDFS line ("081109 203615 148 INFO dfs.DataNode$PacketResponder: ...")."""
    date, time, _pid, level, component, message = re.match(
        r"(\d{6}) (\d{6}) (\d+) (\w+) ([^:]+): (.*)", line).groups()
    moment = datetime.strptime(date + time, "%y%m%d%H%M%S").isoformat() + "+00:00"
    return {"timestamp": moment, "level": level, "service": "hdfs-datanode" if "DataNode" in component
            else "hdfs-namenode", "message": message, "source": component}


def test_search_finds_public_corpora_data(tmp_path: Path, corpora_dir: Path) -> None:
    pack = tmp_path / "corpora-pack"
    (pack / "runbooks").mkdir(parents=True)
    shutil.copy(DEMO_DIR / "pack.yaml", pack / "pack.yaml")
    (pack / "series.yaml").write_text("{}\n", encoding="utf-8")
    rules = yaml.safe_load((corpora_dir / "awesome-prometheus-alerts/dist/rules/host-and-hardware/"
                            "node-exporter.yml").read_text(encoding="utf-8"))
    alerts = [{"alert_name": rule["alert"], "service": "node-exporter", "state": "firing",
               "severity": rule["labels"]["severity"], "summary": rule["annotations"]["summary"]}
              for rule in rules["groups"][0]["rules"][:5]]
    (pack / "alerts.yaml").write_text(yaml.safe_dump(alerts), encoding="utf-8")
    hdfs = (corpora_dir / "loghub/HDFS/HDFS_2k.log").read_text(encoding="utf-8").splitlines()[:200]
    (pack / "logs.jsonl").write_text(
        "".join(json.dumps(_hdfs_entry(line)) + "\n" for line in hdfs), encoding="utf-8")
    for name in ("KubePodCrashLooping.md", "KubeNodeNotReady.md"):
        shutil.copy(corpora_dir / "kubesphere-alert-runbooks/content.zh/runbooks/kubernetes" / name,
                    pack / "runbooks" / name)
    loaded = load_pack(str(pack))

    assert run_tool(loaded, "query_metrics", {"alert_name": "hostoutofmemory"})["total"] == 1
    block = re.search(r"blk_-?\d+", hdfs[0]).group()
    by_block = logs(loaded, query=block)
    assert by_block["total"] >= 1 and all(block in e["message"] for e in by_block["logs"])
    responders = logs(loaded, query="PacketResponder terminating", limit=200)
    expected = sum(1 for line in hdfs if "PacketResponder" in line and "terminating" in line)
    assert responders["total"] == expected > 0
    assert logs(loaded, query="HikariCP")["total"] == 0
    crash = run_tool(loaded, "lookup_knowledge", {"query": "KubePodCrashLooping 诊断"})
    assert crash["evidence_blocks"][0]["source"] == "runbooks/KubePodCrashLooping.md"
    assert "诊断" in crash["evidence_blocks"][0]["title"]
    typo = run_tool(loaded, "lookup_knowledge", {"query": "KubeNodeNotRedy"})
    assert typo["evidence_blocks"][0]["source"] == "runbooks/KubeNodeNotReady.md"
