"""Evidence-ref recipes, the recorder and the trace summary."""

from __future__ import annotations

import pytest

from core.contracts import AlertRefFields, Invocation, KnowledgeRefFields, LogRefFields, RetrievalDetails
from core.errors import ToolArgumentError, UnknownToolError
from core.recorder import Recorder
from core.sources.base import World
from core.store import Store
from core.store import repository as repo
from core.tools.spec import extract_evidence_refs
from core.trace import build_trace_summary

MEMORY_ALERT = {
    "alert_name": "HighMemoryUsage", "state": "firing", "service": "order-service",
    "namespace": "production", "pod": "pod-order-service-5c7d8e9f1-m3n2p", "current": "91%",
    "threshold": "85%", "duration": "15m", "details": ["JVM heap 3.8GB/4GB"],
}


def test_alert_recipe_carries_every_fact() -> None:
    details = extract_evidence_refs("query_metrics", {"success": True, "alerts": [MEMORY_ALERT]})
    (ref,) = details.evidence_refs
    assert details.evidence_status == "supported"
    assert ref.raw_path == "$.alerts[0]"
    assert ref.text.startswith("HighMemoryUsage firing, service=order-service, current=91%, "
                               "threshold=85%, duration=15m")
    for fact in ("pod-order-service-5c7d8e9f1-m3n2p", "production", "JVM heap 3.8GB/4GB"):
        assert fact in ref.text
    assert ref.fields == AlertRefFields(alert_name="HighMemoryUsage", state="firing",
                                        service="order-service", current="91%", threshold="85%",
                                        duration="15m")


def test_log_recipe_is_timestamp_level_service_message() -> None:
    log = {"timestamp": "2026-07-08 11:17:00", "level": "WARN", "service": "order-service",
           "message": "内存使用率过高: 91.0%, JVM堆内存: 3.8GB/4GB, GC次数: 128"}
    details = extract_evidence_refs("query_logs", {"success": True, "logs": [log, log]})
    assert [r.raw_path for r in details.evidence_refs] == ["$.logs[0]", "$.logs[1]"]
    assert details.evidence_refs[0].text == (
        "[2026-07-08 11:17:00][WARN][order-service] 内存使用率过高: 91.0%, JVM堆内存: 3.8GB/4GB, GC次数: 128")
    assert details.evidence_refs[0].fields == LogRefFields(**log)


def test_knowledge_recipe_is_title_source_content() -> None:
    block = {"title": "连接池耗尽 / 检查项", "source": "runbooks/connection-pool.md",
             "content": "查看 HikariCP active/idle/waiting。", "score": 0.8}
    (ref,) = extract_evidence_refs("lookup_knowledge",
                                   {"success": True, "evidence_blocks": [block]}).evidence_refs
    assert ref.raw_path == "$.evidence_blocks[0]"
    assert ref.text == "连接池耗尽 / 检查项 (runbooks/connection-pool.md): 查看 HikariCP active/idle/waiting。"
    assert ref.fields == KnowledgeRefFields(title="连接池耗尽 / 检查项", source="runbooks/connection-pool.md")


@pytest.mark.parametrize("tool_name,key", [("query_metrics", "alerts"), ("query_logs", "logs"),
                                           ("lookup_knowledge", "evidence_blocks")])
def test_empty_result_is_no_evidence_not_an_error(tool_name: str, key: str) -> None:
    details = extract_evidence_refs(tool_name, {"success": True, key: [], "total": 0})
    assert details == RetrievalDetails(evidence_status="no_evidence", evidence_refs=[])


def test_failed_call_is_error_and_malformed_entries_yield_no_ref() -> None:
    assert extract_evidence_refs("query_logs", {"success": False}).evidence_status == "error"
    details = extract_evidence_refs("query_logs", {"success": True, "logs": [{"message": "x"}]})
    assert details.evidence_status == "no_evidence"  # no invented timestamp/level/service


def test_recorder_persists_calls_with_store_wide_ids(tmp_store: Store, demo_world: World) -> None:
    repo.create_session(tmp_store, session_id="s-r", question="q", pack="demo", engines={})
    recorder = Recorder(world=demo_world, session_id="s-r", store=tmp_store)
    hit = recorder.call("query_logs", {"service": "order-service", "query": "HikariCP"})
    miss = recorder.call("query_logs", {"service": "inventory-service", "query": "HikariCP"})
    assert hit.retrieval_details.evidence_status == "supported"
    assert miss.retrieval_details.evidence_status == "no_evidence"
    assert miss.output["logs"] == [] and miss.output["total"] == 0
    stored = repo.list_invocations(tmp_store, session_id="s-r")
    assert stored == recorder.invocations
    assert len({i.invocation_id for i in stored}) == 2


def test_recorder_rejects_bad_calls_without_recording(tmp_store: Store, demo_world: World) -> None:
    recorder = Recorder(world=demo_world, session_id="s-bad", store=tmp_store)
    with pytest.raises(UnknownToolError):
        recorder.call("query_everything", {})
    with pytest.raises(ToolArgumentError):
        recorder.call("query_logs", {"limit": 500})
    assert repo.list_invocations(tmp_store, session_id="s-bad") == []
    failed = recorder.call("query_logs", {"limit": "many"}, record_failure=True)
    assert failed.output["success"] is False
    assert failed.retrieval_details.evidence_status == "error"


def _invocation(invocation_id: int, tool_name: str, texts: list[str]) -> Invocation:
    return Invocation(invocation_id=invocation_id, tool_name=tool_name, output={},
                      retrieval_details=extract_evidence_refs(tool_name, {
                          "success": True,
                          "logs": [{"timestamp": "t", "level": "WARN", "service": "s",
                                    "message": text} for text in texts]}))


def test_trace_summary_groups_by_tool_and_counts_no_hits() -> None:
    summary = build_trace_summary([
        _invocation(1, "query_logs", ["a", "b"]), _invocation(2, "query_logs", []),
        _invocation(3, "lookup_knowledge", [])])
    logs, knowledge = summary
    assert (logs.tool_name, logs.source_invocation_ids, logs.evidence_level) == (
        "query_logs", [1, 2], "direct")
    assert (logs.invocation_count, logs.no_hit_invocation_count) == (2, 1)
    assert logs.output_summary.startswith("log_evidence: [t][WARN][s] a")
    assert (knowledge.evidence_level, knowledge.no_hit_invocation_count) == ("none", 1)


def test_group_recipe_refs_follow_the_lines_and_skip_malformed_groups() -> None:
    group = {"template": "Connection broken <*>", "count": 291, "service": "zookeeper", "level": "WARN",
             "first_timestamp": "2015-07-29 19:04:12", "last_timestamp": "2015-07-29 21:11:05"}
    log = {"timestamp": "2015-07-29 21:11:05", "level": "WARN", "service": "zookeeper",
           "message": "Connection broken for id 188978561024"}
    details = extract_evidence_refs("query_logs", {"success": True, "logs": [log],
                                                   "groups": [{"template": "no count"}, group]})
    assert [ref.raw_path for ref in details.evidence_refs] == ["$.logs[0]", "$.groups[1]"]
    assert details.evidence_refs[1].text == ('291 lines like "Connection broken <*>" [WARN][zookeeper] '
                                             "from 2015-07-29 19:04:12 to 2015-07-29 21:11:05")
    # Groups belong to query_logs only: another tool's output never yields a group ref.
    assert extract_evidence_refs("query_metrics", {"success": True, "groups": [group]}).evidence_refs == []
