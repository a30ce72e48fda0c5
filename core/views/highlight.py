"""Highlighting for the Binding inspector: the aligned span in the ref text, and the characters
where the executor's excerpt and the matched span differ.

Display only: the gatekeeper decides, this module shows why. Every data fragment goes through
``html.escape`` and the only tags emitted are the fixed ``<div>``, ``<span>`` and ``<mark>``
below, so a log line holding ``<script>`` or ``**bold**`` reads literally.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher

from core.language.text import normalize_text

TEXT_CLASS = "sb-text"
ALIGNED_CLASS = "sb-aligned"
DIFF_CLASS = "sb-diff"
CITED_CLASS = "sb-cited"
# Beyond this the ref text is shown plain: a diff of a whole runbook would only be noise.
MAX_DIFF_CHARS = 4000
_ELISION = re.compile(r"\.{3,}|…+")
# What a reader takes in as one token: a number with its sign, comparison, decimals and unit
# (``-91%``, ``3.8GB``, ``11:17:00``) or a word with its inner dashes and dots
# (``order-service``, ``java.lang.OutOfMemoryError``). A CJK character is a token by itself.
_TOKEN = re.compile(r"[<>≤≥≠≈~±+\-]?\d+(?:[.,:]\d+)*(?:%|[A-Za-z]+)?"
                    r"|[A-Za-z_][A-Za-z0-9_]*(?:[-.][A-Za-z0-9_]+)*")


@dataclass(frozen=True)
class Segment:
    """A run of text with its marks: inside the aligned span, and/or differing."""

    text: str
    aligned: bool = False
    differs: bool = False


def _char_key(char: str) -> str:
    # The same folding the gatekeeper applies (NFKC, case, CJK punctuation), one char at a time,
    # so "９１％" against "91%" is not flagged as a difference.
    if char.isspace():
        return " "
    return normalize_text(char) or char


def clip_spans(spans: Sequence[tuple[int, int]], length: int) -> list[tuple[int, int]]:
    """Spans clipped to ``[0, length)``, sorted, overlaps merged, empty ones dropped."""
    merged: list[tuple[int, int]] = []
    for start, end in sorted((max(0, s), min(length, e)) for s, e in spans):
        if end <= start:
            continue
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def _whole_tokens(text: str, differs: list[bool], allowed: Sequence[bool] | None = None
                  ) -> list[bool]:
    """``differs`` widened to whole tokens: a token with one differing character is marked
    whole (a digit swap 91% -> 19% marks ``19%`` and ``91%``, not one ``9``), within
    ``allowed`` positions when given."""
    widened = list(differs)
    for token in _TOKEN.finditer(text):
        start, end = token.span()
        if any(differs[start:end]):
            for index in range(start, end):
                if allowed is None or allowed[index]:
                    widened[index] = True
    return widened


def _runs(text: str, aligned: Sequence[bool], differs: Sequence[bool]) -> list[Segment]:
    """Coalesce per-character flags into segments."""
    segments: list[Segment] = []
    start = 0
    for index in range(1, len(text) + 1):
        flags_change = index < len(text) and (
            (aligned[index], differs[index]) != (aligned[start], differs[start]))
        if index == len(text) or flags_change:
            segments.append(Segment(text[start:index], aligned[start], differs[start]))
            start = index
    return segments


def span_segments(text: str, spans: Sequence[tuple[int, int]]) -> list[Segment]:
    """``text`` split into aligned / not aligned segments."""
    aligned = [False] * len(text)
    for start, end in clip_spans(spans, len(text)):
        aligned[start:end] = [True] * (end - start)
    return _runs(text, aligned, [False] * len(text))


def diff_segments(excerpt: str, ref_text: str,
                  spans: Sequence[tuple[int, int]]) -> tuple[list[Segment], list[Segment]]:
    """Excerpt and ref text as segments, with differing tokens marked on both sides.

    The excerpt is compared with the aligned part of the ref text (all of it when there is no
    span), character by character; a token (number with its unit, word) with one differing
    character is marked whole. Whitespace and ``...`` elision markers are never flagged: the
    gatekeeper ignores them.
    """
    clipped = clip_spans(spans, len(ref_text))
    ref_aligned = [False] * len(ref_text)
    for start, end in clipped:
        ref_aligned[start:end] = [True] * (end - start)
    compared = [i for s, e in clipped for i in range(s, e)] or list(range(len(ref_text)))
    excerpt_differs = [not c.isspace() for c in excerpt]
    ref_differs = [False] * len(ref_text)
    if len(compared) <= MAX_DIFF_CHARS and len(excerpt) <= MAX_DIFF_CHARS:
        matcher = SequenceMatcher(None, [_char_key(c) for c in excerpt],
                                  [_char_key(ref_text[i]) for i in compared], autojunk=False)
        matched_excerpt: set[int] = set()
        matched_ref: set[int] = set()
        for block in matcher.get_matching_blocks():
            matched_excerpt.update(range(block.a, block.a + block.size))
            matched_ref.update(compared[block.b + k] for k in range(block.size))
        excerpt_differs = [i not in matched_excerpt and not c.isspace()
                           for i, c in enumerate(excerpt)]
        if clipped:  # differences inside the ref are only meaningful within the aligned span
            ref_differs = [ref_aligned[i] and i not in matched_ref and not c.isspace()
                           for i, c in enumerate(ref_text)]
    excerpt_differs = _whole_tokens(excerpt, excerpt_differs)
    ref_differs = _whole_tokens(ref_text, ref_differs, ref_aligned)
    for elision in _ELISION.finditer(excerpt):
        excerpt_differs[elision.start():elision.end()] = [False] * (elision.end() - elision.start())
    return (_runs(excerpt, [False] * len(excerpt), excerpt_differs),
            _runs(ref_text, ref_aligned, ref_differs))


def differing_text(segments: Sequence[Segment]) -> str:
    """The characters marked as differing, concatenated (handy for captions and tests)."""
    return "".join(segment.text for segment in segments if segment.differs)


def segments_html(segments: Sequence[Segment]) -> str:
    """Escaped HTML of segments inside one ``<div class="sb-text">``."""
    parts: list[str] = []
    for segment in segments:
        piece = html.escape(segment.text)
        if segment.differs:
            piece = f'<mark class="{DIFF_CLASS}">{piece}</mark>'
        if segment.aligned:
            piece = f'<span class="{ALIGNED_CLASS}">{piece}</span>'
        parts.append(piece)
    return f'<div class="{TEXT_CLASS}">{"".join(parts)}</div>'


def text_html(text: str) -> str:
    """Plain escaped text in a ``<div class="sb-text">`` (newlines kept by the page's CSS)."""
    return f'<div class="{TEXT_CLASS}">{html.escape(text)}</div>'
