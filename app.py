"""Evidence Console — Investigate: ask a narrow question and watch every citation be checked.

The run happens in a background thread (``ui.runs``) that stores each stage and keeps its
events in memory: this page shows the run it started from that stream (each tool call as it
returns, at the demo pace it was asked with), and any other session from the store by id
(``?session=...``). A link restores the question and the settings it was asked with.
"""

from __future__ import annotations

import streamlit as st

# A fresh server's first run of this page loads the engine's modules below (a second or more on
# a slow machine): a note shows meanwhile instead of a blank page, removed once they are in.
_loading = st.empty()
_loading.caption("Loading the Evidence Console…")

from core.agents.base import ROLES
from core.agents.registry import ENGINE_NAMES
from core.errors import StoredRowError, SuperbizError
from core.packs import list_packs
from core.redact import redact_text
from core.settings import get_settings
from core.views.choices import (
    default_pack_index,
    default_roles,
    fault_choices,
    fault_description,
    fault_label,
    fault_or_none,
    llm_availability,
    restored_inputs,
)
from core.views.pace import DEFAULT_PACE, PACE_CHOICES, pace_seconds
from core.views.sources import choice_label, configured_servers, open_choice, world_choices
from core.views.timeline import load_view, parse_stored_events
from ui.render import empty_state, escape_markdown, get_store, setup_page, small_text
from ui.runs import get_run, start_run

_loading.empty()
POLL_SECONDS = 0.3  # how often a running session is redrawn
# The audit store (SQLAlchemy), ``core.views.stored`` and ``ui.investigation`` load when a
# session is asked or shown, not with the page: the first page of a fresh console renders
# without them (bench/console.py, tests/console/test_console_first_page.py).

setup_page("Investigate")
pack_descriptions = dict(list_packs())
world_names = world_choices(list(pack_descriptions), get_settings().sources_files())
llm = llm_availability()


def _restore(session_id: str) -> None:
    """Fill the inputs as ``session_id`` was asked (a link, or coming back to this page)."""
    from core.views import stored

    try:
        document = stored.load_session_document(get_store(), session_id=session_id)
    except StoredRowError:
        return  # the session view below says why it cannot be shown
    if document is not None:
        st.session_state.update(restored_inputs(document, worlds=world_names,
                                                llm_usable=llm.usable))


# The current session: a link (?session=) wins over what this browser tab last looked at.
linked = st.query_params.get("session")
if linked and linked != st.session_state.get("session_id"):
    st.session_state["session_id"] = linked
    _restore(linked)
session_id: str | None = st.session_state.get("session_id")
if session_id and not linked:
    st.query_params["session"] = session_id  # keep the URL shareable and reload-proof
if session_id and "question" not in st.session_state:
    _restore(session_id)  # back on this page: the question box is filled again
# Defaults set here, not by the widgets: a restored value and a widget default never compete.
if world_names:
    if st.session_state.get("pack") not in world_names:  # unset, or a pack gone since
        st.session_state["pack"] = world_names[default_pack_index(world_names)]
    for role, engine in default_roles().items():
        st.session_state.setdefault(f"engine_{role}", engine)
st.session_state.setdefault("pace", DEFAULT_PACE)
handle = get_run(session_id)
running = handle is not None and handle.showing()


def _use_example() -> None:
    example = st.session_state.get("example")
    if example:
        st.session_state["question"] = example
        st.session_state["example"] = None  # so the same example can be picked again


def _ask() -> None:
    """Button callback: start the run before the page renders, so inputs render disabled."""
    current = get_run(st.session_state.get("session_id"))
    if current is not None and current.showing():
        return  # Ctrl+Enter in the box while a run goes: the Ask button is disabled, so is this
    question = (st.session_state.get("question") or "").strip()
    st.session_state["ask_error"] = None
    if not question:
        st.session_state["ask_error"] = "Type a question first, or pick an example."
        return
    roles = {role: st.session_state.get(f"engine_{role}") or "rules" for role in ROLES}
    try:
        started = start_run(get_store(), question=question, pack=open_choice(st.session_state["pack"]),
                            roles=roles,
                            executor_fault=fault_or_none(st.session_state.get("fault")),
                            pace=pace_seconds(st.session_state.get("pace")))
    except SuperbizError as exc:
        st.session_state["ask_error"] = redact_text(str(exc))
        return
    st.session_state["session_id"] = started.session_id
    st.query_params["session"] = started.session_id


# ---------------------------------------------------------------- sidebar: pack, engines

with st.sidebar:
    st.header("Run settings", anchor=False)
    if not world_names:
        folders = ", ".join(map(str, get_settings().pack_dirs()))
        st.error(escape_markdown(f"No scenario pack found in {folders}."))
        st.stop()
    st.selectbox("Scenario pack", world_names, key="pack", disabled=running,
                 format_func=choice_label,
                 help="The world the tools see: a pack (alerts, metric series, logs and "
                      "runbooks) or a sources file (SUPERBIZ_SOURCES). The Sources page shows "
                      "what each source holds.")
    small_text(pack_descriptions.get(st.session_state["pack"], ""))
    servers = configured_servers(get_settings())
    if servers:
        small_text("Live sources: " + "; ".join(servers))
    st.markdown("**Engine per role**")
    for role in ROLES:
        st.segmented_control(role, ENGINE_NAMES, key=f"engine_{role}",
                             disabled=running or not llm.usable, required=True)
    small_text(llm.message)

# ---------------------------------------------------------------- question and demo controls

st.title("Investigate", anchor=False)
st.caption("Ask a narrow question. Every sentence of the answer is traced to a real tool "
           "output: the gatekeeper checks each citation, the verifier each claim.")
try:
    world = open_choice(st.session_state["pack"])
except SuperbizError as exc:
    st.error(escape_markdown(str(exc)), icon=":material/error:")
    st.stop()
# A form: Ctrl+Enter in the box submits it (Ask), and the box keeps the question asked. Never
# disabled while a run goes: a text area turned disabled is redrawn empty in the browser.
with st.form("ask_form", border=False):  # enter_to_submit: Ctrl+Enter in the box
    st.text_area("Question", key="question", height=90,
                 placeholder="只确认 payment-service 当前是否存在 CPU 使用率过高告警 · "
                             "only confirm whether order-service has a HighMemoryUsage alert")
    with st.container(horizontal=True, vertical_alignment="center"):
        st.form_submit_button("Ask", type="primary", icon=":material/send:", on_click=_ask,
                              disabled=running, key="ask")
        small_text("or Ctrl+Enter in the box. The fault and pace below apply to the next ask.")
if world.example_questions:
    # Open while nothing has been asked; afterwards the session below matters more.
    with st.expander(f"Example questions ({len(world.example_questions)})",
                     expanded=not session_id, icon=":material/lightbulb:"):
        st.pills("Pick one to fill the question box", list(world.example_questions),
                 key="example", on_change=_use_example, disabled=running,
                 format_func=escape_markdown, label_visibility="collapsed")
controls = st.columns([1.4, 1], vertical_alignment="top")
controls[0].selectbox(
    "Fault injection (demo)", fault_choices(), key="fault", format_func=fault_label,
    disabled=running,
    help="Wrap the executor with one known kind of fabrication, to see what the gatekeeper and "
         "the verifier catch.")
controls[1].selectbox(
    "Demo pace", list(PACE_CHOICES), key="pace", disabled=running,
    help="Show the run's events one at a time, so an audience can watch the plan, each tool "
         "call, the refs, the gatekeeper and the verdict arrive in order. Only the display is "
         "slowed: the recorded timings stay true.")
description = fault_description(st.session_state.get("fault") or "")
if description:
    small_text(description)
if st.session_state.get("ask_error"):
    st.error(escape_markdown(st.session_state["ask_error"]), icon=":material/error:")

st.divider()

# ---------------------------------------------------------------- the session


@st.fragment(run_every=POLL_SECONDS if running else None)
def _session_view() -> None:
    if not session_id:
        empty_state("Nothing asked yet. Type a question above (or pick an example) and press "
                    "Ask. Past investigations are on the Sessions page.")
        return
    from ui.investigation import render_investigation

    if handle is not None and handle.events:  # this console's own run: its live stream
        events = handle.visible()
        view = load_view(events, None)
    else:  # a session started elsewhere (or before a restart): read back from the store
        from core.views import stored

        store = get_store()
        events = parse_stored_events(stored.list_events(store, session_id=session_id))
        try:
            document = stored.load_session_document(store, session_id=session_id)
        except StoredRowError as exc:  # a damaged row: say so, never a page error
            st.error(escape_markdown(str(exc)), icon=":material/error:")
            return
        if document is None and not events:
            st.error(escape_markdown(f"No session {session_id} in this audit store. Pick one "
                                     "on the Sessions page, or ask a new question."),
                     icon=":material/search_off:")
            return
        view = load_view(events, document)
    if handle is not None and handle.error:
        st.error(escape_markdown(redact_text(f"The run stopped unexpectedly: {handle.error}")),
                 icon=":material/error:")
    if handle is None and view.status == "running":
        st.warning("This session is marked running but is not running in this console (it "
                   "was started elsewhere or interrupted). Showing what was stored.",
                   icon=":material/sync_problem:")
    if handle is not None and handle.pace and handle.showing():
        held = len(handle.events) - len(events)
        with st.container(horizontal=True, vertical_alignment="center"):
            small_text(f"Demo pace: one event every {handle.pace:g} s"
                       + (f" ({held} more already arrived)" if held > 0 else ""))
            st.button("Show the rest now", key="skip_pace", icon=":material/fast_forward:",
                      on_click=handle.skip_pace)
    from ui.annotations import review_panel

    render_investigation(view, events, review=lambda: review_panel(
        get_store(), view.session_id, key="investigate"))
    if running and handle is not None and not handle.showing():
        st.rerun()  # the run is over and on screen: rerun the page so the inputs are enabled


_session_view()
