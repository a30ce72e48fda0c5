"""Small rendering helpers: page setup and CSS, badges, escaped text, the cached store.

Text that comes from tools, executors or users is never given to Markdown or to HTML unescaped:
it goes through ``st.text`` / ``st.code`` / dataframes, or through ``core.views.highlight``
(which escapes every fragment) into ``st.html``.
"""

from __future__ import annotations

import html
import string
from collections.abc import Hashable, Sequence
from typing import Literal

import pandas as pd
import streamlit as st
from pandas.io.formats.style import Styler

from core.log import keep_logs_on_stderr
from core.settings import get_settings
from core.store import Store, open_store
from core.views.badges import Badge, Tone, cell_style
from core.views.highlight import ALIGNED_CLASS, DIFF_CLASS, TEXT_CLASS, text_html

BadgeColour = Literal["green", "orange", "red", "gray", "blue"]
_STREAMLIT_COLORS: dict[Tone, BadgeColour] = {
    "green": "green", "amber": "orange", "red": "red", "gray": "gray", "blue": "blue"}

ANSWER_CLASS = "sb-answer"
PROSE_CLASS = "sb-prose"
SMALL_CLASS = "sb-small"
_MARKDOWN_ESCAPES = str.maketrans({char: "\\" + char for char in string.punctuation})

# A fixed stylesheet: classes used by core.views.highlight and the answer box.
_CSS = f"""
<style>
.{TEXT_CLASS} {{
  white-space: pre-wrap; overflow-wrap: anywhere; line-height: 1.65;
  font-family: "Source Code Pro", "Noto Sans Mono CJK SC", ui-monospace, monospace;
  font-size: 0.86rem; padding: 0.6rem 0.8rem; border-radius: 0.5rem;
  background: rgba(128, 128, 128, 0.07); border: 1px solid rgba(128, 128, 128, 0.22);
}}
.{TEXT_CLASS}.{ANSWER_CLASS}, .{TEXT_CLASS}.{PROSE_CLASS} {{
  font-family: "Source Sans Pro", "Noto Sans CJK SC", "PingFang SC", "Microsoft YaHei", sans-serif;
  font-size: 1rem;
}}
.{TEXT_CLASS}.{ANSWER_CLASS} {{
  font-size: 1.02rem; background: rgba(28, 131, 225, 0.06);
  border-left: 4px solid rgba(28, 131, 225, 0.6);
}}
.{SMALL_CLASS} {{
  white-space: pre-wrap; overflow-wrap: anywhere; font-size: 0.85rem;
  color: rgba(49, 51, 63, 0.65);
}}
.{ALIGNED_CLASS} {{
  background: rgba(33, 195, 84, 0.20); border-bottom: 2px solid rgba(33, 195, 84, 0.9);
  border-radius: 2px;
}}
.{DIFF_CLASS} {{
  background: rgba(255, 75, 75, 0.35); color: inherit; border-radius: 2px;
  text-decoration: underline wavy rgba(255, 43, 43, 0.9); text-underline-offset: 3px;
}}
</style>
"""


# The sidebar navigation: Streamlit's pages/ discovery finds the files; these links give them
# readable labels (the default list would call the entry page "app").
NAV_LINKS: tuple[tuple[str, str, str], ...] = (
    ("app.py", "Investigate", ":material/travel_explore:"),
    ("pages/1_Sessions.py", "Sessions", ":material/history:"),
    ("pages/2_Binding_inspector.py", "Binding inspector", ":material/manage_search:"),
    ("pages/3_Evals.py", "Evals", ":material/science:"),
    ("pages/4_Data.py", "Data", ":material/database:"),
    ("pages/5_Sources.py", "Sources", ":material/hub:"),
)


def setup_page(title: str, icon: str) -> None:
    """Page config (wide layout), the stylesheet and the sidebar navigation; call first."""
    keep_logs_on_stderr()  # warnings (a crashed run thread, a failing store) on the server's stderr
    st.set_page_config(page_title=f"{title} · Evidence Console", page_icon=icon, layout="wide")
    st.html(_CSS)
    with st.sidebar:
        st.markdown("### :material/verified: Evidence Console")
        st.caption("Every sentence of an answer, traced to a real tool output.")
        for page, label, page_icon in NAV_LINKS:
            st.page_link(page, label=label, icon=page_icon)
        st.divider()


@st.cache_resource(show_spinner=False)
def _store_at(url: str) -> Store:
    return open_store(url)


def get_store() -> Store:
    """The audit store of this process (``SUPERBIZ_DB``), opened once per URL."""
    return _store_at(get_settings().database_url())


def badge(item: Badge) -> None:
    """A coloured badge."""
    st.badge(item.label, icon=f":material/{item.icon}:", color=_STREAMLIT_COLORS[item.tone])


def badges(items: Sequence[Badge]) -> None:
    """Badges side by side on one line."""
    if not items:
        return
    with st.container(horizontal=True, gap="small"):
        for item in items:
            badge(item)


def toned(frame: pd.DataFrame, columns: Sequence[str], *, precision: int = 3) -> Styler:
    """The frame with verdict / severity / outcome labels coloured in ``columns``.

    A Styler formats every float itself (column_config formats are ignored), hence ``precision``.
    """
    present: list[Hashable] = [column for column in columns if column in frame.columns]
    return frame.style.map(cell_style, subset=present).format(precision=precision, na_rep="")


def literal_text(text: str, *, answer: bool = False, prose: bool = False) -> None:
    """Data shown exactly as written (escaped; newlines kept), never parsed as Markdown.

    Monospace by default (tool output); ``prose`` for sentences, ``answer`` for the answer box.
    """
    extra = ANSWER_CLASS if answer else PROSE_CLASS if prose else ""
    body = text_html(text)
    if extra:
        body = body.replace(f'class="{TEXT_CLASS}"', f'class="{TEXT_CLASS} {extra}"', 1)
    st.html(body)


def small_text(text: str) -> None:
    """A caption-sized line of data, escaped (``st.caption`` would parse it as Markdown)."""
    st.html(f'<div class="{SMALL_CLASS}">{html.escape(text)}</div>')


def escape_markdown(text: str) -> str:
    """Data made safe for widgets whose labels are Markdown (pills, radio options)."""
    return text.translate(_MARKDOWN_ESCAPES)


def empty_state(message: str, *, icon: str = ":material/info:") -> None:
    """What to do next, when there is nothing to show yet."""
    st.info(message, icon=icon)
