"""Binding inspector: one citation at a time, the executor's excerpt next to what the gatekeeper
found, how the verifier supported the claim's facts, the raw output opened at the cited path,
and a box to tamper with the citation and see the gatekeeper's answer (nothing is stored)."""

from __future__ import annotations

import json

import streamlit as st

from core.contracts import TOOL_NAMES, EvidenceBinding
from core.errors import StoredRowError
from core.gatekeeper import GATEKEEPER_VERSION
from core.store.lookup import StoreInvocations
from core.views import stored
from core.views.annotations import binding_target
from core.views.badges import fault_badge, severity_badge
from core.views.inspector import (
    claim_judgement,
    default_binding_index,
    linked_binding_index,
    recheck_binding,
    recheck_session,
    session_bindings,
    support_rows,
)
from core.views.outcomes import meaning_of
from core.views.rawjson import cited_json_lines, lines_html
from core.views.sessions import session_pick_label
from ui.annotations import review_panel, session_badge
from ui.compare import LEGEND, render_side_by_side, render_verdict_line
from ui.render import badges, empty_state, escape_markdown, get_store, setup_page, small_text
from ui.tables import folded_text, text_table

setup_page("Binding inspector")
store = get_store()

st.title("Binding inspector", anchor=False)
st.caption("Each citation the executor made, next to the evidence the gatekeeper found at that "
           "locator. Tamper with one below to see what the gatekeeper says.")

recent = stored.list_sessions(store, limit=200)
if not recent:
    empty_state("No sessions yet. Ask a question on the Investigate page first; its bindings "
                "show up here.")
    st.page_link("app.py", label="Go to Investigate", icon=":material/travel_explore:")
    st.stop()

questions = {summary.session_id: summary for summary in recent}
session_ids = list(questions)
linked = st.query_params.get("session") or st.session_state.get("session_id")
if linked and linked not in questions:
    if not stored.session_exists(store, session_id=linked):
        # Never another session in its place: the person asked about this one.
        st.error(escape_markdown(f"No session {linked} in this audit store. Pick one on the "
                                 "Sessions page, or open this page without a session id."),
                 icon=":material/search_off:")
        st.page_link("pages/1_Sessions.py", label="Go to Sessions", icon=":material/history:")
        st.stop()
    session_ids.insert(0, linked)


def _session_label(session_id: str) -> str:
    summary = questions.get(session_id)
    return session_pick_label(summary) if summary is not None else session_id


def _picked_session() -> None:  # another session: its own bindings, no binding link
    st.query_params.pop("binding", None)


session_id = st.selectbox("Session (newest first)", session_ids, format_func=_session_label,
                          index=session_ids.index(linked) if linked in session_ids else 0,
                          key="inspect_session", on_change=_picked_session)
if st.query_params.get("session") != session_id:
    st.query_params["session"] = session_id
try:
    document = stored.load_session_document(store, session_id=session_id)
except StoredRowError as exc:  # a damaged row: say so, never a page error
    st.error(escape_markdown(str(exc)), icon=":material/error:")
    st.stop()
if document is None:
    st.warning("That session is gone from the store.")
    st.stop()

gatekeeper = document.gatekeeper_result
verdict = document.verifier_result.verdict if document.verifier_result else None
meaning = meaning_of(verdict=verdict, outcome=document.outcome, status=document.status)
injected = fault_badge(document.executor_fault)
with st.container(horizontal=True, vertical_alignment="center"):
    badges([meaning.badge(repair_turns=len(document.attempts)),
            severity_badge(gatekeeper.severity if gatekeeper else None,
                           citations=len(gatekeeper.checked_bindings) if gatekeeper else None),
            *([injected] if injected else [])])
    st.page_link("app.py", label=escape_markdown(f"Open {document.session_id} in Investigate"),
                 icon=":material/travel_explore:", query_params={"session": document.session_id})
session_badge(store, document.session_id)
folded_text(document.question, key_hint=" of the question")

items = session_bindings(document)
if not items:
    empty_state("This session has no evidence bindings (the executor cited nothing, or the "
                "drop_bindings fault removed them). Pick another session above.",
                icon=":material/link_off:")
    st.stop()

linked_binding = st.query_params.get("binding")
linked_index = linked_binding_index(items, linked_binding)
if linked_binding is not None and linked_index is None:
    st.error(escape_markdown(f"This session has no binding {linked_binding} (it has "
                             f"{len(items)}: 0 to {len(items) - 1}). Showing the first failing "
                             "one instead."), icon=":material/link_off:")
picker_key = f"binding_{session_id}"
if linked_index is not None and st.session_state.get(f"{picker_key}_linked") != linked_binding:
    st.session_state[picker_key] = linked_index  # a new link: it picks the binding
    st.session_state[f"{picker_key}_linked"] = linked_binding
# Set through the state, never index=: a widget given both warns on the page.
st.session_state.setdefault(picker_key, default_binding_index(items))


def _picked_binding() -> None:  # the URL names the binding shown: reload or share it
    st.query_params["binding"] = str(st.session_state[picker_key])
    st.session_state[f"{picker_key}_linked"] = st.query_params["binding"]


index = st.selectbox("Binding", range(len(items)),
                     format_func=lambda n: items[n].label, key=picker_key,
                     on_change=_picked_binding,
                     help="Failing bindings are listed with their severity and rule; the first "
                          "failing one is picked by default. The address names the one shown "
                          "(binding=K).")
item = items[index]

st.subheader(escape_markdown(f"{item.key.owner_id} · binding #{item.key.index}"), anchor=False)
folded_text(item.owner_text)
render_verdict_line(item.checked, explain=True)
render_side_by_side(item.binding.evidence_excerpt, item.shown_ref_text, item.checked,
                    ref_label=f"Ref text at {item.binding.raw_path or '(no raw_path)'}")
st.caption(LEGEND)
review_panel(store, document.session_id, key=f"inspect_{index}",
             only=binding_target(document, item.key.owner_id, item.key.index))
stored_version = gatekeeper.version if gatekeeper else "?"
small_text(f"Checked by gatekeeper {stored_version} · current version {GATEKEEPER_VERSION}")

judgement = claim_judgement(document, item.key)
if judgement:
    st.markdown("**The verifier: which evidence supports each fact of the claim**")
    small_text(judgement)
    supports = support_rows(document, item.key)
    if supports:
        # Widths that keep the evidence on a laptop's screen (two "large" columns do not).
        text_table(supports, key=f"supports_{session_id}_{index}",
                   long_columns=["fact", "evidence"],
                   column_config={"fact": st.column_config.TextColumn(width=240),
                                  "evidence": st.column_config.TextColumn(width=340)})
    else:
        small_text("No fact of this claim was aligned with its evidence.")

if item.invocation is not None:
    invocation = item.invocation
    cited_at = item.binding.raw_path or "(no raw_path)"
    with st.expander(escape_markdown(f"Raw output of invocation #{invocation.invocation_id} "
                                     f"({invocation.tool_name}), opened at {cited_at}"),
                     expanded=True, icon=":material/data_object:"):
        small_text("Arguments: " + json.dumps(invocation.arguments, ensure_ascii=False))
        st.html(lines_html(cited_json_lines(invocation.output, item.binding.raw_path)))
        small_text("Marked: the element the citation names. Lists around it are folded.")
        with st.popover("Whole raw output", icon=":material/unfold_more:"):
            st.json(invocation.output, expanded=True)
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


# The stored invocation wins over the document's copy.
recheck = recheck_binding(document, item.key, replacement, stored_invocations=StoreInvocations(store))
with st.container(border=True):
    if changed:
        st.markdown("**Gatekeeper's answer for the citation above**")
        render_verdict_line(recheck.checked)
        render_side_by_side(excerpt, recheck.ref_text, recheck.checked,
                            ref_label=f"Ref text at {replacement.raw_path or '(no raw_path)'}")
    else:  # the comparison above is this one: say what the re-check gives, once
        now = recheck.checked
        verdict_now = (f"{now.status} / {now.severity}" if now is not None else "not checked")
        st.markdown("**Citation unchanged**")
        small_text(f"Re-checked now: {verdict_now} — the comparison above. Edit the excerpt, "
                   "raw_path, invocation or tool to see what the gatekeeper says.")
    small_text(f"Whole session with this edit: gatekeeper {recheck.result.status} / "
               f"{recheck.result.severity}; failed rules: "
               f"{', '.join(recheck.result.failed_rules) or 'none'}")

with st.expander("Re-check the whole stored session under the current gatekeeper version",
                 icon=":material/update:"):
    current = recheck_session(document, stored_invocations=StoreInvocations(store))
    before = f"{gatekeeper.status}/{gatekeeper.severity}" if gatekeeper else "not checked"
    small_text(f"stored ({stored_version}): {before} · now ({GATEKEEPER_VERSION}): "
               f"{current.status}/{current.severity}; failed rules now: "
               f"{', '.join(current.failed_rules) or 'none'}")
