"""The role-swap suite: no wrong-role claim, repair or concluding gap passes; every correct
restatement does. Real sessions of the demo pack, edited, re-judged with ``replay``."""

from __future__ import annotations

import re
from functools import cache

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.contracts import SessionDocument, VerifierResult
from core.pipeline import replay
from core.verifier import RULES
from tests.verifier.role_swaps import QUESTIONS, Case, cases, session, truth

CASES = cases()
_PHRASES_ZH = {"current": ("当前值 {v}", "当前为 {v}", "目前 {v}", "现为 {v}"),
               "threshold": ("阈值 {v}", "超过阈值 {v}", "告警阈值为 {v}"),
               "duration": ("已持续 {v}", "持续 {v}", "持续时间 {v}")}
_PHRASES_EN = {"current": ("current {v}", "currently {v}", "now at {v}", "current value {v}"),
               "threshold": ("threshold {v}", "above the {v} threshold", "against a threshold of {v}"),
               "duration": ("for {v}", "lasting {v}", "duration {v}")}
_SWAPS = ("current", "threshold", "duration")


@cache
def _judged(name: str) -> VerifierResult:
    case = next(case for case in CASES if case.name == name)
    result = replay(case.document).verifier_result
    assert result is not None
    return result


@pytest.mark.parametrize("name", [case.name for case in CASES])
def test_wrong_roles_never_pass_and_restatements_do(name: str) -> None:
    case: Case = next(case for case in CASES if case.name == name)
    result = _judged(name)
    if case.should_pass:
        assert result.verdict == "PASS", ([r.reasons for r in result.claim_results],
                                          [r.reasons for r in result.step_results])
    else:
        assert result.verdict != "PASS", case.document.executor_output


def test_the_suite_has_both_kinds_for_every_question() -> None:
    for key in QUESTIONS:
        mine = [case for case in CASES if case.name.startswith(f"{key}/")]
        assert any(case.should_pass for case in mine) and any(not case.should_pass for case in mine)
    kinds = {case.kind for case in CASES if not case.should_pass}
    assert {"swap-current-threshold", "old-sample-as-current", "swap-used-total", "duration-unit",
            "repair-action", "trend", "runbook-appended", "gap-asserts-state"} <= kinds


def test_a_passing_claim_records_what_supports_each_value() -> None:
    result = _judged("memory-zh/right/zh-fields")
    supports = {support.fact: support for support in result.claim_results[0].supports}
    current = supports["当前值 91%"]
    assert current.role == "current" and current.evidence == "current=91%"
    assert supports["阈值 85%"].evidence == "threshold=85%"
    assert supports["已持续 15m"].evidence == "duration=15m"
    case = next(c for c in CASES if c.name == "memory-zh/right/zh-fields")
    claim = case.document.executor_output.claims[0]
    for support in result.claim_results[0].supports:
        start, end = support.claim_span
        assert claim.claim_text[start:end] == support.fact


def test_every_step_rule_and_every_wrong_kind_is_exercised() -> None:
    fired: set[str] = set()
    for case in CASES:
        if not case.should_pass:
            judged = _judged(case.name)
            fired |= {r.rule for r in judged.claim_results if r.rule}
            fired |= {r.rule for r in judged.step_results if r.rule}
    assert {"verifier.wrong_role", "verifier.unsupported_fact", "verifier.repair_action",
            "verifier.gap_asserts_state"} <= fired
    assert fired <= set(RULES)


# ---------------------------------------------------------------- properties


def _with_text(document: SessionDocument, text: str) -> SessionDocument:
    t = truth(document)
    first = document.executor_output.claims[0]
    claim = first.model_copy(update={"claim_text": text, "evidence_bindings": [t.alert_binding]})
    output = document.executor_output.model_copy(update={
        "claims": [claim], "missing_info": [], "recommended_actions": []})
    return document.model_copy(update={"executor_output": output})


def _statement(key: str, values: dict[str, str], order: list[str], picks: list[int], zh: bool) -> str:
    t = truth(session(key))
    phrases = _PHRASES_ZH if zh else _PHRASES_EN
    parts = [phrases[slot][pick % len(phrases[slot])].format(v=values[slot])
             for slot, pick in zip(order, picks, strict=True)]
    if zh:
        return f"{t.service} 的 {t.alert.alert_name} 告警：" + "，".join(parts) + "。"
    return f"{t.alert.alert_name} on {t.service}: " + ", ".join(parts) + "."


def _truth_values(key: str) -> dict[str, str]:
    alert = truth(session(key)).alert
    return {"current": alert.current or "", "threshold": alert.threshold or "",
            "duration": alert.duration or ""}


_KEYS = st.sampled_from(sorted(QUESTIONS))
_ORDERS = st.permutations(list(_SWAPS))
_PICKS = st.lists(st.integers(min_value=0, max_value=3), min_size=3, max_size=3)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(key=_KEYS, order=_ORDERS, picks=_PICKS, zh=st.booleans())
def test_any_order_and_wording_of_the_true_values_passes(key: str, order: list[str], picks: list[int],
                                                         zh: bool) -> None:
    text = _statement(key, _truth_values(key), order, picks, zh)
    result = replay(_with_text(session(key), text)).verifier_result
    assert result is not None
    assert result.verdict == "PASS", (text, result.claim_results[0].reasons)


def _numbers(text: str) -> list[str]:
    return re.findall(r"(?<![\w.])\d+(?:\.\d+)?(?:%|ms|s|m|h)?(?![\w.])", text)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(key=_KEYS, order=_ORDERS, picks=_PICKS, zh=st.booleans(), slot=st.sampled_from(_SWAPS),
       data=st.data())
def test_a_value_put_in_a_role_it_does_not_have_never_passes(key: str, order: list[str], picks: list[int],
                                                             zh: bool, slot: str, data: st.DataObject) -> None:
    """Any other value of the session's own evidence, put in one slot, makes the claim false."""
    values = _truth_values(key)
    t = truth(session(key))
    evidence = " ".join([t.alert_binding.evidence_excerpt, *(value for _, value, _ in t.samples)])
    true_value = values[slot].split()[-1]
    candidates = sorted({n for n in _numbers(evidence) if n != true_value
                         and _same_kind(n, true_value) and not _equal(n, true_value)})
    if not candidates:
        return
    wrong = data.draw(st.sampled_from(candidates))
    text = _statement(key, {**values, slot: values[slot].replace(true_value, wrong)}, order, picks, zh)
    result = replay(_with_text(session(key), text)).verifier_result
    assert result is not None and result.verdict != "PASS", text


def _unit(value: str) -> str:
    return re.sub(r"[\d.]", "", value)


def _same_kind(first: str, second: str) -> bool:
    units = {_unit(first), _unit(second)}
    return len(units) == 1 or units <= {"s", "ms"}


def _equal(first: str, second: str) -> bool:
    def seconds(value: str) -> float:
        number = float(re.sub(r"[^\d.]", "", value))
        return number / 1000 if value.endswith("ms") else number
    if _unit(first) == _unit(second):
        return float(re.sub(r"[^\d.]", "", first)) == float(re.sub(r"[^\d.]", "", second))
    return seconds(first) == seconds(second)
