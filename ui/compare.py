"""Side-by-side rendering of a binding: the executor's excerpt next to the ref text the
gatekeeper matched, the aligned span highlighted and the differing characters marked."""

from __future__ import annotations

import streamlit as st

from core.contracts import CheckedBinding
from core.views.badges import binding_badge
from core.views.highlight import diff_segments, differing_text, segments_html
from core.views.inspector import SCORE_EXPLAINED, rule_description
from ui.render import badges, escape_markdown, small_text

LEGEND = ("Green underline: the span of the ref text the excerpt was aligned to. Red: tokens "
          "(a number with its unit, a word) that differ between the excerpt and that span "
          "(case, width and spacing are ignored, as the gatekeeper ignores them).")


def render_verdict_line(checked: CheckedBinding | None, *, explain: bool = False) -> None:
    """Pass / low_confid / reject, the rule, the score and the match kind, then the message
    (``explain``: and the sentence saying what the score is, and is not)."""
    badges([binding_badge(checked)])
    if checked is None:
        st.caption("The gatekeeper has not checked this binding.")
        return
    score = f"{checked.score:.3f}" if checked.score is not None else "—"
    columns = st.columns([1, 2.6, 1, 1])  # rule names are long: give them room
    # Metric values are Markdown: every value from data is escaped.
    columns[0].metric("Status", escape_markdown(checked.status))
    columns[1].metric("Rule", escape_markdown(checked.rule or "—"))
    columns[2].metric("Locate score", score, help=SCORE_EXPLAINED)
    columns[3].metric("Match", escape_markdown(checked.match_kind),
                      help="How the excerpt was accepted: exact, truncated (an elided quote), "
                           "fuzzy (formatting only), negative (a no-hit query); none: it was not.")
    if explain:
        small_text(SCORE_EXPLAINED)
    if checked.message:
        small_text(f"Gatekeeper: {checked.message}")
    description = rule_description(checked.rule)
    if description:
        small_text(f"Rule {description}")


def render_side_by_side(excerpt: str, ref_text: str | None, checked: CheckedBinding | None,
                        *, ref_label: str) -> None:
    """Two columns: excerpt (differences marked) | ref text (span highlighted)."""
    spans = list(checked.spans) if checked is not None else []
    left, right = st.columns(2)
    if ref_text is None:
        left.markdown("**Executor excerpt**")
        with left:
            st.html(segments_html(diff_segments(excerpt, "", [])[0]))
        right.markdown(f"**{escape_markdown(ref_label)}**")
        right.warning("Nothing to compare with: no evidence ref at that locator of that "
                      "invocation.", icon=":material/link_off:")
        return
    excerpt_segments, ref_segments = diff_segments(excerpt, ref_text, spans)
    with left:
        st.markdown("**Executor excerpt**")
        st.html(segments_html(excerpt_segments))
        added = differing_text(excerpt_segments)
        small_text(f"Not in the ref text: {added}" if added else
                   "Every character of the excerpt is found in the ref text.")
    with right:
        st.markdown(f"**{escape_markdown(ref_label)}**")  # holds the model's raw_path
        st.html(segments_html(ref_segments))
        dropped = differing_text(ref_segments)
        aligned = f"{len(spans)} aligned span(s)" if spans else "No aligned span"
        small_text(f"{aligned}; in the span but not in the excerpt: {dropped}" if dropped
                   else f"{aligned}.")
