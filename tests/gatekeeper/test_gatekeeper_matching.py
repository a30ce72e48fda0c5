"""``match_excerpt`` and the normaliser: spans land in the original text, facts are tokens."""

from __future__ import annotations

import random

import pytest
from rapidfuzz import fuzz

from core.gatekeeper import GATEKEEPER_VERSION, NORMALIZER_VERSION, match_excerpt
from core.language.text import normalize_text, normalize_with_offsets

ALERT = "HighMemoryUsage firing, service=order-service, current=91%, threshold=85%, duration=15m; JVM heap 3.8GB/4GB"
LOG = "[2026-07-08 11:17:00][WARN][order-service] 内存使用率过高: 91.0%, JVM堆内存: 3.8GB/4GB, GC次数: 128"
HIKARI = ("[2026-07-08 11:18:30][ERROR][order-service] HikariPool-1 - Connection is not available, "
          "request timed out after 30000ms")


def highlighted(ref: str, excerpt: str) -> list[str]:
    match = match_excerpt(excerpt, ref)
    assert match.ok, match.reason
    return [ref[start:end] for start, end in match.spans]


# ---------------------------------------------------------------- spans in original offsets


@pytest.mark.parametrize(("ref", "excerpt", "expected"), [
    (ALERT, "current=91%, threshold=85%", "current=91%, threshold=85%"),
    # Full-width ref text, ASCII excerpt: the span covers the full-width original characters.
    ("告警: 内存使用率过高：91.0%，JVM堆内存：3.8GB", "内存使用率过高:91.0%,jvm堆内存:3.8gb",
     "内存使用率过高：91.0%，JVM堆内存：3.8GB"),
    # Whitespace runs and a zero-width character inside the ref are inside the span.
    ("pool stats: active=50/50,   idle=0,\u200b waiting=32", "active=50/50, idle=0, waiting=32",
     "active=50/50,   idle=0,\u200b waiting=32"),
    # A ligature expands to two letters under NFKC; the span still covers the original glyph.
    ("HighMemoryUsage \ufb01ring, service=order-service", "firing, service=order-service",
     "\ufb01ring, service=order-service"),
    # A decomposed accent composes under NFKC.
    ("cafe\u0301 latency 850ms on /api/v1/menu", "café latency 850ms", "cafe\u0301 latency 850ms"),
    # Lenticular brackets in the ref, ASCII brackets in the excerpt.
    ("【WARN】【order-service】 Full GC 频繁: 15 次", "[warn][order-service] full gc 频繁",
     "【WARN】【order-service】 Full GC 频繁"),
])
def test_exact_span_maps_back_to_original(ref: str, excerpt: str, expected: str) -> None:
    assert highlighted(ref, excerpt) == [expected]
    assert normalize_text(expected) == normalize_text(excerpt)


def test_truncated_quote_has_one_span_per_fragment() -> None:
    spans = highlighted(HIKARI, "HikariPool-1 - Connection is not available … timed out after 30000ms")
    assert spans == ["HikariPool-1 - Connection is not available", "timed out after 30000ms"]


def test_truncated_chinese_quote_spans() -> None:
    assert highlighted(LOG, "内存使用率过高: 91.0%……GC次数: 128") == ["内存使用率过高: 91.0%", "GC次数: 128"]


def test_fuzzy_span_covers_the_drifted_quote() -> None:
    excerpt = "[2026-07-08 11:17:00][WARN][order-service] 内存使用率过高：91.0%，JVM堆内存：3.8GB/4GB"
    match = match_excerpt(excerpt, LOG)
    assert match.ok and match.match_kind == "fuzzy"
    (start, end), = match.spans
    quoted = LOG[start:end]
    assert quoted.startswith("[2026-07-08") and quoted.endswith("3.8GB/4GB")
    assert fuzz.ratio(normalize_text(quoted).replace(" ", ""), normalize_text(excerpt).replace(" ", "")) == 100


def test_fuzzy_span_is_snapped_to_whole_tokens() -> None:
    match = match_excerpt("内存使用率过高: 91%, JVM堆内存: 3.8GB/4GB, GC次数: 128", LOG)
    assert match.ok and match.match_kind == "fuzzy"
    assert [LOG[s:e] for s, e in match.spans] == ["内存使用率过高: 91.0%, JVM堆内存: 3.8GB/4GB, GC次数: 128"]


def test_exact_match_skips_an_occurrence_that_cuts_a_number() -> None:
    ref = "usage=191% (peak 1) usage=91% (peak 2)"
    match = match_excerpt("91% (peak 2)", ref)
    assert match.ok and match.match_kind == "exact"
    (start, end), = match.spans
    assert ref[start - 1] == "=" and ref[start:end] == "91% (peak 2)"


# ---------------------------------------------------------------- facts are tokens


@pytest.mark.parametrize(("excerpt", "ref"), [
    ("usage current=91%", "usage current=191%"),
    ("usage current=91%", "usage current=19%"),
    ("JVM heap 3.8GB/4GB", "JVM heap 3.8MB/4GB"),
    ("service=payment-service, current=92%", "service=repayment-service, current=92%"),
    ("latency 4.2s on /api/v1/users/profile", "latency 4.2s on /api/v1/users/profiles"),
    ("Connection is available, request timed out", "Connection is not available, request timed out"),
    ("Connection is never available, request timed out", "Connection is available, request timed out"),
    ("数据库连接已释放, 连接池有可用连接", "数据库连接未释放, 连接池无可用连接"),
    ("pod restarted with exit code 137 (OOMKilled)", "pod restarted with exit code 139 (OOMKilled)"),
])
def test_changed_fact_is_a_mismatch(excerpt: str, ref: str) -> None:
    match = match_excerpt(excerpt, ref)
    assert not match.ok and match.match_kind == "none", match


@pytest.mark.parametrize(("excerpt", "ref"), [
    ("available, request timed out after 30000ms", "Connection is not available, request timed out after 30000ms"),
    ("可用连接, 等待线程数: 32", "数据库连接未释放, 连接池无可用连接, 等待线程数: 32"),
    ("可用的数据库连接, 等待线程数: 32", "连接池中没有可用的数据库连接, 等待线程数: 32"),
    ("errors in the last 10 minutes on order-service", "no errors in the last 10 minutes on order-service"),
])
def test_quote_starting_right_after_a_negation_is_a_mismatch(excerpt: str, ref: str) -> None:
    match = match_excerpt(excerpt, ref)
    assert not match.ok and "negation" in match.reason, match


def test_number_format_drift_is_the_same_value() -> None:
    assert match_excerpt("JVM heap usage is 91% of 4GB", "JVM heap usage is 91.0% of 4GB").ok


def test_genuine_cyrillic_in_the_ref_is_not_a_lookalike() -> None:
    ref = "[ERROR][billing-service] Сервис недоступен: timeout after 5000ms"
    assert match_excerpt("Сервис недоступен: timeout after 5000ms", ref).ok


def test_lookalike_letter_not_in_the_ref_rejects() -> None:
    match = match_excerpt("HighMemoryUsage firing, service=оrder-service", ALERT)  # Cyrillic о
    assert not match.ok and "look-alike" in match.reason


def _between_words(text: str, mark: str) -> str:
    """``mark`` after every character that is not inside a number (digit or decimal point
    next to a digit): where copied text carries zero-width characters."""
    out = []
    for index, char in enumerate(text):
        out.append(char)
        after = text[index + 1] if index + 1 < len(text) else ""
        if not ((char.isdigit() or char in ".%") and (after.isalnum() or after in ".%")) and not (
                after.isdigit() and (char.isalnum() or char == ".")):
            out.append(mark)
    return "".join(out)


def test_invisible_characters_between_words_never_change_the_verdict() -> None:
    # A true quote stays true and a forged one stays forged (19% is not 91%).
    for excerpt, ok in (("current=91%, threshold=85%", True), ("current=19%, threshold=85%", False)):
        plain = match_excerpt(excerpt, ALERT)
        hidden = match_excerpt(_between_words(excerpt, "\u200b"), ALERT)
        assert plain.ok is ok, plain
        assert (plain.ok, plain.match_kind) == (hidden.ok, hidden.match_kind)


def test_invisible_characters_inside_a_number_reject() -> None:
    # Displayed as 91%, read as 9 and 1% by anything that does not strip them.
    for mark in ("\u200d", "\u200b", "\u200c", "\u2060", "\ufeff", "\u00ad"):
        match = match_excerpt(f"current=9{mark}1%, threshold=85%", ALERT)
        assert not match.ok and "hidden characters" in match.reason, (mark, match)


def test_excerpt_longer_than_ref_with_additions_rejects() -> None:
    ref = "HikariCP pool stats: active=50/50"
    assert not match_excerpt(ref + ", idle=0, waiting=32, all connections leaked by OrderRepository", ref).ok


def test_empty_and_punctuation_only_excerpts_are_too_short_not_forged() -> None:
    for excerpt in ("", "   ", "...", "…", ", ;"):
        match = match_excerpt(excerpt, ALERT)
        assert match.ok and match.too_short, excerpt


def test_short_excerpt_is_only_accepted_verbatim() -> None:
    assert match_excerpt("91%", ALERT).too_short and match_excerpt("91%", ALERT).ok
    assert not match_excerpt("19%", ALERT).ok


# ---------------------------------------------------------------- normaliser


def test_offset_normaliser_agrees_with_fast_normaliser() -> None:
    alphabet = list("abcXYZ019 .,:;%/-_=\t\n") + list(
        "，。：；（）【】“”‘’、…～—–‐－　\u00a0\u200b\u200d\ufeff\u00adé\u0301ﬁ内存使用率过高ＧＢ％Ωß")
    rng = random.Random(7)
    for _ in range(2000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
        normalized = normalize_with_offsets(text)
        assert normalized.text == normalize_text(text), repr(text)
        spans = [normalized.char_span(index) for index in range(len(normalized.text))]
        assert all(0 <= start <= end <= len(text) for start, end in spans)
        assert [start for start, _ in spans] == sorted(start for start, _ in spans)
        for index, char in enumerate(normalized.text):
            start, end = spans[index]
            if char != " ":
                # Each normalised character comes from original characters that fold to it.
                assert char in normalize_text(text[start:end]) or (start == 0 and end == len(text))


def test_normal_form() -> None:
    assert normalize_text("  ＨＩＧＨ　Memory，“usage”：91％…  ") == 'high memory,"usage":91%...'
    # Only the benign invisible characters are stripped; a bidi override stays, to be judged.
    assert normalize_text("a\u200bb\u00adc\u200d\u2060\ufeffd") == "abcd"
    assert normalize_text("c\u202ed") == "c\u202ed"


def test_version_names_normaliser_and_thresholds() -> None:
    assert NORMALIZER_VERSION in GATEKEEPER_VERSION
    assert "fuzzy-0.90" in GATEKEEPER_VERSION and "minlen-8" in GATEKEEPER_VERSION
