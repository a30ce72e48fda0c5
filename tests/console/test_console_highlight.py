"""Highlight segments, diff marks and escaping of the Binding inspector's side-by-side view."""

from __future__ import annotations

from core.views.highlight import (
    ALIGNED_CLASS,
    DIFF_CLASS,
    Segment,
    clip_spans,
    diff_segments,
    differing_text,
    segments_html,
    span_segments,
    text_html,
)

REF = "HighMemoryUsage firing, service=order-service, current=91%, duration=15m"


def test_clip_spans_merges_overlaps_and_drops_out_of_range() -> None:
    assert clip_spans([(5, 10), (8, 12), (20, 30), (-3, 2), (40, 50)], 25) == [
        (0, 2), (5, 12), (20, 25)]
    assert clip_spans([(4, 4), (7, 3)], 10) == []


def test_span_segments_cover_text_and_flag_only_the_span() -> None:
    segments = span_segments("abcdefgh", [(2, 5)])
    assert "".join(s.text for s in segments) == "abcdefgh"
    assert [(s.text, s.aligned) for s in segments] == [("ab", False), ("cde", True), ("fgh", False)]


def test_exact_quote_marks_nothing_and_highlights_the_span() -> None:
    excerpt = "service=order-service, current=91%"
    start = REF.index(excerpt)
    excerpt_segments, ref_segments = diff_segments(excerpt, REF, [(start, start + len(excerpt))])
    assert differing_text(excerpt_segments) == ""
    assert differing_text(ref_segments) == ""
    aligned = "".join(s.text for s in ref_segments if s.aligned)
    assert aligned == excerpt


def test_changed_number_is_marked_on_both_sides() -> None:
    excerpt = "service=order-service, current=19%"
    start = REF.index("service=order-service, current=91%")
    excerpt_segments, ref_segments = diff_segments(excerpt, REF, [(start, start + len(excerpt))])
    # 19 vs 91: one digit moved; the whole number (with its unit) is marked on each side.
    assert differing_text(excerpt_segments) == "19%"
    assert differing_text(ref_segments) == "91%"
    # Marks on the ref side are only ever inside the aligned span.
    assert all(s.aligned for s in ref_segments if s.differs)


def test_width_case_and_elision_are_not_differences() -> None:
    ref = "[11:17][WARN][order-service] 内存使用率过高: 91.0%, JVM堆内存: 3.8GB/4GB"
    excerpt = "[11:17][warn][ORDER-SERVICE] 内存使用率过高：９１.0% ... 3.8GB/4GB"
    spans = [(0, ref.index(",")), (ref.index("3.8GB"), len(ref))]
    excerpt_segments, _ = diff_segments(excerpt, ref, spans)
    assert differing_text(excerpt_segments) == ""


def test_without_spans_the_ref_is_not_marked_but_invented_text_is() -> None:
    excerpt_segments, ref_segments = diff_segments("HikariCP active=50/50", REF, [])
    assert not any(s.aligned or s.differs for s in ref_segments)
    assert "k" in differing_text(excerpt_segments)


def test_html_escapes_script_and_keeps_markdown_literal() -> None:
    text = "<script>alert(1)</script> **bold** & `code`"
    body = segments_html([Segment(text, aligned=True, differs=False),
                          Segment("<b>x</b>", differs=True)])
    assert "<script>" not in body and "<b>" not in body
    assert "&lt;script&gt;alert(1)&lt;/script&gt; **bold** &amp; `code`" in body
    assert f'<span class="{ALIGNED_CLASS}">' in body
    assert f'<mark class="{DIFF_CLASS}">&lt;b&gt;x&lt;/b&gt;</mark>' in body
    assert text_html("<img src=x onerror=alert(1)>") == (
        '<div class="sb-text">&lt;img src=x onerror=alert(1)&gt;</div>')
