"""Links to one session and one binding: ``?session=ID&binding=K`` opens that binding in the
inspector, Investigate's binding tables link each binding to its own, and an unknown id is an
error on the page, never another session."""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import parse_qs, urlparse

from streamlit.testing.v1 import AppTest

from core.contracts import SessionDocument
from core.views.inspector import (
    binding_link,
    binding_positions,
    linked_binding_index,
    session_bindings,
)
from core.views.timeline import load_view
from tests.console.console_helpers import as_read

INSPECTOR = "pages/2_Binding_inspector.py"
TWO_BINDINGS = "只确认 payment-service 当前是否存在 CPU 使用率过高告警，并给出相关日志"


def _open(open_app: Callable[..., AppTest], **query: str) -> AppTest:
    app = open_app()
    app.query_params.update(query)
    app.switch_page(INSPECTOR).run()
    return app


def test_binding_positions_and_links(ask_session: Callable[..., SessionDocument]) -> None:
    document = ask_session(TWO_BINDINGS)
    items = session_bindings(document)
    assert len(items) >= 2
    positions = binding_positions(document.executor_output)
    # Each claim binding's position is its place in the inspector's list.
    for (claim_id, index), position in positions.items():
        assert (items[position].key.owner_id, items[position].key.index) == (claim_id, index)
    link = urlparse(binding_link(document.session_id, 1))
    assert link.path == "./Binding_inspector"
    assert parse_qs(link.query) == {"session": [document.session_id], "binding": ["1"]}
    assert linked_binding_index(items, "1") == 1
    assert linked_binding_index(items, str(len(items))) is None
    assert linked_binding_index(items, "x") is None and linked_binding_index(items, None) is None


def test_a_binding_link_opens_that_binding(open_app: Callable[..., AppTest],
                                           ask_session: Callable[..., SessionDocument]) -> None:
    document = ask_session(TWO_BINDINGS)
    items = session_bindings(document)
    app = _open(open_app, session=document.session_id, binding="1")
    assert not app.exception and not app.error
    assert app.selectbox(key=f"binding_{document.session_id}").value == 1
    heading = as_read(app.subheader[0].value)
    assert heading == f"{items[1].key.owner_id} · binding #{items[1].key.index}"
    # Picking another binding puts it in the address.
    app.selectbox(key=f"binding_{document.session_id}").set_value(0).run()
    assert app.query_params["binding"] == ["0"] or app.query_params["binding"] == "0"


def test_an_unknown_id_is_an_error_never_another_session(
        open_app: Callable[..., AppTest], ask_session: Callable[..., SessionDocument]) -> None:
    ask_session()
    app = _open(open_app, session="s-no-such-session")
    assert not app.exception
    assert any("No session s-no-such-session" in as_read(error.value) for error in app.error)
    assert not app.selectbox  # no session picker, so no other session's bindings
    document = ask_session()
    app = _open(open_app, session=document.session_id, binding="99")
    assert any("has no binding 99" in as_read(error.value) for error in app.error)


def test_investigate_links_each_binding_to_its_own(ask_session: Callable[..., SessionDocument],
                                                   open_app: Callable[..., AppTest]) -> None:
    document = ask_session(TWO_BINDINGS)
    app = open_app(query={"session": document.session_id})
    assert not app.exception
    links = [link for frame in app.dataframe if "inspect" in frame.value.columns
             for link in frame.value["inspect"]]
    expected = [binding_link(document.session_id, position)
                for position in binding_positions(document.executor_output).values()]
    assert links == expected and len(set(links)) == len(links) >= 2
    assert load_view([], document).finished


def test_fault_and_no_citation_badges(ask_session: Callable[..., SessionDocument],
                                      open_app: Callable[..., AppTest]) -> None:
    from core.views.badges import fault_badge, severity_badge

    assert severity_badge("none", citations=0).tone == "gray"
    assert severity_badge("none", citations=0).label == "gatekeeper: no citations"
    assert severity_badge("none", citations=2).tone == "green"
    assert fault_badge(None) is None
    faulty = ask_session(executor_fault="tamper_number")
    badge = fault_badge("tamper_number")
    assert badge is not None and badge.label == "fault injected: tamper_number"
    app = open_app(query={"session": faulty.session_id})
    assert not app.exception
    assert any("fault injected: tamper\\_number" in markdown.value
               or "fault injected: tamper_number" in as_read(markdown.value)
               for markdown in app.markdown)
