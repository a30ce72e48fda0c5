"""Sessions: the investigation history, filterable (the filters kept in the URL); each session
id opens it on Investigate, a selected row shows it here; JSON Lines export."""

from __future__ import annotations

import dataclasses
from typing import Any

import pandas as pd
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from core.errors import StoredRowError
from core.packs import list_packs
from core.views import stored
from core.views.badges import fault_badge, session_status_badge, severity_badge
from core.views.chain import store_chain_state
from core.views.choices import fault_choices
from core.views.outcomes import answer_lead, meaning_of
from core.views.sessions import (
    LINK_DISPLAY,
    PERIOD_LABELS,
    TONED_COLUMNS,
    SessionFilters,
    document_json,
    documents_jsonl,
    export_file_name,
    rule_choice_label,
    rule_choices,
    session_rows,
    session_url_filters,
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
from ui.urlfilters import keep_url_filters, restore_url_filters

PAGE_SIZE = 200
TIME_WIDTH = 150  # px: a whole timestamp; the session link right after it
EXPORT_LIMIT = 1000

setup_page("Sessions")
store = get_store()

st.title("Sessions", anchor=False)
st.caption("Every investigation, stored stage by stage as it ran. Filter (the filters are kept "
           "in the address: reload or share it); a session id opens it on Investigate, "
           "selecting a row shows it below; export one document or the filtered set.")

rule_counts = stored.failed_rule_counts(store)  # over every session: the rule picker's counts
url_filters = session_url_filters(packs=[name for name, _ in list_packs()],
                                  faults=fault_choices()[1:], rules=rule_choices(rule_counts))
choices = {item.param: list(item.choices or ()) for item in url_filters}
restore_url_filters(url_filters)


def _pick(column: DeltaGenerator, label: str, name: str, **options: Any) -> None:
    column.selectbox(label, choices[name], key=f"filter_{name}", **options)


first = st.columns([1, 1, 1.6, 1, 1])
_pick(first[0], "Verdict", "verdict")
_pick(first[1], "Gatekeeper severity", "severity")
_pick(first[2], "Failed rule (sessions)", "rule",
      format_func=lambda rule: rule_choice_label(rule, rule_counts))
_pick(first[3], "Outcome", "outcome")
_pick(first[4], "Origin", "origin", help="manual: asked by a person (Investigate, the CLI); "
                                          "eval: made by an eval run")
second = st.columns([1, 1, 1, 1, 1.6])
_pick(second[0], "Pack", "pack")
_pick(second[1], "Injected fault", "fault",
      help="none: sessions run without a fault; a mode: sessions run with it")
_pick(second[2], "Time range", "period",
      format_func=lambda period: PERIOD_LABELS.get(period, period))
annotation = sessions_filter(second[3])  # its own URL parameter: its "any" is a filter
second[4].text_input("Search", key="filter_text",
                     placeholder="words of the question, or a session id")
filters = SessionFilters.from_values(
    {item.param: st.session_state.get(item.key) for item in url_filters})
filters = dataclasses.replace(filters, annotation=annotation)
keep_url_filters(url_filters)

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
        "origin": st.column_config.TextColumn(width="small"),
        "pack": st.column_config.TextColumn(width=110),
        "fault": st.column_config.TextColumn(width=120,
                                             help="The fault injected into the executor"),
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
gatekeeper = document.gatekeeper_result
injected = fault_badge(document.executor_fault)
badges([meaning.badge(repair_turns=len(document.attempts)),
        severity_badge(summary.gatekeeper_severity,
                       citations=len(gatekeeper.checked_bindings) if gatekeeper else None),
        session_status_badge(summary.status), *([injected] if injected else [])])
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
