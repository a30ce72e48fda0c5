"""Tables whose long text stays readable: long cells wrap onto several lines, and selecting a
row shows its long fields in full under the table (never cut). Long text outside tables is
folded (``folded_text``) with the rest one click away."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import streamlit as st

from core.views.folding import FULL_CHARS, WRAP_CHARS, fold_text, longest_cell
from ui.render import escape_markdown, literal_text, small_text, toned

if TYPE_CHECKING:  # pandas loads with the first table shown (ui.render says why)
    import pandas as pd
    from pandas.io.formats.style import Styler

# Streamlit wraps a text cell only in rows taller than 4rem; this fits three lines.
WRAP_ROW_HEIGHT = 72


def text_table(rows: Sequence[Mapping[str, Any]], *, key: str, long_columns: Sequence[str] = (),
               toned_columns: Sequence[str] = (), column_config: Mapping[str, Any] | None = None,
               precision: int = 3, select_to_read: bool = True) -> list[int]:
    """A dataframe of ``rows``; returns the selected row positions.

    ``long_columns`` are wide and wrap when any of their cells is long; with
    ``select_to_read``, a selected row's long fields are shown whole below the table.
    """
    import pandas as pd

    frame = pd.DataFrame(list(rows))
    present = [name for name in long_columns if name in frame.columns]
    config: dict[str, Any] = {name: st.column_config.TextColumn(width="large") for name in present}
    config.update(column_config or {})
    longest = longest_cell(rows, present)
    data: pd.DataFrame | Styler = (toned(frame, toned_columns, precision=precision)
                                   if toned_columns else frame)
    selectable = select_to_read and longest > WRAP_CHARS
    event = st.dataframe(data, hide_index=True, width="stretch", column_config=config, key=key,
                         row_height=WRAP_ROW_HEIGHT if longest > WRAP_CHARS else None,
                         on_select="rerun" if selectable else "ignore",
                         selection_mode="single-row")
    state = getattr(event, "selection", None) if selectable else None  # a DataframeState
    selected: list[int] = list(state.rows) if state is not None else []
    if selected and selected[0] < len(rows):
        row = rows[selected[0]]
        for name in present:
            value = str(row.get(name) or "")
            if value:
                small_text(f"{name}:")
                literal_text(value)
    elif selectable and longest > FULL_CHARS:
        st.caption("Select a row to read its long text in full.")
    return selected


def folded_text(text: str, *, prose: bool = True, key_hint: str = "") -> None:
    """``text`` as written; beyond a few hundred characters only its start, the whole of it in
    an expander below."""
    folded = fold_text(text)
    literal_text(folded.head, prose=prose)
    if folded.folded:
        with st.expander(escape_markdown(f"Show all {len(text):,} characters{key_hint}"),
                         icon=":material/unfold_more:"):
            literal_text(text, prose=prose)
