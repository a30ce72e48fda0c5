"""The role reader on the ref formats the recorder writes and on natural wording, both languages."""

from __future__ import annotations

import pytest

from core.language.quantities import tokens
from core.language.text import fold
from core.verifier.roles import read_claim, read_ref

ALERT = ("HighMemoryUsage firing, service=order-service, current=91%, threshold=85%, duration=15m, "
         "pod=pod-order-service-5c7d8e9f1-m3n2p, namespace=production, severity=warning; JVM heap 3.8GB/4GB; "
         "order-service 内存使用率 91%，超过阈值 85%，已持续 15 分钟")
LOG = "[2026-07-08T11:17:00+08:00][WARN][order-service] 内存使用率过高: 91.0%, JVM堆内存: 3.8GB/4GB, GC次数: 128"
GROUP = ('147 lines like "ERROR IN CONTACTING RM <*>" [ERROR][hadoop-mapreduce] '
         "from 2015-10-18 18:06:01,123 to 2015-10-18 18:10:13,456")


def _claim(text: str, service: str = "order-service") -> list[tuple[str, str]]:
    reading = read_claim(text, known_subjects=[service], default_subjects=[service])
    return [(fact.role, fact.quantity.shown() if fact.quantity else fact.shown()) for fact in reading.facts]


@pytest.mark.parametrize(("text", "expected"), [
    ("当前值 91%，阈值 85%，已持续 15m", [("current", "91%"), ("threshold", "85%"), ("duration", "15m")]),
    ("阈值 85%，当前值 91%", [("threshold", "85%"), ("current", "91%")]),
    ("current 91%, threshold 85%, for 15m", [("current", "91%"), ("threshold", "85%"), ("duration", "15m")]),
    ("memory usage is currently 91%, above the 85% threshold, for 15 minutes",
     [("current", "91%"), ("threshold", "85%"), ("duration", "15 minutes")]),
    ("order-service 当前内存使用率为 85%", [("current", "85%")]),
    ("JVM 堆内存阈值为 3.8GB，当前使用 4GB", [("threshold", "3.8gb"), ("used", "4gb")]),
    ("JVM heap 3.8GB/4GB", [("used", "3.8gb"), ("total", "4gb")]),
    ("heap: 3.8GB used of 4GB", [("used", "3.8gb"), ("total", "4gb")]),
    ("堆内存已用 3.8GB，总量 4GB", [("used", "3.8gb"), ("total", "4gb")]),
    ("10分钟内 15 次 Full GC, 平均耗时 850ms", [("window", "10 分钟"), ("count", "15 次"), ("average", "850ms")]),
    ("in the last 15 minutes", [("period", "15 minutes")]),
    ("GC次数: 128", [("count", "128")]),
])
def test_a_claim_value_takes_the_role_its_words_give_it(text: str, expected: list[tuple[str, str]]) -> None:
    assert _claim(text) == expected


def test_a_trend_is_samples_oldest_first_and_never_the_current_value() -> None:
    reading = read_claim("内存使用率过高: 86.2% → 87.4% → … → 91.0%", known_subjects=[], default_subjects=[])
    samples = [(f.role, f.order, f.now) for f in reading.facts]
    assert samples == [("sample", 0, False), ("sample", 1, False), ("sample", 2, False)]
    english = read_claim("usage rose from 86.2% to 91.0%", known_subjects=[], default_subjects=[])
    assert [(f.role, f.order) for f in english.facts] == [("sample", 0), ("sample", 1)]


def test_times_are_read_with_first_and_latest() -> None:
    reading = read_claim("最新一条出现在 11:17，最早一条在 11:05", known_subjects=[], default_subjects=[])
    assert [(f.qualifier, f.time.shown() if f.time else "") for f in reading.facts] == [
        ("latest", "11:17"), ("first", "11:05")]
    paired = read_claim("11:05 时内存使用率为 86.2%", known_subjects=[], default_subjects=[])
    sample = next(f for f in paired.facts if f.quantity is not None)
    assert sample.role == "sample" and sample.time is not None and sample.time.shown() == "11:05"


def test_each_value_belongs_to_the_service_named_before_it() -> None:
    reading = read_claim("payment-service current 92%; order-service current 91%",
                         known_subjects=["payment-service", "order-service"], default_subjects=[])
    assert [sorted(f.subjects) for f in reading.facts] == [["payment-service"], ["order-service"]]


def test_an_alert_ref_reads_its_fields_details_and_summary() -> None:
    reading = read_ref(ALERT)
    assert reading.kind == "alert" and reading.states == {"firing"} and reading.subjects == {"order-service"}
    roles = {(f.role, f.quantity.shown() if f.quantity else "") for f in reading.facts}
    assert {("current", "91%"), ("threshold", "85%"), ("duration", "15m"), ("duration", "15 分钟"),
            ("used", "3.8gb"), ("total", "4gb")} <= roles
    assert all("memory" in f.topics for f in reading.facts if f.role in ("current", "threshold"))


def test_a_log_ref_reads_samples_at_the_line_time() -> None:
    reading = read_ref(LOG)
    assert reading.kind == "log" and reading.levels == {"warn"} and reading.subjects == {"order-service"}
    sample = next(f for f in reading.facts if f.quantity and f.quantity.unit == "%")
    assert sample.role == "sample" and sample.time is not None and sample.time.shown().endswith("11:17:00")
    assert {(f.role, f.quantity.shown()) for f in reading.facts if f.quantity} >= {
        ("used", "3.8gb"), ("total", "4gb"), ("count", "128")}


def test_a_log_group_reads_its_count_service_and_first_and_latest_time() -> None:
    reading = read_ref(GROUP)
    assert reading.subjects == {"hadoop-mapreduce"} and reading.levels == {"error"}
    assert [(f.role, f.qualifier) for f in reading.facts] == [("count", None), ("time", "first"),
                                                              ("time", "latest")]


def test_a_query_argument_names_the_subject_of_lines_that_do_not() -> None:
    reading = read_ref("内存使用率过高: 91.0%", argument_subjects=["order-service"])
    assert all(f.subjects == {"order-service"} for f in reading.facts)


@pytest.mark.parametrize(("text", "shown"), [
    ("HikariPool-1 P99 v1.2 redis-cluster-01:6379 pod-x-5c7d8e9f1 order-123", []),
    ("91.0% 15 分钟 3600ms 4194304kB", ["91%", "15 分钟", "3600ms", "4194304kb"]),
    ("exit code 137 rows_examined=1250000", ["137", "1250000"]),
])
def test_numbers_inside_names_are_not_values(text: str, shown: list[str]) -> None:
    assert [token.parts[0].shown() for token in tokens(fold(text)) if token.kind == "number"] == shown


def test_values_compare_in_base_units() -> None:
    def quantity(text: str):  # type: ignore[no-untyped-def]
        return tokens(fold(text))[0].parts[0]
    assert quantity("91%").same_value(quantity("91.0%"))
    assert quantity("15m").same_value(quantity("15 分钟")) and quantity("15m").same_value(quantity("900s"))
    assert not quantity("15m").same_value(quantity("15s"))
    assert not quantity("3.8GB").same_value(quantity("4GB"))
    assert quantity("3000ms").same_value(quantity("3s"))
