"""A simulated model in the executor's seat, through ``superbiz ask --executor llm``.

The model (``tests.doubles.simulated``) reads the real tool outputs the product sends it and
quotes them honestly in several styles, or makes one mistake on purpose. Over the seed's five
questions: honest sessions PASS in strict and natural wording; a citation error that the model
fixes when told ends PASS after exactly one repair; no root cause, repair, runbook sentence or
rounded value reaches a PASS answer; a model that does not fix its error never ends PASS, and
what it got right stays in the answer as verified on its own.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.doubles.sim_claims import STYLES, Style
from tests.doubles.sim_faults import CITATION_ERRORS, CONTENT_ERRORS, ErrorMode
from tests.doubles.sim_sessions import SEED_QUESTIONS, SimOutcome, ask_simulated, serving
from tests.doubles.simulated import SimulatedModel
from tests.llm.llm_helpers import ask_served_process


def run(model: SimulatedModel) -> Iterator[tuple[str, SimOutcome]]:
    """The seed's five questions against ``model``, each through the CLI."""
    with serving(model):
        for question in SEED_QUESTIONS:
            yield question, ask_simulated(model, question)


@pytest.mark.parametrize("style", STYLES)
def test_honest_sessions_pass_on_the_first_attempt(style: Style) -> None:
    for question, outcome in run(SimulatedModel(style=style)):
        assert outcome.status == "completed", question
        assert outcome.verdict == "PASS", (question, outcome.document["verifier_result"])
        assert outcome.repairs == 0 and not outcome.document["attempts"]
        assert outcome.shown_claims >= 1 and "修正说明" not in outcome.answer


@pytest.mark.parametrize("error", CITATION_ERRORS)
def test_a_citation_error_the_model_fixes_when_told_passes_after_one_repair(
        error: ErrorMode) -> None:
    style = STYLES[CITATION_ERRORS.index(error) % len(STYLES)]
    made = 0
    for question, outcome in run(SimulatedModel(style=style, error=error, fixes=True)):
        assert outcome.verdict == "PASS", (question, outcome.document["verifier_result"])
        if not outcome.error_made:
            continue
        made += 1
        assert outcome.repairs == 1 and outcome.first_verdict in ("REJECT", "LOW_CONFID")
        first = outcome.document["attempts"][0]
        findings = first["feedback"]["findings"]
        assert findings and all(f["rule"] in first["feedback"]["failed_rules"] for f in findings)
        assert "修正说明" in outcome.answer  # the answer says it was repaired
    assert made >= 4


@pytest.mark.parametrize("error", CITATION_ERRORS)
def test_a_model_that_does_not_fix_never_passes_and_keeps_what_held(error: ErrorMode) -> None:
    partial = 0
    for question, outcome in run(SimulatedModel(style="strict", error=error, fixes=False)):
        if not outcome.error_made:
            continue
        assert outcome.verdict in ("REJECT", "LOW_CONFID"), question
        assert outcome.repairs == 1  # it was asked, and said the same again
        partial += outcome.partial
        if outcome.partial:
            assert "已单独通过核验的结论" in outcome.answer
    assert partial >= 2  # a question answered by two claims keeps the one that held


@pytest.mark.parametrize("error", CONTENT_ERRORS)
@pytest.mark.parametrize("fixes", [True, False], ids=["fixer", "stubborn"])
def test_wrong_content_never_reaches_a_pass_answer(error: ErrorMode, fixes: bool) -> None:
    style = STYLES[(CONTENT_ERRORS.index(error) + fixes) % len(STYLES)]
    made = 0
    for question, outcome in run(SimulatedModel(style=style, error=error, fixes=fixes)):
        made += outcome.error_made
        assert not outcome.wrong_in_answer, (question, outcome.answer)
        if outcome.verdict == "PASS" and outcome.error_made:
            # Only a model that took the wrong content out when told passes.
            assert fixes and outcome.repairs == 1, (question, outcome.answer)
    assert made >= 3


def test_a_repair_action_gets_no_repair_turn() -> None:
    """Forbidden content is not coached away: the attempt stands as judged."""
    for _, outcome in run(SimulatedModel(error="repair_action", fixes=True)):
        assert outcome.verdict == "REJECT" and outcome.repairs == 0


def test_an_injected_fault_is_judged_once_as_before() -> None:
    model = SimulatedModel(style="strict")
    with serving(model):
        outcome = ask_simulated(model, SEED_QUESTIONS[1],
                                ("--no-store", "--executor-fault", "tamper_number"))
    assert outcome.verdict == "REJECT" and outcome.repairs == 0
    assert not outcome.document["attempts"]


def test_the_simulated_model_serves_over_http_as_a_process(tmp_path: Path) -> None:
    """``python -m tests.doubles.simulated`` as docs/llm.md starts it; the llm client is imported
    once an llm role runs (tests/test_cli_imports.py pins that the rules engine never does)."""
    printed = ask_served_process(["tests.doubles.simulated", "--style", "natural", "--error",
                                  "off_by_one"], SEED_QUESTIONS[0], tmp_path / "audit.db")
    assert printed == ["completed", "PASS", "1", "True"]
