"""Annotations in the console: the reviewer's name (remembered for the browser session), the
review panel a page puts under a session (mark the answer, a claim or a binding; each current
annotation's "Make an eval case"), the state badge, the Sessions filter kept in the URL and the
Evals page's annotations suite. What they show comes from ``core.views.annotations``."""

from __future__ import annotations

from typing import TYPE_CHECKING

import streamlit as st

from core.annotations import VERDICTS, annotate, current, default_reviewer, session_state
from core.errors import SuperbizError
from core.views import stored
from core.views.annotations import (
    FILTER_LABELS,
    QUERY_KEY,
    VERDICT_ICONS,
    Target,
    eval_case_message,
    filter_choices,
    filter_from_query,
    state_badge,
    targets,
)
from ui.render import badge, escape_markdown, small_text

if TYPE_CHECKING:
    from streamlit.delta_generator import DeltaGenerator

    from core.evals.cases import EvalCase
    from core.store import Store
    from core.store.models import AnnotationRow

REVIEWER_KEY = "annotation_reviewer"  # not a widget's key: kept when the page changes
_MESSAGE_KEY = "annotation_message"
ANNOTATIONS_SOURCE = "Annotations suite"


def reviewer_name() -> str:
    """The reviewer of this browser session (first: ``$SUPERBIZ_REVIEWER`` or the OS user)."""
    name: str = st.session_state.setdefault(REVIEWER_KEY, default_reviewer())
    return name


def session_badge(store: Store, session_id: str) -> None:
    """The session's annotation badge (nothing when it has none)."""
    shown = state_badge(stored.annotation_states(store, [session_id]).get(session_id))
    if shown is not None:
        badge(shown)


def _flash(key: str, ok: bool, text: str) -> None:
    st.session_state[_MESSAGE_KEY] = (key, ok, text)


def _show_flash(key: str) -> None:
    message = st.session_state.get(_MESSAGE_KEY)
    if message and message[0] == key:
        (st.success if message[1] else st.warning)(escape_markdown(message[2]))
        st.session_state[_MESSAGE_KEY] = None


def _make_case(store: Store, annotation: AnnotationRow, key: str) -> None:
    from core.evals.fromannotations import write_cases

    try:
        ok, text = eval_case_message(write_cases(store, [annotation]))
    except SuperbizError as exc:
        ok, text = False, str(exc)
    _flash(key, ok, text)


def _annotation_line(store: Store, row: AnnotationRow, key: str) -> None:
    with st.container(horizontal=True, vertical_alignment="center", gap="small"):
        st.markdown(f"{VERDICT_ICONS[row.verdict]} **{escape_markdown(row.verdict)}** · "
                    f"{escape_markdown(row.target_label)} · {escape_markdown(row.reviewer)} · "
                    f"{row.created_at:%Y-%m-%d %H:%M}" + (f" — {escape_markdown(row.note)}"
                                                          if row.note else ""))
        st.button("Make an eval case", key=f"make_case_{row.id}", icon=":material/science:",
                  on_click=_make_case, args=(store, row, key),
                  help="Write this annotation as a case of the annotations suite (Evals page)")


def review_panel(store: Store, session_id: str, *, key: str,
                 only: Target | None = None) -> None:
    """The review of a finished session: its current annotations, each with "Make an eval
    case", and a form to mark the answer, a claim or a binding (``only``: that target)."""
    try:
        document = stored.load_session_document(store, session_id=session_id)
    except SuperbizError:
        return  # the page says why the session cannot be shown
    if document is None or document.status == "running":
        return
    annotations = stored.list_annotations(store, session_id=session_id)
    live = current(annotations)
    if only is not None:
        live = [row for row in live if (row.target, row.target_index) == (only.kind, only.index)]
    state = session_state(annotations)
    title = f"Review ({len(live)} annotation{'' if len(live) == 1 else 's'})"
    with st.expander(title, expanded=bool(live), icon=":material/rate_review:"):
        shown = state_badge(state)
        if shown is not None and only is None:
            badge(shown)
        for row in reversed(live):
            _annotation_line(store, row, key)
        if len(annotations) > len(current(annotations)) and only is None:
            small_text(f"{len(annotations) - len(current(annotations))} earlier annotation(s) "
                       "superseded; all are kept in the audit store and exported.")
        _show_flash(key)
        _form(store, session_id, targets(document) if only is None else [only], key)


def _form(store: Store, session_id: str, choices: list[Target], key: str) -> None:
    # Not clear_on_submit: it would put the Reviewer back to the name the form was made with.
    with st.form(f"annotate_{key}", border=False):
        columns = st.columns([2, 1.2, 1])
        picked = columns[0].selectbox("Mark", range(len(choices)),
                                      format_func=lambda n: choices[n].label,
                                      key=f"annotate_target_{key}")
        verdict = columns[1].segmented_control("Verdict", VERDICTS, key=f"annotate_verdict_{key}")
        reviewer = columns[2].text_input("Reviewer", value=reviewer_name(),
                                         key=f"annotate_reviewer_{key}")
        note = st.text_input("Note", key=f"annotate_note_{key}",
                             placeholder="why: what the evidence really says")
        if not st.form_submit_button("Save annotation", icon=":material/save:"):
            return
    if not verdict:
        _flash(key, False, "Pick a verdict: wrong, right or unsure.")
        _rerun()
    st.session_state[REVIEWER_KEY] = reviewer.strip() or reviewer_name()
    target = choices[picked or 0]
    try:
        row = annotate(store, session_id=session_id, verdict=str(verdict), note=note,
                       reviewer=reviewer, target=target.kind, index=target.index)
    except SuperbizError as exc:
        _flash(key, False, str(exc))
    else:
        _flash(key, True, f"Saved: {row.target_label} marked {row.verdict} by {row.reviewer}.")
        for widget in (f"annotate_verdict_{key}", f"annotate_note_{key}"):
            st.session_state.pop(widget, None)  # a fresh form for the next mark
    _rerun()


def _rerun() -> None:
    """Show what was saved: the whole page (a fragment-scoped rerun is refused while a
    fragment runs as part of the page's run, as Investigate's session view does)."""
    st.rerun()


def sessions_filter(container: DeltaGenerator) -> str | None:
    """The Sessions page's annotation filter, kept in the URL (``?annotation=wrong``); returns
    the store's ``annotation`` filter (None: every session)."""
    widget = "filter_annotation"
    if widget not in st.session_state:  # a link, a reload, back from another page: the URL
        st.session_state[widget] = filter_from_query(st.query_params.get(QUERY_KEY))
    chosen = container.selectbox("Annotation", filter_choices(), key=widget,
                                 format_func=FILTER_LABELS.__getitem__)
    if chosen:
        st.query_params[QUERY_KEY] = chosen
    elif QUERY_KEY in st.query_params:
        del st.query_params[QUERY_KEY]
    return chosen or None


def annotation_suite() -> tuple[list[EvalCase], str]:
    """The Evals page's "Annotations suite": its cases and label (none yet: a note)."""
    from core.evals.cases import load_suite
    from core.evals.fromannotations import SUITE_LABEL, annotation_suite_path

    path = annotation_suite_path()
    if not path.exists():
        st.caption(escape_markdown(f"No annotation has been made an eval case yet ({path}). "
                                   "Mark a session wrong on Investigate, then press "
                                   "\"Make an eval case\"."))
        return [], SUITE_LABEL
    return load_suite([path]), SUITE_LABEL
