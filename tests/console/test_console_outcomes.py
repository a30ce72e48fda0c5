"""What a result means, styled the same everywhere: the mapping, and the answer box, badges,
Sessions list and Evals matrix of real sessions agreeing with it."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from streamlit.testing.v1 import AppTest

from core.contracts import SessionDocument
from core.store import Store, repository
from core.views.badges import DARK_TONE_COLOURS, TONE_COLOURS
from core.views.outcomes import (
    MEANINGS,
    answer_lead,
    cell_style,
    cell_tone,
    meaning_of,
    result_label,
)
from core.views.sessions import session_rows
from tests.console.console_helpers import SEED_QUESTION, as_read

ABSENT_QUESTION = "确认 inventory-service 是否存在 HikariCP 连接池耗尽"
UNKNOWN_QUESTION = "只确认 billing-service 当前是否存在 CPU 使用率过高告警"
NOT_UNDERSTOOD_QUESTION = "hello there"

# (question, fault) -> the meaning a reader must see, and its tone.
CASES: list[tuple[str, str | None, str, str]] = [
    (SEED_QUESTION, None, "finding", "green"),
    (ABSENT_QUESTION, None, "absence", "gray"),
    (UNKNOWN_QUESTION, None, "unknown_subject", "amber"),
    (NOT_UNDERSTOOD_QUESTION, None, "not_understood", "amber"),
    (SEED_QUESTION, "drop_bindings", "low_confid", "amber"),
    (SEED_QUESTION, "tamper_number", "reject", "red"),
]


@pytest.mark.parametrize(("verdict", "outcome", "status", "key"), [
    ("PASS", "found", "completed", "finding"),
    ("PASS", None, "completed", "finding"),          # an older session: a PASS is a finding
    ("PASS", "absent", "completed", "absence"),
    ("LOW_CONFID", "unknown_subject", "completed", "unknown_subject"),
    ("LOW_CONFID", "not_understood", "completed", "not_understood"),
    ("LOW_CONFID", None, "completed", "low_confid"),
    ("REJECT", None, "completed", "reject"),
    (None, None, "running", "running"),
    ("PASS", "found", "incomplete", "incomplete"),   # a killed run is never a finding
    ("REJECT", None, "error", "error"),
    (None, None, "completed", "no_verdict"),
])
def test_meaning_of_a_result(verdict: str | None, outcome: str | None, status: str,
                             key: str) -> None:
    assert meaning_of(verdict=verdict, outcome=outcome, status=status).key == key


def test_table_labels_carry_their_tone_in_both_themes() -> None:
    label = result_label(verdict="PASS", outcome="absent", status="completed")
    assert label == "PASS · verified absence" and cell_tone(label) == "gray"
    assert cell_tone(result_label(verdict="PASS", outcome="found", status="completed")) == "green"
    assert cell_tone(result_label(verdict="REJECT", outcome=None, status="completed")) == "red"
    assert result_label(verdict="PASS", outcome="found", status="incomplete") == "incomplete"
    # The words of the gatekeeper and case columns keep their tones.
    assert cell_tone("reject") == "red" and cell_tone("passed") == "green"
    assert cell_tone("a question") is None and cell_style("a question") == ""
    assert cell_style("REJECT · rejected") == f"color: {TONE_COLOURS['red']}; font-weight: 600"
    assert cell_style("REJECT · rejected", dark=True) == (
        f"color: {DARK_TONE_COLOURS['red']}; font-weight: 600")
    assert {meaning.label for meaning in MEANINGS.values()} >= {
        "verified finding", "verified absence", "unknown subject", "not understood",
        "low confidence", "rejected"}


def test_a_yes_no_answer_leads_with_its_word() -> None:
    finding, absence, reject = MEANINGS["finding"], MEANINGS["absence"], MEANINGS["reject"]
    yes = answer_lead("yes", language="zh", meaning=finding)
    assert yes is not None and yes.word == "是 · Yes" and yes.tone == "green"
    no = answer_lead("no", language="en", meaning=absence)
    assert no is not None and no.word == "No" and no.tone == "gray"  # an absence is neutral
    unknown = answer_lead("unknown", language="en", meaning=MEANINGS["unknown_subject"])
    assert unknown is not None and unknown.tone == "amber"
    rejected = answer_lead("unknown", language="zh", meaning=reject)
    assert rejected is not None and rejected.tone == "red"
    assert answer_lead(None, language="en", meaning=finding) is None


def _html(app: AppTest) -> str:
    return "\n".join(element.value for element in app.html)


@pytest.mark.parametrize(("question", "fault", "key", "tone"), CASES)
def test_investigate_styles_the_answer_by_meaning(
        open_app: Callable[..., AppTest], ask_session: Callable[..., SessionDocument],
        question: str, fault: str | None, key: str, tone: str) -> None:
    document = ask_session(question, executor_fault=fault)
    meaning = MEANINGS[key]  # type: ignore[index]
    app = open_app(query={"session": document.session_id})
    assert not app.exception
    html = _html(app)
    assert f"sb-answer sb-tone-{tone}" in html  # the answer box
    assert meaning.sentence.split(":")[0] in html
    # The headline badge: the meaning's label, icon and colour (amber is Streamlit's orange).
    colour = {"green": "green", "amber": "orange", "red": "red", "gray": "gray"}[tone]
    badge = f":{colour}-badge[:material/{meaning.icon}: {meaning.label}]"
    assert badge in [as_read(markdown.value) for markdown in app.markdown]
    kind = document.composer_output.answer_kind if document.composer_output else None
    if kind is not None:  # the yes/no lead, in the same tone family
        assert f'data-answer-kind="{kind}"' in html


def test_sessions_list_and_evals_matrix_agree_with_the_answer_box(
        open_app: Callable[..., AppTest], tmp_store: Store,
        ask_session: Callable[..., SessionDocument]) -> None:
    documents = [ask_session(question, executor_fault=fault)
                 for question, fault, _, _ in CASES[:3]]
    rows = session_rows(repository.list_sessions(tmp_store))
    by_id = {row["session"]: row["result"] for row in rows}
    expected = ["PASS · verified finding", "PASS · verified absence",
                "LOW_CONFID · unknown subject"]
    assert [by_id[document.session_id] for document in documents] == expected
    app = open_app("pages/1_Sessions.py")
    assert not app.exception
    table = next(frame.value for frame in app.dataframe if "result" in frame.value.columns)
    assert sorted(table["result"]) == sorted(expected)
