"""Binding inspector under AppTest, and the pure tamper-and-re-check view it uses."""

from __future__ import annotations

import re
from collections.abc import Callable

from streamlit.testing.v1 import AppTest

from core.contracts import CheckedBinding, SessionDocument
from core.store import Store, repository
from core.views.inspector import (
    default_binding_index,
    recheck_binding,
    session_bindings,
    shown_ref_text,
)
from tests.console.console_helpers import as_read

INSPECTOR = "pages/2_Binding_inspector.py"


def _tamper_number(excerpt: str) -> str:
    """Change the first number of the excerpt (92.0 -> 29.0, 91% -> 19%)."""
    match = re.search(r"\d+", excerpt)
    assert match, f"no number to tamper with in {excerpt!r}"
    digits = match.group(0)
    changed = digits[::-1] if digits[::-1] != digits else str(int(digits) + 7)
    return excerpt[:match.start()] + changed + excerpt[match.end():]


def _positive_binding(document: SessionDocument) -> int:
    items = session_bindings(document)
    return next(n for n, item in enumerate(items)
                if item.binding.raw_path and re.search(r"\d", item.binding.evidence_excerpt))


def test_session_bindings_carry_stored_verdicts_and_ref_texts(
        ask_session: Callable[..., SessionDocument]) -> None:
    document = ask_session()
    items = session_bindings(document)
    bindings = [b for claim in document.executor_output.claims
                for b in claim.evidence_bindings]
    assert len(items) >= len(bindings) > 0
    for item in items:
        assert item.checked is not None and item.checked.status == "pass"
        if item.binding.raw_path:
            assert item.ref_text is not None and item.invocation is not None
        assert item.shown_ref_text == (item.checked.matched_text or item.ref_text)
    assert default_binding_index(items) == 0  # nothing fails: the first binding


def test_shown_ref_text_and_the_first_failing_binding(
        ask_session: Callable[..., SessionDocument]) -> None:
    assert shown_ref_text(CheckedBinding(status="pass", matched_text="span"), "ref") == "span"
    assert shown_ref_text(CheckedBinding(status="pass"), "ref") == "ref"
    assert shown_ref_text(None, None) is None
    items = session_bindings(ask_session(executor_fault="fabricate_path"))
    first = default_binding_index(items)
    assert items[first].checked is not None and items[first].checked.status == "fail"
    assert all(item.checked is None or item.checked.status == "pass" for item in items[:first])


def test_recheck_rejects_a_changed_number_and_leaves_the_store_alone(
        ask_session: Callable[..., SessionDocument], tmp_store: Store) -> None:
    document = ask_session()
    item = session_bindings(document)[_positive_binding(document)]
    unchanged = recheck_binding(document, item.key, item.binding)
    assert unchanged.checked is not None and unchanged.checked.status == "pass"

    tampered = item.binding.model_copy(
        update={"evidence_excerpt": _tamper_number(item.binding.evidence_excerpt)})
    answer = recheck_binding(document, item.key, tampered)
    assert answer.checked is not None and answer.checked.status == "fail"
    assert answer.checked.severity == "reject"
    assert answer.result.severity == "reject"
    assert answer.ref_text == shown_ref_text(answer.checked, item.ref_text)

    fabricated = item.binding.model_copy(update={"raw_path": "$.alerts[99]" if "alerts" in (
        item.binding.raw_path or "") else "$.logs[999]"})
    assert recheck_binding(document, item.key, fabricated).checked.rule == "evidence.raw_path"

    stored = repository.load_session_document(tmp_store, session_id=document.session_id)
    assert stored is not None and stored.gatekeeper_result == document.gatekeeper_result


def test_inspector_opens_the_latest_session_and_rechecks_a_tampered_excerpt(
        open_app: Callable[..., AppTest], ask_session: Callable[..., SessionDocument]) -> None:
    ask_session("Only confirm whether payment-service has a HighCPUUsage alert.")
    latest = ask_session()
    app = open_app(INSPECTOR)
    assert not app.exception
    assert app.selectbox(key="inspect_session").value == latest.session_id
    html = "\n".join(element.value for element in app.html)
    assert "sb-aligned" in html  # the aligned span is highlighted in the ref text
    statuses = [m.value for m in app.metric if m.label == "Status"]
    assert statuses == ["pass"]  # unchanged: one comparison, not the same one twice
    assert "Re-checked now: pass / none — the comparison above." in html
    assert html.count('<span class="sb-aligned">') == 1
    # Score is explained once: it locates the text, the facts decide.
    assert html.count("Score only locates the excerpt") == 1
    # The raw output opens at the cited path, marked, not as a collapsed tree.
    assert "sb-cited" in html and "opened at $" in as_read(
        next(e.label for e in app.expander if e.label.startswith("Raw output")))
    # The session id opens it on Investigate.
    links = [link for link in app.get("page_link") if "Investigate" in link.proto.label]
    assert any(latest.session_id in as_read(link.proto.label) for link in links)

    index = _positive_binding(latest)
    app.selectbox(key=f"binding_{latest.session_id}").set_value(index).run()
    excerpt_box = next(t for t in app.text_area if t.label == "Excerpt")
    excerpt_box.input(_tamper_number(excerpt_box.value or "")).run()
    assert not app.exception
    statuses = [m.value for m in app.metric if m.label == "Status"]
    rules = [as_read(m.value) for m in app.metric if m.label == "Rule"]
    assert statuses == ["pass", "fail"]
    assert rules[1] == "evidence.excerpt_mismatch"
    html = "\n".join(element.value for element in app.html)
    assert "fail / reject" in html
    assert "sb-diff" in html  # the changed digits are marked


def test_inspector_empty_state(open_app: Callable[..., AppTest]) -> None:
    app = open_app(INSPECTOR)
    assert not app.exception
    assert any("No sessions yet" in info.value for info in app.info)
