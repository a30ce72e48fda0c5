"""What the repair turn tells the executor about forms of failure the second model double
(``tests.doubles.othermodel``) showed: a claim whose citations failed AND which lacks a
required field hears of both; a negative observation cited to the wrong place is shown the
no-hit queries that cover it; a claim's evidence is shown as current-state evidence only."""

from __future__ import annotations

from core.contracts import EvidenceBinding
from core.gatekeeper import check_citations, negative
from core.pipeline import ask
from core.repair import retry_context
from tests.doubles.sim_sessions import SEED_QUESTIONS
from tests.test_repair import engines, rejudged

CPU, POOL_ABSENT = SEED_QUESTIONS[0], SEED_QUESTIONS[4]


def test_a_no_hit_citation_of_a_claim_without_claim_type_says_both_what_and_why() -> None:
    document = ask(POOL_ABSENT, engines=engines(style="strict"))
    assert document.executor_output is not None
    claim = document.executor_output.claims[0]
    assert claim.claim_type == "negative_observation" and claim.evidence_bindings
    claim.claim_type = None
    gatekeeper = check_citations(session_id=document.session_id, invocations=document.invocations,
                                 executor_output=document.executor_output)
    failed = [c for c in gatekeeper.checked_bindings if c.claim_id == claim.claim_id]
    assert failed and all(c.status == "fail" for c in failed)
    assert all("claim_type" in c.message and "negative_observation" in c.message for c in failed)
    gatekeeper, result = rejudged(document)
    feedback = retry_context(document.executor_output, document.invocations, gatekeeper, result)
    assert feedback is not None
    rules = {(f.rule, f.binding_index is None) for f in feedback.findings
             if f.claim_id == claim.claim_id}
    # The bindings, and the field whose absence is why they failed.
    assert ("evidence.excerpt_mismatch", False) in rules
    assert ("verifier.missing_field", True) in rules


def test_a_negative_observation_cited_to_the_wrong_call_is_shown_the_queries_that_cover_it() -> None:
    document = ask(POOL_ABSENT, engines=engines(style="strict"))
    assert document.executor_output is not None
    runbook = next(i for i in document.invocations if i.tool_name == "lookup_knowledge")
    # Calls that returned nothing and looked at all of the claim's subject (not ERROR only).
    no_hits = {i.invocation_id for i in document.invocations
               if not negative.evidence_problem(i) and "level" not in i.arguments}
    claim = document.executor_output.claims[0]
    claim.evidence_bindings = [EvidenceBinding(
        tool_name="lookup_knowledge", source_invocation_id=runbook.invocation_id, raw_path=None,
        evidence_excerpt="未检索到相关日志")]  # names none of the query's arguments
    gatekeeper, result = rejudged(document)
    feedback = retry_context(document.executor_output, document.invocations, gatekeeper, result)
    assert feedback is not None
    finding = next(f for f in feedback.findings if f.binding_index == 0)
    places = {place.source_invocation_id for place in finding.found_at}
    assert places and places <= no_hits, (places, no_hits)


def test_a_claims_evidence_in_the_feedback_is_current_state_evidence_only() -> None:
    document = ask(CPU, engines=engines(style="strict"))
    assert document.executor_output is not None
    runbook = next(i for i in document.invocations if i.tool_name == "lookup_knowledge")
    assert runbook.retrieval_details is not None and runbook.retrieval_details.evidence_refs
    ref = runbook.retrieval_details.evidence_refs[0]
    claim = document.executor_output.claims[0]
    claim.claim_text = claim.claim_text.replace("92%", "97%")
    claim.evidence_bindings.append(EvidenceBinding(
        tool_name="lookup_knowledge", source_invocation_id=runbook.invocation_id,
        raw_path=ref.raw_path, evidence_excerpt=ref.text))
    gatekeeper, result = rejudged(document)
    assert any(c.claim_id == claim.claim_id and c.tool_name == "lookup_knowledge"
               and c.status == "pass" for c in gatekeeper.checked_bindings)
    feedback = retry_context(document.executor_output, document.invocations, gatekeeper, result)
    assert feedback is not None
    finding = next(f for f in feedback.findings
                   if f.claim_id == claim.claim_id and f.binding_index is None)
    assert finding.evidence and all("current=92%" in text for text in finding.evidence)
    assert ref.text not in finding.evidence
