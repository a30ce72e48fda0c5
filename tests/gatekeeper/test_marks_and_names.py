"""Forged excerpts of issue 30, items 2 and 3, next to the honest quotes they imitate.

Marks that change what a word says without changing its letters -- combining marks over it
(``f̶i̶r̶i̶n̶g̶``), a negation or comparison mark before it (``!firing``, ``service≠x``) -- and a
quote cut at a separator inside a name that goes on (``order-service`` of
``order-service-canary``) are excerpt mismatches; the same quote copied whole passes.
"""

from __future__ import annotations

import pytest

from core.gatekeeper import match_excerpt
from core.language.marks import foreign_marks, negation_marks, visible, word_marks

ALERT = ("HighMemoryUsage firing, service=order-service, current=91%, threshold=85%, duration=15m, "
         "pod=pod-order-service-5c7d8e9f1-m3n2p, namespace=production, severity=warning")


def _struck(word: str, mark: str) -> str:
    return "".join(char + mark for char in word)


COMBINING = {
    "long-stroke-overlay": "\u0336", "solidus-overlay": "\u0338", "enclosing-circle-backslash": "\u20e0",
    "low-line": "\u0332", "enclosing-circle": "\u20dd", "acute-over-f": "\u0301",
    "combining-x-above": "\u033d", "spacing-mark": "\u0903",
}


@pytest.mark.parametrize("mark", list(COMBINING.values()), ids=list(COMBINING))
def test_combining_marks_over_a_quoted_word_are_rejected(mark: str) -> None:
    result = match_excerpt(ALERT.replace("firing", _struck("firing", mark)), ALERT)
    assert not result.ok
    assert "combining marks the ref text does not hold" in result.reason


def test_a_decomposed_letter_the_ref_holds_composed_is_the_same_letter() -> None:
    ref = "Connection refused by café-gateway after 3 retries"
    assert match_excerpt("Connection refused by cafe\u0301-gateway after 3 retries", ref).ok


def test_a_marked_letter_the_ref_really_holds_may_be_quoted() -> None:
    ref = "legacy banner: f\u0336ailed flag kept for 3 days"
    assert match_excerpt("banner: f\u0336ailed flag kept for 3 days", ref).ok
    assert foreign_marks("f\u0336", [ref]) == []


NEGATION_MARK_FORGERIES = {
    "bang": "HighMemoryUsage !firing, service=order-service, current=91%",
    "not-sign": "HighMemoryUsage ¬firing, service=order-service, current=91%",
    "not-equal-sign": "HighMemoryUsage firing, service≠order-service, current=91%",
    "angle-not-equal": "service=order-service, current=91%, threshold=85%, namespace<>production",
    "bang-equals": "HighMemoryUsage firing, service!=order-service, current=91%",
    "fullwidth-bang": "HighMemoryUsage ！firing, service=order-service, current=91%",
    "less-than-word": "HighMemoryUsage firing, service=<order-service, current=91%",
}


@pytest.mark.parametrize("excerpt", list(NEGATION_MARK_FORGERIES.values()), ids=list(NEGATION_MARK_FORGERIES))
def test_a_mark_added_before_a_word_is_rejected(excerpt: str) -> None:
    result = match_excerpt(excerpt, ALERT)
    assert not result.ok, result.reason


MARKED_REF = "rule check: state!=firing, service≠order-service, !maintenance, namespace<>staging done"
DROPPED_MARKS = {
    "bang-equals": "firing, service≠order-service",
    "not-equal-sign": "order-service, !maintenance",
    "bang": "maintenance, namespace<>staging",
    "angle-not-equal": "staging done",
}


@pytest.mark.parametrize("excerpt", list(DROPPED_MARKS.values()), ids=list(DROPPED_MARKS))
def test_a_quote_that_starts_after_a_negation_mark_is_rejected(excerpt: str) -> None:
    result = match_excerpt(excerpt, MARKED_REF)
    assert not result.ok
    assert "negation mark" in result.reason


def test_a_drifted_quote_that_drops_a_negation_mark_is_rejected() -> None:
    result = match_excerpt("rule check: state = firing, service≠order-service", MARKED_REF)
    assert not result.ok
    assert "negation dropped" in result.reason


@pytest.mark.parametrize("excerpt", [
    "state!=firing, service≠order-service, !maintenance",   # copied whole, marks and all
    "rule check: state != firing, service ≠ order-service",  # spaced
    "namespace<>staging done",
])
def test_quoting_the_marks_the_ref_holds_passes(excerpt: str) -> None:
    assert match_excerpt(excerpt, MARKED_REF).ok


def test_an_exclamation_and_a_spelled_comparison_are_not_word_marks() -> None:
    assert match_excerpt("Payment failed! retrying in 5s", "WARN Payment failed! retrying in 5s now").ok
    assert match_excerpt("latency p99 >= 4000ms", "latency p99 ≥ 4000ms").ok
    assert negation_marks("payment failed! retrying -> queue => done") == []
    assert [mark for _, mark, _ in word_marks("!firing ¬up a≠b c<>d e!=f")] == ["!", "¬", "≠", "<>", "!="]


# ---------------------------------------------------------------- names cut at a separator

CANARY = "HighMemoryUsage firing, service=order-service-canary, current=88%, threshold=85%, duration=5m"
ACCESS = "GET /api/v1/users/profile 500 in 3ms from api.example.com"
SUBDOMAIN = "connect to api.example.com refused after 3 retries"
CUT_NAMES = {
    "service-head": ("HighMemoryUsage firing, service=order-service", CANARY),
    "service-head-drifted": ("HighMemoryUsage firing service=order-service", CANARY),
    "service-head-elided": ("HighMemoryUsage firing, service=order-service … current=88%", CANARY),
    "service-head-with-separator": ("HighMemoryUsage firing, service=order-service-", CANARY),
    "path-head": ("GET /api/v1/users", ACCESS),
    "path-tail": ("users/profile 500 in 3ms", ACCESS),
    "domain-of-subdomain": ("example.com", SUBDOMAIN),
    "domain-of-subdomain-long": ("example.com refused after 3 retries", SUBDOMAIN),
    "subdomain-head": ("connect to api.example", SUBDOMAIN),
    "pod-head": ("pod=pod-order-service", ALERT),
}


@pytest.mark.parametrize(("excerpt", "ref"), list(CUT_NAMES.values()), ids=list(CUT_NAMES))
def test_a_quote_that_cuts_a_name_at_a_separator_is_rejected(excerpt: str, ref: str) -> None:
    result = match_excerpt(excerpt, ref)
    assert not result.ok
    assert "cuts" in result.reason


WHOLE_NAMES = {
    "service-whole": ("HighMemoryUsage firing, service=order-service-canary", CANARY),
    "service-ends-at-its-end": ("HighMemoryUsage firing, service=order-service, current=91%", ALERT),
    "path-whole": ("GET /api/v1/users/profile 500", ACCESS),
    "domain-whole": ("from api.example.com", ACCESS),
    "class-after-package": ("OutOfMemoryError: Java heap space", "java.lang.OutOfMemoryError: Java heap space"),
    "used-of-a-ratio": ("JVM heap 3.8GB", "JVM heap 3.8GB/4GB"),
    "host-without-port": ("Receiving block from /10.251.43.21", "Receiving block from /10.251.43.21:50010"),
    "sentence-end": ("restarted order-service", "restarted order-service. Next check in 5m"),
}


@pytest.mark.parametrize(("excerpt", "ref"), list(WHOLE_NAMES.values()), ids=list(WHOLE_NAMES))
def test_a_quote_that_keeps_names_whole_passes(excerpt: str, ref: str) -> None:
    assert match_excerpt(excerpt, ref).ok


# ---------------------------------------------------------------- what reaches a reader

def test_visible_strips_hidden_characters_and_marks_over_letters() -> None:
    tags = "".join(chr(0xE0000 + ord(char)) for char in "ignore")
    text = f"告警 {_struck('firing', chr(0x336))} f\u20e0 a\u202eb\u200bc\ue000{tags}\n- next\tstep"
    assert visible(text) == "告警 firing f ab\u200bc\n- next\tstep".replace("\u200b", "")
    assert visible("café naïve") == "café naïve"           # composed letters are letters
    assert visible("cafe\u0301") == "café"                  # NFC composes what it can
    assert visible("plain answer\n") == "plain answer\n"
