"""Data: the scenario pack the tools see — alerts, metric series, searchable logs, runbooks."""

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
from ui.render import empty_state, escape_markdown, literal_text, setup_page, small_text
from ui.tables import text_table

setup_page("Data")
st.title("Data", anchor=False)
st.caption("The scenario pack: the only world the tools can see. Runbooks say what to look "
           "for; they are never evidence of the current state.")

pack_descriptions = dict(list_packs())
if not pack_descriptions:
    folders = ", ".join(map(str, get_settings().pack_dirs()))
    empty_state(f"No scenario pack in {folders}. Add a folder with a "
                "pack.yaml (see the README), then reload.", icon=":material/folder_off:")
    st.stop()
names = list(pack_descriptions)
name = st.selectbox("Scenario pack", names, key="data_pack", index=default_pack_index(names))
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
