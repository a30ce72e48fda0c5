"""Sources: which sources the world of each pack or sources file has, whether they answer and
what they hold (alerts, rules, series, log lines, runbooks)."""

from __future__ import annotations

import streamlit as st

from core.errors import SuperbizError
from core.packs import list_packs
from core.settings import get_settings
from core.views.choices import default_pack_index
from core.views.sources import (
    choice_label,
    configured_servers,
    open_choice,
    rows_table,
    source_rows,
    world_choices,
)
from ui.render import empty_state, escape_markdown, setup_page, small_text
from ui.tables import text_table

setup_page("Sources")
st.title("Sources", anchor=False)
st.caption("What the tools ask: a pack, a log store, Prometheus, Alertmanager, runbook and rule "
           "files. A source that does not answer makes its tool's calls fail, and a failed call "
           "is never read as \"nothing found\".")

settings = get_settings()
choices = world_choices([name for name, _ in list_packs()], settings.sources_files())
if not choices:
    empty_state("No pack and no sources file configured (SUPERBIZ_PACKS_DIR, SUPERBIZ_SOURCES).",
                icon=":material/folder_off:")
    st.stop()
choice = st.selectbox("World", choices, key="sources_world", format_func=choice_label,
                      index=default_pack_index(choices),
                      help="A pack (with SUPERBIZ_PROMETHEUS_URL / SUPERBIZ_ALERTMANAGER_URL "
                           "as its metrics when set) or a sources file named by SUPERBIZ_SOURCES.")
servers = configured_servers(settings)
if servers:
    small_text("Configured in the environment: " + "; ".join(servers))


@st.cache_data(ttl=15, show_spinner="Asking each source what it holds…")
def _rows(choice: str, configured: tuple[str, ...], nonce: int) -> tuple[str, list[dict[str, str]], int]:
    # ``configured`` (the environment's servers) is part of the key: it changes the world.
    world = open_choice(choice)
    rows = source_rows(world)
    return world.name, rows_table(rows), sum(row.status == "unreachable" for row in rows)


if st.button("Ask again", icon=":material/refresh:", key="sources_refresh"):
    st.session_state["sources_nonce"] = st.session_state.get("sources_nonce", 0) + 1
try:
    name, table, unreachable = _rows(choice, tuple(servers), st.session_state.get("sources_nonce", 0))
except SuperbizError as exc:
    st.error(escape_markdown(str(exc)), icon=":material/error:")
    st.stop()

st.subheader(f"World {name}", anchor=False)
if unreachable:
    problems = [f"- {escape_markdown(row['source'])}: {escape_markdown(row['problem'])}"
                for row in table if row["status"] == "unreachable"]
    st.warning(f"{unreachable} source(s) do not answer: their tools' calls will be recorded as "
               "failed and no answer resting on them can PASS.\n\n" + "\n".join(problems),
               icon=":material/cloud_off:")
text_table(table, key="sources_table", long_columns=["holds", "problem"])
