"""The source seam: a pack as sources, worlds without packs, and what invocations record."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.agents.rules.planner import RulesPlanner
from core.contracts import Claim, EvidenceBinding, ExecutorOutput, Invocation
from core.errors import PackError
from core.gatekeeper import check_citations
from core.packs import Pack
from core.pipeline import ask
from core.recorder import Recorder
from core.sources.base import World
from core.sources.pack import load_world, pack_world
from core.store import Store
from core.store import repository as repo
from core.tools.spec import extract_evidence_refs
from core.trace import build_trace_summary
from tests.hand_sources import RM_GROUP_TEXT, FixedAlerts, GroupedLogs, hadoop_world

REPO_ROOT = Path(__file__).resolve().parents[1]


# ---------------------------------------------------------------- the pack as sources


def test_a_pack_world_has_one_source_per_capability(demo_pack: Pack) -> None:
    world = pack_world(demo_pack)
    assert (world.name, world.now, world.example_questions) == (
        "demo", demo_pack.now, tuple(demo_pack.example_questions))
    assert [s.source_id for s in world.sources()] == ["pack:demo"] * 3
    described = {d.capability: d for d in world.describe()}
    assert described["metrics"].holds == {"alerts": len(demo_pack.alerts), "series": len(demo_pack.series)}
    # the logs are searched by the log store: lines, and the templates they group into
    assert described["logs"].holds["lines"] == len(demo_pack.logs)
    assert 0 < described["logs"].holds["templates"] < len(demo_pack.logs)
    assert described["knowledge"].holds["runbooks"] == len(demo_pack.runbooks)
    assert {d.kind for d in described.values()} == {"pack"}


def test_a_pack_worlds_vocabulary_is_read_from_its_data(demo_pack: Pack) -> None:
    vocabulary = pack_world(demo_pack).vocabulary
    assert list(vocabulary.services) == demo_pack.services
    assert list(vocabulary.alert_names) == list(dict.fromkeys(a.alert_name for a in demo_pack.alerts))
    assert set(vocabulary.metrics) == {s.metric for s in demo_pack.series.values()}
    assert set(vocabulary.log_services) == {entry.service for entry in demo_pack.logs}
    assert vocabulary.knows_service("ORDER-service") and not vocabulary.knows_service("nope-service")


def test_load_world_takes_a_name_a_folder_a_pack_or_a_world(demo_pack: Pack) -> None:
    by_name, by_path = load_world("demo"), load_world(REPO_ROOT / "mockdata" / "demo")
    assert by_name.name == by_path.name == load_world(demo_pack).name == "demo"
    world = hadoop_world()
    assert load_world(world) is world


# ---------------------------------------------------------------- what an invocation records


def test_pack_invocations_record_the_source_and_the_validated_request(tmp_store: Store,
                                                                       demo_world: World) -> None:
    repo.create_session(tmp_store, session_id="s-src", question="q", pack="demo", engines={})
    recorder = Recorder(world=demo_world, session_id="s-src", store=tmp_store)
    invocation = recorder.call("query_logs", {"service": " order-service ", "query": "HikariCP"})
    assert invocation.source == "pack:demo"
    # The exact request: validated (stripped) arguments with defaults; unset filters left out.
    assert invocation.request is not None
    assert invocation.request["service"] == "order-service" and invocation.request["limit"] == 20
    assert "level" not in invocation.request
    (stored,) = repo.list_invocations(tmp_store, session_id="s-src")
    assert (stored.source, stored.request) == (invocation.source, invocation.request)
    assert repo.get_invocation(tmp_store, invocation_id=invocation.invocation_id) == stored


def test_a_source_outside_any_pack_is_recorded_with_its_own_id_and_request(tmp_store: Store) -> None:
    logs = GroupedLogs()
    repo.create_session(tmp_store, session_id="s-store", question="q", pack="hadoop", engines={})
    recorder = Recorder(world=hadoop_world(logs=logs), session_id="s-store", store=tmp_store)
    invocation = recorder.call("query_logs", {"service": "hadoop-mapreduce", "terms": ["CONTACTING RM"]})
    assert invocation.source == "logstore:/var/lib/superbiz/hadoop.db"
    assert invocation.request == {"method": "SELECT", "service": "hadoop-mapreduce",
                                  "terms": ["CONTACTING RM"]}
    assert [args.terms for args in logs.asked] == [["CONTACTING RM"]]  # validated args reached it
    details = invocation.retrieval_details
    assert details is not None and details.evidence_status == "supported"
    assert [ref.raw_path for ref in details.evidence_refs] == ["$.logs[0]", "$.logs[1]", "$.groups[0]"]
    assert details.evidence_refs[2].text == RM_GROUP_TEXT
    assert repo.list_invocations(tmp_store, session_id="s-store") == [invocation]


def test_a_world_without_a_source_records_a_failed_call_instead_of_raising() -> None:
    recorder = Recorder(world=hadoop_world(with_logs=False), session_id="s-nologs")
    invocation = recorder.call("query_logs", {"service": "hadoop-mapreduce"})
    assert invocation.output["success"] is False and "this world has no log source" in invocation.output["error"]
    assert invocation.retrieval_details is not None
    assert invocation.retrieval_details.evidence_status == "error"
    assert (invocation.source, invocation.request) == (None, None)
    assert recorder.invocations == [invocation]


def test_a_failing_source_is_recorded_with_what_was_asked() -> None:
    world = hadoop_world(metrics=FixedAlerts([], fail=True))
    invocation = Recorder(world=world, session_id="s-down").call("query_metrics", {"alert_name": "TargetDown"})
    assert invocation.output == {"success": False, "error": "alertmanager: connection refused",
                                 "failure": "source"}
    assert invocation.source == "alertmanager:http://127.0.0.1:9093"
    assert invocation.request is not None and invocation.request["params"] == {"filter": "TargetDown"}


# ---------------------------------------------------------------- groups are evidence


def _grouped_invocation() -> Invocation:
    return Recorder(world=hadoop_world(), session_id="s-g").call(
        "query_logs", {"service": "hadoop-mapreduce", "level": "ERROR"})


def _check(invocation: Invocation, raw_path: str | None, excerpt: str,
           claim_type: str = "observation") -> tuple[str, str | None]:
    claim = Claim.model_validate({
        "claim_id": "claim-1", "claim_type": claim_type, "claim_text": f"hadoop-mapreduce: {excerpt}",
        "subject_services": ["hadoop-mapreduce"],
        "evidence_bindings": [EvidenceBinding(tool_name="query_logs",
                                              source_invocation_id=invocation.invocation_id,
                                              raw_path=raw_path, evidence_excerpt=excerpt)]})
    result = check_citations(session_id=invocation.session_id, invocations=[invocation],
                             executor_output=ExecutorOutput(claims=[claim]))
    (checked,) = result.checked_bindings
    return checked.status, checked.rule


def test_a_group_citation_passes_and_its_facts_are_checked() -> None:
    invocation = _grouped_invocation()
    assert _check(invocation, "$.groups[0]", RM_GROUP_TEXT) == ("pass", "evidence.ok")
    assert _check(invocation, "$.groups[0]", '147 lines like "ERROR IN CONTACTING RM. <*>"')[0] == "pass"
    forged = {
        "count": RM_GROUP_TEXT.replace("147", "174"),
        "last timestamp": RM_GROUP_TEXT.replace("18:10:13", "18:19:13"),
        "level": RM_GROUP_TEXT.replace("[ERROR]", "[WARN]"),
        "service": RM_GROUP_TEXT.replace("hadoop-mapreduce", "hdfs-datanode"),
    }
    for what, excerpt in forged.items():
        assert _check(invocation, "$.groups[0]", excerpt) == ("fail", "evidence.excerpt_mismatch"), what
    assert _check(invocation, "$.groups[1]", RM_GROUP_TEXT) == ("fail", "evidence.raw_path")
    assert _check(invocation, "$.groups[00]", RM_GROUP_TEXT) == ("fail", "evidence.raw_path")
    assert _check(invocation, "$.groups[0].count", RM_GROUP_TEXT) == ("fail", "evidence.raw_path")
    # The group's sentence quoted under a line's locator is not that line.
    assert _check(invocation, "$.logs[0]", RM_GROUP_TEXT) == ("fail", "evidence.excerpt_mismatch")
    assert _check(invocation, None, RM_GROUP_TEXT) == ("fail", "evidence.raw_path_missing")


def test_a_query_that_found_only_groups_is_no_absence() -> None:
    invocation = Recorder(world=hadoop_world(logs=GroupedLogs(lines=[])), session_id="s-g").call(
        "query_logs", {"service": "hadoop-mapreduce"})
    assert invocation.output["logs"] == [] and invocation.output["groups"] == []  # nothing wanted
    output = {**invocation.output, "groups": [GroupedLogs().groups[0].model_dump(mode="json")]}
    # As the recorder records such a call (refs from its output; gk-3 rejects edited refs).
    only_groups = invocation.model_copy(update={
        "output": output, "retrieval_details": extract_evidence_refs("query_logs", output)})
    status, rule = _check(only_groups, "$.logs", "no ERROR lines", "negative_observation")
    assert (status, rule) == ("fail", "evidence.negative_mismatch")
    assert _check(invocation, "$.groups", "no ERROR lines", "negative_observation")[0] == "pass"


def test_trace_summary_labels_come_from_the_spec() -> None:
    (entry,) = build_trace_summary([_grouped_invocation()])
    assert entry.evidence_level == "direct" and entry.output_summary.startswith("log_evidence: ")
    assert RM_GROUP_TEXT in entry.output_summary


# ---------------------------------------------------------------- agents see the world


def test_the_planner_reads_the_worlds_vocabulary_not_a_pack() -> None:
    world = hadoop_world()
    plan = RulesPlanner().plan("只确认 hadoop-mapreduce 是否有 HostOutOfDiskSpace 告警", world)
    assert plan.services == ["hadoop-mapreduce"] and plan.alert_names == ["HostOutOfDiskSpace"]
    unknown = RulesPlanner().plan("只确认 zookeeper 是否有 HostOutOfDiskSpace 告警", world)
    assert "zookeeper" not in unknown.services  # not a service of this world's data


def test_a_whole_investigation_runs_on_a_world_without_a_pack() -> None:
    document = ask("只确认 hadoop-mapreduce 是否有 HostOutOfDiskSpace 告警", pack=hadoop_world())
    assert document.status == "completed" and document.pack == "hadoop"
    assert {inv.source for inv in document.invocations} <= {
        "alertmanager:http://127.0.0.1:9093", "logstore:/var/lib/superbiz/hadoop.db", None}
    assert document.gatekeeper_result is not None and document.gatekeeper_result.status == "pass"
    assert document.verifier_result is not None and document.verifier_result.verdict == "PASS"
    assert "96%" in (document.composer_output.user_facing_answer if document.composer_output else "")


# ---------------------------------------------------------------- replay never re-queries


@pytest.mark.parametrize("keep_plan", [True, False])
def test_replay_needs_no_pack(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, keep_plan: bool) -> None:
    from core.pipeline import replay
    from core.settings import get_settings

    document = ask("只确认 order-service 是否存在 HighMemoryUsage 告警", pack="demo")
    # No pack can be found any more: the built-in folder is swapped for an empty one.
    monkeypatch.setattr("core.settings.DEFAULT_PACKS_DIR", tmp_path)
    monkeypatch.chdir(tmp_path)
    get_settings.cache_clear()
    with pytest.raises(PackError, match="demo"):
        load_world("demo")

    def no_query(*args: object, **kwargs: object) -> None:
        raise AssertionError("replay asked a source")

    monkeypatch.setattr("core.recorder.call_tool", no_query)
    monkeypatch.setattr("core.tools.spec.call_tool", no_query)
    stored = document if keep_plan else document.model_copy(update={"plan": None})
    replayed = replay(stored)
    assert replayed.status == "completed"
    assert replayed.invocations == document.invocations  # the recorded outputs, untouched
    assert replayed.gatekeeper_result == document.gatekeeper_result
    if keep_plan:
        assert replayed.verifier_result is not None and document.verifier_result is not None
        assert replayed.verifier_result.verdict == document.verifier_result.verdict
