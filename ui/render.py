"""Small rendering helpers: page setup and CSS, badges, escaped text, the cached store.

Text that comes from tools, models, stored rows or users is never given to Markdown or to HTML
unescaped: it goes through ``st.text`` / ``st.code`` / dataframes, through ``escape_markdown``
into any element that renders Markdown, or through ``core.views.highlight`` (which escapes every
fragment) into ``st.html``.
"""

from __future__ import annotations

import html
import string
from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING, Literal

import streamlit as st

from core.log import keep_logs_on_stderr
from core.settings import get_settings
from core.views.badges import Badge, Tone
from core.views.highlight import ALIGNED_CLASS, CITED_CLASS, DIFF_CLASS, TEXT_CLASS, text_html
from core.views.outcomes import AnswerLead, cell_style
from core.views.theme import theme_links

# pandas (~45 MB with numpy and pyarrow) and SQLAlchemy load only on a page that shows a table
# or reads the store: the first page renders without them (bench/console.py).
if TYPE_CHECKING:
    import pandas as pd
    from pandas.io.formats.style import Styler

    from core.store import Store

BadgeColour = Literal["green", "orange", "red", "gray", "blue"]
_STREAMLIT_COLORS: dict[Tone, BadgeColour] = {
    "green": "green", "amber": "orange", "red": "red", "gray": "gray", "blue": "blue"}

ANSWER_CLASS = "sb-answer"
PROSE_CLASS = "sb-prose"
SMALL_CLASS = "sb-small"
LEAD_CLASS = "sb-lead"
# Border and tint of a toned box (the answer, the yes/no lead): mid tones with transparency,
# readable on the light and the dark theme alike.
_TONE_RGB: dict[Tone, str] = {"green": "33, 160, 80", "amber": "230, 150, 20",
                              "red": "230, 60, 60", "gray": "128, 128, 128",
                              "blue": "28, 131, 225"}
_TONE_CSS = "\n".join(
    f".sb-tone-{tone} {{ background: rgba({rgb}, 0.09) !important; "
    f"border-left: 5px solid rgba({rgb}, 0.85) !important; }}"
    for tone, rgb in _TONE_RGB.items())
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
.{LEAD_CLASS} {{
  display: flex; align-items: baseline; gap: 0.8rem; flex-wrap: wrap;
  padding: 0.5rem 0.9rem; border-radius: 0.5rem; margin-bottom: 0.4rem;
}}
.{LEAD_CLASS} .sb-lead-word {{ font-size: 1.9rem; font-weight: 700; line-height: 1.2; }}
.{LEAD_CLASS} .sb-lead-note {{ font-size: 0.9rem; opacity: 0.75; }}
{{tone_css}}
.{SMALL_CLASS} {{
  white-space: pre-wrap; overflow-wrap: anywhere; font-size: 0.85rem; opacity: 0.7;
}}
.{CITED_CLASS} {{
  background: rgba(255, 200, 0, 0.28); outline: 1px solid rgba(230, 160, 0, 0.8);
  border-radius: 2px; display: inline-block; min-width: 100%;
}}
.sb-json {{ white-space: pre-wrap; }}
/* A row of metrics keeps wrapping on a phone instead of stacking one per line. */
.st-key-sb-metrics {{ flex-direction: row !important; flex-wrap: wrap !important; }}
/* A metric's value is never cut with an ellipsis ("LOW_C…", a long rule name): it wraps, and
   the figures are a size that fits a verdict in a metric's width. */
[data-testid="stMetricValue"] {{ font-size: 1.6rem !important; }}
[data-testid="stMetricValue"] [data-testid="stMarkdownContainer"],
[data-testid="stMetricValue"] [data-testid="stMarkdownContainer"] p {{
  white-space: normal !important; overflow-wrap: anywhere; text-overflow: clip !important;
  overflow: visible !important; line-height: 1.25;
}}
/* Pills (the example questions) wrap inside the page instead of running off a phone. */
[data-testid="stButtonGroup"] button[data-variant="pills"] {{ max-width: 100%; height: auto; }}
[data-testid="stButtonGroup"] button[data-variant="pills"] * {{
  white-space: normal !important; overflow-wrap: anywhere; text-align: left;
}}
/* A table's toolbar floats above its top edge: on a phone, room for it so it covers no text. */
@media (max-width: 640px) {{
  [data-testid="stElementContainer"]:has([data-testid="stDataFrame"]) {{ margin-top: 1.9rem; }}
}}
.sb-theme-switch {{ display: flex; gap: 0.35rem; align-items: center; flex-wrap: wrap;
  font-size: 0.85rem; margin-top: 0.4rem; }}
.sb-theme-label {{ opacity: 0.7; margin-right: 0.2rem; }}
.sb-theme {{ padding: 0.1rem 0.55rem; border-radius: 1rem; text-decoration: none !important;
  border: 1px solid rgba(128, 128, 128, 0.35); color: inherit !important; }}
.sb-theme-on {{ border-color: rgba(28, 131, 225, 0.9); background: rgba(28, 131, 225, 0.15); }}
.{ALIGNED_CLASS} {{
  background: rgba(33, 195, 84, 0.20); border-bottom: 2px solid rgba(33, 195, 84, 0.9);
  border-radius: 2px;
}}
.{DIFF_CLASS} {{
  background: rgba(255, 75, 75, 0.35); color: inherit; border-radius: 2px;
  text-decoration: underline wavy rgba(255, 43, 43, 0.9); text-underline-offset: 3px;
}}
</style>
""".replace("{tone_css}", _TONE_CSS)


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


def setup_page(title: str) -> None:
    """Page config (wide layout, Streamlit's own favicon), the stylesheet and the sidebar
    navigation; call first."""
    keep_logs_on_stderr()  # warnings (a crashed run thread, a failing store) on the server's stderr
    # No page icon: Streamlit's favicon, served by this server. An emoji or a :material/...:
    # icon makes the browser fetch it from a CDN (the console makes no request off the
    # machine), and an image file makes Streamlit import numpy and PIL to serve it (14 MB and
    # ~0.4 s on the first page: bench/console.py).
    st.set_page_config(page_title=f"{title} · Evidence Console", layout="wide")
    st.html(_CSS)
    with st.sidebar:
        st.markdown("### :material/verified: Evidence Console")
        st.caption("Every sentence of an answer, traced to a real tool output.")
        for page, label, page_icon in NAV_LINKS:
            st.page_link(page, label=label, icon=page_icon)
        theme_switch()
        st.divider()


def theme_switch() -> None:
    """System / Light / Dark: links that reload the page in that theme (``core.views.theme``);
    the one shown now is marked."""
    try:
        shown = st.context.theme.type
    except Exception:  # no browser context
        shown = None
    links = theme_links(st.query_params.to_dict(), shown)
    anchors = " ".join(
        f'<a class="sb-theme{" sb-theme-on" if link.active else ""}" '
        f'href="{html.escape(link.href)}">{html.escape(link.label)}</a>' for link in links)
    st.html(f'<div class="sb-theme-switch"><span class="sb-theme-label">Theme</span> '
            f'{anchors}</div>')


@st.cache_resource(show_spinner=False)
def _store_at(url: str) -> Store:
    from core.store import open_store

    return open_store(url)


def get_store() -> Store:
    """The audit store of this process (``SUPERBIZ_DB``), opened once per URL."""
    return _store_at(get_settings().database_url())


def badge(item: Badge) -> None:
    """A coloured badge."""
    st.badge(escape_markdown(item.label), icon=f":material/{item.icon}:",
             color=_STREAMLIT_COLORS[item.tone])


def badges(items: Sequence[Badge]) -> None:
    """Badges side by side on one line."""
    if not items:
        return
    with st.container(horizontal=True, gap="small"):
        for item in items:
            badge(item)


def dark_theme() -> bool:
    """Whether the browser shows the dark theme (the OS setting or the user's choice)."""
    try:
        return st.context.theme.type == "dark"
    except Exception:  # no browser context (a bare script run): the light theme
        return False


def toned(frame: pd.DataFrame, columns: Sequence[str], *, precision: int = 3) -> Styler:
    """The frame with verdict / severity / outcome labels coloured in ``columns`` (colours of
    the current theme, ``core.views.outcomes.cell_style``).

    A Styler formats every float itself (column_config formats are ignored), hence ``precision``.
    """
    present: list[Hashable] = [column for column in columns if column in frame.columns]
    dark = dark_theme()
    return frame.style.map(lambda value: cell_style(value, dark=dark),
                           subset=present).format(precision=precision, na_rep="")


def literal_text(text: str, *, answer: bool = False, prose: bool = False,
                 tone: Tone | None = None) -> None:
    """Data shown exactly as written (escaped; newlines kept), never parsed as Markdown.

    Monospace by default (tool output); ``prose`` for sentences, ``answer`` for the answer box
    (``tone``: its colour, from ``core.views.outcomes``).
    """
    extra = ANSWER_CLASS if answer else PROSE_CLASS if prose else ""
    if tone is not None:
        extra += f" sb-tone-{tone}"
    body = text_html(text)
    if extra:
        body = body.replace(f'class="{TEXT_CLASS}"', f'class="{TEXT_CLASS} {extra}"', 1)
    st.html(body)


def lead_box(lead: AnswerLead, answer_kind: str) -> None:
    """A yes/no answer's leading word (是 · Yes, 否 · No ...), large, in its tone."""
    st.html(f'<div class="{LEAD_CLASS} sb-tone-{lead.tone}" data-answer-kind='
            f'"{html.escape(answer_kind)}"><span class="sb-lead-word">{html.escape(lead.word)}'
            f'</span><span class="sb-lead-note">{html.escape(lead.note)}</span></div>')


def small_text(text: str) -> None:
    """A caption-sized line of data, escaped (``st.caption`` would parse it as Markdown)."""
    st.html(f'<div class="{SMALL_CLASS}">{html.escape(text)}</div>')


def escape_markdown(text: str) -> str:
    """Data made safe for anything Streamlit renders as Markdown: captions, headings, alerts,
    expander titles, metric labels and values, badges, pills and radio options.

    The one escaping helper of the console: every ASCII punctuation character gets a backslash,
    so no link, image (a model-controlled ``![b](http://host/beacon.png)`` would make the
    viewer's browser fetch it), HTML, emphasis, ``:colour[...]`` directive or ``$math$`` in
    data is ever interpreted; the text reads exactly as written.
    """
    return text.translate(_MARKDOWN_ESCAPES)


def empty_state(message: str, *, icon: str = ":material/info:") -> None:
    """What to do next, when there is nothing to show yet."""
    st.info(message, icon=icon)
