"""Data: the scenario pack the tools see — alerts, metric series, searchable logs, runbooks —
and "Add log files": uploaded files into a pack of their own (as `superbiz logs add`)."""

from __future__ import annotations

import streamlit as st

from core.errors import PackError
from core.packs import list_packs, load_pack
from core.settings import get_settings
from core.sources.pack import load_world
from core.views.choices import default_pack_index
from core.views.data import (
    MINIMUM_LEVELS,
    alert_rows,
    log_line_count,
    search_logs,
    series_figure,
)
from core.views.uploads import add_uploads
from ui.render import empty_state, escape_markdown, literal_text, setup_page, small_text
from ui.tables import text_table

setup_page("Data")
st.title("Data", anchor=False)
st.caption("The scenario pack: the only world the tools can see. Runbooks say what to look "
           "for; they are never evidence of the current state.")

KEPT = "data_pack_kept"  # the picked pack, kept when the picker's own state is dropped


def _keep_pick() -> None:
    st.session_state[KEPT] = st.session_state["data_pack"]


with st.sidebar:  # before the picker, so that a pack just made can be picked in this run
    st.header("Add log files", anchor=False)
    uploads = st.file_uploader("Log files (any common layout, plain or .gz)", accept_multiple_files=True,
                               key="add_files")
    target = st.text_input("Pack", key="add_pack", placeholder="a new or an added-to pack's name",
                           help="The files go into this pack's log store (made when missing), "
                                "as superbiz logs add FILE... --pack NAME does.")
    if st.button("Import", key="add_button", icon=":material/upload_file:",
                 disabled=not uploads or not (target or "").strip()):
        bar = st.progress(0.0)
        outcome = add_uploads([(upload.name, upload.getvalue()) for upload in uploads or []], target or "",
                              lambda done, text: bar.progress(done, text=escape_markdown(text)))
        if outcome.pack is None:
            st.error(escape_markdown(outcome.message), icon=":material/error:")
        else:
            st.success(escape_markdown(outcome.message), icon=":material/check_circle:")
            for line in outcome.files:
                small_text(line)
            st.session_state[KEPT] = st.session_state["data_pack"] = outcome.pack

pack_descriptions = dict(list_packs())  # read on every run: a pack added meanwhile is listed
if not pack_descriptions:
    folders = ", ".join(map(str, get_settings().pack_dirs()))
    empty_state(f"No scenario pack in {folders}. Add log files (on the left), or a folder "
                "with a pack.yaml (see the README), then reload.", icon=":material/folder_off:")
    st.stop()
names = list(pack_descriptions)
# The pack shown: the picker's while it is on screen; else the link's (?pack=), else the one
# picked last in this browser tab (Streamlit drops a widget's state when its page is left).
if st.session_state.get("data_pack") not in names:
    linked, kept = st.query_params.get("pack"), st.session_state.get(KEPT)
    st.session_state["data_pack"] = next((choice for choice in (linked, kept) if choice in names),
                                         names[default_pack_index(names)])
name = st.selectbox("Scenario pack", names, key="data_pack", on_change=_keep_pick)
st.session_state[KEPT] = name
st.query_params["pack"] = name  # a reload or a shared link shows the same pack
try:
    pack = load_pack(name)
except PackError as exc:
    st.error(escape_markdown(str(exc)), icon=":material/error:")
    st.stop()
world = load_world(pack)
small_text(f"{pack.description}\nPack clock (every timestamp and duration is relative to it): "
           f"{pack.now.isoformat()}")

columns = st.columns(5)
columns[0].metric("Alerts", len(pack.alerts))
columns[1].metric("Metric series", len(pack.series))
lines = log_line_count(world)
columns[2].metric("Log lines", f"{lines:,}" if lines is not None else "—")
columns[3].metric("Runbooks", len(pack.runbooks))
columns[4].metric("Services", len(world.vocabulary.services))

alerts_tab, logs_tab, runbooks_tab = st.tabs(
    ["Alerts and metrics", "Logs", "Runbooks"])

with alerts_tab:
    st.subheader("Alerts", anchor=False)
    if pack.alerts:
        text_table(alert_rows(pack.alerts), key="alerts_table", long_columns=["details"])
    else:
        st.caption("This pack has no alerts (add alerts.yaml).")
    st.subheader("Metric series", anchor=False)
    if not pack.series:
        st.caption("This pack has no metric series (add series.yaml).")
    chart_columns = st.columns(2)
    for number, (key, series) in enumerate(pack.series.items()):
        with chart_columns[number % 2]:
            st.plotly_chart(series_figure(series), key=f"series_{key}", width="stretch")

with logs_tab:
    filters = st.columns([2, 1.2, 1])
    text = filters[0].text_input("Search", key="log_text",
                                 placeholder='what the agents would ask, e.g. HikariPool timeout, "timed out"')
    service = filters[1].selectbox("Service", world.vocabulary.log_services, index=None,
                                   placeholder="every service", key="log_service")
    level = filters[2].selectbox("Level at least", MINIMUM_LEVELS, index=None,
                                 placeholder="any level", key="log_level")
    found = search_logs(world, text=text, service=service, level=level)
    if found.error:
        st.error(escape_markdown(found.error), icon=":material/error:")
    elif not found.rows:
        empty_state("No log line matches. Remove a word or a filter.",
                    icon=":material/search_off:")
    else:
        st.caption(f"query_logs: {escape_markdown(found.message)}. The same search the agents run "
                   "(synonyms, identifiers, quoted phrases), most relevant first; lines shown exactly "
                   "as stored.")
        text_table(found.groups, key="log_groups_table", long_columns=["template"])
        text_table(found.rows, key="logs_table", long_columns=["message"])

with runbooks_tab:
    if not pack.runbooks:
        empty_state("This pack has no runbooks. Add Markdown files under runbooks/.")
    for runbook in pack.runbooks:
        with st.expander(escape_markdown(f"{runbook.title} — {runbook.source}"),
                         icon=":material/menu_book:"):
            for section in runbook.sections:
                st.markdown(f"**{escape_markdown(section.title)}**")
                literal_text(section.content)
