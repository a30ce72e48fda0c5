"""The verifier reads what a ref is from its fields, not from the layout of its text.

A recipe (``core.tools.refs``) writes a ref's text and fields from the same values. The role
reader takes the kind, time, level, service, message or template and alert name and state
from the fields, and only the values from the text, so a ref laid out differently reads the
same; a text without fields (a ref stored before refs had them) is read by its old layout.
"""

from __future__ import annotations

from core.contracts import (
    Alert,
    AlertRefFields,
    CheckedBinding,
    Claim,
    EvidenceBinding,
    ExecutorOutput,
    GatekeeperResult,
    GroupRefFields,
    LogEntry,
    LogGroup,
    LogRefFields,
    VerifierInput,
)
from core.language.text import fold
from core.tools.refs import alert_ref, group_ref, log_ref
from core.verifier.evidence import Evidence, ref_services
from core.verifier.roles import Reading, read_ref

LOG_ENTRY = LogEntry(timestamp="2026-07-08T11:17:00+08:00", level="WARN", service="order-service",
                     message="内存使用率过高: 91.0%, JVM堆内存: 3.8GB/4GB, GC次数: 128")
GROUP = LogGroup(template="ERROR IN CONTACTING RM <*>", count=147, service="hadoop-mapreduce",
                 level="ERROR", first_timestamp="2015-10-18 18:06:01,123",
                 last_timestamp="2015-10-18 18:10:13,456")
ALERT = Alert(alert_name="HighMemoryUsage", state="firing", service="order-service", current="91%",
              threshold="85%", duration="15m", severity="warning", details=["JVM heap 3.8GB/4GB"])


def _values(reading: Reading) -> set[tuple[str, str]]:
    return {(fact.role, fact.quantity.shown()) for fact in reading.facts if fact.quantity}


def test_a_log_line_in_another_layout_reads_the_same_from_its_fields() -> None:
    fields = log_ref(LOG_ENTRY).fields
    assert isinstance(fields, LogRefFields)
    text = f"{LOG_ENTRY.service} | {LOG_ENTRY.level} | {LOG_ENTRY.timestamp} | {LOG_ENTRY.message}"
    reading = read_ref(text, fields)
    recipe = read_ref(log_ref(LOG_ENTRY).text, fields)
    assert reading.kind == recipe.kind == "log"
    assert reading.levels == recipe.levels == {"warn"}
    assert reading.subjects == recipe.subjects == {"order-service"}
    assert reading.message == recipe.message == fold(LOG_ENTRY.message)
    assert _values(reading) == _values(recipe) >= {("sample", "91%"), ("used", "3.8gb"), ("total", "4gb")}
    sample = next(f for f in reading.facts if f.quantity and f.quantity.unit == "%")
    assert sample.time is not None and sample.time.shown().endswith("11:17:00")
    time = next(f for f in reading.facts if f.role == "time")
    assert text[time.start:time.end] == LOG_ENTRY.timestamp  # spans point into the text read
    # The same text without fields is no log line: what it is came from the fields.
    assert read_ref(text).kind == "text" and not read_ref(text).levels


def test_a_group_in_another_layout_reads_its_level_service_and_template_from_its_fields() -> None:
    fields = group_ref(GROUP).fields
    text = f"{GROUP.service}/{GROUP.level}: {GROUP.count}x <{GROUP.template}>"
    reading = read_ref(text, fields)
    assert reading.kind == "log" and reading.levels == {"error"}
    assert reading.subjects == {"hadoop-mapreduce"} and reading.message == fold(GROUP.template)
    assert read_ref(text).kind == "text" and read_ref(text).subjects == frozenset()


def test_an_alert_in_another_layout_reads_its_name_state_and_severity_from_its_fields() -> None:
    fields = alert_ref(ALERT).fields
    assert isinstance(fields, AlertRefFields)
    text = "HighMemoryUsage (firing) @ order-service: current=91%, threshold=85%, duration=15m"
    reading = read_ref(text, fields)
    assert reading.kind == "alert" and reading.states == {"firing"} and reading.levels == {"warn"}
    assert reading.subjects == {"order-service"}
    assert {("current", "91%"), ("threshold", "85%"), ("duration", "15m")} <= _values(reading)
    assert all("memory" in f.topics for f in reading.facts if f.role in ("current", "threshold"))
    assert read_ref(text).kind == "text" and not read_ref(text).states


def test_a_text_without_fields_reads_as_its_fields_would() -> None:
    """Refs stored before refs had fields: the old layout gives the same reading."""
    for content in (log_ref(LOG_ENTRY), group_ref(GROUP), alert_ref(ALERT)):
        assert read_ref(content.text) == read_ref(content.text, content.fields), content.text


def test_the_verifier_takes_a_refs_service_from_its_fields() -> None:
    text = f"{LOG_ENTRY.timestamp} WARN mysql: slow query 3.2s"
    fields = LogRefFields(timestamp=LOG_ENTRY.timestamp, level="WARN", service="mysql",
                          message="slow query 3.2s")
    assert ref_services(text, fields) == ["mysql"]
    assert ref_services(text) == []  # the layout alone names no service
    binding = CheckedBinding(claim_id="claim-1", tool_name="query_logs", source_invocation_id=1,
                             raw_path="$.logs[0]", evidence_excerpt="slow query 3.2s", status="pass",
                             matched_text=text, matched_fields=fields, match_kind="exact",
                             spans=[(len(text) - 15, len(text))])
    claim = Claim(claim_id="claim-1", claim_text="mysql slow query 3.2s", claim_type="observation",
                  evidence_bindings=[EvidenceBinding(tool_name="query_logs", source_invocation_id=1,
                                                     raw_path="$.logs[0]",
                                                     evidence_excerpt="slow query 3.2s")])
    verifier_input = VerifierInput(
        original_query="mysql slow?", executor_structured_output=ExecutorOutput(claims=[claim]),
        gatekeeper_result=GatekeeperResult(status="pass", severity="none", checked_bindings=[binding]))
    evidence = Evidence(verifier_input)
    (item,) = evidence.items
    assert "mysql" in evidence.known_subjects
    assert item.reading.kind == "log" and item.reading.subjects == {"mysql"}
    assert {("sample", "3.2s")} <= _values(item.reading)


def test_group_fields_hold_the_groups_facts() -> None:
    assert group_ref(GROUP).fields == GroupRefFields(
        template=GROUP.template, count=147, level="ERROR", service="hadoop-mapreduce",
        first_timestamp=GROUP.first_timestamp, last_timestamp=GROUP.last_timestamp)
