"""Sources files and SUPERBIZ_*_URL: how worlds open, what is refused (one line, exit 2),
and that no credential is ever part of what is stored, printed or shown."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from core.cli import main
from core.errors import SourcesConfigError
from core.settings import Settings, get_settings
from core.sources.alerting import AlertingSources
from core.sources.alertmanager import AlertmanagerSource
from core.sources.config import open_world, world_from_file
from core.sources.files import KnowledgeFiles
from core.sources.pack import PackKnowledge, PackLogs, PackMetrics
from core.sources.prometheus import PrometheusSource
from core.views.sources import request_lines, source_rows


def _closed_url() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{probe.getsockname()[1]}"


def _write(tmp_path: Path, text: str, name: str = "sources.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_a_sources_file_names_each_capability(tmp_path: Path, corpora_dir: Path) -> None:
    (tmp_path / "runbooks").mkdir()
    (tmp_path / "runbooks" / "disk.md").write_text("# Disk full\n\n## What to check\n\ndf -h\n")
    path = _write(tmp_path, f"""
name: prod
description: production through its monitoring
example_questions: ["Is there a KubePodCrashLooping alert?"]
metrics:
  prometheus: {{url: "http://127.0.0.1:9090", service_labels: [app, job], series_window_minutes: 60}}
  alertmanager: {{url: "http://127.0.0.1:9093", timeout_seconds: 2}}
logs: {{pack: demo}}
knowledge:
  runbooks: [./runbooks]
  rules: ["{corpora_dir / 'kube-prometheus' / 'manifests'}"]
""")
    world = world_from_file(path)
    assert (world.name, world.description) == ("prod", "production through its monitoring")
    assert world.example_questions == ("Is there a KubePodCrashLooping alert?",)
    assert isinstance(world.metrics, AlertingSources)
    prometheus, alertmanager = world.metrics.parts
    assert prometheus.labels.service_labels == ("app", "job")
    assert prometheus.series_window.total_seconds() == 3600
    assert alertmanager.endpoint.timeout == 2
    assert world.metrics.source_id == "prometheus:http://127.0.0.1:9090+alertmanager:http://127.0.0.1:9093"
    assert isinstance(world.logs, PackLogs) and world.logs.source_id == "pack:demo"
    assert isinstance(world.knowledge, KnowledgeFiles)
    assert world.knowledge.describe().holds["runbooks"] == 1
    assert "KubePodCrashLooping" in world.knowledge.vocabulary().rule_names


def test_a_base_pack_fills_what_the_file_does_not_name(tmp_path: Path) -> None:
    world = world_from_file(_write(tmp_path, "pack: demo\nmetrics: {alertmanager: {url: 'http://127.0.0.1:9093'}}\n"))
    assert world.name == "sources" and isinstance(world.metrics, AlertmanagerSource)
    assert isinstance(world.logs, PackLogs) and isinstance(world.knowledge, PackKnowledge)
    assert world.example_questions  # the pack's
    metrics_only = world_from_file(
        _write(tmp_path, "metrics: {prometheus: {url: 'http://127.0.0.1:9090'}}\n", "m.yaml"))
    assert metrics_only.logs is None and metrics_only.knowledge is None
    rows = source_rows(metrics_only)
    assert [(r.capability, r.status) for r in rows][1:] == [("logs", "not configured"),
                                                           ("knowledge", "not configured")]


@pytest.mark.parametrize(("text", "message"), [
    ("metrics: {prometheus: {}}\n", "metrics.prometheus.url: Field required"),
    ("metrics: {prometheus: {url: 'ftp://x'}}\n", "must be an http(s) URL"),
    ("metrics: {prometheus: {url: 'http://a:9090'}, pack: demo}\n", "exactly one kind"),
    ("metrics: {prometheus: {url: 'http://a:9090', timeout_seconds: 0}}\n", "timeout_seconds"),
    ("logs: {pack: demo, store: /x.db}\n", "exactly one"),
    ("knowledge: {}\n", "name a pack, runbook folders or rule files"),
    ("knowledge: {rules: [./missing]}\n", "rule file or folder not found"),
    ("knowledge: {runbooks: [./missing]}\n", "runbook folder not found"),
    ("metrcs: {}\n", "metrcs: unknown key"),
    ("pack: no-such-pack\n", "pack not found"),
    ("now: last tuesday\n", "sources.yaml: now: must be an ISO 8601 time such as 2015-10-18T18:10:00Z"),
    ("- a list\n", "must be a mapping"),
    ("name: [unclosed\n", "line 2, column 1: invalid YAML"),
    ("metrics: {prometheus: {url: 'http://a:9090', bearer_token_env: NOT_SET_ANYWHERE_X}}\n",
     "NOT_SET_ANYWHERE_X is not set"),
])
def test_a_bad_sources_file_is_one_line(tmp_path: Path, text: str, message: str,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, text)
    with pytest.raises(SourcesConfigError) as refused:
        world_from_file(path)
    assert message in str(refused.value) and "\n" not in str(refused.value)
    assert main(["ask", "q", "--sources", str(path), "--no-store"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err and "Traceback" not in err


def test_a_missing_sources_file_and_both_pack_and_sources(tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tools", "call", "query_metrics", "--sources", str(tmp_path / "nope.yaml")]) == 2
    assert "sources file not found" in capsys.readouterr().err
    path = _write(tmp_path, "pack: demo\n")
    assert main(["ask", "q", "--pack", "demo", "--sources", str(path)]) == 2
    assert "not both" in capsys.readouterr().err


def _settings(**values: str) -> Settings:
    return Settings(**values)


def test_env_urls_replace_a_packs_metrics() -> None:
    world = open_world("demo", settings=_settings(prometheus_url="http://127.0.0.1:9090",
                                                  alertmanager_url="http://127.0.0.1:9093",
                                                  service_labels="app, service"))
    assert world.name == "demo+live" and isinstance(world.metrics, AlertingSources)
    assert world.metrics.prometheus.labels.service_labels == ("app", "service")
    assert isinstance(world.logs, PackLogs) and isinstance(world.knowledge, PackKnowledge)
    plain = open_world("demo", settings=_settings())
    assert plain.name == "demo" and isinstance(plain.metrics, PackMetrics)
    only_am = open_world("demo", settings=_settings(alertmanager_url="http://127.0.0.1:9093"))
    assert isinstance(only_am.metrics, AlertmanagerSource)


def test_sources_env_is_the_default_world(tmp_path: Path) -> None:
    path = _write(tmp_path, "name: from-env\npack: demo\n")
    settings = _settings(sources=str(path))
    assert open_world(None, settings=settings).name == "from-env"
    assert open_world("demo", settings=settings).name == "demo"  # a named pack wins


@pytest.mark.parametrize(("values", "message"), [
    ({"prometheus_url": "prometheus.local:9090"}, "SUPERBIZ_PROMETHEUS_URL: must be an http(s) URL"),
    ({"alertmanager_url": "ftp://am"}, "SUPERBIZ_ALERTMANAGER_URL"),
    ({"prometheus_url": "http://a:9090", "source_timeout": "soon"}, "SUPERBIZ_SOURCE_TIMEOUT"),
])
def test_bad_env_values_are_one_line(values: dict[str, str], message: str) -> None:
    with pytest.raises(SourcesConfigError) as refused:
        open_world("demo", settings=_settings(**values))
    assert message in str(refused.value)


def test_tokens_and_passwords_never_leave(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    closed = _closed_url()
    secret_url = closed.replace("http://", "http://admin:Sup3r-s3cret@") + "/?api_key=k3y-v4lue-xyz"
    monkeypatch.setenv("SUPERBIZ_PROMETHEUS_URL", secret_url)
    monkeypatch.setenv("SUPERBIZ_PROMETHEUS_TOKEN", "b3arer-t0ken-value")
    get_settings.cache_clear()
    world = open_world("demo")
    assert isinstance(world.metrics, PrometheusSource)
    assert world.metrics.endpoint.headers == {"Authorization": "Bearer b3arer-t0ken-value"}
    assert world.metrics.source_id == f"prometheus:{closed}"
    code = main(["tools", "call", "query_metrics", "--json"])
    assert code == 0  # the call is recorded as failed; the command itself worked
    printed = capsys.readouterr()
    invocation = json.loads(printed.out)
    assert invocation["output"]["success"] is False and "connection refused" in invocation["output"]["error"]
    assert code == 0 and main(["sources"]) == 1
    printed_sources = capsys.readouterr()
    for text in (printed.out, printed.err, printed_sources.out, printed_sources.err):
        for secret in ("Sup3r-s3cret", "k3y-v4lue-xyz", "b3arer-t0ken-value", "admin:"):
            assert secret not in text
    assert "unreachable" in printed_sources.out
    from core.contracts import Invocation

    lines = request_lines(Invocation.model_validate(invocation))
    assert lines == [f"GET {closed}/api/v1/alerts"]


def test_bearer_token_env_of_a_sources_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TEAM_PROM_TOKEN", "t0ken-from-env-123")
    path = _write(tmp_path, "metrics: {prometheus: {url: 'http://127.0.0.1:9090', "
                            "bearer_token_env: TEAM_PROM_TOKEN}}\n")
    world = world_from_file(path)
    assert isinstance(world.metrics, PrometheusSource)
    assert world.metrics.endpoint.headers == {"Authorization": "Bearer t0ken-from-env-123"}
    assert "t0ken" not in repr(world.metrics.endpoint)


def test_an_ask_on_a_sources_file_log_store_cites_its_lines(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    """A log store named by a sources file answers like a pack's logs: the request it serves
    holds the validated arguments (the search that ran under ``search``), so the gatekeeper
    finds the invocation's arguments in it and the citations pass."""
    import json

    from core.contracts import SessionDocument
    from core.sources.logimport import import_files

    log = tmp_path / "zookeeper.log"
    log.write_text("".join(f"2015-07-29 19:04:{i:02d},020 - WARN  [SendWorker:188978561024:QuorumCnxManager$"
                           f"SendWorker@679] - Interrupted while waiting for message on queue\n"
                           for i in range(12)), encoding="utf-8")
    import_files([log], tmp_path / "logs.db")
    path = _write(tmp_path, "name: zk\nlogs: {store: ./logs.db}\n")
    question = "Show zookeeper warnings about 'Interrupted while waiting for message on queue'"
    assert main(["ask", question, "--sources", str(path), "--no-store", "--json"]) == 0
    document = SessionDocument.model_validate(json.loads(capsys.readouterr().out))
    assert document.gatekeeper_result is not None and not document.gatekeeper_result.failed_rules, \
        document.gatekeeper_result
    assert document.verifier_result is not None and document.verifier_result.verdict == "PASS"
    (invocation,) = [i for i in document.invocations if i.tool_name == "query_logs"]
    assert invocation.request is not None and invocation.request["service"] == "zookeeper"
    assert invocation.request["search"]["query"]["service"] == "zookeeper"
