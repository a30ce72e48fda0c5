"""Evals: run the default suite or an uploaded case file; results matrix and charts over runs."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from core.errors import SuperbizError
from core.evals.cases import DEFAULT_SUITE_DIR, EvalCase, load_suite, select_by_tags
from core.evals.results import CaseOutcome
from core.evals.runner import run_cases
from core.views import stored
from core.views.evals import (
    TONED_COLUMNS,
    case_matrix_rows,
    cases_from_upload,
    chart_notes,
    confusion_figure,
    failed_rules_figure,
    fault_catch_figure,
    headline,
    pass_rate_figure,
    run_label,
    trend_note,
    wrong_pass_badge,
)
from core.views.sessions import LINK_DISPLAY
from ui.annotations import ANNOTATIONS_SOURCE, annotation_suite
from ui.render import badge, empty_state, escape_markdown, get_store, setup_page
from ui.tables import text_table

if TYPE_CHECKING:
    from plotly.graph_objects import Figure

DEFAULT_SOURCE, UPLOAD_SOURCE = "Default suite", "Upload a case file"
CASE_WIDTH = 220  # px: a case id; what failed right after it

setup_page("Evals")
store = get_store()
st.title("Evals", anchor=False)
st.caption("Each case asks one question of the real pipeline and states what a correct system "
           "does with it. Every case becomes a stored session: its id in the results opens it.")

source = st.segmented_control("Cases", [DEFAULT_SOURCE, UPLOAD_SOURCE, ANNOTATIONS_SOURCE],
                              default=DEFAULT_SOURCE,
                              key="eval_source", required=True)
cases: list[EvalCase] = []
suite = "default"
try:
    if source == UPLOAD_SOURCE:
        uploaded = st.file_uploader("Case file (YAML)", type=["yaml", "yml"], key="eval_upload")
        if uploaded is None:
            st.caption(f"A YAML list of cases; see the files in {DEFAULT_SUITE_DIR.name}/ for "
                       "the format (id, question, optional pack, executor_fault, tags, expect).")
        else:
            cases, suite = cases_from_upload(uploaded.name, uploaded.getvalue()), uploaded.name
    elif source == ANNOTATIONS_SOURCE:  # cases made from reviewers' annotations
        cases, suite = annotation_suite()
    else:
        cases = load_suite()
except SuperbizError as exc:
    st.error(escape_markdown(str(exc)), icon=":material/error:")

if cases:
    tags = sorted({tag for case in cases for tag in case.tags})
    chosen = st.multiselect("Only cases tagged", tags, key="eval_tags",
                            placeholder="all cases") if tags else []
    selected = select_by_tags(cases, chosen)
    st.caption(escape_markdown(f"{len(selected)} of {len(cases)} case(s) selected from {suite}."))
    if st.button(f"Run {len(selected)} case(s)", type="primary", icon=":material/play_arrow:",
                 key="eval_run_button", disabled=not selected):
        progress = st.progress(0.0, text="Starting…")

        def _progress(done: int, total: int, outcome: CaseOutcome) -> None:
            progress.progress(done / total, text=escape_markdown(
                f"{done}/{total} · {outcome.case_id}: {outcome.outcome}"))

        try:
            run = run_cases(selected, store=store, suite=suite, on_result=_progress)
        except SuperbizError as exc:
            st.error(escape_markdown(str(exc)), icon=":material/error:")
        else:
            st.session_state["eval_run_pick"] = run.run_id  # the run just finished is shown
            message = f"{run.passed}/{run.total} case(s) passed in {run.duration_ms / 1000:.1f} s"
            (st.success if run.all_passed else st.warning)(message)

st.divider()
runs = stored.list_eval_runs(store)
if not runs:
    empty_state("No eval runs yet. Pick the default suite (or upload a case file) and press "
                "Run: the results matrix and the charts appear here.")
    st.stop()

newest_first = list(reversed(runs))
run_ids = [run.id for run in newest_first]
by_id = {run.id: run for run in runs}
# Picked through the state (a run just finished sets it above), never index=: the widget would
# keep showing the previous pick.
if st.session_state.get("eval_run_pick") not in run_ids:
    st.session_state["eval_run_pick"] = run_ids[0]
run_id = st.selectbox("Run", run_ids, format_func=lambda i: run_label(by_id[i]),
                      key="eval_run_pick")
current = by_id[run_id]
metrics = current.metrics or {}

numbers = headline(metrics)
for column, (label, value) in zip(st.columns(len(numbers)), numbers.items(), strict=True):
    column.metric(label, value)
wrong_pass = wrong_pass_badge(metrics)
if wrong_pass is not None:
    badge(wrong_pass)

st.subheader("Results matrix", anchor=False)
only_failures = st.toggle("Only cases that did not pass", key="eval_only_failures")
rows = case_matrix_rows(stored.list_case_results(store, run_id=run_id),
                        only_failures=only_failures)
if rows:
    text_table(rows, key=f"eval_matrix_{run_id}", toned_columns=TONED_COLUMNS, precision=1,
               long_columns=["failed expectations", "question"],
               column_config={"case": st.column_config.TextColumn(width=CASE_WIDTH),
                              "result": st.column_config.TextColumn(width=70),
                              "session": st.column_config.LinkColumn(
                   "session", display_text=LINK_DISPLAY, width="medium",
                   help="Opens the case's session on Investigate (in a new tab)")})
else:
    st.caption("Every case of this run passed." if only_failures else "This run has no cases.")

st.subheader("Charts", anchor=False)
notes = chart_notes(metrics)


def _chart(column: DeltaGenerator, name: str, title: str, figure: Callable[[], Figure]) -> None:
    """The chart, or, with nothing to draw, a note saying so (never bare axes)."""
    if name in notes:
        with column.container(border=True):
            st.markdown(f"**{title}**")
            st.caption(notes[name])
    else:
        column.plotly_chart(figure(), key=f"chart_{name}", width="stretch")


left, right = st.columns(2)
if trend_note(runs, current.suite) is not None:
    notes["pass_rate"] = (f"{trend_note(runs, current.suite)} This run: "
                          + " · ".join(f"{label} {value}" for label, value in numbers.items()
                                       if label in ("pass rate", "citation precision")))
_chart(left, "pass_rate", escape_markdown(f"Pass rate and citation precision over runs of "
                                          f"{current.suite or 'cases'}"),
       lambda: pass_rate_figure(runs, current.suite))
_chart(right, "confusion", "Verdict confusion", lambda: confusion_figure(metrics))
left, right = st.columns(2)
_chart(left, "rules", "Gatekeeper failed rules by count", lambda: failed_rules_figure(metrics))
_chart(right, "faults", "Fault-catch rate by mode", lambda: fault_catch_figure(metrics))
