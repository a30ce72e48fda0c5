"""A negative observation its own session contradicts is not entailed: another call of the
session returned what the no-hit search looked for (cited by a claim, or only returned), or the
claim's own text says records were found. The same absence, with a session that holds nothing
it denies, passes -- in Chinese and English."""

from __future__ import annotations

import pytest

from core.contracts import (
    CheckedBinding,
    Claim,
    ClaimResult,
    EvidenceBinding,
    ExecutorOutput,
    GatekeeperResult,
    Plan,
    VerifierInput,
)
from core.verifier import judge

NO_HIT = "query_logs(service=order-service, query=restart) returned 0 results"
RESTART = "[2026-07-08T11:10:00+08:00][WARN][order-service] container restarted: OOMKilled, exit code 137"
OTHER = "[2026-07-08T11:12:00+08:00][INFO][order-service] request served in 120ms"
SEARCH = {"service": "order-service", "query": "restart"}


def _checked(claim_id: str, text: str, invocation: int, *, negative: bool = False) -> CheckedBinding:
    return CheckedBinding(claim_id=claim_id, tool_name="query_logs", source_invocation_id=invocation,
                          raw_path=None if negative else "$.logs[0]", evidence_excerpt=text, status="pass",
                          matched_text=text, match_kind="negative" if negative else "exact",
                          spans=[] if negative else [(0, len(text))])


def _claim(claim_id: str, claim_type: str, text: str, checked: CheckedBinding) -> Claim:
    return Claim(claim_id=claim_id, claim_type=claim_type, claim_text=text,
                 subject_services=["order-service"],
                 evidence_bindings=[EvidenceBinding(tool_name="query_logs",
                                                    source_invocation_id=checked.source_invocation_id,
                                                    raw_path=checked.raw_path,
                                                    evidence_excerpt=checked.evidence_excerpt)])


def _absence(text: str, *, other_line: str | None = None, cited: bool = True,
             search: dict[str, object] | None = None,
             other_arguments: dict[str, object] | None = None) -> ClaimResult:
    """Judge the negative observation ``text`` (citing call 3's no-hit) in a session whose call
    4 returned ``other_line`` -- cited by a second claim, or only returned."""
    negative = _checked("claim-1", NO_HIT, 3, negative=True)
    claims, checked = [_claim("claim-1", "negative_observation", text, negative)], [negative]
    refs: dict[int, list[str]] = {3: []}
    if other_line is not None:
        refs[4] = [other_line]
        if cited:
            line = _checked("claim-2", other_line, 4)
            claims.append(_claim("claim-2", "observation", "order-service logged: " + other_line, line))
            checked.append(line)
    verifier_input = VerifierInput(
        original_query="order-service 是否重启过？", executor_structured_output=ExecutorOutput(claims=claims),
        gatekeeper_result=GatekeeperResult(status="pass", severity="none", checked_bindings=checked),
        invocation_arguments={3: search or SEARCH, 4: other_arguments or {"service": "order-service"}},
        invocation_refs=refs)
    return judge(verifier_input, Plan(question=verifier_input.original_query, services=["order-service"]))[0][0]


ABSENCES = ["No restart records were found for order-service.", "未检索到 order-service 的重启记录。"]


@pytest.mark.parametrize("text", ABSENCES)
def test_an_absence_the_session_does_not_contradict_passes(text: str) -> None:
    result = _absence(text, other_line=OTHER)
    assert result.entailed, result.reasons


@pytest.mark.parametrize("text", ABSENCES)
@pytest.mark.parametrize("cited", [True, False])
def test_an_absence_another_call_contradicts_is_not_entailed(text: str, cited: bool) -> None:
    result = _absence(text, other_line=RESTART, cited=cited)
    assert not result.entailed
    assert result.rule == "verifier.absence_contradicted", result.reasons
    assert "container restarted" in " ".join(result.reasons)


@pytest.mark.parametrize(("search", "other_arguments"), [
    # The other call's line is another service's.
    (SEARCH, {"service": "payment-service"}),
    # The no-hit searched ERROR lines only; the restart line is a WARN.
    ({**SEARCH, "level": "ERROR"}, None),
    # The no-hit searched after the restart.
    ({**SEARCH, "since": "2026-07-08T11:15:00+08:00"}, None),
    # The no-hit searched memory lines only; the restart line is about no memory.
    ({**SEARCH, "topic": "memory"}, None),
    # The no-hit excluded what the line says.
    ({**SEARCH, "exclude": ["oomkilled"]}, None),
])
def test_a_line_outside_the_searchs_filters_contradicts_nothing(search: dict[str, object],
                                                               other_arguments: dict[str, object] | None) -> None:
    result = _absence(ABSENCES[0], other_line=RESTART, cited=False, search=search, other_arguments=other_arguments)
    assert result.entailed, result.reasons


@pytest.mark.parametrize("text", [
    "No restart records were found for order-service; the search found 3 restarts.",
    "No restart records were found for order-service, but 2 records show OOMKilled.",
    "未检索到 order-service 的重启记录，共查到 3 条。",
    "未检索到 order-service 的重启记录；发现了 OOMKilled 重启。",
])
def test_an_absence_whose_own_text_finds_records_is_not_entailed(text: str) -> None:
    result = _absence(text)
    assert not result.entailed
    assert "verifier.absence_contradicted" in result.rules, result.reasons


@pytest.mark.parametrize("text", [
    "query_logs returned 0 lines for restart in order-service.",
    "在 order-service 中搜索 restart，返回 0 条。",
])
def test_a_zero_count_is_an_absence(text: str) -> None:
    assert "verifier.absence_contradicted" not in _absence(text).rules
