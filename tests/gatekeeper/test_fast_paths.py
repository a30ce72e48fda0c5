"""The gatekeeper's fast paths give what the full computations give.

Each shortcut of the quote matcher skips work where it provably cannot change the answer; these
tests check the claims on every position of texts that hold the cases the shortcuts are about.
"""

from __future__ import annotations

import random
import unicodedata

import pytest

from core.language import byte_units, facts
from core.language.nfkc import nfkc
from core.language.quotes import _negation_before, _negation_starts
from core.language.text import normalize_text

_FULL_WIDTH = "，：；（）！？％"
# Code points that interact with their neighbours under NFKC: combining marks (composition),
# Hangul jamo, compatibility forms, and a few plain ones.
_NEIGHBOURS = ([chr(code) for code in range(0x300, 0x370)] + [chr(code) for code in range(0x1100, 0x1113)]
               + [chr(code) for code in range(0x3099, 0x309D)] + list("aZ9 ,.\u200b\u00a0ﬁ①Ａ１内"))


@pytest.mark.parametrize("form", list(_FULL_WIDTH))
def test_nfkc_is_unicodedata_nfkc_next_to_any_neighbour(form: str) -> None:
    for neighbour in _NEIGHBOURS:
        for text in (form + neighbour, neighbour + form, neighbour + form + neighbour, f"内存{form}91{form}"):
            assert nfkc(text) == unicodedata.normalize("NFKC", text), repr(text)


def test_normalize_text_of_ascii_is_the_folded_form() -> None:
    for text in ("  Current = 91%\tof  HighCPUUsage\n", "A\x1fB\x0bC", "x", ""):
        assert normalize_text(text) == " ".join(unicodedata.normalize("NFKC", text).casefold().split())


_NEGATION_TEXTS = (
    "connection is not available, request timed out",
    "alert !firing on order-service, service≠payment-service",
    "数据库连接未释放, 没有可用连接, 不可用",
    "it isn't ready and can't start; no retries, never again",
    "ns<>prod  ¬ok x!=1",
)


@pytest.mark.parametrize("text", _NEGATION_TEXTS)
def test_a_negation_is_only_found_before_a_listed_position(text: str) -> None:
    normalized = normalize_text(text)
    starts = _negation_starts(normalized)
    found = 0
    for position in range(len(normalized) + 1):
        for fragment in (normalized[position:], "x"):
            if _negation_before(normalized, position, fragment):
                found += 1
                assert position in starts, (normalized, position)
    assert found  # every text has a negation before some position


def test_byte_unit_problem_is_the_full_check_whatever_the_quote_holds() -> None:
    ref = "JVM heap 3.8GB/4GB, buffer 512kb"
    assert byte_units.byte_unit_problem("heap 3.8Gb/4GB", ref, ref)  # a bit unit for a byte unit
    assert byte_units.byte_unit_problem("buffer 512kB", ref, ref)  # a byte unit for a bit unit
    rng = random.Random(5)
    pieces = ["JVM", "heap", "3.8GB/4GB", "3.8gB", "4gb", "buffer", "512KB", "512kb", "4Gb", "Buffer"]
    for _ in range(500):
        quote = " ".join(rng.sample(pieces, k=3))
        conflict = byte_units._unit_conflict(quote, ref)
        full = "" if not conflict or byte_units._recased(quote, quote, ref, ref) else conflict
        assert byte_units.byte_unit_problem(quote, ref, ref) == full, quote


def test_fact_items_skips_only_words_that_say_nothing() -> None:
    # fact_items skips a plain word before looking at it: every state and negation word is still
    # read (``warn.`` too), a unit word after a number is still the number's, nothing else is a fact.
    rng = random.Random(11)
    words = [*sorted(facts.STATE_WORDS | facts.EN_NEGATIONS), "heap", "pool", "ms", "gb", "内存", "warn.", "error:"]
    for _ in range(2000):
        text = " ".join(rng.choice([*words, "91", "3.8gb/4gb", "order-service"]) for _ in range(rng.randint(1, 8)))
        items = facts.fact_items(text)
        word_items = [(start, kind, value) for start, _, kind, value in items if kind in ("state", "negation")]
        expected = []
        for token in facts._TOKEN_RE.finditer(text):
            word = token.group().rstrip(".:")
            taken = any(start < token.start() < end for start, end, kind, _ in items if kind == "number")
            if not taken and word in facts.STATE_WORDS | facts.EN_NEGATIONS:
                expected.append((token.start(), "state" if word in facts.STATE_WORDS else "negation", word))
        assert word_items == expected, text
