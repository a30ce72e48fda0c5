"""Binding inspector: one citation at a time, the executor's excerpt next to what the gatekeeper
found, and a box to tamper with it and see the gatekeeper's answer (nothing is stored)."""

from __future__ import annotations

import streamlit as st

from core.contracts import TOOL_NAMES, EvidenceBinding
from core.gatekeeper import GATEKEEPER_VERSION
from core.store import repository
from core.store.lookup import StoreInvocations
from core.views.badges import severity_badge, verdict_badge
from core.views.inspector import (
    default_binding_index,
    recheck_binding,
    recheck_session,
    session_bindings,
)
from core.views.sessions import session_pick_label
from ui.compare import LEGEND, render_side_by_side, render_verdict_line
from ui.render import badges, empty_state, get_store, setup_page, small_text

setup_page("Binding inspector", ":material/manage_search:")
store = get_store()

st.title("Binding inspector", anchor=False)
st.caption("Each citation the executor made, next to the evidence the gatekeeper found at that "
           "locator. Tamper with one below to see what the gatekeeper says.")

recent = repository.list_sessions(store, limit=200)
if not recent:
    empty_state("No sessions yet. Ask a question on the Investigate page first; its bindings "
                "show up here.")
    st.page_link("app.py", label="Go to Investigate", icon=":material/travel_explore:")
    st.stop()

questions = {summary.session_id: summary for summary in recent}
session_ids = list(questions)
linked = st.query_params.get("session") or st.session_state.get("session_id")
if linked and linked not in questions and repository.load_session_document(
        store, session_id=linked) is not None:
    session_ids.insert(0, linked)


def _session_label(session_id: str) -> str:
    summary = questions.get(session_id)
    return session_pick_label(summary) if summary is not None else session_id


session_id = st.selectbox("Session (newest first)", session_ids, format_func=_session_label,
                          index=session_ids.index(linked) if linked in session_ids else 0,
                          key="inspect_session")
if st.query_params.get("session") != session_id:
    st.query_params["session"] = session_id
document = repository.load_session_document(store, session_id=session_id)
if document is None:
    st.warning("That session is gone from the store.")
    st.stop()

gatekeeper = document.gatekeeper_result
badges([verdict_badge(document.verifier_result.verdict if document.verifier_result else None),
        severity_badge(gatekeeper.severity if gatekeeper else None)])
st.text(document.question)

items = session_bindings(document)
if not items:
    empty_state("This session has no evidence bindings (the executor cited nothing, or the "
                "drop_bindings fault removed them). Pick another session above.",
                icon=":material/link_off:")
    st.stop()

index = st.selectbox("Binding", range(len(items)), index=default_binding_index(items),
                     format_func=lambda n: items[n].label, key=f"binding_{session_id}",
                     help="Failing bindings are listed with their severity and rule; the first "
                          "failing one is picked by default.")
item = items[index]

st.subheader(f"{item.key.owner_id} · binding #{item.key.index}", anchor=False)
st.text(item.owner_text)
render_verdict_line(item.checked)
render_side_by_side(item.binding.evidence_excerpt, item.shown_ref_text, item.checked,
                    ref_label=f"Ref text at {item.binding.raw_path or '(no raw_path)'}")
st.caption(LEGEND)
stored_version = gatekeeper.version if gatekeeper else "?"
small_text(f"Checked by gatekeeper {stored_version} · current version {GATEKEEPER_VERSION}")

if item.invocation is not None:
    with st.expander(f"Raw output of invocation #{item.invocation.invocation_id} "
                     f"({item.invocation.tool_name})", icon=":material/data_object:"):
        st.code(str(item.invocation.arguments), language=None)
        st.json(item.invocation.output, expanded=2)
else:
    small_text("The cited invocation is not one of this session's calls.")

# ---------------------------------------------------------------- tamper and re-check

st.divider()
st.subheader("Tamper and re-check", anchor=False)
st.caption("Edit the citation and the current gatekeeper checks it again against this "
           "session's invocations. The stored session is never changed.")
binding = item.binding
suffix = f"{session_id}_{index}"
invocation_ids = [i.invocation_id for i in document.invocations]
tool_names = list(TOOL_NAMES)
excerpt = st.text_area("Excerpt", value=binding.evidence_excerpt, key=f"tamper_excerpt_{suffix}",
                       height=90)
columns = st.columns(3)
raw_path = columns[0].text_input("raw_path", value=binding.raw_path or "",
                                 key=f"tamper_path_{suffix}")
invocation_id = columns[1].number_input(
    "source_invocation_id", value=binding.source_invocation_id or 0, step=1, min_value=0,
    key=f"tamper_invocation_{suffix}",
    help=f"This session's invocations: {', '.join(map(str, invocation_ids)) or 'none'}")
tool_name = columns[2].selectbox(
    "tool_name", tool_names, key=f"tamper_tool_{suffix}",
    index=tool_names.index(binding.tool_name) if binding.tool_name in tool_names else 0)
st.button("Re-check", icon=":material/replay:", key="recheck")

replacement = EvidenceBinding(tool_name=tool_name, source_invocation_id=int(invocation_id) or None,
                              raw_path=raw_path.strip() or None, evidence_excerpt=excerpt)
changed = replacement != binding


stored = StoreInvocations(store)  # the stored invocation wins over the document's copy
recheck = recheck_binding(document, item.key, replacement, stored_invocations=stored)
with st.container(border=True):
    st.markdown("**Gatekeeper's answer for the citation above**" if changed else
                "**Gatekeeper's answer (citation unchanged: the stored verdict, re-derived)**")
    render_verdict_line(recheck.checked)
    render_side_by_side(excerpt, recheck.ref_text, recheck.checked,
                        ref_label=f"Ref text at {replacement.raw_path or '(no raw_path)'}")
    small_text(f"Whole session with this edit: gatekeeper {recheck.result.status} / "
               f"{recheck.result.severity}; failed rules: "
               f"{', '.join(recheck.result.failed_rules) or 'none'}")

with st.expander("Re-check the whole stored session under the current gatekeeper version",
                 icon=":material/update:"):
    current = recheck_session(document, stored_invocations=stored)
    before = f"{gatekeeper.status}/{gatekeeper.severity}" if gatekeeper else "not checked"
    small_text(f"stored ({stored_version}): {before} · now ({GATEKEEPER_VERSION}): "
               f"{current.status}/{current.severity}; failed rules now: "
               f"{', '.join(current.failed_rules) or 'none'}")
