"""Sessions: the investigation history, filterable; each session id opens it on Investigate, a
selected row shows it here; JSON Lines export."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from core.errors import StoredRowError
from core.views import stored
from core.views.badges import session_status_badge, severity_badge
from core.views.chain import store_chain_state
from core.views.outcomes import answer_lead, meaning_of
from core.views.sessions import (
    LINK_DISPLAY,
    SEVERITY_CHOICES,
    TONED_COLUMNS,
    VERDICT_CHOICES,
    SessionFilters,
    document_json,
    documents_jsonl,
    export_file_name,
    rule_choices,
    session_rows,
)
from ui.annotations import review_panel, session_badge, sessions_filter
from ui.render import (
    badge,
    badges,
    empty_state,
    escape_markdown,
    get_store,
    lead_box,
    literal_text,
    setup_page,
    small_text,
    toned,
)
from ui.tables import WRAP_ROW_HEIGHT, folded_text

PAGE_SIZE = 200
TIME_WIDTH = 150  # px: a whole timestamp; the session link right after it
EXPORT_LIMIT = 1000
ANY = "any"

setup_page("Sessions")
store = get_store()

st.title("Sessions", anchor=False)
st.caption("Every investigation, stored stage by stage as it ran. Filter; a session id opens "
           "it on Investigate, selecting a row shows it below; export one document or the "
           "filtered set.")

columns = st.columns([1, 1, 1.3, 2])
verdict = columns[0].selectbox("Verdict", [ANY, *VERDICT_CHOICES], key="filter_verdict")
severity = columns[1].selectbox("Gatekeeper severity", [ANY, *SEVERITY_CHOICES],
                                key="filter_severity")
rule = columns[2].selectbox("Failed rule", [ANY, *rule_choices()], key="filter_rule")
text = columns[3].text_input("Search", key="filter_text",
                             placeholder="words of the question, or a session id")
filters = SessionFilters(verdict=None if verdict == ANY else verdict,
                         severity=None if severity == ANY else severity,
                         rule=None if rule == ANY else rule, text=text,
                         annotation=sessions_filter(st.columns(4)[0]))

total = stored.count_sessions(store, **filters.as_query())
summaries = stored.list_sessions(store, **filters.as_query(), limit=PAGE_SIZE)

if not summaries:
    if filters.active:
        empty_state("No session matches these filters. Set a filter back to 'any' or clear the "
                    "search.", icon=":material/filter_alt_off:")
    else:
        empty_state("No sessions yet. Ask a question on the Investigate page, or run the evals: "
                    "every run is recorded here.")
        st.page_link("app.py", label="Go to Investigate", icon=":material/travel_explore:")
    st.stop()

shown = f"the newest {len(summaries)}" if total > len(summaries) else f"all {total}"
st.caption(f"{total} session(s) match; showing {shown}.")
chain = store_chain_state(store)  # tamper evidence: docs/store.md
with st.container(horizontal=True, gap="small", key="audit_chain"):
    badge(chain.badge)
    small_text(chain.line)
table = st.dataframe(
    toned(pd.DataFrame(session_rows(summaries, stored.annotation_states(
        store, [summary.session_id for summary in summaries]))), TONED_COLUMNS, precision=2),
    key="sessions_table", on_select="rerun", row_height=WRAP_ROW_HEIGHT,
    selection_mode="single-row", hide_index=True, width="stretch",
    column_config={
        "time (UTC)": st.column_config.TextColumn(width=TIME_WIDTH),
        "open": st.column_config.LinkColumn(
            "session", display_text=LINK_DISPLAY, width="medium",
            help="Opens the session on Investigate (in a new tab)"),
        "result": st.column_config.TextColumn(width="medium"),
        "question": st.column_config.TextColumn(width="large"),
        "groundedness": st.column_config.ProgressColumn(min_value=0.0, max_value=1.0,
                                                        format="%.2f"),
        "duration (ms)": st.column_config.NumberColumn(format="%.1f"),
    })


def _export_filtered() -> str:
    ids = [s.session_id for s in stored.list_sessions(store, **filters.as_query(),
                                                      limit=EXPORT_LIMIT)]
    return documents_jsonl(stored.documents_for_export(store, ids),
                           lambda session_id: stored.list_annotations(store, session_id=session_id))


exported = min(total, EXPORT_LIMIT)
st.download_button(f"Export {exported} session(s) as JSON Lines", data=_export_filtered,
                   file_name=export_file_name(filters, exported), mime="application/jsonl",
                   icon=":material/download:", on_click="ignore", key="export_filtered")

selected_rows = table.selection.rows if table is not None else []
if not selected_rows:
    st.caption("Select a row to show its question, answer and links here.")
    st.stop()

summary = summaries[selected_rows[0]]
try:
    document = stored.load_session_document(store, session_id=summary.session_id)
except StoredRowError as exc:  # a damaged row: say so, never a page error
    st.error(escape_markdown(str(exc)), icon=":material/error:")
    st.stop()
if document is None:
    st.warning("That session is gone from the store.")
    st.stop()

st.divider()
st.subheader(escape_markdown(f"Session {document.session_id}"), anchor=False)
meaning = meaning_of(verdict=summary.verdict, outcome=summary.outcome, status=summary.status)
badges([meaning.badge(repair_turns=len(document.attempts)),
        severity_badge(summary.gatekeeper_severity),
        session_status_badge(summary.status)])
session_badge(store, document.session_id)
folded_text(document.question, key_hint=" of the question")
composer = document.composer_output
if composer is not None:
    lead = answer_lead(composer.answer_kind, language=composer.language, meaning=meaning)
    if lead is not None and summary.status == "completed":
        lead_box(lead, composer.answer_kind or "")
    literal_text(composer.user_facing_answer, answer=True, tone=meaning.tone)
    small_text(meaning.sentence)
elif document.error:
    st.error(escape_markdown(document.error), icon=":material/error:")
if summary.failed_rules:
    small_text("Failed rules: " + ", ".join(summary.failed_rules))
with st.container(horizontal=True):
    st.page_link("app.py", label="Open in Investigate", icon=":material/travel_explore:",
                 query_params={"session": document.session_id})
    st.page_link("pages/2_Binding_inspector.py", label="Inspect bindings",
                 icon=":material/manage_search:", query_params={"session": document.session_id})
    st.download_button("Session document (JSON)", data=document_json(
        document, stored.list_annotations(store, session_id=document.session_id)),
                       file_name=f"{document.session_id}.json", mime="application/json",
                       icon=":material/download:", on_click="ignore", key="export_one")
review_panel(store, document.session_id, key="sessions")
