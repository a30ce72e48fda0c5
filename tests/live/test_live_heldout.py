"""Questions against a live world unlike the demo one (``heldout_world``): real rule files
from the corpora, alerts firing, pending, silenced and existing only as rules, asked in Chinese
and English; and the servers failing mid-run (stopped; through a proxy: 503, slow, truncated,
cut mid-answer, reset). The cases here are written for this suite, apart from the held-out
questions the engine was checked with (those are never copied into the repository).

Every expectation is graded against what the servers themselves list at test time (their
``/api/v1/alerts``, ``/api/v2/alerts``, ``/api/v1/rules``), never against remembered text:

- ``found``: PASS, outcome ``found``, the answer cites the alert in one of the expected states,
  each citation an entry of the real ``/api/v1/alerts`` answer (same name, same label value);
- ``absent``: PASS, outcome ``absent``, answered "no" by a negative observation bound to a
  ``query_metrics`` call for that alert that returned nothing -- the server knows the rule and
  lists no such alert;
- ``other_state``: the alert exists in another state than the one asked ("is X firing?" of a
  pending or silenced X): outcome ``absent`` (in the state asked), the answer is not "yes",
  states the real state, and no citation presents the alert in the state asked;
- ``unknown``: a name the data lacks (service or alert): outcome ``unknown_subject``, not PASS;
- ``reference``: "what does X mean": the rule file's own summary is quoted as reference, never
  as a claim about the present.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import pytest

from core.cli import main
from core.contracts import SessionDocument
from core.events import SessionFinished, ToolReturned
from core.pipeline import ask, run_investigation
from core.sources.base import World
from core.sources.config import world_from_file
from core.sources.prometheus import alert_key
from core.sources.rulefiles import read_rules
from tests.live.fault_proxy import FaultProxy
from tests.live.heldout_world import RULE_FILES, HeldoutWorld, corpora_present
from tests.live.live_servers import require_binaries

Expect = Literal["found", "absent", "other_state", "unknown", "reference"]


@dataclass(frozen=True)
class Case:
    """One held-out question and what a right answer is, graded against the servers."""

    id: str
    question: str
    expect: Expect
    alert: str | None = None      # the alert asked about (None: any alert)
    service: str | None = None    # the label value the answer must be about
    states: tuple[str, ...] = ("firing",)  # the states the cited alerts must read
    asked_state: str | None = None  # the alert state the question asks about, if any


CASES = (
    # found: the alert, in the state asked, about the label value the question names
    Case("crashloop-for-checkout-en", "Is there a KubePodCrashLooping alert for checkout?", "found",
         "KubePodCrashLooping", "checkout"),
    Case("targetdown-hadoop-zh", "hadoop-namenode 是否有 TargetDown 告警？", "found", "TargetDown",
         "hadoop-namenode"),
    Case("disk-on-node1-zh", "node-1 上的 HostOutOfDiskSpace 告警在触发吗", "found",
         "HostOutOfDiskSpace", "node-1"),
    Case("replicas-inventory-en", "Is KubeDeploymentReplicasMismatch firing for inventory?", "found",
         "KubeDeploymentReplicasMismatch", "inventory"),
    Case("failed-job-en", "Is KubeJobFailed firing for db-backup?", "found", "KubeJobFailed",
         "db-backup"),
    Case("inventory-alerts-zh", "inventory 有哪些告警？", "found", "KubeDeploymentReplicasMismatch",
         "inventory"),
    Case("redis-silenced-zh", "RedisDown 告警被静默了吗？", "found", "RedisDown",
         states=("suppressed",)),
    Case("mysql-pending-en", "Is MysqlTooManyConnections pending?", "found",
         "MysqlTooManyConnections(>80%)", states=("pending",)),
    Case("which-pending-zh", "有哪些 pending 状态的告警？", "found", states=("pending",)),
    Case("which-silenced-en", "Which alerts are silenced?", "found", states=("suppressed",)),
    # absent: a rule the server evaluates, or an alert of another subject, verified not there
    Case("quota-rule-only-en", "Is KubeQuotaExceeded firing?", "absent", "KubeQuotaExceeded",
         asked_state="firing"),
    Case("kafka-rule-only-zh", "KafkaConsumerGroupLag 告警在触发吗？", "absent",
         "KafkaConsumerGroupLag", asked_state="firing"),
    Case("node2-almost-full-en", "Is NodeFilesystemAlmostOutOfSpace firing on node-2?", "absent",
         "NodeFilesystemAlmostOutOfSpace", "node-2", asked_state="firing"),
    Case("storefront-replicas-en", "Does storefront have a KubeDeploymentReplicasMismatch alert?",
         "absent", "KubeDeploymentReplicasMismatch", "storefront"),
    Case("healthy-job-zh", "log-rotate 是否有 KubeJobFailed 告警？", "absent", "KubeJobFailed",
         "log-rotate"),
    # other_state: asked in one state, found in another
    Case("mysql-asked-firing-zh", "MysqlTooManyConnections 告警在触发吗？", "other_state",
         "MysqlTooManyConnections(>80%)", states=("pending",), asked_state="firing"),
    Case("redis-asked-firing-zh", "RedisDown 告警是否正在触发？", "other_state", "RedisDown",
         states=("suppressed",), asked_state="firing"),
    Case("hadoop-asked-silenced-en", "Is HadoopNameNodeDown silenced?", "other_state",
         "HadoopNameNodeDown", states=("pending",), asked_state="suppressed"),
    # unknown: a name the data lacks
    Case("unknown-service-en", "Is TargetDown firing for billing-service?", "unknown", "TargetDown"),
    Case("unknown-alert-zh", "有没有 KubeFluxCapacitorOverheat 告警？", "unknown",
         "KubeFluxCapacitorOverheat"),
    Case("unknown-node-en", "Is HostOutOfDiskSpace firing on node-7?", "unknown",
         "HostOutOfDiskSpace"),
    # reference: what an alert means, quoted from its rule
    Case("meaning-firing-en", "What does the TargetDown alert mean?", "reference", "TargetDown"),
    Case("meaning-rule-only-zh", "KubeQuotaExceeded 告警是什么意思？", "reference",
         "KubeQuotaExceeded"),
)


@pytest.fixture(scope="module")
def heldout(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HeldoutWorld]:
    if not corpora_present():
        pytest.skip("shared corpora not available (kube-prometheus, awesome-prometheus-alerts)")
    require_binaries()
    world = HeldoutWorld.start(Path(tmp_path_factory.mktemp("heldout")))
    try:
        yield world
    finally:
        world.stop()


@pytest.fixture(scope="module")
def sources(heldout: HeldoutWorld, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return heldout.sources_file(Path(tmp_path_factory.mktemp("heldout-sources")))


@pytest.fixture(scope="module")
def world(sources: Path) -> World:
    return world_from_file(sources)


def _answer(document: SessionDocument) -> str:
    return document.composer_output.user_facing_answer if document.composer_output else ""


def _cited_alerts(document: SessionDocument) -> list[tuple[dict[str, Any], str]]:
    """Every alert entry a claim cites, with the source of the invocation it came from."""
    invocations = {i.invocation_id: i for i in document.invocations}
    output = document.executor_output
    cited = []
    for claim in output.claims if output else []:
        for binding in claim.evidence_bindings:
            if binding.tool_name != "query_metrics" or not binding.raw_path:
                continue
            invocation = invocations[binding.source_invocation_id or 0]
            index = int(binding.raw_path.removeprefix("$.alerts[").rstrip("]"))
            cited.append((invocation.output["alerts"][index], invocation.source or ""))
    return cited


def _served(heldout: HeldoutWorld, alert: str | None, service: str | None) -> list[dict[str, Any]]:
    """The alerts Prometheus lists of that name (and with that label value)."""
    return [a for a in heldout.alerts()
            if (alert is None or alert_key(a["labels"]["alertname"]) == alert_key(alert))
            and (service is None or service in a["labels"].values())]


def grade(case: Case, document: SessionDocument, heldout: HeldoutWorld) -> list[str]:
    """What is wrong with the answer to ``case`` ([] when it is right)."""
    problems: list[str] = []
    verdict = document.verifier_result.verdict if document.verifier_result else None
    kind = document.composer_output.answer_kind if document.composer_output else None
    answer = _answer(document)
    claims = document.executor_output.claims if document.executor_output else []
    cited = _cited_alerts(document)
    expected_source = f"prometheus:{heldout.prometheus.url}+alertmanager:{heldout.alertmanager.url}"
    if document.status != "completed":
        return [f"status {document.status}: {document.error}"]
    if case.expect in ("found", "absent") and verdict != "PASS":
        problems.append(f"verdict {verdict}, not PASS")
    if case.expect == "found":
        served = _served(heldout, case.alert, case.service)
        assert served, f"the world no longer serves {case.alert} for {case.service}"
        if document.outcome != "found":
            problems.append(f"outcome {document.outcome}, not found")
        if kind not in ("yes", None):
            problems.append(f"answer leads with {kind}")
        if not cited:
            problems.append("no alert cited")
        for alert, source in cited:
            if source != expected_source:
                problems.append(f"cited from {source}")
            if case.alert and alert_key(str(alert["alert_name"])) != alert_key(case.alert):
                problems.append(f"cites {alert['alert_name']}, not {case.alert}")
            if alert["state"] not in case.states:
                problems.append(f"cites {alert['alert_name']} {alert['state']}, expected {case.states}")
            if case.service and alert["service"] != case.service:
                problems.append(f"cites service={alert['service']}, not {case.service}")
            # The cited alert is one the server lists: same name, and the service it reads as
            # is one of its label values (an alert without service labels reads as no service).
            if not any(a["labels"]["alertname"] == alert["alert_name"]
                       and (alert["service"] in a["labels"].values() or not alert["service"])
                       for a in heldout.alerts()):
                problems.append(f"cites {alert['alert_name']} / {alert['service']}, which the server does not list")
        if "suppressed" in case.states and "silenced by" not in answer:
            problems.append("a silenced alert without its silence")
    if case.expect == "absent":
        assert case.alert is None or case.alert in heldout.rule_names(), f"{case.alert} is no rule"
        served = _served(heldout, case.alert, case.service)
        if case.asked_state == "suppressed":
            served = [a for a in served if a["labels"]["alertname"] in heldout.suppressed()]
        assert not served, f"the world serves {case.alert} for {case.service}"
        if document.outcome != "absent":
            problems.append(f"outcome {document.outcome}, not absent")
        if kind != "no":
            problems.append(f"answer leads with {kind}, not no")
        if cited:
            problems.append(f"cites alerts {[a['alert_name'] for a, _ in cited]}")
        invocations = {i.invocation_id: i for i in document.invocations}
        negatives = [invocations[b.source_invocation_id or 0] for c in claims
                     if c.claim_type == "negative_observation" for b in c.evidence_bindings
                     if b.tool_name == "query_metrics"]
        if not any(i.arguments.get("alert_name") == case.alert and i.output.get("total") == 0
                   and i.arguments.get("state") == case.asked_state
                   and i.arguments.get("service") == case.service
                   and i.source == expected_source for i in negatives):
            problems.append("no negative observation cites a query of the alert that returned nothing")
        for named in (case.alert, case.service, case.asked_state):
            if named and named not in answer:
                problems.append(f"the answer does not say {named}")
    if case.expect == "other_state":
        served = _served(heldout, case.alert, case.service)
        assert served, f"the world no longer serves {case.alert}"
        if verdict != "PASS":
            problems.append(f"verdict {verdict}, not PASS")
        if document.outcome != "absent":
            problems.append(f"outcome {document.outcome}, not absent (in the state asked)")
        if kind in ("yes", "partly"):
            problems.append(f"answer leads with {kind} though {case.alert} is not {case.asked_state}")
        for alert, _ in cited:
            if alert["state"] == case.asked_state:
                problems.append(f"cites {alert['alert_name']} as {case.asked_state}")
        if not any(alert["state"] in case.states for alert, _ in cited):
            problems.append(f"the answer does not show {case.alert} as {case.states}")
        for state in case.states:
            if state not in answer:
                problems.append(f"the answer does not say {state}")
    if case.expect == "unknown":
        if verdict == "PASS":
            problems.append("PASS on a name the data lacks")
        if document.outcome != "unknown_subject":
            problems.append(f"outcome {document.outcome}, not unknown_subject")
        if claims:
            problems.append(f"{len(claims)} claim(s) about something else")
    if case.expect == "reference":
        rules = [rule for group in read_rules(list(RULE_FILES)) for rule in group.rules
                 if rule.name == case.alert]
        summaries = [rule.summary for rule in rules if rule.summary]
        assert summaries, f"no summary for {case.alert} in the corpora"
        if not any(summary in answer for summary in summaries):
            problems.append("the rule's summary is not in the answer")
        if any(summary in claim.claim_text for claim in claims for summary in summaries):
            problems.append("the rule's summary is stated as a claim")
        if any(b.tool_name == "lookup_knowledge" for c in claims for b in c.evidence_bindings):
            problems.append("a claim cites the rule files")
    return problems


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_heldout_question(heldout: HeldoutWorld, world: World, case: Case) -> None:
    document = ask(case.question, pack=world)
    problems = grade(case, document, heldout)
    assert not problems, f"{case.question}: {problems}\n{_answer(document)}"


# ---------------------------------------------------------------- through the CLI


def test_cli_ask_with_a_sources_file(heldout: HeldoutWorld, sources: Path,
                                     capsys: pytest.CaptureFixture[str], _isolated_store: Path) -> None:
    assert main(["ask", "node-1 上的 HostOutOfDiskSpace 告警在触发吗", "--sources", str(sources),
                 "--json"]) == 0
    document = SessionDocument.model_validate(json.loads(capsys.readouterr().out))
    assert document.pack == "heldout"
    case = next(case for case in CASES if case.id == "disk-on-node1-zh")
    assert not grade(case, document, heldout)


def test_env_urls_layered_on_a_pack(heldout: HeldoutWorld, monkeypatch: pytest.MonkeyPatch,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    """SUPERBIZ_PROMETHEUS_URL / SUPERBIZ_ALERTMANAGER_URL replace the demo pack's metrics:
    a firing corpus alert is found, a rule that does not fire is a verified absence."""
    from core.settings import get_settings

    monkeypatch.setenv("SUPERBIZ_PROMETHEUS_URL", heldout.prometheus.url)
    monkeypatch.setenv("SUPERBIZ_ALERTMANAGER_URL", heldout.alertmanager.url)
    get_settings.cache_clear()
    for case_id in ("crashloop-for-checkout-en", "quota-rule-only-en", "mysql-asked-firing-zh"):
        case = next(case for case in CASES if case.id == case_id)
        assert main(["ask", case.question, "--json", "--no-store"]) == 0
        document = SessionDocument.model_validate(json.loads(capsys.readouterr().out))
        assert document.pack == "demo+live"
        assert not grade(case, document, heldout), (case.question, _answer(document))


# ---------------------------------------------------------------- failures mid-run

TWO_ALERTS = "Are KubePodCrashLooping and TargetDown firing?"


def _run_failing(world: World, fail: object) -> tuple[SessionDocument, int]:
    """Ask TWO_ALERTS, calling ``fail()`` between the first and the second query_metrics."""
    document: SessionDocument | None = None
    calls = 0
    for event in run_investigation(TWO_ALERTS, pack=world):
        if isinstance(event, ToolReturned) and event.invocation.tool_name == "query_metrics":
            calls += 1
            if calls == 1:
                assert event.invocation.output["success"] is True
                fail()  # type: ignore[operator]
        if isinstance(event, SessionFinished):
            document = event.document
    assert document is not None
    return document, calls


def _assert_honest_failure(document: SessionDocument, source_id: str, url: str, reason: str) -> None:
    """Never PASS; the failed call recorded with the source and the request that failed; the
    answer names the source; no absence rests on the failed call."""
    assert document.status == "completed"
    assert document.verifier_result is not None and document.verifier_result.verdict != "PASS"
    assert document.outcome is None
    failed = [i for i in document.invocations if i.output.get("success") is False]
    assert failed and all(i.tool_name == "query_metrics" for i in failed)
    assert all(i.source == source_id and i.output["failure"] == "source" for i in failed)
    assert all(i.request and i.request["url"].startswith(url) for i in failed)
    assert reason in failed[0].output["error"]
    assert source_id in _answer(document) and reason in _answer(document)
    assert document.composer_output is not None and document.composer_output.answer_kind == "unknown"
    failed_ids = {i.invocation_id for i in failed}
    output = document.executor_output
    assert output is not None
    assert not any(b.source_invocation_id in failed_ids for c in output.claims for b in c.evidence_bindings)


def test_prometheus_stopped_between_two_calls(heldout: HeldoutWorld, tmp_path: Path) -> None:
    doomed = heldout.spare  # stopped for good: no other test uses it
    world = world_from_file(heldout.sources_file(tmp_path, prometheus=doomed.url, name="doomed"))
    document, calls = _run_failing(world, doomed.stop)
    assert calls >= 2
    _assert_honest_failure(document, f"prometheus:{doomed.url}", doomed.url, "connection refused")


FAULTS = {
    "alertmanager answers 503": ("alertmanager", "503", "HTTP 503"),
    "prometheus slower than the timeout": ("prometheus", "slow", "no answer within 1s"),
    "prometheus answer truncated": ("prometheus", "truncated", "the answer is not JSON"),
    "alertmanager answer truncated": ("alertmanager", "truncated", "the answer is not JSON"),
    "prometheus connection cut mid-answer": ("prometheus", "cut", "the answer was cut short"),
    "prometheus connection reset": ("prometheus", "reset",
                                    "the connection was closed without an answer"),
}


@pytest.mark.parametrize("fault", list(FAULTS))
def test_a_server_failing_mid_run(heldout: HeldoutWorld, tmp_path: Path, fault: str) -> None:
    target, kind, reason = FAULTS[fault]
    prometheus, alertmanager = FaultProxy(heldout.prometheus.url), FaultProxy(heldout.alertmanager.url)
    try:
        world = world_from_file(heldout.sources_file(
            tmp_path, prometheus=prometheus.url, alertmanager=alertmanager.url, timeout=1.0))
        assert not world.vocabulary.unavailable  # the servers answered when the world opened
        proxy = prometheus if target == "prometheus" else alertmanager
        document, _ = _run_failing(world, lambda: proxy.fail_after(0, kind, delay=2.5))
    finally:
        prometheus.stop()
        alertmanager.stop()
    _assert_honest_failure(document, f"{target}:{proxy.url}", proxy.url, reason)
