"""``core.language.read.read``: one reading of the whole question -- what it excludes taken out
of what it asks, its time window against the data's clock, the names the data lacks."""

from __future__ import annotations

from datetime import UTC, datetime

from core.language.read import read

NOW = datetime(2026, 1, 2, 12, 0, tzinfo=UTC)


def test_what_a_question_excludes_is_not_what_it_asks_and_narrows_it() -> None:
    reading = read("只确认 order-service 的内存，不要看 GC", services=["order-service"], now=NOW)
    assert (reading.services, reading.topics) == (["order-service"], ["memory"])
    assert reading.exclusions.topics == ["gc"]
    assert reading.scope_markers == ["只确认", "不要看"]


def test_a_name_the_data_lacks_is_unknown_unless_the_names_are_incomplete() -> None:
    question = "Did billing-service log ERROR lines in the last hour?"
    reading = read(question, services=["order-service"], now=NOW)
    assert (reading.services, reading.unknown_subjects) == ([], ["billing-service"])
    assert (reading.level, reading.since, reading.until) == ("ERROR", "2026-01-02T11:00:00+00:00", None)
    incomplete = read(question, services=["order-service"], now=NOW, complete=False)
    assert (incomplete.services, incomplete.unknown_subjects) == (["billing-service"], [])


def test_a_window_is_read_against_the_clock_of_the_services_asked_about() -> None:
    recorded = datetime(2025, 5, 5, 23, 0, tzinfo=UTC)
    reading = read("hdfs errors between 18:05 and 18:10", services=["hdfs"], now=NOW,
                   clock=lambda services: recorded if "hdfs" in services else NOW)
    assert (reading.since, reading.until) == ("2025-05-05T18:05+00:00", "2025-05-05T18:10+00:00")
    assert "18:05" not in str(reading.terms) and reading.services == ["hdfs"]
    assert read("hdfs errors between 18:05 and 18:10", services=["hdfs"]).since is None  # no clock
