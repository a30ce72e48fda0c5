"""The gk-3 building blocks on their own: marks in front of numbers, hidden characters, labels
across an ellipsis, and the scope of a negative observation's queries."""

from __future__ import annotations

import pytest

from core.contracts import Claim, Invocation
from core.gatekeeper import coverage
from core.language import facts, signs
from core.language.invisible import BENIGN_INVISIBLE, forged_invisible, is_hidden
from core.language.quote_labels import spliced_label
from core.language.text import normalize_text


def _marks(text: str) -> str:
    """The marks of the text's last number token."""
    normal = normalize_text(text)
    start = max(start for start, _, token in facts.token_spans(normal) if token[0].isdigit())
    return signs.qualifier(normal, start)[1]


@pytest.mark.parametrize(("text", "marks"), [
    ("current=91%", ""), ("current = 91%", ""), ("current: 91%", ""), ("current 91%", ""),
    ("current<91%", "<"), ("current＜91%", "<"), ("current <= 91%", "≤"), ("current=<91%", "≤"),
    ("current ≦ 91%", "≤"), ("current>=91%", "≥"), ("current != 91%", "≠"), ("current<>91%", "≠"),
    ("current~91%", "≈"), ("current≈91%", "≈"), ("current～91%", "≈"), ("current=±91%", "±"),
    ("current=+-91%", "±"), ("current=-91%", "-"), ("current=−91%", "-"), ("current = -91%", "-"),
    ("次数-128", "-"), ("(-3)", "-"), ("temp: +5", "+"), ("a < -5", "<-"), ("< = 5", "≤"),
    # benign hyphens, dashes and ranges
    ("10 - 20", ""), ("10 ~ 20", ""), ("10～20", ""), ("HikariPool-1 - 30000ms", ""),
    ("a - 5", ""), ("[2026-07-08 11:17:00", ""), ("p99 ~4.2s", "≈"), ("07-08 ~11:17", "≈"),
])
def test_marks_in_front_of_a_number(text: str, marks: str) -> None:
    assert _marks(text) == marks


def test_hyphens_inside_names_are_not_signs() -> None:
    for text in ("order-service-1", "2026-07-08", "10-20", "pool-1", "91%-5%"):
        normal = normalize_text(text)
        last = len(normal) - 1
        while last > 0 and normal[last - 1].isdigit():
            last -= 1
        assert signs.qualifier(normal, last)[1] == "", text


@pytest.mark.parametrize("char", ["\u202a", "\u202b", "\u202d", "\u202e", "\u2066", "\u2067", "\u2068", "\u2069"])
def test_bidi_embeddings_overrides_and_isolates_never_pass(char: str) -> None:
    """Even when the ref holds one: a quote holding it displays differently from what it says."""
    ref = f"current={char}91%"
    assert forged_invisible(f"current={char}91%", ref)


@pytest.mark.parametrize("char", ["\u200e", "\u200f", "\u061c", "\U000e0041", "\ue000", "\U000f0000",
                                  "\ufe0f", "\U000e0100", "\u2062", "\u206a", "\ufff9", "\b", "\x1b",
                                  "\u034f", "\u115f", "\u3164", "\uffa0", "\u0378"])
def test_hidden_characters_the_ref_lacks_are_forgeries(char: str) -> None:
    assert forged_invisible(f"current=91%{char}", "current=91%")
    assert not forged_invisible(f"current=91%{char}", f"current=91%{char}")  # the ref holds it


def test_benign_invisibles_and_whitespace_are_not_forgeries() -> None:
    text = "".join(BENIGN_INVISIBLE) + "current=91%\u00a0\u3000\t\n内存"
    assert forged_invisible(text, "current=91% 内存") == []


def test_every_hidden_code_point_is_found_in_a_non_ascii_quote() -> None:
    """Each hidden code point the ref lacks is a forgery, wherever it sits; no visible one is."""
    found = [code for code in range(0x80, 0x10000) if forged_invisible(f"内存{chr(code)}", "内存")]
    assert found == [code for code in range(0x80, 0x10000) if is_hidden(chr(code))]
    assert all(forged_invisible(f"内存{chr(code)}", "内存") for code in range(0xE0000, 0xE0080))
    assert not forged_invisible("内存一가", "内存")


REF = normalize_text("HighMemoryUsage firing, current=91%, threshold=85%; 内存使用率 91%，超过阈值 85%")


def _splice(head: str, tail: str) -> str:
    previous_end = REF.index(head) + len(head)
    start = REF.index(tail, previous_end)
    return spliced_label(REF, previous_end, start, start + len(tail))


def test_an_ellipsis_may_not_bind_a_label_to_another_number() -> None:
    assert "labels 91%" in _splice("内存使用率", "85%")
    assert "'current' labels 91%" in _splice("current", "85%")
    assert _splice("内存使用率", "超过阈值 85%") == ""  # the number keeps its own label
    assert _splice("current", "91%") == ""  # the label of that very number
    assert _splice("highmemoryusage firing", "85%") == ""  # 'firing' labels nothing
    assert _splice("current=91%", "85%") == ""  # a number before the ellipsis: no words to bind


def _query(**arguments: object) -> Invocation:
    return Invocation(invocation_id=1, session_id="s", tool_name="query_logs", arguments=arguments)


def test_scope_of_a_query() -> None:
    scope = coverage.scope_of(_query(service="inventory-service", topic="memory"))
    assert scope.services == frozenset({"inventory-service"})
    assert scope.covers("inventory-service", "memory") and scope.covers("inventory-service", "gc")
    assert not scope.covers("inventory-service", "connection_pool")
    assert not scope.covers("inventory-service", "")  # a claim naming no topic is broader
    assert not scope.covers("payment-service", "memory")
    mention = coverage.scope_of(_query(topic="connection_pool", query="inventory-service"))
    assert mention.services == frozenset({"inventory-service"})
    assert mention.covers("inventory-service", "connection_pool")
    unfiltered = coverage.scope_of(_query())
    assert unfiltered.services is None and unfiltered.covers("", "")
    words = coverage.scope_of(_query(service="hadoop", query="ERROR IN CONTACTING RM"))
    assert words.covers("hadoop", "") and not words.covers("hadoop", "memory")


def test_a_claims_subject_is_its_fields_and_its_text() -> None:
    claim = Claim(claim_id="c", claim_type="negative_observation",
                  claim_text="inventory-service 未检索到内存使用率过高日志",
                  subject_services=["Inventory-Service"], subject_topics=["connection_pool"])
    assert coverage.claim_subject(claim) == (["inventory-service"], ["connection_pool", "memory"])


def test_search_terms_and_match() -> None:
    both = coverage.scope_of(_query(service="order-service", terms=["HikariCP", "OutOfMemoryError"]))
    assert not both.covers("order-service", "connection_pool")  # a line must hold both
    # an exact phrase finds the lines holding it, not every line of the topic it names
    either = coverage.scope_of(_query(service="order-service", terms=["HikariCP", "OutOfMemoryError"],
                                      match="any"))
    assert not either.covers("order-service", "connection_pool") and not either.covers("order-service", "oom")
    assert either.covers("order-service", "")
    worded = coverage.scope_of(_query(service="order-service", query="HikariCP OutOfMemoryError", match="any"))
    assert worded.covers("order-service", "connection_pool") and worded.covers("order-service", "oom")
    assert not worded.covers("order-service", "memory")
    phrase = coverage.scope_of(_query(terms=["ERROR IN CONTACTING RM"], match="any"))
    assert phrase.covers("", "") and not phrase.covers("", "memory")
