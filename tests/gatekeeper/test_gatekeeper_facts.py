"""Fact extraction: numbers by value and unit, in order; identifiers; states; negations."""

from __future__ import annotations

from core.language import facts
from core.language.text import normalize_text


def _facts(text: str) -> facts.Facts:
    return facts.extract_facts(normalize_text(text), text)


def test_numbers_keep_value_unit_and_order() -> None:
    found = _facts("current=91.0%, JVM heap 3.8GB/4GB, took 4200 ms, exit code 137")
    assert found.numbers == ((91.0, "%"), (3.8, "gb"), (4.0, "gb"), (4200.0, "ms"), (137.0, ""))
    assert found.ratios == frozenset({((3.8, "gb"), (4.0, "gb"))})


def test_dates_and_times_are_numbers_ids_are_not() -> None:
    found = _facts("[2026-07-08 11:17:00] pod-order-service-5c7d8e9f1-m3n2p p99")
    assert found.numbers == ((2026.0, ""), (7.0, ""), (8.0, ""), (11.0, ""), (17.0, ""), (0.0, ""))
    assert {"pod-order-service-5c7d8e9f1-m3n2p", "p99"} <= found.identifiers


def test_identifiers_states_and_camel_case_names() -> None:
    found = _facts("HighMemoryUsage firing on /api/v1/users/profile via redis-cluster-01:6379 [ERROR]")
    assert {"highmemoryusage", "/api/v1/users/profile", "redis-cluster-01:6379"} <= found.identifiers
    assert found.states == frozenset({"firing", "error"})


def test_negations_english_contracted_and_chinese() -> None:
    found = _facts("Connection is not available; it can't recover. 数据库连接未释放, 没有可用连接")
    assert found.negations == {"not": 1, "n't": 1, "未": 1, "没有": 1}


def test_missing_facts_names_what_changed() -> None:
    region = normalize_text("current=99%, threshold=90%, service=repayment-service")
    region_facts = facts.extract_facts(region)
    swapped = facts.missing_facts(_facts("current=90%, threshold=90%"), region_facts, region)
    assert swapped == ["number 90% not in this order"]
    service = facts.missing_facts(_facts("service=payment-service"), region_facts, region)
    assert service == ["identifier 'payment-service' not in the ref text"]


def test_generic_and_short() -> None:
    assert facts.is_generic(normalize_text("[ERROR] firing, service=order-service"))
    assert not facts.is_generic(normalize_text("order-service current=91%"))
    assert facts.informative_length("内存过高") == 8
