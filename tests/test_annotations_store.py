"""Annotations in the audit store, on SQLite and PostgreSQL: written with who, when and what,
superseded never edited, sealed in the hash chain, filtered on, and refused whole when they name
something the session does not have."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select, text

from core.annotations import annotate, session_state
from core.errors import AnnotationError
from core.pipeline import ask
from core.store import Store
from core.store.annotations import annotation_states, current_annotations, list_annotations
from core.store.audit import verify_chain
from core.store.chain import read_head
from core.store.history import count_sessions, list_sessions
from core.store.models import AnnotationRow

PASS_QUESTION = "只确认 payment-service 当前是否存在 CPU 使用率过高告警"


@pytest.fixture
def three(any_store: Store) -> tuple[Store, list[str]]:
    """Three finished sessions (the same question: their verdicts do not matter here)."""
    return any_store, [ask(PASS_QUESTION, store=any_store).session_id for _ in range(3)]


def _annotation_count(store: Store) -> int:
    with store.begin() as connection:
        return int(connection.execute(select(func.count()).select_from(
            AnnotationRow.__table__)).scalar_one())  # type: ignore[attr-defined]


def test_an_annotation_is_stored_with_who_when_what_and_a_new_one_supersedes_it(
        three: tuple[Store, list[str]]) -> None:
    store, (first, *_) = three
    wrong = annotate(store, session_id=first, verdict="wrong", note="the alert had resolved",
                     reviewer="alice")
    claim = annotate(store, session_id=first, verdict="unsure", reviewer="bob", target="claim",
                     index=0)
    binding = annotate(store, session_id=first, verdict="right", reviewer="bob",
                       target="binding", index=0)
    right = annotate(store, session_id=first, verdict="right", note="checked again",
                     reviewer="carol")
    rows = list_annotations(store, session_id=first)
    assert [row.id for row in rows] == [wrong.id, claim.id, binding.id, right.id]
    assert (rows[0].reviewer, rows[0].verdict, rows[0].note, rows[0].target) == (
        "alice", "wrong", "the alert had resolved", "answer")
    assert rows[0].created_at is not None
    assert rows[1].target_label.startswith("claim ") and rows[1].target_index == 0
    assert rows[2].target_label.startswith("binding 0 (")
    assert right.supersedes == wrong.id and claim.supersedes is None
    current = list_annotations(store, session_id=first, current_only=True)
    assert [row.id for row in current] == [claim.id, binding.id, right.id]
    assert session_state(rows) == "unsure"  # the worst current verdict; the wrong one is gone
    assert annotation_states(store, [first]) == {first: "unsure"}
    assert [row.id for row in current_annotations(store, verdict="right")] == [binding.id, right.id]


def test_annotations_are_sealed_in_the_chain_and_a_changed_one_is_caught(
        three: tuple[Store, list[str]]) -> None:
    store, ids = three
    row = annotate(store, session_id=ids[0], verdict="wrong", note="n", reviewer="alice")
    report = verify_chain(store)
    assert report.intact, report.problems
    assert report.records == len(ids) + 1
    with store.begin() as connection:
        connection.execute(text("UPDATE annotations SET verdict = 'right' WHERE id = :id"),
                           {"id": row.id})
    problems = verify_chain(store).problems
    assert [(p.kind, p.record_kind, p.record_id) for p in problems] == [
        ("content", "annotation", row.id)]
    with store.begin() as connection:  # one added behind superbiz's back is not sealed
        connection.execute(text(
            "INSERT INTO annotations (id, session_id, created_at, reviewer, target, "
            "target_label, verdict, note) VALUES ('ann-forged', :s, '2026-01-01 00:00:00', "
            "'mallory', 'answer', 'answer', 'right', '')"), {"s": ids[1]})
    kinds = [(p.kind, p.record_id) for p in verify_chain(store).problems]
    assert ("unsealed", "ann-forged") in kinds


@pytest.mark.parametrize(("state", "expected"), [
    ("any", [0, 1, 2]), ("wrong", [0]), ("unsure", [1]), ("right", [2]), ("none", [3])])
def test_the_sessions_filter_by_annotation(any_store: Store, state: str,
                                           expected: list[int]) -> None:
    ids = [ask(PASS_QUESTION, store=any_store).session_id for _ in range(4)]
    annotate(any_store, session_id=ids[0], verdict="right", reviewer="a")
    annotate(any_store, session_id=ids[0], verdict="wrong", reviewer="a", target="claim", index=0)
    annotate(any_store, session_id=ids[1], verdict="wrong", reviewer="a")
    annotate(any_store, session_id=ids[1], verdict="unsure", reviewer="b")  # supersedes wrong
    annotate(any_store, session_id=ids[1], verdict="right", reviewer="b", target="binding", index=0)
    annotate(any_store, session_id=ids[2], verdict="right", reviewer="a")
    listed = {summary.session_id for summary in list_sessions(any_store, annotation=state)}
    assert listed == {ids[index] for index in expected}
    assert count_sessions(any_store, annotation=state) == len(expected)


@pytest.mark.parametrize(("options", "message"), [
    ({"session_id": "s-nope"}, "no session 's-nope'"),
    ({"target": "claim", "index": 7}, "has no claim 7 .it has 1 claim, numbered from 0"),
    ({"target": "binding", "index": 99}, "has no binding 99"),
    ({"target": "claim", "index": -1}, "named by its number, from 0"),
    ({"verdict": "maybe"}, "unknown verdict 'maybe'"),
    ({"reviewer": "   "}, None),  # blank: falls back to $SUPERBIZ_REVIEWER / the OS user
    ({"note": "x" * 5000}, "note is 5,000 characters long"),
])
def test_a_refused_annotation_writes_nothing(three: tuple[Store, list[str]],
                                             options: dict[str, object],
                                             message: str | None) -> None:
    store, ids = three
    arguments: dict[str, object] = {"session_id": ids[0], "verdict": "wrong", "reviewer": "a"}
    arguments.update(options)
    with store.begin() as connection:
        head = read_head(connection)
    if message is None:
        assert annotate(store, **arguments).reviewer.strip()  # type: ignore[arg-type]
        return
    with pytest.raises(AnnotationError, match=message):
        annotate(store, **arguments)  # type: ignore[arg-type]
    assert _annotation_count(store) == 0
    with store.begin() as connection:
        assert read_head(connection) == head


def test_reviewers_marking_one_target_at_once_leave_one_current_annotation(
        three: tuple[Store, list[str]]) -> None:
    from concurrent.futures import ThreadPoolExecutor

    store, ids = three
    with ThreadPoolExecutor(max_workers=6) as pool:
        rows = list(pool.map(lambda n: annotate(store, session_id=ids[0], verdict="wrong",
                                                reviewer=f"r{n}"), range(6)))
    assert len(list_annotations(store, session_id=ids[0], current_only=True)) == 1
    superseded = [row.supersedes for row in rows if row.supersedes]
    assert len(superseded) == 5 and len(set(superseded)) == 5  # one line, never a fork
    assert verify_chain(store).intact
