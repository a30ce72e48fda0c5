"""Prometheus rule files as knowledge: both formats, the real corpora, packs with rules/,
reference-only evidence, PromQL thresholds read (never guessed)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from core.errors import PackError
from core.packs import load_pack
from core.pipeline import ask
from core.sources.files import KnowledgeFiles
from core.sources.pack import load_world
from core.sources.promql import comparison, metric_names, plain_metric, threshold_text, unit_of
from core.sources.rulefiles import RuleFileError, read_rule_file, read_rules, rule_text
from core.tools.args import LookupKnowledgeArgs
from core.tools.spec import is_reference_tool, run_tool

REPO_ROOT = Path(__file__).resolve().parents[1]

RULE_FILE = """\
groups:
  - name: payments
    rules:
      - record: job:errors:rate5m
        expr: sum(rate(errors_total[5m])) by (job)
      - alert: PaymentGatewayDown
        expr: up{job="payment-gateway"} == 0
        for: 2m
        labels: {severity: critical}
        annotations:
          summary: Payment gateway is down
          description: "The gateway {{ $labels.instance }} has not answered for 2 minutes."
          runbook_url: https://runbooks.example/payment-gateway-down
"""
CRD = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: not-rules}
data: {groups: "none"}
---
apiVersion: monitoring.coreos.com/v1
kind: PrometheusRule
metadata: {name: queue-rules}
spec:
  groups:
    - name: queue
      rules:
        - alert: QueueBacklogGrowing
          expr: rabbitmq_queue_messages_ready > 1000
          for: 10m
          labels: {severity: warning}
          annotations: {message: Queue backlog above 1000 messages}
"""


def _alerts_in(path: Path) -> int:
    return len(re.findall(r"^\s*-\s*alert:", path.read_text(encoding="utf-8"), re.MULTILINE))


def test_both_formats_recording_rules_and_other_documents(tmp_path: Path) -> None:
    (tmp_path / "payments.yml").write_text(RULE_FILE, encoding="utf-8")
    (tmp_path / "queue.yaml").write_text(CRD, encoding="utf-8")
    (tmp_path / "notes.txt").write_text("groups: [not yaml we read]", encoding="utf-8")
    groups = read_rules([tmp_path], relative_to=tmp_path)
    assert [(g.name, g.source, [r.name for r in g.rules]) for g in groups] == [
        ("payments", "payments.yml", ["PaymentGatewayDown"]),   # the recording rule is no alert
        ("queue", "queue.yaml", ["QueueBacklogGrowing"])]      # the ConfigMap is skipped
    rule = groups[0].rules[0]
    assert (rule.for_, rule.severity, rule.summary) == ("2m", "critical", "Payment gateway is down")
    assert rule_text(rule) == (
        'alert: PaymentGatewayDown\nexpr: up{job="payment-gateway"} == 0\nfor: 2m\n'
        "severity: critical\nsummary: Payment gateway is down\n"
        "description: The gateway {{ $labels.instance }} has not answered for 2 minutes.\n"
        "runbook_url: https://runbooks.example/payment-gateway-down")
    assert groups[1].rules[0].summary == "Queue backlog above 1000 messages"  # older "message"


def test_a_file_that_is_not_yaml_is_one_line_naming_it(tmp_path: Path) -> None:
    bad = tmp_path / "broken.yml"
    bad.write_text("groups:\n  - name: [unclosed\n", encoding="utf-8")
    with pytest.raises(RuleFileError, match=r"broken\.yml: line \d+, column \d+: invalid YAML: "):
        read_rule_file(bad)


def test_kube_prometheus_manifests(corpora_dir: Path) -> None:
    folder = corpora_dir / "kube-prometheus" / "manifests"
    groups = read_rules([folder], relative_to=folder)
    rules = {rule.name: rule for group in groups for rule in group.rules}
    assert sum(len(g.rules) for g in groups) == sum(_alerts_in(p) for p in folder.glob("*.yaml"))
    crash = rules["KubePodCrashLooping"]
    assert (crash.for_, crash.severity, crash.summary) == ("15m", "warning", "Pod is crash looping.")
    assert crash.runbook_url.endswith("/kubernetes/kubepodcrashlooping")
    assert all(rule.expr for rule in rules.values())


def test_awesome_prometheus_alerts(corpora_dir: Path) -> None:
    folder = corpora_dir / "awesome-prometheus-alerts" / "dist" / "rules"
    groups = read_rules([folder], relative_to=folder)
    total = sum(len(g.rules) for g in groups)
    assert total == sum(_alerts_in(p) for p in folder.rglob("*.yml"))
    assert total > 500 and all(g.source.endswith(".yml") and "/" in g.source for g in groups)


def test_rule_files_are_searched_next_to_runbooks_and_stay_reference_only(corpora_dir: Path) -> None:
    knowledge = KnowledgeFiles.read(
        runbook_dirs=[corpora_dir / "prometheus-operator-runbooks" / "content"],
        rule_paths=[corpora_dir / "kube-prometheus" / "manifests"])
    # The runbook of that name ranks first (a runbook says what to check), its rule next.
    result, request = knowledge.lookup_knowledge(LookupKnowledgeArgs(query="KubePodCrashLooping", top_k=10))
    titles = [block.title for block in result.evidence_blocks]
    assert titles and any(title.endswith("/ KubePodCrashLooping") for title in titles)
    rule_block = next(b for b in result.evidence_blocks if b.title.endswith("/ KubePodCrashLooping"))
    assert "runbook_url: https://runbooks.prometheus-operator.dev/" in rule_block.content
    assert rule_block.source == "kubernetesControlPlane-prometheusRule.yaml"
    assert request == {"query": "KubePodCrashLooping", "top_k": 10}
    # Words of a CamelCase name find it too; an unrelated question finds no rule.
    words, _ = knowledge.lookup_knowledge(LookupKnowledgeArgs(query="pod crash looping", top_k=10))
    assert any("KubePodCrashLooping" in b.title for b in words.evidence_blocks)
    assert knowledge.lookup_knowledge(LookupKnowledgeArgs(query="invoice printer toner"))[0].total == 0
    assert "KubePodCrashLooping" in knowledge.vocabulary().rule_names
    assert knowledge.describe().holds["rules"] > 100
    assert is_reference_tool("lookup_knowledge")


def test_a_pack_with_rules(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pack_dir = tmp_path / "rulepack"
    shutil.copytree(REPO_ROOT / "mockdata" / "demo", pack_dir)
    (pack_dir / "pack.yaml").write_text(
        (pack_dir / "pack.yaml").read_text(encoding="utf-8").replace("name: demo", "name: rulepack"),
        encoding="utf-8")
    (pack_dir / "rules").mkdir()
    (pack_dir / "rules" / "payments.yml").write_text(RULE_FILE, encoding="utf-8")
    pack = load_pack(str(pack_dir))
    assert [section.title for group in pack.rules for section in group.sections] == ["PaymentGatewayDown"]
    world = load_world(pack)
    assert world.vocabulary.rule_names == ("PaymentGatewayDown",)
    assert "PaymentGatewayDown" in world.vocabulary.known_alert_names
    assert "PaymentGatewayDown" not in world.vocabulary.alert_names
    blocks = run_tool(world, "lookup_knowledge", {"query": "payment gateway down"})["evidence_blocks"]
    assert blocks[0]["title"] == "payments / PaymentGatewayDown"
    assert blocks[0]["source"] == "rules/payments.yml"
    # Asked whether it fires: the rule is recognised as an alert name, and never cited as a fact.
    document = ask("Is there a PaymentGatewayDown alert firing?", pack=world)
    assert document.plan is not None and document.plan.alert_names == ["PaymentGatewayDown"]
    metrics = [i for i in document.invocations if i.tool_name == "query_metrics"]
    assert metrics and all(i.arguments.get("alert_name") == "PaymentGatewayDown" for i in metrics)
    output = document.executor_output
    assert output is not None
    assert not any(b.tool_name == "lookup_knowledge" for c in output.claims for b in c.evidence_bindings)
    assert document.verifier_result is not None
    answer = document.composer_output.user_facing_answer if document.composer_output else ""
    # A rule that does not fire is a verified absence ("No firing PaymentGatewayDown alert was
    # found: query_metrics(...) returned nothing"), never an alert said to fire.
    assert document.outcome == "absent" and document.verifier_result.verdict == "PASS"
    assert answer.startswith("No (verified") and "has a firing" not in answer
    assert all(c.claim_type == "negative_observation" for c in output.claims)
    # A broken rule file is a pack problem naming it.
    (pack_dir / "rules" / "broken.yml").write_text("groups: [", encoding="utf-8")
    with pytest.raises(PackError, match=r"broken\.yml: line \d+, column \d+: invalid YAML"):
        load_pack(str(pack_dir))


@pytest.mark.parametrize(("expr", "query", "op", "threshold", "metrics"), [
    ("cpu_usage_percent > 80", "cpu_usage_percent", ">", "80%", ["cpu_usage_percent"]),
    ('up{job="payment-gateway"} == 0', 'up{job="payment-gateway"}', "==", "== 0", ["up"]),
    ("node_filesystem_avail_bytes / node_filesystem_size_bytes * 100 < 10", None, "<", "< 10",
     ["node_filesystem_avail_bytes", "node_filesystem_size_bytes"]),
    ('max_over_time(kube_pod_container_status_waiting_reason{reason="CrashLoopBackOff"}[5m]) >= 1',
     None, ">=", "1", ["kube_pod_container_status_waiting_reason"]),
    ("sum by (job) (rate(errors_total[5m])) > bool 0.05", None, ">", "0.05", ["errors_total"]),
    ("absent(up{job=\"x\"})", None, None, None, ["up"]),
    ("a > 0.85 and b > 0", "a", ">", "0.85", ["a", "b"]),       # the guard after "and" is no threshold
    ("a > 1 or b > 2", None, None, None, ["a", "b"]),            # no single threshold governs
    ("(delta(oom_kill[30m]) > 0)", "delta(oom_kill[30m])", ">", "0", ["oom_kill"]),
    # Parentheses around a guarded comparison (awesome-prometheus-alerts' HostOutOfDiskSpace):
    # the threshold is the first operand's, not the guard's "== 0".
    ("(avail / size < .10 and on (instance, device) readonly == 0)", "avail / size", "<", "< .10",
     ["avail", "size", "readonly"]),
    ("x > 0.9 * 1000", None, None, None, ["x"]),                  # a number expression, not a number
    ("rate(x[5m]) > rate(y[5m])", None, None, None, ["x", "y"]),  # not a number
])
def test_what_an_expression_says(expr: str, query: str | None, op: str | None,
                                 threshold: str | None, metrics: list[str]) -> None:
    found = comparison(expr)
    assert metric_names(expr) == metrics
    if op is None:
        assert found is None
        return
    assert found is not None and found.op == op
    if query is not None:
        assert found.query == query
    unit = unit_of(plain_metric(found.query))
    assert threshold_text(found, unit) == threshold


def test_every_corpus_expression_reads_without_error(corpora_dir: Path) -> None:
    folder = corpora_dir / "awesome-prometheus-alerts" / "dist" / "rules"
    rules = [rule for group in read_rules([folder, corpora_dir / "kube-prometheus" / "manifests"])
             for rule in group.rules]
    readable = [rule for rule in rules if comparison(rule.expr) is not None]
    assert len(readable) > 0.8 * len(rules)  # most alerts are "<query> <op> <number>"
    for rule in rules:
        for name in metric_names(rule.expr):
            assert re.fullmatch(r"[a-zA-Z_:][a-zA-Z0-9_:]*", name), (rule.name, name)
