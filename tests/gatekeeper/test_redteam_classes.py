"""Forged citations of real session documents, one class at a time, written apart from the
generated corpus (``redteam_corpus`` / ``redteam_gk3``): each class pins forgeries that must be
rejected next to benign variants of the same quote that must pass.

The documents are real sessions of the offline pipeline on the demo pack; the negative
observations cite real ``query_logs`` calls. Only the quoted excerpt, the claim's text or the
document's invocations are edited, the way a person or a model edits a session document.
"""

from __future__ import annotations

from functools import cache

import pytest

from core.contracts import Claim, EvidenceBinding, ExecutorOutput, Invocation, SessionDocument
from core.gatekeeper import check_citations
from core.pipeline import ask
from core.sources.pack import load_world
from core.tools.spec import call_tool, extract_evidence_refs

MEMORY_QUESTION = "请排查 order-service 当前是否存在 HighMemoryUsage 告警"
POOL_QUESTION = "Confirm whether order-service has HikariCP connection pool exhaustion."


@cache
def _session(question: str) -> SessionDocument:
    return ask(question, store=None)


def _binding(document: SessionDocument, raw_path: str) -> tuple[Claim, EvidenceBinding, str]:
    """The claim citing ``raw_path``, its binding and the ref text it cites."""
    assert document.executor_output is not None
    refs = {(invocation.invocation_id, ref.raw_path): ref.text
            for invocation in document.invocations if invocation.retrieval_details
            for ref in invocation.retrieval_details.evidence_refs}
    for claim in document.executor_output.claims:
        for binding in claim.evidence_bindings:
            key = (binding.source_invocation_id or 0, binding.raw_path or "")
            if binding.raw_path == raw_path and key in refs:
                return claim, binding, refs[key]
    raise AssertionError(f"no claim of the session cites {raw_path}")


def _grade(document: SessionDocument, claim: Claim, *, invocations: list[Invocation] | None = None,
           store: _Store | None = None) -> tuple[str, str]:
    """(status, severity) of a document holding only ``claim``."""
    result = check_citations(session_id=document.session_id,
                             invocations=document.invocations if invocations is None else invocations,
                             executor_output=ExecutorOutput(claims=[claim]), stored_invocations=store)
    return result.status, result.severity


def _quoting(claim: Claim, binding: EvidenceBinding, excerpt: str, text: str | None = None) -> Claim:
    quoted = binding.model_copy(update={"evidence_excerpt": excerpt})
    return claim.model_copy(update={"evidence_bindings": [quoted],
                                    "claim_text": claim.claim_text if text is None else text})


REJECTED = ("fail", "reject")
PASSED = ("pass", "none")


# ---------------------------------------------------------------- number signs and marks

ALERT_HEAD = "HighMemoryUsage firing, service=order-service, "
# The alert line says current=91%; each forgery makes it say something else about 91.
SIGN_FORGERIES = {
    "less-than": "current<91%", "greater-than": "current>91%", "not-equal": "current≠91%",
    "negative": "current=-91%", "approximately": "current≈91%", "tilde": "current=~91%",
    "plus-minus": "current=±91%", "less-or-equal": "current≤91%", "at-least": "current≥91%",
    "fullwidth-less-than": "current＜91%", "minus-sign": "current=−91%",
    "small-less-than": "current﹤91%", "plus-after": "current=91%+",
}
SIGN_BENIGN = {
    "verbatim": "current=91%", "spaces-around-equals": "current = 91%",
    "fullwidth-equals": "current＝91%", "space-before-unit": "current=91 %",
    "with-threshold": "current=91%, threshold=85%",
}


@pytest.mark.parametrize("excerpt", list(SIGN_FORGERIES.values()), ids=list(SIGN_FORGERIES))
def test_a_mark_that_changes_a_number_is_rejected(excerpt: str) -> None:
    document = _session(MEMORY_QUESTION)
    claim, binding, _ = _binding(document, "$.alerts[0]")
    assert _grade(document, _quoting(claim, binding, ALERT_HEAD + excerpt)) == REJECTED


@pytest.mark.parametrize("excerpt", list(SIGN_BENIGN.values()), ids=list(SIGN_BENIGN))
def test_formatting_around_a_number_passes(excerpt: str) -> None:
    document = _session(MEMORY_QUESTION)
    claim, binding, _ = _binding(document, "$.alerts[0]")
    assert _grade(document, _quoting(claim, binding, ALERT_HEAD + excerpt)) == PASSED


# ---------------------------------------------------------------- elided quotes

# The alert ref: "... order-service 内存使用率 91%，超过阈值 85%，已持续 15 分钟" and
# "current=91%, threshold=85%, duration=15m".
ELLIPSIS_FORGERIES = {
    "zh-label-onto-threshold": "order-service 内存使用率 … 85%，已持续 15 分钟",
    "en-label-onto-threshold": "service=order-service, current=…85%, duration=15m",
    "en-label-onto-duration": "service=order-service, threshold=... 15m, pod=pod-order-service",
}
ELLIPSIS_BENIGN = {
    "labels-kept": "current=91%, threshold=85% … severity=warning",
    "zh-labels-kept": "order-service 内存使用率 91%，超过阈值 85% … 已持续 15 分钟",
    "unlabelled-words": "HighMemoryUsage firing … JVM heap 3.8GB/4GB",
}


@pytest.mark.parametrize("excerpt", list(ELLIPSIS_FORGERIES.values()), ids=list(ELLIPSIS_FORGERIES))
def test_an_ellipsis_that_pairs_a_label_with_another_number_is_rejected(excerpt: str) -> None:
    document = _session(MEMORY_QUESTION)
    claim, binding, _ = _binding(document, "$.alerts[0]")
    assert _grade(document, _quoting(claim, binding, excerpt)) == REJECTED


@pytest.mark.parametrize("excerpt", list(ELLIPSIS_BENIGN.values()), ids=list(ELLIPSIS_BENIGN))
def test_an_ellipsis_that_keeps_each_number_with_its_label_passes(excerpt: str) -> None:
    document = _session(MEMORY_QUESTION)
    claim, binding, _ = _binding(document, "$.alerts[0]")
    assert _grade(document, _quoting(claim, binding, excerpt)) == PASSED


# ---------------------------------------------------------------- hidden characters

HIDDEN_FORGERIES = {
    "tag-characters": "\U000e0069\U000e0067\U000e006e\U000e006f\U000e0072\U000e0065",
    "private-use": "\ue000",
    "supplementary-private-use": "\U000f0042",
    "right-to-left-override": "\u202e",
    "right-to-left-isolate": "\u2067",
    "hangul-filler": "\u3164",
}
# Documented as benign (docs/gatekeeper-rules.md): stripped from quote and ref alike.
HIDDEN_BENIGN = {"zero-width-space": "\u200b", "byte-order-mark": "\ufeff", "word-joiner": "\u2060"}
LOG_QUOTE = "内存使用率过高: 91.0%, JVM堆内存: 3.8GB/4GB"


@pytest.mark.parametrize("hidden", list(HIDDEN_FORGERIES.values()), ids=list(HIDDEN_FORGERIES))
def test_hidden_characters_the_ref_lacks_are_rejected(hidden: str) -> None:
    document = _session(MEMORY_QUESTION)
    claim, binding, _ = _binding(document, "$.logs[0]")
    assert _grade(document, _quoting(claim, binding, LOG_QUOTE + hidden)) == REJECTED
    assert _grade(document, _quoting(claim, binding, LOG_QUOTE.replace("91.0%", f"{hidden}91.0%"))) == REJECTED


def test_a_bidi_override_that_displays_a_number_reversed_is_rejected() -> None:
    document = _session(MEMORY_QUESTION)
    claim, binding, _ = _binding(document, "$.logs[0]")
    shown_reversed = LOG_QUOTE.replace("91.0%", "\u202e%0.19\u202c")
    assert _grade(document, _quoting(claim, binding, shown_reversed)) == REJECTED


@pytest.mark.parametrize("hidden", list(HIDDEN_BENIGN.values()), ids=list(HIDDEN_BENIGN))
def test_benign_invisible_characters_between_words_pass(hidden: str) -> None:
    document = _session(MEMORY_QUESTION)
    claim, binding, _ = _binding(document, "$.logs[0]")
    assert _grade(document, _quoting(claim, binding, LOG_QUOTE.replace(", JVM", f",{hidden} JVM"))) == PASSED


# ---------------------------------------------------------------- words

POOL_LINE = "HikariPool-1 - Connection is not available, request timed out after 30000ms"
WORD_FORGERIES = {
    "copula-was": POOL_LINE.replace("is not", "was not"),
    "copula-became": POOL_LINE.replace("is not", "became not"),
    "negation-dropped": POOL_LINE.replace("is not", "is"),
    "pool-renumbered": POOL_LINE.replace("HikariPool-1", "HikariPool-2"),
    "look-alike-letter": POOL_LINE.replace("Connection", "Соnnection"),  # Cyrillic С, о
}
WORD_BENIGN = {
    "verbatim": POOL_LINE, "case": POOL_LINE.lower(), "double-spaces": POOL_LINE.replace(" ", "  "),
    "trailing-period": POOL_LINE + ".", "quoted": f"“{POOL_LINE}”",
}


def _pool_claim() -> tuple[SessionDocument, Claim, EvidenceBinding]:
    document = _session(POOL_QUESTION)
    assert document.executor_output is not None
    for claim in document.executor_output.claims:
        for binding in claim.evidence_bindings:
            if (binding.raw_path or "").startswith("$.logs") and "not available" in binding.evidence_excerpt:
                return document, claim, binding
    raise AssertionError("the pool session quotes no 'not available' line")


@pytest.mark.parametrize("excerpt", list(WORD_FORGERIES.values()), ids=list(WORD_FORGERIES))
def test_a_changed_word_is_rejected(excerpt: str) -> None:
    document, claim, binding = _pool_claim()
    assert _grade(document, _quoting(claim, binding, excerpt)) == REJECTED


@pytest.mark.parametrize("excerpt", list(WORD_BENIGN.values()), ids=list(WORD_BENIGN))
def test_a_reformatted_line_passes(excerpt: str) -> None:
    document, claim, binding = _pool_claim()
    assert _grade(document, _quoting(claim, binding, excerpt)) == PASSED


# ---------------------------------------------------------------- edited documents


class _Store:
    """The audit store's view (``core.gatekeeper.StoredInvocations``) over true invocations."""

    def __init__(self, invocations: list[Invocation]) -> None:
        self.by_id = {invocation.invocation_id: invocation for invocation in invocations}

    def invocation(self, invocation_id: int) -> Invocation | None:
        return self.by_id.get(invocation_id)

    def holds_session(self, session_id: str) -> bool:
        return any(invocation.session_id == session_id for invocation in self.by_id.values())


def _edited(invocation: Invocation, old: str, new: str, *, output_too: bool) -> Invocation:
    """``invocation`` with ``old`` replaced by ``new`` in its refs (and its raw output)."""
    details = invocation.retrieval_details
    assert details is not None
    refs = [ref.model_copy(update={"text": ref.text.replace(old, new)}) for ref in details.evidence_refs]
    update: dict[str, object] = {"retrieval_details": details.model_copy(update={"evidence_refs": refs})}
    if output_too:
        update["output"] = _replace_in(invocation.output, old, new)
    return invocation.model_copy(update=update)


def _replace_in(value: object, old: str, new: str) -> object:
    if isinstance(value, str):
        return value.replace(old, new)
    if isinstance(value, dict):
        return {key: _replace_in(item, old, new) for key, item in value.items()}
    if isinstance(value, list):
        return [_replace_in(item, old, new) for item in value]
    return value


def _edited_document(output_too: bool) -> tuple[SessionDocument, Claim, list[Invocation]]:
    document = _session(MEMORY_QUESTION)
    claim, binding, _ = _binding(document, "$.alerts[0]")
    invocations = [_edited(invocation, "current=91%", "current=71%", output_too=output_too)
                   if invocation.invocation_id == binding.source_invocation_id else invocation
                   for invocation in document.invocations]
    return document, _quoting(claim, binding, "service=order-service, current=71%, threshold=85%"), invocations


def test_a_document_whose_refs_were_edited_is_rejected_without_a_store() -> None:
    document, claim, invocations = _edited_document(output_too=False)
    assert _grade(document, claim, invocations=invocations) == REJECTED


def test_a_document_edited_throughout_is_rejected_against_the_store() -> None:
    document, claim, invocations = _edited_document(output_too=True)
    assert _grade(document, claim, invocations=invocations, store=_Store(list(document.invocations))) == REJECTED


def test_the_true_document_passes_with_and_without_the_store() -> None:
    document = _session(MEMORY_QUESTION)
    claim, binding, _ = _binding(document, "$.alerts[0]")
    true_claim = _quoting(claim, binding, "service=order-service, current=91%, threshold=85%")
    assert _grade(document, true_claim) == PASSED
    assert _grade(document, true_claim, store=_Store(list(document.invocations))) == PASSED


@pytest.mark.parametrize("session_id", [None, "rewritten"], ids=["session-null", "session-rewritten"])
def test_an_invocation_copied_from_another_stored_session_is_rejected(session_id: str | None) -> None:
    ours, theirs = _session(MEMORY_QUESTION), _session(POOL_QUESTION)
    claim, _, _ = _binding(ours, "$.alerts[0]")
    _, donor_binding, text = _binding(theirs, "$.logs[0]")
    copied = next(invocation for invocation in theirs.invocations
                  if invocation.invocation_id == donor_binding.source_invocation_id)
    copied = copied.model_copy(update={"session_id": ours.session_id if session_id else None})
    forged = _quoting(claim, donor_binding, text[-60:])
    store = _Store([*ours.invocations, *theirs.invocations])
    assert _grade(ours, forged, invocations=[*ours.invocations, copied], store=store) == REJECTED


# ---------------------------------------------------------------- negative observations


def _query(invocation_id: int, session_id: str, **arguments: object) -> Invocation:
    """A real query_logs call on the demo pack, recorded as the recorder does."""
    answer = call_tool(load_world("demo"), "query_logs", arguments)
    return Invocation(invocation_id=invocation_id, session_id=session_id, tool_name="query_logs",
                      arguments=dict(arguments), output=answer.output, source=answer.source,
                      request=answer.request, retrieval_details=extract_evidence_refs("query_logs", answer.output))


def _negative(text: str, queries: list[Invocation], *, topics: list[str]) -> Claim:
    return Claim(claim_id="claim-1", claim_type="negative_observation", claim_text=text,
                 subject_services=["inventory-service"], subject_topics=topics,
                 evidence_bindings=[EvidenceBinding(tool_name="query_logs", source_invocation_id=query.invocation_id,
                                                    evidence_excerpt="query_logs -> total=0")
                                    for query in queries])


SESSION = "s-redteam-negative"
NEGATIVE_FORGERIES = {
    # the text names another topic than the query searched
    "other-topic-zh": ("未检索到 inventory-service 的内存使用率过高相关记录。", {"topic": "connection_pool"}),
    "other-topic-en": ("No OutOfMemoryError or connection pool records for inventory-service.",
                       {"topic": "connection_pool"}),
    # the query looked only at ERROR lines, the claim speaks of all of them
    "level": ("No connection pool log lines at all were found for inventory-service.",
              {"topic": "connection_pool", "level": "ERROR"}),
    # the query looked at one minute, the claim speaks of all time
    "window": ("No connection pool records were found for inventory-service.",
               {"topic": "connection_pool", "since": "2026-07-08T11:00:00+08:00",
                "until": "2026-07-08T11:01:00+08:00"}),
    # the query searched one phrase, the claim says nothing of it
    "phrase": ("No connection pool records were found for inventory-service.",
               {"topic": "connection_pool", "terms": ["leak detection"]}),
    # the query excluded what the claim says is absent
    "excluded-topic-word": ("No connection pool records were found for inventory-service.",
                            {"topic": "connection_pool", "exclude": ["HikariPool"]}),
    "excluded-service": ("No connection pool records were found for inventory-service.",
                         {"topic": "connection_pool", "exclude": ["inventory-service"]}),
    "excluded-level": ("No ERROR connection pool lines were found for inventory-service.",
                       {"topic": "connection_pool", "level": "ERROR", "exclude": ["error"]}),
}
NEGATIVE_BENIGN = {
    "same-topic-en": ("No connection pool records were found for inventory-service.", {"topic": "connection_pool"}),
    "same-topic-zh": ("未检索到 inventory-service 的数据库连接池相关记录。", {"topic": "connection_pool"}),
    "level-stated": ("No ERROR connection pool log lines were found for inventory-service.",
                     {"topic": "connection_pool", "level": "ERROR"}),
    "excluded-other-subject": ("No connection pool records were found for inventory-service.",
                               {"topic": "connection_pool", "exclude": ["order-123", "OOM"]}),
}


@pytest.mark.parametrize("case", list(NEGATIVE_FORGERIES.values()), ids=list(NEGATIVE_FORGERIES))
def test_a_negative_observation_beyond_its_query_is_rejected(case: tuple[str, dict[str, object]]) -> None:
    text, arguments = case
    query = _query(1, SESSION, service="inventory-service", **arguments)
    assert query.output.get("total") == 0, "the forgery must cite a real query that found nothing"
    document = SessionDocument(session_id=SESSION, question="q", invocations=[query])
    assert _grade(document, _negative(text, [query], topics=["connection_pool"])) == REJECTED


@pytest.mark.parametrize("case", list(NEGATIVE_BENIGN.values()), ids=list(NEGATIVE_BENIGN))
def test_a_negative_observation_its_query_covers_passes(case: tuple[str, dict[str, object]]) -> None:
    text, arguments = case
    query = _query(1, SESSION, service="inventory-service", **arguments)
    assert query.output.get("total") == 0
    document = SessionDocument(session_id=SESSION, question="q", invocations=[query])
    assert _grade(document, _negative(text, [query], topics=["connection_pool"])) == PASSED


# An exact phrase (``terms``) finds the lines holding it, not every line of the topic it names.
PHRASE_CASES = {
    "topic-claimed-from-a-phrase": ("No OOM records were found for inventory-service.", ["oom"], REJECTED),
    "zh-topic-claimed-from-a-phrase": ("未检索到 inventory-service 的 OOM 相关记录。", ["oom"], REJECTED),
    "the-phrase-itself": ("No OOMKilled lines were found for inventory-service.", [], PASSED),
}


@pytest.mark.parametrize("case", list(PHRASE_CASES.values()), ids=list(PHRASE_CASES))
def test_a_phrase_search_covers_the_phrase_not_its_topic(case: tuple[str, list[str], tuple[str, str]]) -> None:
    text, topics, grade = case
    query = _query(1, SESSION, service="inventory-service", terms=["OOMKilled"])
    assert query.output.get("total") == 0
    document = SessionDocument(session_id=SESSION, question="q", invocations=[query])
    assert _grade(document, _negative(text, [query], topics=topics)) == grade
