"""Property tests: real refs, mutated at random. Formatting never fails a quote; a changed fact
or word never passes one.

The refs are the evidence refs of real sessions (the pipeline on the demo pack, the red-team
corpus's questions). A quote is a run of whole tokens of one ref, cited through the real
``check_citations`` with the real invocation. Formatting-only edits (whitespace kinds and runs,
spaces after punctuation and around ``=``, full-width punctuation, letters and digits, case,
copy-paste invisibles, a stretch of whole tokens elided with ``...`` / ``…``) must pass; one
forged fact or word (a digit, a comparison / sign / approximation mark, a unit, a letter of a
name, a negation added or dropped, a word or CJK character or stop-word changed, a hidden
character) must not, whatever formatting is laid over it.

Deterministic by default (``derandomize``, a fixed number of examples, no example database);
``SUPERBIZ_PROPERTY_EXAMPLES=2000 SUPERBIZ_PROPERTY_RANDOM=1`` explores more, at random.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, note, settings
from hypothesis import strategies as st

from core.contracts import Claim, EvidenceBinding, ExecutorOutput, Invocation, SessionDocument
from core.gatekeeper import check_citations, match_excerpt
from core.language.text import normalize_text
from tests.gatekeeper.property_edits import FORGERIES, FORMATTING, Choose, T, tokens
from tests.gatekeeper.redteam_corpus import documents

EXAMPLES = int(os.environ.get("SUPERBIZ_PROPERTY_EXAMPLES", "150"))
PROPERTY = settings(max_examples=EXAMPLES, derandomize=not os.environ.get("SUPERBIZ_PROPERTY_RANDOM"),
                    database=None, deadline=None, suppress_health_check=[HealthCheck.too_slow])


class Ref:
    """One real evidence ref and where it lives (a plain class: a failing example shows only
    its ``repr``, not the whole session document)."""

    def __init__(self, document: SessionDocument, invocation: Invocation, raw_path: str, text: str) -> None:
        self.document, self.invocation, self.raw_path, self.text = document, invocation, raw_path, text

    def __repr__(self) -> str:
        return f"Ref({self.document.session_id} {self.invocation.tool_name} {self.raw_path}: {self.text!r})"


@lru_cache(maxsize=1)
def real_refs() -> tuple[Ref, ...]:
    """Every distinct ref text of the corpus's real sessions."""
    seen: set[str] = set()
    refs: list[Ref] = []
    for _, document in documents():
        for invocation in document.invocations:
            for ref in invocation.retrieval_details.evidence_refs if invocation.retrieval_details else []:
                if ref.text not in seen:
                    seen.add(ref.text)
                    refs.append(Ref(document, invocation, ref.raw_path, ref.text))
    return tuple(refs)


def grade(ref: Ref, excerpt: str) -> tuple[str, str, str]:
    """``(status, severity, why)`` of the whole gatekeeper on one citation of ``ref``."""
    binding = EvidenceBinding(tool_name=ref.invocation.tool_name, raw_path=ref.raw_path,
                              source_invocation_id=ref.invocation.invocation_id, evidence_excerpt=excerpt)
    claim = Claim(claim_id="claim-1", claim_text="property", evidence_bindings=[binding])
    result = check_citations(session_id=ref.document.session_id, invocations=ref.document.invocations,
                             executor_output=ExecutorOutput(claims=[claim]))
    (checked,) = result.checked_bindings
    return result.status, result.severity, f"{checked.rule}: {checked.message}"


@st.composite
def quotes(draw: st.DrawFn) -> tuple[Ref, str]:
    """A real ref and a run of its whole tokens that is a checkable quote (not too short)."""
    ref = draw(st.sampled_from(real_refs()))
    found = tokens(ref.text)
    first = draw(st.integers(0, len(found) - 1))
    last = draw(st.integers(first, min(len(found) - 1, first + 24)))
    quote = ref.text[found[first][0]:found[last][1]]
    match = match_excerpt(quote, ref.text)
    assume(match.ok and not match.too_short and len(quote) >= 16)
    return ref, quote


Draw = Callable[[st.SearchStrategy[Any]], Any]


def _chooser(draw: Draw) -> Choose:
    """A ``Choose`` that draws from hypothesis (so a failing example shrinks)."""
    def choose(options: Sequence[T], /) -> T:
        chosen: T = draw(st.sampled_from(list(options)))
        return chosen

    return choose


def _formatted(draw: Draw, quote: str, names: list[str]) -> str:
    choose = _chooser(draw)
    for name in names:
        edited = FORMATTING[name](quote, choose)
        if edited is not None:
            quote = edited
    return quote


def test_there_are_enough_real_refs() -> None:
    refs = real_refs()
    assert len(refs) >= 40
    assert {ref.invocation.tool_name for ref in refs} == {"query_metrics", "query_logs", "lookup_knowledge"}


@PROPERTY
@given(quote=quotes(), names=st.lists(st.sampled_from(sorted(FORMATTING)), min_size=1, max_size=4, unique=True),
       data=st.data())
def test_formatting_only_changes_pass(quote: tuple[Ref, str], names: list[str], data: st.DataObject) -> None:
    ref, text = quote
    if "truncate" in names:  # elide first, on the quote's own tokens, then lay formatting over it
        truncated = _formatted(data.draw, text, ["truncate"])
        # What is left must still say something checkable (else LOW_CONFID, rightly).
        assume(not match_excerpt(truncated, ref.text).too_short)
        text, names = truncated, [name for name in names if name != "truncate"]
    edited = _formatted(data.draw, text, names)
    note(f"{names}: {edited!r}")
    status, severity, why = grade(ref, edited)
    assert (status, severity) == ("pass", "none"), why


@PROPERTY
@given(quote=quotes(), forgery=st.sampled_from(sorted(FORGERIES)),
       names=st.lists(st.sampled_from(["respace", "full_width", "recase", "invisibles", "space_punctuation"]),
                      max_size=2, unique=True),
       data=st.data())
def test_one_forged_fact_or_word_never_passes(quote: tuple[Ref, str], forgery: str, names: list[str],
                                              data: st.DataObject) -> None:
    ref, text = quote
    forged = FORGERIES[forgery](text, _chooser(data.draw))
    assume(forged is not None and forged != text)
    assert forged is not None
    # A forgery that happens to quote the ref elsewhere verbatim is a true quote, not a forgery.
    assume(normalize_text(forged) not in normalize_text(ref.text))
    edited = _formatted(data.draw, forged, names)
    note(f"{forgery} + {names}: {edited!r}")
    status, severity, why = grade(ref, edited)
    assert status == "fail", why
    assert severity == "reject" or "too short" in why, why


@pytest.mark.parametrize("forgery", sorted(FORGERIES))
def test_every_forgery_kind_applies_to_real_refs(forgery: str) -> None:
    """Each forgery finds something to change in most real refs (the property is not vacuous)."""
    def first(options: Sequence[T], /) -> T:
        return options[0]

    applied = sum(FORGERIES[forgery](ref.text, first) not in (None, ref.text)
                  for ref in real_refs())
    assert applied >= len(real_refs()) // 4, f"{forgery} applies to {applied} refs"
