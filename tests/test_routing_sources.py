"""A tool whose source the world lacks is a failed call, never an empty success, and never
the ground of a "nothing found" answer (a world of logs alone asked about an alert, a world of
alerts alone asked about logs)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from core.cli import main
from core.contracts import Claim, EvidenceBinding, ExecutorOutput, SessionDocument
from core.gatekeeper.check import check_citations
from core.pipeline import ask
from core.recorder import Recorder
from core.sources.base import World
from core.sources.pack import load_world
from tests.hand_sources import DISK_ALERT, FixedAlerts

REPO = Path(__file__).resolve().parents[1]
NOW = datetime(2015, 10, 18, 18, 30, tzinfo=UTC)


@pytest.fixture()
def logs_only_pack(tmp_path: Path) -> Path:
    """The demo's logs alone: no alerts, series or runbooks."""
    pack = tmp_path / "logsonly"
    pack.mkdir()
    (pack / "logs.jsonl").write_bytes((REPO / "mockdata/demo/logs.jsonl").read_bytes())
    (pack / "pack.yaml").write_text("name: logsonly\n", encoding="utf-8")
    return pack


@pytest.fixture()
def alerts_only_pack(tmp_path: Path) -> Path:
    """The demo's alerts alone: no logs, series or runbooks."""
    pack = tmp_path / "alertsonly"
    pack.mkdir()
    (pack / "alerts.yaml").write_bytes((REPO / "mockdata/demo/alerts.yaml").read_bytes())
    (pack / "pack.yaml").write_text("name: alertsonly\n", encoding="utf-8")
    return pack


def _failed_calls(document: SessionDocument, tool_name: str) -> list[str]:
    return [str(inv.output["error"]) for inv in document.invocations
            if inv.tool_name == tool_name and inv.output.get("failure") == "no_source"
            and inv.retrieval_details is not None
            and inv.retrieval_details.evidence_status == "error"]


def _claim_types(document: SessionDocument) -> list[str | None]:
    output = document.executor_output
    return [claim.claim_type for claim in output.claims] if output else []


def test_a_pack_has_a_source_only_for_the_data_it_holds(logs_only_pack: Path,
                                                          alerts_only_pack: Path) -> None:
    logs_only, alerts_only = load_world(logs_only_pack), load_world(alerts_only_pack)
    assert logs_only.logs is not None and logs_only.metrics is None and logs_only.knowledge is None
    assert alerts_only.metrics is not None and alerts_only.logs is None
    demo = load_world("demo")
    assert None not in (demo.metrics, demo.logs, demo.knowledge)


@pytest.mark.parametrize(("capability_tool", "arguments", "reason"), [
    ("query_metrics", {"alert_name": "HighCPUUsage"}, "this world has no metrics source"),
    ("lookup_knowledge", {"query": "HighCPUUsage"}, "this world has no knowledge source"),
])
def test_a_call_without_a_source_fails_and_is_recorded(logs_only_pack: Path, capability_tool: str,
                                                       arguments: dict[str, str], reason: str) -> None:
    recorder = Recorder(world=load_world(logs_only_pack), session_id="s-nosource")
    invocation = recorder.call(capability_tool, arguments)
    assert invocation.output["success"] is False and reason in invocation.output["error"]
    assert invocation.output["failure"] == "no_source"
    assert invocation.retrieval_details is not None
    assert invocation.retrieval_details.evidence_status == "error"
    assert recorder.invocations == [invocation]


@pytest.mark.parametrize(("question", "not_searched"), [
    ("is HighCPUUsage firing on order-service?", "Not searched: this world has no metrics source"),
    ("order-service 的 HighCPUUsage 告警是否在触发？", "未检索：当前数据中没有告警与指标数据源"),
])
def test_an_alert_question_on_a_world_of_logs_is_not_answered_no(
        logs_only_pack: Path, question: str, not_searched: str) -> None:
    document = ask(question, pack=str(logs_only_pack))
    assert _failed_calls(document, "query_metrics")  # the alerts were asked for, and could not be
    assert "negative_observation" not in _claim_types(document)  # empty logs are not a "no"
    assert document.verifier_result is not None and document.verifier_result.verdict != "PASS"
    assert document.outcome is None
    answer = document.composer_output.user_facing_answer if document.composer_output else ""
    assert not_searched in answer
    assert not answer.startswith(("No ", "否"))


@pytest.mark.parametrize(("question", "not_searched"), [
    ("any ERROR logs in order-service?", "Not searched: this world has no log source"),
    ("order-service 有没有 ERROR 日志？", "未检索：当前数据中没有日志数据源"),
])
def test_a_log_question_on_a_world_of_alerts_searches_nothing(
        alerts_only_pack: Path, question: str, not_searched: str) -> None:
    document = ask(question, pack=str(alerts_only_pack))
    assert _failed_calls(document, "query_logs")
    assert _claim_types(document) == []
    assert document.verifier_result is not None and document.verifier_result.verdict != "PASS"
    answer = document.composer_output.user_facing_answer if document.composer_output else ""
    assert not_searched in answer
    assert "searched: query_logs" not in answer and "已查询" not in answer  # nothing was


def test_a_hand_made_world_asked_for_a_level_and_an_alert_says_what_it_lacks() -> None:
    world = World(name="alerts-only", now=NOW, metrics=FixedAlerts([DISK_ALERT]))
    document = ask("hadoop-mapreduce 有没有 ERROR 日志和 HostOutOfDiskSpace 告警？", pack=world)
    assert _failed_calls(document, "query_logs")  # a log level is asked: the logs are needed
    answer = document.composer_output.user_facing_answer if document.composer_output else ""
    assert "未检索：当前数据中没有日志数据源" in answer
    assert "negative_observation" not in _claim_types(document)


def test_a_world_with_every_source_still_answers_no() -> None:
    # The same question on the demo (alerts, logs and runbooks): a verified absence.
    document = ask("is HighCPUUsage firing on order-service?", pack="demo")
    assert document.verifier_result is not None and document.verifier_result.verdict == "PASS"
    assert document.outcome == "absent" and "negative_observation" in _claim_types(document)
    answer = document.composer_output.user_facing_answer if document.composer_output else ""
    assert answer.startswith("No ") and "Not searched" not in answer


def test_tools_call_on_a_world_without_the_source_fails(alerts_only_pack: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["tools", "call", "query_logs", "--pack", str(alerts_only_pack), "--no-store",
                 "--args", '{"service": "order-service"}'])
    printed = capsys.readouterr()
    assert code == 1
    assert "this world has no log source" in printed.err
    assert "evidence_status: error" in printed.out  # the failed call is still shown
    assert main(["tools", "call", "query_metrics", "--pack", str(alerts_only_pack), "--no-store",
                 "--args", '{"alert_name": "HighCPUUsage"}']) == 0


def test_the_gatekeeper_refuses_an_absence_citing_a_call_without_a_source(alerts_only_pack: Path) -> None:
    recorder = Recorder(world=load_world(alerts_only_pack), session_id="s-gk")
    failed = recorder.call("query_logs", {"service": "order-service", "level": "ERROR"})
    claim = Claim(claim_id="claim-1", claim_type="negative_observation",
                  claim_text="No ERROR log lines were found for order-service",
                  subject_services=["order-service"],
                  evidence_bindings=[EvidenceBinding(
                      tool_name="query_logs", source_invocation_id=failed.invocation_id,
                      raw_path=None,
                      evidence_excerpt="query_logs(service=order-service, level=ERROR) -> total=0")])
    result = check_citations(session_id="s-gk", invocations=recorder.invocations,
                             executor_output=ExecutorOutput(claims=[claim]))
    assert result.status == "fail"
    assert any("a failed call is not an absence" in issue.message for issue in result.errors)
