"""``lookup_knowledge``: runbook sections ranked by relevance to a question.

Score (0..1) of a section for a query:

- topics the query names: 1 for a topic named in the runbook's or the section's title, 0.6 for
  one only mentioned in the section text, averaged over the query's topics;
- terms (identifiers, English words, Chinese bigrams), each by where the section holds it: 1 in
  the runbook or section title (as written, or as a word form of a title word: "restarting"
  finds "Restart"), 0.6 only in the text (a word there begins with it or its stem), and a long
  ASCII term in neither, 0.8 when it fuzzily matches a title word (typos in alert names);
  averaged;
- both present: the topic score, raised toward 1 by the terms its titles hold (``topics +
  (1 - topics) * title terms``) when the section is about a topic at all, else 0.4 * terms (a
  section about none of the question's topics is not relevant for its words alone); otherwise
  whichever there is.

Sections scoring under ``MIN_SCORE`` are not relevant: a query about nothing in the runbooks
returns no blocks at all.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from core.contracts import EvidenceBlock, KnowledgeResult
from core.language.keywords import search_prefix
from core.language.lexicon import topics_in
from core.language.text import normalize
from core.language.wordforms import stem
from core.packs import Pack, Runbook
from core.tools.args import LookupKnowledgeArgs
from core.tools.query import ParsedQuery, parse_query

MIN_SCORE = 0.5  # term-only queries need half their terms; a topic named in a title alone passes
_FUZZY_MIN_LENGTH = 6
_FUZZY_THRESHOLD = 85.0
_IN_TEXT = 0.6  # a term only the section's text holds counts less than one of its titles
_MIN_STEM = 4  # shorter stems are prefixes of too many words ("pod" of "podman")
_MAX_ENDING = 3  # what one form adds to another ("restart" -> "restarting" is "ing" once stemmed)


@dataclass(frozen=True)
class IndexedSection:
    """A runbook section with what ranking needs, precomputed once per pack."""

    title: str
    source: str
    content: str
    order: int
    text: str  # normalised runbook title + section title + content
    title_words: tuple[str, ...]
    titles: str  # normalised runbook title + section title (CamelCase words split too)
    title_topics: frozenset[str]
    text_topics: frozenset[str]
    # An alerting rule ranks after a runbook section of the same score: a runbook says what to
    # check, a rule only when the alert fires (a question naming the rule still finds it first).
    is_rule: bool = False


# Word boundaries inside CamelCase names: KubePodCrashLooping -> Kube Pod Crash Looping.
_CAMEL_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


def split_camel_case(text: str) -> str:
    """``text`` with its CamelCase names cut into words (``KubePodCrashLooping`` -> ``Kube Pod
    Crash Looping``)."""
    return _CAMEL_BOUNDARY.sub(" ", text)


def _with_camel_words(titles: str) -> str:
    """The titles followed by their CamelCase words split (alert names are searched by words:
    ``HostOutOfDiskSpace`` is about disk)."""
    split = split_camel_case(titles)
    return titles if split == titles else f"{titles} {split}"


def build_sections(runbooks: Iterable[Runbook], rules: Iterable[Runbook] = ()) -> list[IndexedSection]:
    """Runbook and alerting rule sections prepared for ranking."""
    sections = []
    marked = [(runbook, False) for runbook in runbooks] + [(group, True) for group in rules]
    for runbook, is_rule in marked:
        for number, section in enumerate(runbook.sections):
            titles = _with_camel_words(f"{runbook.title} {section.title}")
            sections.append(IndexedSection(
                title=f"{runbook.title} / {section.title}",
                source=runbook.source,
                content=section.content,
                order=number,
                text=normalize(f"{titles}\n{section.content}"),
                title_words=tuple(re.findall(r"[a-z0-9][a-z0-9_-]+", normalize(titles))),
                titles=normalize(titles),
                title_topics=frozenset(topics_in(titles)),
                text_topics=frozenset(topics_in(section.content)),
                is_rule=is_rule,
            ))
    return sections


def knowledge_index(pack: Pack) -> list[IndexedSection]:
    """The pack's runbook and alerting rule sections prepared for ranking (built once, cached
    on the pack)."""
    return pack.derived("knowledge.sections", lambda: build_sections(pack.runbooks, pack.rules))


def _term_found(term: str, section: IndexedSection) -> float:
    """1 for a term of the titles, 0.6 for one only in the text (a word of it begins with the
    term or its stem), 0.8 for one in neither that fuzzily matches a title word, else 0."""
    if term in section.titles:
        return 1.0
    ascii_word = term.isascii() and term.isalpha()
    if ascii_word and any(same_word(term, word) for word in section.title_words):
        return 1.0
    if not term.isascii():
        return _IN_TEXT if term in section.text else 0.0
    probe = search_prefix(term) if ascii_word else term
    if re.search(rf"(?<![a-z0-9]){re.escape(probe)}", section.text):
        return _IN_TEXT
    if len(term) < _FUZZY_MIN_LENGTH:
        return 0.0
    from rapidfuzz import fuzz  # ~10 ms of imports: only for a term no section holds as written

    return 0.8 if any(fuzz.ratio(term, word) >= _FUZZY_THRESHOLD for word in section.title_words) else 0.0


def same_word(term: str, word: str) -> bool:
    """Whether two words are forms of one word: one stem (``wordforms.stem``), or one's search
    prefix begins the other's ("restarting" and "restart", "slowly" and "slow"), the shorter of
    at least ``_MIN_STEM`` letters."""
    if term == word or stem(term) == stem(word):
        return True
    term_stem, word_stem = search_prefix(term), search_prefix(word)
    shorter, longer = sorted((term_stem, word_stem), key=len)
    # An ending, not another word: "kube" does not begin every "KubeQuotaExceeded" as a form.
    return (len(shorter) >= _MIN_STEM and longer.startswith(shorter)
            and len(longer) - len(shorter) <= _MAX_ENDING)


def score_section(parsed: ParsedQuery, section: IndexedSection) -> float:
    """Relevance of one section to a parsed query (see the module docstring)."""
    return _ranked(parsed, section)[0]


def _ranked(parsed: ParsedQuery, section: IndexedSection) -> tuple[float, float]:
    """The section's score and the share of the query's terms its titles hold (which orders
    sections of one score: "CPU 使用率过高 检查项" puts the CPU runbook's checks first)."""
    topic_score = None
    if parsed.topics:
        topic_score = sum(
            1.0 if topic in section.title_topics else 0.6 if topic in section.text_topics else 0.0
            for topic in parsed.topics) / len(parsed.topics)
    found = [_term_found(t, section) for t in parsed.terms()]
    # Only the words of its titles raise a section about the topics: the words of its text
    # are in many sections about other things ("pod" in a CPU runbook's text).
    in_titles = sum(score for score in found if score > _IN_TEXT) / len(found) if found else 0.0
    if topic_score is None:
        return (sum(found) / len(found) if found else 0.0), in_titles
    if not found:
        return topic_score, in_titles
    if topic_score == 0:
        return 0.4 * sum(found) / len(found), in_titles
    return topic_score + (1 - topic_score) * in_titles, in_titles


def search_sections(sections: Sequence[IndexedSection], args: LookupKnowledgeArgs,
                    known_services: Iterable[str] = ()) -> KnowledgeResult:
    """The ``top_k`` most relevant sections, best first; none when nothing is relevant.

    ``total`` counts every relevant section, before ``top_k``.
    """
    parsed = parse_query(args.query, known_services)
    ranked = [(round(score, 4), in_titles, s) for s in sections
              for score, in_titles in [_ranked(parsed, s)]]
    relevant = sorted(((score, in_titles, s) for score, in_titles, s in ranked if score >= MIN_SCORE),
                      key=lambda item: (-item[0], -item[1], item[2].is_rule, item[2].source, item[2].order))
    blocks = [EvidenceBlock(title=s.title, source=s.source, content=s.content, score=score)
              for score, _, s in relevant[:args.top_k]]
    if not relevant:
        message = "未找到相关知识"
    elif len(relevant) > args.top_k:
        message = f"找到 {len(relevant)} 条相关知识，返回最相关的 {args.top_k} 条"
    else:
        message = f"找到 {len(relevant)} 条相关知识"
    # total counts every relevant section, like query_logs counts matches before its limit.
    return KnowledgeResult(success=True, evidence_blocks=blocks, total=len(relevant), message=message)


def lookup_knowledge(pack: Pack, args: LookupKnowledgeArgs) -> KnowledgeResult:
    """The pack's most relevant runbook and rule sections (see ``search_sections``)."""
    return search_sections(knowledge_index(pack), args, pack.services)
