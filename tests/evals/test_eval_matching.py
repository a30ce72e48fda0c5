"""Each expect key, passing and failing, against synthetic session documents."""

from __future__ import annotations

from typing import Any

import pytest

from core.contracts import (
    CheckedBinding,
    Claim,
    ComposerOutput,
    EvidenceBinding,
    ExecutorOutput,
    GatekeeperResult,
    Hypothesis,
    Invocation,
    RetrievalDetails,
    SessionDocument,
    VerifierResult,
)
from core.evals.cases import Expectation
from core.evals.matching import CHECKERS, check_expectations, find_leaks, observe


def make_session(*, verdict: str = "PASS", gate_status: str = "pass", gate_severity: str = "none",
                 failed_rules: list[str] | None = None, claims: list[Claim] | None = None,
                 hypotheses: list[Hypothesis] | None = None, answer: str = "",
                 checked: list[CheckedBinding] | None = None,
                 invocations: list[Invocation] | None = None) -> SessionDocument:
    return SessionDocument(
        session_id="s-test", question="q",
        invocations=invocations or [],
        executor_output=ExecutorOutput(claims=claims or [], hypotheses=hypotheses or []),
        gatekeeper_result=GatekeeperResult(status=gate_status, severity=gate_severity,
                                           failed_rules=failed_rules or [],
                                           checked_bindings=checked or []),
        verifier_result=VerifierResult(verdict=verdict, groundedness_score=1.0),
        composer_output=ComposerOutput(status="valid", user_facing_answer=answer))


def claim(claim_id: str, text: str, claim_type: str = "observation") -> Claim:
    binding = EvidenceBinding(tool_name="query_logs", source_invocation_id=1, raw_path="$.logs[0]",
                              evidence_excerpt=text)
    return Claim(claim_id=claim_id, claim_type=claim_type, claim_text=text,
                 evidence_bindings=[binding])


def checked(tool: str, status: str, claim_id: str = "claim-1") -> CheckedBinding:
    return CheckedBinding(claim_id=claim_id, tool_name=tool, source_invocation_id=1,
                          raw_path="$.logs[0]", status=status)


def invocation(invocation_id: int, tool: str, status: str) -> Invocation:
    return Invocation(invocation_id=invocation_id, tool_name=tool,
                      retrieval_details=RetrievalDetails(evidence_status=status))


def failures(expect: dict[str, Any], session: SessionDocument) -> dict[str, Any]:
    found = check_expectations(Expectation.model_validate(expect), session)
    return {failure.key: failure for failure in found}


def test_every_expectation_key_has_a_checker() -> None:
    assert list(CHECKERS) == list(Expectation.model_fields)


def test_no_expectations_means_no_failures() -> None:
    assert failures({}, make_session(verdict="REJECT")) == {}


@pytest.mark.parametrize(("expected", "actual", "ok"), [
    ("PASS", "PASS", True), ("PASS", "LOW_CONFID", False),
    (["LOW_CONFID", "REJECT"], "REJECT", True), (["LOW_CONFID", "REJECT"], "PASS", False),
])
def test_verdict_is_one_value_or_any_of_a_list(expected: Any, actual: str, ok: bool) -> None:
    found = failures({"verdict": expected}, make_session(verdict=actual))
    assert ("verdict" not in found) is ok
    if not ok:
        assert found["verdict"].actual == actual


def test_verdict_fails_when_the_session_has_none() -> None:
    session = make_session().model_copy(update={"verifier_result": None})
    assert failures({"verdict": "PASS"}, session)["verdict"].actual is None


def test_gatekeeper_status_and_severity() -> None:
    session = make_session(gate_status="fail", gate_severity="reject")
    assert failures({"gatekeeper_status": "fail", "gatekeeper_severity": "reject"}, session) == {}
    found = failures({"gatekeeper_status": "pass", "gatekeeper_severity": "none"}, session)
    assert (found["gatekeeper_status"].actual, found["gatekeeper_severity"].actual) == ("fail", "reject")


def test_failed_rules_include_is_a_subset_check() -> None:
    session = make_session(failed_rules=["evidence.raw_path", "evidence.excerpt_mismatch"])
    assert failures({"failed_rules_include": ["evidence.raw_path"]}, session) == {}
    assert failures({"failed_rules_include": []}, session) == {}
    found = failures({"failed_rules_include": ["evidence.raw_path", "evidence.invocation_ref"]}, session)
    assert found["failed_rules_include"].actual == ["evidence.raw_path", "evidence.excerpt_mismatch"]


def test_claim_types_every_claim_in_the_list_and_vacuous_with_no_claims() -> None:
    session = make_session(claims=[claim("claim-1", "a"), claim("claim-2", "b", "root_cause")])
    assert failures({"claim_types": ["observation", "root_cause"]}, session) == {}
    found = failures({"claim_types": ["observation", "negative_observation"]}, session)
    assert found["claim_types"].actual == ["observation", "root_cause"]
    assert failures({"claim_types": ["negative_observation"]}, make_session()) == {}


def test_max_claims_counts_executor_claims() -> None:
    session = make_session(claims=[claim("claim-1", "a"), claim("claim-2", "b")])
    assert failures({"max_claims": 2}, session) == {}
    assert failures({"max_claims": 1}, session)["max_claims"].actual == 2
    assert failures({"max_claims": 0}, make_session()) == {}


def test_answer_includes_is_case_insensitive_and_nfkc_normalised() -> None:
    session = make_session(answer="HighCPUUsage：payment-service 当前 92%；未检索到 OOM")
    assert failures({"answer_includes": ["highcpuusage", "未检索到", "ＰＡＹＭＥＮＴ"]}, session) == {}
    found = failures({"answer_includes": ["highcpuusage", "HikariCP"]}, session)
    assert found["answer_includes"].actual == session.composer_output.user_facing_answer
    assert "HikariCP" in found["answer_includes"].message


def test_forbidden_checks_every_claim_and_the_answer_case_insensitively() -> None:
    clean = make_session(claims=[claim("claim-1", "payment-service CPU 92%")],
                         answer="payment-service 存在 HighCPUUsage")
    assert failures({"forbidden": ["hikaricp", "order-123"]}, clean) == {}

    leaky_claim = make_session(claims=[claim("claim-1", "ok"), claim("claim-2", "HikariCP pool exhausted")])
    found = failures({"forbidden": ["hikaricp"]}, leaky_claim)
    assert found["forbidden"].actual == ["'hikaricp' in claim claim-2"]

    leaky_answer = make_session(answer="根因：连接池耗尽已确认")
    assert failures({"forbidden": ["连接池耗尽已确认"]}, leaky_answer)["forbidden"].actual == [
        "'连接池耗尽已确认' in answer"]


def test_forbidden_ignores_hypotheses_that_stay_out_of_the_answer() -> None:
    hedged = Hypothesis(hypothesis_id="hyp-1", hypothesis_text="可能存在内存泄漏")
    session = make_session(hypotheses=[hedged], answer="order-service HighMemoryUsage 91%")
    assert failures({"forbidden": ["内存泄漏"]}, session) == {}
    presented = make_session(hypotheses=[hedged], answer="已确认：可能存在内存泄漏")
    assert [leak.where for leak in find_leaks(["内存泄漏"], presented)] == ["answer"]


def test_evidence_tools_needs_a_passing_binding_of_each_tool() -> None:
    session = make_session(checked=[checked("query_logs", "pass"), checked("query_metrics", "fail")])
    assert failures({"evidence_tools": ["query_logs"]}, session) == {}
    found = failures({"evidence_tools": ["query_logs", "query_metrics"]}, session)
    assert found["evidence_tools"].actual == ["query_logs"]


def test_evidence_status_needs_one_invocation_of_the_tool_with_that_status() -> None:
    session = make_session(invocations=[invocation(1, "query_logs", "supported"),
                                        invocation(2, "query_logs", "no_evidence"),
                                        invocation(3, "query_metrics", "supported")])
    assert failures({"evidence_status": {"query_logs": "no_evidence",
                                         "query_metrics": "supported"}}, session) == {}
    found = failures({"evidence_status": {"query_metrics": "no_evidence",
                                          "lookup_knowledge": "supported"}}, session)
    assert found["evidence_status"].actual == {"query_metrics": ["supported"], "lookup_knowledge": []}


def test_observe_counts_bindings_and_summarises_the_session() -> None:
    session = make_session(verdict="LOW_CONFID", claims=[claim("claim-1", "a")], answer="x",
                           checked=[checked("query_logs", "pass"), checked("query_logs", "fail"),
                                    checked("lookup_knowledge", "pass")])
    seen = observe(session)
    assert (seen.verdict, seen.claim_count, seen.bindings_checked, seen.bindings_passed) == (
        "LOW_CONFID", 1, 3, 2)
    assert seen.evidence_tools == ["lookup_knowledge", "query_logs"]


def test_failures_come_in_documented_key_order() -> None:
    session = make_session(verdict="REJECT", gate_status="fail", answer="")
    found = check_expectations(Expectation.model_validate(
        {"answer_includes": ["x"], "verdict": "PASS", "gatekeeper_status": "pass"}), session)
    assert [f.key for f in found] == ["verdict", "gatekeeper_status", "answer_includes"]
