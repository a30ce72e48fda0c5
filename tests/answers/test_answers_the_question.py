"""A PASS is never wrong: the answer accounts for every term of the question (DESIGN §11).

Over a real log store (``superbiz logs import`` of a small application log), questions of each
failure class: the question's words are not the log's (word forms, synonyms), a word the data
never mentions, a finding about the subject but not what happened to it, words found only in
different lines, a word inside another word. Each asserts what the answer says and whether it
may be green, and the calls the recall ladder made (each one recorded and checked)."""

from __future__ import annotations

import os
from datetime import UTC, datetime

import pytest

from core.cli import main
from core.contracts import SessionDocument
from core.pipeline import ask
from core.sources.base import World
from core.sources.pack import load_world

LOG = """\
2024-03-01 10:00:01,100 INFO  Scheduler started with 8 worker slots
2024-03-01 10:05:02,200 WARN  No free worker slots for task 17, queueing
2024-03-01 10:05:03,300 WARN  No free worker slots for task 18, queueing
2024-03-01 10:06:00,000 INFO  Task 17 retried after backoff
2024-03-01 10:07:00,000 ERROR Request to /admin was forbidden for user alice
2024-03-01 10:08:00,000 INFO  Backup of the ledger finished in 42s
2024-03-01 10:09:00,000 INFO  Room 12 booked by bob
2024-03-01 10:10:00,000 WARN  Job app-7 failed: image pull error
2024-03-01 10:11:00,000 INFO  Scheduler halted after draining the queue
"""
WRITTEN = datetime(2024, 3, 2, tzinfo=UTC).timestamp()


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> World:
    folder = tmp_path_factory.mktemp("worker-logs")
    log = folder / "worker.log"
    log.write_text(LOG, encoding="utf-8")
    os.utime(log, (WRITTEN, WRITTEN))
    pack = folder / "pack"
    pack.mkdir()
    assert main(["logs", "import", str(log), "--store", str(pack / "logs.db")]) == 0
    (pack / "pack.yaml").write_text("logs:\n  store: logs.db\n", encoding="utf-8")
    return load_world(str(pack))


def _fates(document: SessionDocument) -> dict[str, tuple[str | None, bool | None]]:
    assert document.verifier_result is not None
    return {term.text: (term.fate, term.accounted) for term in document.verifier_result.question_terms}


def _verdict(document: SessionDocument) -> str:
    assert document.verifier_result is not None
    return document.verifier_result.verdict


def _queries(document: SessionDocument) -> list[str]:
    return [str(inv.arguments.get("query")) for inv in document.invocations if inv.arguments.get("query")]


def test_every_term_has_a_kind_and_after_the_run_a_fate(world: World) -> None:
    document = ask("How many sessions did worker establish?", pack=world)
    assert document.plan is not None and document.verifier_result is not None
    kinds = {term.text: term.kind for term in document.plan.reading.question_terms}
    assert kinds["worker"] == "subject" and kinds["establish"] == "predicate"
    assert all(term.fate is not None for term in document.verifier_result.question_terms)


def test_a_synonym_in_the_log_answers_and_is_told_as_relaxed(world: World) -> None:
    """"Did the scheduler stop?" of "Scheduler halted": the synonyms rung finds it."""
    document = ask("Did worker's scheduler stop?", pack=world)
    assert _verdict(document) == "PASS" and document.outcome == "found"
    assert any("halt" in query for query in _queries(document))
    [stop] = [fate for text, fate in _fates(document).items() if text in ("stop", "shutdown")]
    assert stop == ("relaxed", True)


def test_a_paraphrase_the_concept_phrases_lack_is_found_by_its_words(world: World) -> None:
    """"run out of worker slots" of "No free worker slots": found, and green."""
    document = ask("Did worker run out of worker slots?", pack=world)
    assert _verdict(document) == "PASS" and document.outcome == "found"
    assert document.composer_output is not None
    assert "No free worker slots" in document.composer_output.user_facing_answer


def test_a_term_the_data_never_mentions_is_said_and_the_answer_is_not_green(world: World) -> None:
    document = ask("Why does job app-7 in namespace team-3 fail on worker?", pack=world)
    fates = _fates(document)
    assert fates["app-7"][0] in ("matched", "filter") and fates["team-3"] == ("unmentioned", False)
    assert _verdict(document) == "LOW_CONFID" and document.outcome is None
    assert document.composer_output is not None
    answer = document.composer_output.user_facing_answer
    assert "team-3 (the data never mentions it)" in answer and "app-7 failed" in answer


def test_a_finding_about_the_subject_but_not_the_predicate_is_not_a_yes(world: World) -> None:
    """"Did worker start the backup?" of "Backup ... finished": the closest lines, amber."""
    document = ask("Did worker start the backup of the ledger?", pack=world)
    assert _verdict(document) != "PASS" and document.outcome != "found"
    assert document.verifier_result is not None and document.composer_output is not None
    assert set(document.verifier_result.answer_rules) & {"verifier.off_predicate", "verifier.term_unaccounted"}
    assert document.composer_output.answer_kind != "yes"
    assert "Closest matches" in document.composer_output.user_facing_answer


def test_words_found_only_in_different_lines_do_not_answer(world: World) -> None:
    """"started" is in one line and "backup" in another: neither line says a backup started."""
    document = ask("Did worker log a started backup?", pack=world)
    assert _verdict(document) != "PASS"


def test_a_word_inside_another_word_is_not_a_mention(world: World) -> None:
    """"oom" is inside "Room 12 booked": no OOM was logged, and nothing says it was."""
    document = ask("Did worker log an OOM?", pack=world)
    assert document.outcome != "found"
    assert document.composer_output is not None and document.composer_output.answer_kind != "yes"


def test_no_only_when_every_rung_is_empty(world: World) -> None:
    """A "no" to the question's own words binds the exact search and every rung of the ladder
    (each a recorded call: word forms, each word alone)."""
    document = ask("Did worker log any zebra quartz?", pack=world)
    assert _verdict(document) == "PASS" and document.outcome == "absent"
    assert document.executor_output is not None
    [absence] = document.executor_output.claims
    bound = {binding.source_invocation_id for binding in absence.evidence_bindings}
    assert bound == {inv.invocation_id for inv in document.invocations if inv.tool_name == "query_logs"}
    assert len(bound) >= 3  # the words together, then each word alone (never mentioned)
    assert {term.text: term.fate for term in document.verifier_result.question_terms
            if term.kind == "predicate"} == {"zebra": "unmentioned", "quartz": "unmentioned"}


def test_a_concept_no_climbs_its_words_in_any_form(world: World) -> None:
    """"Did worker refuse connections?": the phrases ("connection refused"), then the words in
    any form and their synonyms ("refused connection", "rejected connection"): still nothing."""
    document = ask("Did worker refuse connections?", pack=world)
    assert _verdict(document) == "PASS" and document.outcome == "absent"
    queries = _queries(document)
    assert any("refus" in query and "connect" in query for query in queries)
    assert any("reject" in query for query in queries)


def test_a_level_the_lines_do_not_have_is_relaxed_never_a_no(world: World) -> None:
    """The ledger's backup is logged at INFO: asked at ERROR, its lines are the closest (the
    ladder's rung without the level), never a verified "no"."""
    document = ask("Did worker log any ledger backups at ERROR?", pack=world)
    assert any("level" not in inv.arguments and "backup" in str(inv.arguments.get("query"))
               and inv.arguments.get("limit") != 1 for inv in document.invocations)
    assert document.verifier_result is not None
    assert _fates(document)["ERROR"] == ("unmatched", False)
    assert document.outcome != "absent"
    assert document.composer_output is not None and document.composer_output.answer_kind != "no"
