"""Annotations in the console: the view model (badges, the URL filter, targets, the eval case
message) and the pages under AppTest (Investigate's review panel, the Sessions column and
?annotation= filter, the inspector's binding review, the Evals page's annotations suite)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from streamlit.testing.v1 import AppTest

from core.annotations import annotate
from core.contracts import SessionDocument
from core.evals.fromannotations import CasesWritten, annotation_suite_path
from core.store import Store
from core.store.annotations import list_annotations
from core.views.annotations import (
    eval_case_message,
    filter_choices,
    filter_from_query,
    state_badge,
    targets,
)
from core.views.sessions import documents_jsonl, session_rows

SESSIONS = "pages/1_Sessions.py"
INSPECTOR = "pages/2_Binding_inspector.py"
EVALS = "pages/3_Evals.py"


def test_view_model(ask_session: Callable[..., SessionDocument], tmp_store: Store) -> None:
    document = ask_session()
    found = targets(document)
    assert [(t.kind, t.index) for t in found[:2]] == [("answer", None), ("claim", 0)]
    assert found[-1].kind == "binding" and found[-1].label.startswith("binding ")
    badge = state_badge("wrong")
    assert badge is not None and badge.tone == "red"
    assert state_badge(None) is None and state_badge("bogus") is None
    assert filter_choices()[0] == "" and "none" in filter_choices()
    assert [filter_from_query(v) for v in ("wrong", "any", "none", "WRONG", None)] == [
        "wrong", "any", "none", "", ""]
    ok, text = eval_case_message(CasesWritten(Path("/x.yaml"), skipped=[("a", "why not")]))
    assert not ok and text == "No eval case: why not."
    row = annotate(tmp_store, session_id=document.session_id, verdict="wrong", reviewer="r")
    from core.store.history import list_sessions

    rows = session_rows(list_sessions(tmp_store), {document.session_id: "wrong"})
    assert rows[0]["annotation"] == "wrong"
    line = documents_jsonl([document], lambda s: list_annotations(tmp_store, session_id=s))
    assert f'"annotation_id": "{row.id}"' in line


def _review_buttons(app: AppTest) -> list[str]:
    return [button.label for button in app.button if button.label == "Make an eval case"]


def test_investigate_annotate_wrong_then_make_an_eval_case(
        open_app: Callable[..., AppTest], ask_session: Callable[..., SessionDocument],
        tmp_store: Store) -> None:
    document = ask_session()
    assert document.verifier_result is not None and document.verifier_result.verdict == "PASS"
    app = open_app(query={"session": document.session_id})
    assert not app.exception
    app.segmented_control(key="annotate_verdict_investigate").set_value("wrong")
    app.text_input(key="annotate_reviewer_investigate").input("alice")
    app.text_input(key="annotate_note_investigate").input("the alert had already resolved")
    next(b for b in app.button if b.label == "Save annotation").click().run()
    assert not app.exception
    (saved,) = list_annotations(tmp_store, session_id=document.session_id)
    assert (saved.verdict, saved.reviewer, saved.target) == ("wrong", "alice", "answer")
    assert _review_buttons(app) == ["Make an eval case"]
    assert app.text_input(key="annotate_note_investigate").value == ""  # ready for the next
    assert app.text_input(key="annotate_reviewer_investigate").value == "alice"
    next(b for b in app.button if b.label == "Make an eval case").click().run()
    assert not app.exception
    assert any("added to" in message.value for message in app.success)
    (case,) = yaml.safe_load(annotation_suite_path().read_text(encoding="utf-8"))
    assert case["expect"]["verdict"] == ["LOW_CONFID", "REJECT"]
    assert case["question"] == document.question
    next(b for b in app.button if b.label == "Make an eval case").click().run()
    assert any("already in" in message.value for message in app.success)  # idempotent
    assert len(yaml.safe_load(annotation_suite_path().read_text(encoding="utf-8"))) == 1
    # The reviewer's name is remembered for the next form.
    assert app.text_input(key="annotate_reviewer_investigate").value == "alice"


@pytest.mark.parametrize("query", ["wrong", "none"])
def test_sessions_column_and_url_filter(open_app: Callable[..., AppTest],
                                        ask_session: Callable[..., SessionDocument],
                                        tmp_store: Store, query: str) -> None:
    marked, plain = ask_session(), ask_session()
    annotate(tmp_store, session_id=marked.session_id, verdict="wrong", reviewer="r")
    app = open_app(SESSIONS, query={"annotation": query})
    assert not app.exception
    table = next(f.value for f in app.dataframe if "session" in f.value.columns)
    expected = marked if query == "wrong" else plain
    assert list(table["session"]) == [expected.session_id]
    assert list(table["annotation"]) == (["wrong"] if query == "wrong" else [""])
    app.selectbox(key="filter_annotation").set_value("").run()
    assert "annotation" not in app.query_params
    assert len(next(f.value for f in app.dataframe if "session" in f.value.columns)) == 2


def test_inspector_reviews_one_binding(open_app: Callable[..., AppTest],
                                       ask_session: Callable[..., SessionDocument],
                                       tmp_store: Store) -> None:
    document = ask_session()
    app = open_app(INSPECTOR, query={"session": document.session_id})
    assert not app.exception
    key = next(s.key for s in app.segmented_control
               if s.key and s.key.startswith("annotate_verdict_"))
    app.segmented_control(key=key).set_value("unsure")
    next(b for b in app.button if b.label == "Save annotation").click().run()
    assert not app.exception
    (saved,) = list_annotations(tmp_store, session_id=document.session_id)
    assert saved.target == "binding" and saved.verdict == "unsure"


def test_evals_page_runs_the_annotations_suite(open_app: Callable[..., AppTest],
                                               ask_session: Callable[..., SessionDocument],
                                               tmp_store: Store) -> None:
    from core.evals.fromannotations import write_cases

    app = open_app(EVALS)
    app.segmented_control(key="eval_source").set_value("Annotations suite").run()
    assert not app.exception
    assert any("No annotation has been made an eval case" in c.value for c in app.caption)
    document = ask_session()
    row = annotate(tmp_store, session_id=document.session_id, verdict="wrong", reviewer="r")
    write_cases(tmp_store, [row])
    app.run()
    next(b for b in app.button if b.label.startswith("Run 1 case")).click().run()
    assert not app.exception
    assert any("0/1 case(s) passed" in w.value for w in app.warning)
