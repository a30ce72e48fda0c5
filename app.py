"""Evidence Console — Investigate: ask a narrow question and watch every citation be checked.

The run happens in a background thread (``ui.runs``) that writes each event to the audit store;
this page reads the session back from the store by id (``?session=...``), polling while the run
is alive. So a rerun, a reload or a shared link shows the same session.
"""

from __future__ import annotations

import streamlit as st

from core.agents.base import ROLES
from core.agents.registry import ENGINE_NAMES
from core.errors import SuperbizError
from core.packs import list_packs
from core.settings import get_settings
from core.store import repository
from core.views.choices import (
    default_pack_index,
    default_roles,
    fault_choices,
    fault_description,
    fault_label,
    fault_or_none,
    llm_availability,
)
from core.views.sources import choice_label, configured_servers, open_choice, world_choices
from core.views.timeline import event_rows, load_view, parse_stored_events
from ui.investigation import render_investigation
from ui.render import empty_state, escape_markdown, get_store, setup_page, small_text
from ui.runs import get_run, start_run

setup_page("Investigate", ":material/travel_explore:")
store = get_store()

# The current session: a link (?session=) wins over what this browser tab last looked at.
linked = st.query_params.get("session")
if linked and linked != st.session_state.get("session_id"):
    st.session_state["session_id"] = linked
session_id: str | None = st.session_state.get("session_id")
if session_id and not linked:
    st.query_params["session"] = session_id  # keep the URL shareable and reload-proof
handle = get_run(session_id)
running = handle is not None and handle.alive


def _use_example() -> None:
    example = st.session_state.get("example")
    if example:
        st.session_state["question"] = example
        st.session_state["example"] = None  # so the same example can be picked again


def _ask() -> None:
    """Button callback: start the run before the page renders, so inputs render disabled."""
    question = (st.session_state.get("question") or "").strip()
    st.session_state["ask_error"] = None
    if not question:
        st.session_state["ask_error"] = "Type a question first, or pick an example."
        return
    roles = {role: st.session_state.get(f"engine_{role}") or "rules" for role in ROLES}
    try:
        started = start_run(store, question=question, pack=open_choice(st.session_state["pack"]),
                            roles=roles,
                            executor_fault=fault_or_none(st.session_state.get("fault")))
    except SuperbizError as exc:
        st.session_state["ask_error"] = str(exc)
        return
    st.session_state["session_id"] = started.session_id
    st.query_params["session"] = started.session_id


# ---------------------------------------------------------------- sidebar: pack, engines, fault

pack_descriptions = dict(list_packs())
world_names = world_choices(list(pack_descriptions), get_settings().sources_files())
with st.sidebar:
    st.header("Run settings", anchor=False)
    if not world_names:
        folders = ", ".join(map(str, get_settings().pack_dirs()))
        st.error(escape_markdown(f"No scenario pack found in {folders}."))
        st.stop()
    st.selectbox("Scenario pack", world_names, key="pack", disabled=running,
                 index=default_pack_index(world_names), format_func=choice_label,
                 help="The world the tools see: a pack (alerts, metric series, logs and "
                      "runbooks) or a sources file (SUPERBIZ_SOURCES). The Sources page shows "
                      "what each source holds.")
    small_text(pack_descriptions.get(st.session_state["pack"], ""))
    servers = configured_servers(get_settings())
    if servers:
        small_text("Live sources: " + "; ".join(servers))
    llm = llm_availability()
    st.markdown("**Engine per role**")
    for role, engine in default_roles().items():
        st.segmented_control(role, ENGINE_NAMES, default=engine, key=f"engine_{role}",
                             disabled=running or not llm.usable, required=True)
    small_text(llm.message)
    st.selectbox("Fault injection (demo)", fault_choices(), key="fault", format_func=fault_label,
                 disabled=running,
                 help="Wrap the executor with one known kind of fabrication, to see what the "
                      "gatekeeper and the verifier catch.")
    description = fault_description(st.session_state.get("fault") or "")
    if description:
        small_text(description)

# ---------------------------------------------------------------- question

st.title("Investigate", anchor=False)
st.caption("Ask a narrow question. Every sentence of the answer is traced to a real tool "
           "output: the gatekeeper checks each citation, the verifier each claim.")
try:
    world = open_choice(st.session_state["pack"])
except SuperbizError as exc:
    st.error(escape_markdown(str(exc)), icon=":material/error:")
    st.stop()
st.text_area("Question", key="question", height=90, disabled=running,
             placeholder="只确认 payment-service 当前是否存在 CPU 使用率过高告警 · "
                         "only confirm whether order-service has a HighMemoryUsage alert")
if world.example_questions:
    # Open while nothing has been asked; afterwards the session below matters more.
    with st.expander(f"Example questions ({len(world.example_questions)})",
                     expanded=not session_id, icon=":material/lightbulb:"):
        st.pills("Pick one to fill the question box", list(world.example_questions),
                 key="example", on_change=_use_example, disabled=running,
                 format_func=escape_markdown, label_visibility="collapsed")
st.button("Ask", type="primary", icon=":material/send:", on_click=_ask, disabled=running,
          key="ask")
if st.session_state.get("ask_error"):
    st.error(escape_markdown(st.session_state["ask_error"]), icon=":material/error:")

st.divider()

# ---------------------------------------------------------------- the session


@st.fragment(run_every=0.4 if running else None)
def _session_view() -> None:
    if not session_id:
        empty_state("Nothing asked yet. Type a question above (or pick an example) and press "
                    "Ask. Past investigations are on the Sessions page.")
        return
    events = parse_stored_events(repository.list_events(store, session_id=session_id))
    document = repository.load_session_document(store, session_id=session_id)
    if document is None and not events:
        empty_state(f"No session {session_id} in this audit store. Pick one on the Sessions "
                    "page, or ask a new question.", icon=":material/search_off:")
        return
    view = load_view(events, document)
    if handle is not None and handle.error:
        st.error(escape_markdown(f"The run stopped unexpectedly: {handle.error}"),
                 icon=":material/error:")
    if handle is None and view.status == "running":
        st.warning("This session is marked running but is not running in this console (it "
                   "was started elsewhere or interrupted). Showing what was stored.",
                   icon=":material/sync_problem:")
    render_investigation(view, event_rows(events))
    if running and handle is not None and not handle.alive:
        st.rerun()  # the run ended: rerun the whole page so the inputs are enabled again


_session_view()
