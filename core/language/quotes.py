"""Does an excerpt quote a ref text? Exact, truncated or drifted -- but never with a changed fact.

The quote matcher: pure text matching, used by the gatekeeper (every citation's excerpt against
its ref) and the verifier (a claim's quoted words against the evidence). Its thresholds are
below; the gatekeeper's version string names them (``core.gatekeeper.version``).

Order of attempts, cheapest first (docs/design.md §4):

1. exact: the normalised excerpt is a substring of the normalised ref (score 1.0);
2. truncated: the excerpt has ``...`` / ``…`` / ``……``; each fragment is found in order;
3. space-insensitive: equal once every space is removed (``current = 91%`` vs ``current=91%``);
4. fuzzy: a rapidfuzz partial-ratio alignment at or above ``FUZZY_THRESHOLD``, computed on
   the texts' skeletons (spaces and punctuation between words removed): it only locates.

Before any of them, an excerpt holding look-alike letters (``confusables``) or hidden
characters (``invisible``: bidi controls, tags, private use ...) that the ref lacks is rejected.
Whatever the path, a quote may not cut a number or identifier in half, may not sit right after
a negation it leaves out or drop the sign or comparison in front of its first number, and
(paths 2-4) every fact of the excerpt -- numbers with their units and the marks in front of
them (``signs``), identifiers, state words, negations -- must be present in the aligned region
of the ref, no negation of that region may be dropped, and no word may be changed (``words``:
formatting drifts, words do not: ``quote_words``). Across an ellipsis a number keeps its label
(``quote_labels``).
Spans are returned in ORIGINAL ref offsets.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from functools import lru_cache
from typing import Literal, NamedTuple

from core.language import byte_units, facts, signs
from core.language.confusables import foreign_lookalikes, lookalike_forms
from core.language.invisible import forged_invisible, hidden_in_numbers
from core.language.marks import NEGATION_MARKS, canonical_mark, foreign_marks, has_combining_marks, word_marks
from core.language.quote_labels import spliced_label
from core.language.quote_words import changed_words
from core.language.text import NormalizedText, normalize_text, normalize_with_offsets

# The thresholds (change one -> change the gatekeeper's RULES_VERSION: stored results name them).
# rapidfuzz partial-ratio score (0..100) at or above which an excerpt is "small drift".
FUZZY_THRESHOLD = 90.0
# Below this informative length (CJK counts double) an excerpt is too short to check.
MIN_EXCERPT_CHARS = 8
# Each fragment of a truncated quote (split on ... / …) must be at least this long.
MIN_FRAGMENT_CHARS = 6

MatchKind = Literal["exact", "truncated", "fuzzy", "none"]
_ELLIPSIS_RE = re.compile(r"\.{3,}")  # NFKC turns … into ... and …… into ......
_NEGATION_BEFORE_RE = re.compile(
    r"(?:^|[^\w'])(not|no|never|without|cannot|unable|isn't|wasn't|aren't|can't|don't|doesn't)\s$"
)
_ZH_NEGATION_CHARS = "未没不无非"
_MARK_CHARS_RE = re.compile("[!<>≠¬]")  # the negation marks' characters (``word_marks``)
_NUMBER_RUN_RE = re.compile(r"\d+(?:\.\d+)?")
_FACT_REGION_PAD = 3  # fuzzy alignments can be off by a character or two at either end


class ExcerptMatch(NamedTuple):
    """How (and whether) an excerpt is supported by a ref text.

    ``ok``: the excerpt is a faithful quote (nothing added or changed). ``too_short``: it is too
    short or too generic to count as a check even when ok. ``spans`` are ``[start, end)`` in the
    original ref text (one per fragment); on a failed match they show the closest alignment.
    Immutable; a named tuple because one is built per binding (a frozen dataclass costs ~1 µs).
    """

    ok: bool
    score: float
    match_kind: MatchKind
    spans: tuple[tuple[int, int], ...] = ()
    reason: str = ""
    too_short: bool = False


class _Located(NamedTuple):
    """A fragment located in the normalised ref: ``[start, end)`` there, or a failure reason."""

    start: int = -1
    end: int = -1
    score: float = 0.0
    kind: MatchKind = "none"
    problem: str = ""

    @property
    def found(self) -> bool:
        return self.start >= 0 and not self.problem


def match_excerpt(excerpt: str, ref_text: str) -> ExcerptMatch:
    """Match ``excerpt`` against ``ref_text``; deterministic, exact path first."""
    if not plain_characters(excerpt):
        rejected = _character_problem(excerpt, ref_text)
        if rejected is not None:
            return rejected
    return _match_normalized(excerpt, ref_text)


# Characters none of the character checks judges, whatever the ref: printable ASCII and
# whitespace, Latin-1 but the soft hyphen, the superscripts and fractions and ``×``, general
# punctuation, CJK symbols but ``〇`` and the combining tone marks, CJK ideographs, full-width
# ASCII. None is a look-alike, a look-alike form, hidden, a benign invisible, a bidi control or
# a combining mark (tests/gatekeeper/test_plain_characters.py checks every one).
_PLAIN_RE = re.compile(
    "[\t\n\r\x20-\x7e\u00a0-\u00ac\u00ae-\u00b1\u00b4-\u00b8\u00bb\u00bf-\u00d6\u00d8-\u00ff"
    "\u2010-\u2027\u2030-\u205e\u3000-\u3006\u3008-\u3029\u3030-\u303f"
    "\u3400-\u4dbf\u4e00-\u9fff\uff01-\uff5e]*")


_NOT_PLAIN_RE = re.compile("[^" + _PLAIN_RE.pattern[1:-2] + "]")


def plain_characters(excerpt: str) -> bool:
    """Whether every character of the excerpt is plain (``_PLAIN_RE``): then no character
    check can object, so they are skipped -- the common case, at C speed."""
    if excerpt.isascii() and excerpt.isprintable():
        return True
    return _PLAIN_RE.fullmatch(excerpt) is not None


def _character_problem(excerpt: str, ref_text: str) -> ExcerptMatch | None:
    """Look-alike, hidden or marked characters the ref text does not hold (None: none).

    Only the excerpt's characters that are not plain are looked up one by one (a plain one is
    none of these), once each; the checks that need a character's neighbours see the whole excerpt.
    """
    odd = "".join(dict.fromkeys(_NOT_PLAIN_RE.findall(excerpt)))
    lookalikes = foreign_lookalikes(odd, ref_text)
    if lookalikes:
        return ExcerptMatch(False, 0.0, "none",
                            reason=f"look-alike characters: {' '.join(lookalikes)} (quote, do not retype)")
    forms = lookalike_forms(odd, ref_text)
    if forms:
        return ExcerptMatch(False, 0.0, "none",
                            reason=f"look-alike digits or letters: {', '.join(forms)} (quote, do not retype)")
    # An ASCII excerpt is judged by its control characters, another one character by character:
    # hand the check the same kind of text.
    hidden = (forged_invisible(odd if odd.isascii() == excerpt.isascii() else excerpt, ref_text)
              or hidden_in_numbers(excerpt, ref_text))
    if hidden:
        return ExcerptMatch(False, 0.0, "none",
                            reason=f"hidden characters the ref text does not hold: {', '.join(hidden)}")
    marked = foreign_marks(excerpt, (ref_text,)) if has_combining_marks(odd) else []
    if marked:
        # ``f̶i̶r̶i̶n̶g̶`` reads "firing" once the marks are skipped and shows it struck out.
        return ExcerptMatch(False, 0.0, "none",
                            reason=f"combining marks the ref text does not hold: {', '.join(marked)}")
    return None


def _match_normalized(excerpt: str, ref_text: str) -> ExcerptMatch:
    """The excerpt's characters passed: find its normal form in the ref's (module docstring)."""
    quote = normalize_text(excerpt)
    ref = normalize_with_offsets(ref_text)
    if not facts.has_token(quote):
        # Nothing but spaces, punctuation or "...": nothing is claimed, nothing to check.
        return ExcerptMatch(True, 0.0, "none", reason="empty excerpt", too_short=True)
    content = _ELLIPSIS_RE.sub(" ", quote).strip() if "..." in quote else quote
    too_short = len(content) < MIN_EXCERPT_CHARS and facts.informative_length(content) < MIN_EXCERPT_CHARS
    exact = _locate_exact(quote, ref, 0)
    if exact.found:
        span = ref.original_span(exact.start, exact.end)
        if byte_units.ref_byte_units(ref_text) and (
                problem := byte_units.byte_unit_problem(excerpt, ref_text, ref_text[span[0]:span[1]])):
            return ExcerptMatch(False, 0.0, "none", (span,), problem)
        if too_short or facts.is_generic(quote):
            return ExcerptMatch(True, 1.0, "exact", (span,), "exact quote (too short or generic to check)", True)
        return ExcerptMatch(True, 1.0, "exact", (span,), "exact quote")
    if exact.problem:
        return ExcerptMatch(False, 0.0, "none", reason=exact.problem, too_short=too_short)
    fragments = [part.strip() for part in _ELLIPSIS_RE.split(quote)]
    if len(fragments) > 1 or quote.startswith("...") or quote.endswith("..."):
        result = _match_fragments([part for part in fragments if part], excerpt, ref)
    elif too_short:
        # Too short to align reliably: only a verbatim quote counts (a short "19%" is forged).
        return ExcerptMatch(False, 0.0, "none", reason="short excerpt not found in the ref text",
                            too_short=True)
    else:
        result = _match_drifted(quote, excerpt, ref)
    if result.ok and result.spans and (problem := byte_units.byte_unit_problem(
            excerpt, ref_text, ref_text[result.spans[0][0]:result.spans[-1][1]])):
        return ExcerptMatch(False, 0.0, "none", result.spans, problem)
    if result.ok and (too_short or facts.is_generic(content)):
        return ExcerptMatch(True, result.score, result.match_kind, result.spans,
                            result.reason + " (too short or generic to check)", too_short=True)
    return result


def clear_caches() -> None:
    """Forget every cached ref normalisation (benchmarks of the cold path use it)."""
    normalize_with_offsets.cache_clear()
    facts.ref_fact_items.cache_clear()
    byte_units.clear_caches()
    _compact.cache_clear()
    _skeleton.cache_clear()
    _number_trailers.cache_clear()
    _negation_starts.cache_clear()


# ---------------------------------------------------------------- locating fragments


def _locate_exact(fragment: str, ref: NormalizedText, cursor: int) -> _Located:
    """First occurrence at or after ``cursor`` that cuts no fact and drops no negation."""
    problem = ""
    text = ref.text
    position = text.find(fragment, cursor)
    while position != -1:
        end = position + len(fragment)
        # Most quotes start and end at a separator, before a word: no edge or qualifier check
        # can object there, and the negation and trailer checks can only where the ref has a
        # negation or a trailing mark (its positions, looked up).
        quiet_edges = ((position == 0 or text[position - 1] in _SEPARATORS)
                       and (end == len(text) or text[end] in _SEPARATORS))
        problem = ((not quiet_edges and _edge_problem(ref, position, end))
                   or (position in _negation_starts(text) and _negation_before(text, position, fragment))
                   or (not text[position].isalpha() and _qualifier_cut(text, position))
                   or _trailer_cut(text, end))
        if not problem:
            return _Located(position, end, 1.0, "exact")
        position = text.find(fragment, position + 1)
    return _Located(problem=problem) if problem else _NOT_FOUND


# Characters that are in no token (``facts.token_class`` is None): a quote edge next to one
# cuts nothing.
_SEPARATORS = frozenset(" ,;()[]{}<>=\"'|!?*&^$~`")


_NOT_FOUND = _Located()


def _locate_drifted(fragment: str, original: str, ref: NormalizedText, cursor: int) -> _Located:
    """Space-insensitive, then fuzzy alignment at or after ``cursor``; facts must survive."""
    start, end, score, found = _locate_compact(fragment, ref, cursor)
    if not found:
        # Spaces and punctuation between words are formatting: align the texts without them,
        # so a quote that drops or adds them (``内存使用率91%,超过阈值85%``, ``WARN order-service``
        # for ``[WARN][order-service]``) is not penalised; words and facts are then checked on
        # the real region.
        compact_ref, index_map = _skeleton(ref.text)
        needle, offset = _skeleton(fragment)[0], bisect_left(index_map, cursor)
        window = compact_ref[offset:]
        if not needle or not window:
            return _Located(problem="excerpt not found in the ref text")
        from rapidfuzz import fuzz  # ~10 ms of imports: only for a quote not found as written

        if len(needle) >= len(window):
            score, dest_start, dest_end = fuzz.ratio(needle, window), 0, len(window)
        else:
            alignment = fuzz.partial_ratio_alignment(needle, window, score_cutoff=FUZZY_THRESHOLD)
            if alignment is None:
                return _Located(problem="excerpt not found in the ref text")
            score, dest_start, dest_end = alignment.score, alignment.dest_start, alignment.dest_end
        start = index_map[offset + dest_start]
        end = index_map[offset + max(dest_start, dest_end - 1)] + 1
        if score < FUZZY_THRESHOLD:
            return _Located(start, end, score / 100,
                            problem=f"excerpt not found in the ref text (best similarity {score:.0f})")
    if found and _NUMBER_RUN_RE.findall(fragment) == _NUMBER_RUN_RE.findall(ref.text[start:end]):
        # Equal but for spaces, and no number split or joined by them (``91 %`` is ``91%``,
        # ``9 1%`` is not): the same facts, unless the quote cuts a number or identifier.
        problem = (_edge_problem(ref, start, end) or _qualifier_cut(ref.text, start)
                   or _trailer_cut(ref.text, end))
        start, end = _snap_to_tokens(ref.text, start, end)
    else:
        loose_start, loose_end = _loose_region(ref.text, start, end)
        problem = (_facts_problem(fragment, original, ref.text, start, end, loose_start, loose_end)
                   or _marks_problem(fragment, ref.text, start, end, loose_start, loose_end)
                   or _names_cut(fragment, ref.text[loose_start:loose_end]))
        problem = problem or changed_words(fragment, ref.text[loose_start:loose_end])
        start, end = _snap_to_tokens(ref.text, start, end)
    problem = problem or _negation_before(ref.text, start, fragment)
    return _Located(start, end, score / 100, "fuzzy", problem)


def _locate_compact(fragment: str, ref: NormalizedText, cursor: int) -> tuple[int, int, float, bool]:
    """Find ``fragment`` with every space removed on both sides; map back to normalised offsets."""
    compact_ref, index_map = _compact(ref.text)
    needle = fragment.replace(" ", "")
    position = compact_ref.find(needle, bisect_left(index_map, cursor))
    if position == -1 or not needle:
        return (-1, -1, 0.0, False)
    from rapidfuzz import fuzz

    start, end = index_map[position], index_map[position + len(needle) - 1] + 1
    return (start, end, fuzz.ratio(fragment, ref.text[start:end]), True)


@lru_cache(maxsize=4096)
def _compact(text: str) -> tuple[str, tuple[int, ...]]:
    """``text`` without spaces, and for each kept character its index in ``text``."""
    kept = tuple(index for index, char in enumerate(text) if char != " ")
    return ("".join(text[index] for index in kept), kept)


@lru_cache(maxsize=4096)
def _skeleton(text: str) -> tuple[str, tuple[int, ...]]:
    """``text`` with only the characters that can be part of a token (letters, digits and the
    separators inside identifiers), and for each kept character its index in ``text``."""
    pieces: list[str] = []
    kept: list[int] = []
    for run in _SKELETON_RUN_RE.finditer(text):  # runs of token characters, at C speed
        start, end = run.span()
        if run.group().isascii() or run.group().isalpha():
            pieces.append(run.group())
            kept.extend(range(start, end))
        else:  # a non-ASCII run: only its letters (``facts.token_class``)
            kept_here = [index for index in range(start, end) if text[index].isalpha()]
            pieces.extend(text[index] for index in kept_here)
            kept.extend(kept_here)
    return ("".join(pieces), tuple(kept))


# Candidate token characters (``facts.token_class``): ASCII ones, and non-ASCII ones of which
# the letters are kept.
_SKELETON_RUN_RE = re.compile(r"[a-z0-9_\-./:%@#+]+|[^\x00-\x7f]+")


def _match_fragments(fragments: list[str], original: str, ref: NormalizedText) -> ExcerptMatch:
    """A truncated quote: every fragment found, in order, none overlapping the previous one."""
    cursor = 0
    spans: list[tuple[int, int]] = []
    scores: list[float] = []
    for fragment in fragments:
        located = _locate_exact(fragment, ref, cursor)
        if not located.found and not located.problem and (
                facts.informative_length(fragment) >= MIN_FRAGMENT_CHARS):
            located = _locate_drifted(fragment, original, ref, cursor)
        if located.found and spans:
            located = located._replace(problem=spliced_label(ref.text, cursor, located.start, located.end))
        if not located.found:
            reason = located.problem or "fragment too short to place and not found verbatim"
            return ExcerptMatch(False, located.score, "none", tuple(spans), f"fragment '{fragment}': {reason}")
        spans.append(ref.original_span(located.start, located.end))
        scores.append(located.score)
        cursor = located.end
    return ExcerptMatch(True, min(scores), "truncated", tuple(spans),
                        f"truncated quote: {len(fragments)} fragment(s) found in order")


def _match_drifted(quote: str, original: str, ref: NormalizedText) -> ExcerptMatch:
    located = _locate_drifted(quote, original, ref, 0)
    spans = (ref.original_span(located.start, located.end),) if located.end > located.start >= 0 else ()
    if not located.found:
        return ExcerptMatch(False, located.score, "none", spans, located.problem)
    return ExcerptMatch(True, located.score, "fuzzy", spans,
                        f"formatting drift (similarity {located.score * 100:.0f})")


# ---------------------------------------------------------------- fact checks


def _token_bounds(text: str, index: int) -> tuple[int, int]:
    """``[start, end)`` of the token containing ``text[index]`` (just it, if not in a token)."""
    kind = facts.token_class(text[index])
    start, end = index, index + 1
    if kind is None:
        return start, end
    if kind == "ascii":  # the run's end at C speed, its start by set look-ups
        run = _ASCII_TOKEN_RUN_RE.match(text, index)
        end = run.end() if run else end
        while start > 0 and text[start - 1] in _ASCII_TOKEN_CHARS:
            start -= 1
        return start, end
    while start > 0 and facts.token_class(text[start - 1]) == kind:
        start -= 1
    while end < len(text) and facts.token_class(text[end]) == kind:
        end += 1
    return start, end


# ``facts.token_class`` "ascii": one character of these, or a run of them.
_ASCII_TOKEN_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_-./:%@#+")
_ASCII_TOKEN_RUN_RE = re.compile(r"[a-z0-9_\-./:%@#+]+")


def _snap_to_tokens(text: str, start: int, end: int) -> tuple[int, int]:
    """Widen a fuzzy alignment so it neither starts nor ends inside a token (for display)."""
    if start >= end:
        return start, end
    return _token_bounds(text, start)[0], _token_bounds(text, end - 1)[1]


def _is_fact_token(ref: NormalizedText, start: int, end: int) -> bool:
    """A number, an identifier, or a CamelCase name in the original text."""
    token = ref.text[start:end].strip(".:-/+")
    if not token:
        return False
    if facts.is_number_token(token) or facts.is_identifier_token(token):
        return True
    original_start, original_end = ref.original_span(start, end)
    return bool(facts.camel_case_identifiers(ref.original[original_start:original_end]))


def _splits_word(text: str, left: int) -> bool:
    """Whether a boundary between ``text[left]`` and ``text[left + 1]`` splits a word or a
    decimal number (``91|%``, ``9|1``, ``91|.5``), rather than falling on a separator inside
    an identifier (``java.lang.|OutOfMemoryError``, ``/profile|:``, ``11:16|:45``)."""
    before, after = text[left], text[left + 1]
    if _is_word_char(before) and _is_word_char(after):
        return True
    if before == "." and after.isdigit() and left > 0 and text[left - 1].isdigit():
        return True
    return before.isdigit() and after == "." and left + 2 < len(text) and text[left + 2].isdigit()


def _is_word_char(char: str) -> bool:
    return char.isalnum() or char in "%_"


def _edge_problem(ref: NormalizedText, start: int, end: int) -> str:
    """A quote that starts or ends inside a number or identifier is not that number or name
    (nor where a separator inside a name goes on: ``_cuts_name``)."""
    text = ref.text
    for inside, outside in ((start, start - 1), (end - 1, end)):
        if not (0 <= outside < len(text)) or facts.token_class(text[outside]) is None or (
                facts.token_class(text[outside]) != facts.token_class(text[inside])):
            continue
        token_start, token_end = _token_bounds(text, inside)
        cut = _splits_word(text, min(inside, outside)) or (
            inside == start and _starts_after_joiner(text, start, token_start)) or (
            _cuts_name(ref, inside, outside, token_start))
        if cut and _is_fact_token(ref, token_start, token_end):
            return f"quote cuts '{text[token_start:token_end]}' in the ref text"
    return ""


_NAME_SEPARATORS = "-./"


def _cuts_name(ref: NormalizedText, inside: int, outside: int, token_start: int) -> bool:
    """A quote edge at a separator inside a name that goes on past it quotes another real name:
    ``order-service`` of ``order-service-canary``, ``/api/v1/users`` of ``/api/v1/users/profile``,
    ``example.com`` of ``api.example.com``. A number's separators are the number checks' (``3.8GB``
    of ``3.8GB/4GB`` is the part used), and a class after its package (``OutOfMemoryError`` of
    ``java.lang.OutOfMemoryError``) is that class."""
    text = ref.text
    if facts.is_number_token(text[token_start:token_start + 1]):
        return False
    step = outside - inside  # -1 at the quote's start, +1 at its end
    if text[inside] in _NAME_SEPARATORS:  # the quote keeps the separator: ``order-service-``
        separator, near, far = inside, inside - step, outside
    elif text[outside] in _NAME_SEPARATORS:
        separator, near, far = outside, inside, outside + step
    else:
        return False
    if not (0 <= near < len(text) and 0 <= far < len(text) and text[near].isalnum() and text[far].isalnum()):
        return False
    if text[separator] == "." and step < 0:
        first = ref.original_span(separator + 1, separator + 2)[0]
        if ref.original[first:first + 1].isupper():
            return False
    return True


def _starts_after_joiner(text: str, start: int, token_start: int) -> bool:
    """A quote that starts right after a separator joining two parts of a number or of a name
    that goes on with a digit reads another number: ``4GB`` of ``3.8GB/4GB`` (the total, not
    the use), ``17:00+08:00`` of ``11:17:00+08:00``, ``1`` of ``HikariPool-1``. A separator
    that joins nothing on its left (``/10.251.43.21:50010``) starts the name itself, and a quote
    that starts *with* the separator (``…:30+08:00``) shows the cut."""
    if start < 2 or not (text[token_start].isdigit() or text[start].isdigit()):
        return False
    return _is_word_char(text[start]) and not _is_word_char(text[start - 1]) and _is_word_char(text[start - 2])


def _qualifier_cut(text: str, start: int) -> str:
    """A quote that starts at (or inside the marks in front of) a number must read the same
    comparison or sign as the ref: ``91%`` of ``current=-91%`` or ``=91%`` of ``current<=91%``
    drops it."""
    digit = signs.reaches_before(text, start)
    if digit < 0 or (digit == start and digit > 0 and facts.token_class(text[digit - 1]) == "ascii"
                     and text[digit - 1] not in "+-"):
        return ""  # no number at the quote's start, or one cut in half (``_edge_problem``)
    in_ref = signs.qualifier(text, digit)[1]
    quoted = signs.qualifier(text[start:digit + 1], digit - start)[1]
    if in_ref == quoted:
        return ""
    return f"quote drops the '{in_ref}' in front of a number it quotes" if in_ref else (
        f"quote reads '{quoted}' in front of a number the ref does not qualify")


def _trailer_cut(text: str, end: int) -> str:
    """A quote that ends right after a number must keep the marks touching its end in the
    ref: ``current=91%`` of ``current=91%+`` drops the "or more"."""
    if end <= 0 or end >= len(text) or not (text[end - 1].isalnum() or text[end - 1] == "%"):
        return ""
    after = _number_trailers(text).get(end, "")
    return f"quote drops the '{after}' after a number it quotes" if after else ""


@lru_cache(maxsize=4096)
def _number_trailers(text: str) -> dict[int, str]:
    """Where each number or ratio of a ref text ends -> the marks trailing it ('' for none)."""
    trailers: dict[int, str] = {}
    for _, item_end, kind, value in facts.ref_fact_items(text):
        if kind in ("number", "ratio"):
            trailers.setdefault(item_end, value[0].partition(facts.TRAILER_SEPARATOR)[2])
    return trailers


def _negation_before(text: str, start: int, fragment: str) -> str:
    """A negation right before the quoted words, left out of the quote, reverses it (a word, or
    a mark: ``firing`` of ``!firing``, ``order-service`` of ``service≠order-service``)."""
    if start <= 0 or start not in _negation_starts(text):
        return ""
    window_start = max(0, start - 4)
    window = text[window_start:start + 1]
    for position, mark, _ in word_marks(window) if _MARK_CHARS_RE.search(window) else ():
        after = position + len(mark)
        if mark in NEGATION_MARKS and after <= start - window_start and not window[after:start - window_start].strip():
            return f"quote drops the negation mark '{mark}' just before it"
    before = text[start - 1]
    if before in _ZH_NEGATION_CHARS or text[max(0, start - 2):start] == "没有":
        if fragment[:1] not in _ZH_NEGATION_CHARS:
            negation = "没有" if text[max(0, start - 2):start] == "没有" else before
            return f"quote drops the negation '{negation}' just before it"
        return ""
    if before != " ":
        return ""  # an English negation word must be followed by a space to be "just before"
    match = _NEGATION_BEFORE_RE.search(text[max(0, start - 12):start])
    if match:
        return f"quote drops the negation '{match.group(1)}' just before it"
    return ""


@lru_cache(maxsize=4096)
def _negation_starts(text: str) -> frozenset[int]:
    """Every position of a ref text that a negation could be "just before" (``_negation_before``
    reads nothing elsewhere): up to four characters after a mark character, one or two after
    a Chinese negation, right after an English negation word and its space."""
    starts: set[int] = set()
    for mark in _MARK_CHARS_RE.finditer(text):
        starts.update(range(mark.start(), mark.start() + 5))
    for negation in _ZH_NEGATION_RE.finditer(text):
        starts.update((negation.start() + 1, negation.start() + 2))
    starts.update(word.end() for word in _NEGATION_WORD_RE.finditer(text))
    return frozenset(starts)


_ZH_NEGATION_RE = re.compile(f"[{_ZH_NEGATION_CHARS}]")
_NEGATION_WORD_RE = re.compile(_NEGATION_BEFORE_RE.pattern.removeprefix(r"(?:^|[^\w'])").removesuffix("$"))


def _marks_problem(fragment: str, ref_text: str, start: int, end: int, loose_start: int, loose_end: int) -> str:
    """Negation and comparison marks before words (``!firing``, ``service≠x``, ``ns<>prod``) are
    facts, not formatting: the fragment's must be the aligned region's (``_loose_region``), none dropped."""
    quoted = _word_marks(fragment)
    added = sorted(quoted - _word_marks(ref_text[loose_start:loose_end]))
    if added:
        return "changed fact: " + ", ".join(f"'{mark}{word}'" for mark, word in added) + " not in the ref text"
    dropped = sorted({(mark, word) for mark, word in _word_marks(ref_text[start:end])
                      if mark in NEGATION_MARKS} - quoted)
    if dropped:
        return "negation dropped: " + ", ".join(f"'{mark}{word}'" for mark, word in dropped)
    return ""


def _names_cut(fragment: str, region: str) -> str:
    """A drifted quote's name that is only the head or tail of a longer name of the aligned
    region, cut at a separator (``order-service`` where the ref says ``order-service-canary``)."""
    whole = set(facts.tokens(region))
    for name in facts.tokens(fragment):
        if name in whole or not facts.is_identifier_token(name):
            continue
        for token in whole:
            if any(token.startswith(name + mark) or token.endswith(mark + name) for mark in _NAME_SEPARATORS):
                return f"quote cuts '{token}' in the ref text"
    return ""


def _word_marks(text: str) -> set[tuple[str, str]]:
    """The marks before words of ``text``, one spelling each; those before a number are the
    number's (``signs``: ``>= 4000ms`` is ``≥4000ms``)."""
    return {(canonical_mark(mark), word) for _, mark, word in word_marks(text) if not word[:1].isdigit()}


def _loose_region(ref_text: str, start: int, end: int) -> tuple[int, int]:
    """The aligned region widened by a few characters and snapped to whole tokens: fuzzy
    alignments can be off by a character or two, and a fact there still counts."""
    return _snap_to_tokens(ref_text, max(0, start - _FACT_REGION_PAD),
                           min(len(ref_text), end + _FACT_REGION_PAD))


def _facts_problem(fragment: str, original: str, ref_text: str, start: int, end: int,
                   loose_start: int, loose_end: int) -> str:
    """Every fact of the fragment in the aligned region; no negation added or dropped."""
    ref_items = facts.ref_fact_items(ref_text)
    region_facts = facts.facts_in(ref_items, loose_start, loose_end)
    fragment_facts = facts.extract_facts(fragment, original)
    missing = facts.missing_facts(fragment_facts, region_facts, ref_text[loose_start:loose_end])
    if missing:
        return "changed fact: " + "; ".join(missing)
    if fragment_facts.negations - region_facts.negations:
        return facts.negation_difference(fragment_facts.negations, region_facts.negations) or ""
    dropped = facts.facts_in(ref_items, start, end).negations - fragment_facts.negations
    if dropped:
        return f"negation dropped: {', '.join(sorted(dropped))}"
    return ""
