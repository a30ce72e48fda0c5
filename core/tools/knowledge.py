"""``lookup_knowledge``: runbook sections ranked by relevance to a question.

Score (0..1) of a section for a query:

- topics the query names: 1 for a topic named in the runbook's or the section's title, 0.6 for
  one only mentioned in the section text, averaged over the query's topics;
- terms (identifiers, English words, Chinese bigrams): the share found in the runbook title,
  section title or text; a long ASCII term also counts, at 0.8, when it fuzzily matches a word
  of the titles (typos in alert names);
- both present: 0.6 * topics + 0.4 * terms; otherwise whichever there is.

Sections scoring under ``MIN_SCORE`` are not relevant: a query about nothing in the runbooks
returns no blocks at all.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from core.contracts import EvidenceBlock, KnowledgeResult
from core.language.lexicon import topics_in
from core.language.text import normalize
from core.packs import Pack, Runbook
from core.tools.args import LookupKnowledgeArgs
from core.tools.query import ParsedQuery, parse_query

MIN_SCORE = 0.5  # term-only queries need half their terms; a topic named in a title alone passes
_FUZZY_MIN_LENGTH = 6
_FUZZY_THRESHOLD = 85.0


@dataclass(frozen=True)
class IndexedSection:
    """A runbook section with what ranking needs, precomputed once per pack."""

    title: str
    source: str
    content: str
    order: int
    text: str  # normalised runbook title + section title + content
    title_words: tuple[str, ...]
    title_topics: frozenset[str]
    text_topics: frozenset[str]
    # An alerting rule ranks after a runbook section of the same score: a runbook says what to
    # check, a rule only when the alert fires (a question naming the rule still finds it first).
    is_rule: bool = False


# Word boundaries inside CamelCase names: KubePodCrashLooping -> Kube Pod Crash Looping.
_CAMEL_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


def _with_camel_words(titles: str) -> str:
    """The titles followed by their CamelCase words split (alert names are searched by words:
    ``HostOutOfDiskSpace`` is about disk)."""
    split = _CAMEL_BOUNDARY.sub(" ", titles)
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
    if term in section.text:
        return 1.0
    if not (term.isascii() and len(term) >= _FUZZY_MIN_LENGTH):
        return 0.0
    from rapidfuzz import fuzz  # ~10 ms of imports: only for a term no section holds as written

    return 0.8 if any(fuzz.ratio(term, word) >= _FUZZY_THRESHOLD for word in section.title_words) else 0.0


def score_section(parsed: ParsedQuery, section: IndexedSection) -> float:
    """Relevance of one section to a parsed query (see the module docstring)."""
    topic_score = None
    if parsed.topics:
        topic_score = sum(
            1.0 if topic in section.title_topics else 0.6 if topic in section.text_topics else 0.0
            for topic in parsed.topics) / len(parsed.topics)
    terms = parsed.terms()
    term_score = sum(_term_found(t, section) for t in terms) / len(terms) if terms else None
    if topic_score is not None and term_score is not None:
        return 0.6 * topic_score + 0.4 * term_score
    return topic_score if topic_score is not None else term_score or 0.0


def search_sections(sections: Sequence[IndexedSection], args: LookupKnowledgeArgs,
                    known_services: Iterable[str] = ()) -> KnowledgeResult:
    """The ``top_k`` most relevant sections, best first; none when nothing is relevant.

    ``total`` counts every relevant section, before ``top_k``.
    """
    parsed = parse_query(args.query, known_services)
    scored = [(round(score_section(parsed, s), 4), s) for s in sections]
    relevant = sorted(((score, s) for score, s in scored if score >= MIN_SCORE),
                      key=lambda item: (-item[0], item[1].is_rule, item[1].source, item[1].order))
    blocks = [EvidenceBlock(title=s.title, source=s.source, content=s.content, score=score)
              for score, s in relevant[:args.top_k]]
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
