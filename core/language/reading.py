"""The reading of a question: one typed value saying what the question's words ask.

``core.language.read.read`` produces it; the plan carries it (``Plan.reading``), so every stage
reads the question's words from one place and the plan's shared fields (services, topics, alert
names, tools...) stay what a planner decided. This module holds only the types (no reader is
imported), so the contracts can hold them without loading the vocabularies.

Each list is one kind of word the question holds, as read and with what it excludes taken out;
a kind added later (a word's role in the question, what became of it in the run) is one more
field here, with a default so documents written before still load.
"""

# No ``from __future__ import annotations``: pydantic would evaluate each field's annotation from
# its string (as in ``core.contracts``).
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


def _empty() -> list[Any]:
    """A new empty list (a function's signature is read faster than ``list``'s: see
    ``core.contracts.empty_list``)."""
    return []


class _Read(BaseModel):
    """Base of the reading's types: as the contracts', unknown keys are kept out and values are
    validated; a reading is not changed once read (``model_copy(update=...)`` makes another)."""

    model_config = ConfigDict(extra="ignore", frozen=True, defer_build=True)


class Exclusions(_Read):
    """Subjects the question forbids: services, topics, alert names, free terms (matched as
    whole words), log levels ("忽略 WARN": lines of that level, never alerts whose severity says
    warning) and diagnosis concepts (``core.language.concepts``)."""

    services: list[str] = Field(default_factory=_empty)
    topics: list[str] = Field(default_factory=_empty)
    alert_names: list[str] = Field(default_factory=_empty)
    terms: list[str] = Field(default_factory=_empty)
    levels: list[str] = Field(default_factory=_empty)
    concepts: list[str] = Field(default_factory=_empty)


class Entity(_Read):
    """A host, user, pod, namespace, job or component a question names (``kind``): ``name`` as
    the data spells it, ``known`` True; or, beside a kind word ("host db-9"), a name the world's
    vocabulary lacks, as written, ``known`` False (the vocabulary lists the most-named of each
    kind: such a name is searched, and the data may still hold it)."""

    name: str
    kind: str
    known: bool = True


# What a term of the question is: who or what it is about (a service, host, alert, topic),
# what happened (failed, started, timed out), an exact thing (id, IP, path, quoted phrase), the
# time window, the log level, or something it forbids.
TermKind = Literal["subject", "predicate", "entity", "time", "level", "filter"]
# What became of a term in the run (``core.verifier.accounting``): held by the cited, verified
# evidence; applied as a filter of the calls; held only in another form (a synonym) or searched
# without a filter the lines cannot satisfy; never in the data searched; searched in calls that
# all came back empty (an absence); searched, but the evidence the answer cites does not hold
# it; not searched at all.
TermFate = Literal["matched", "filter", "relaxed", "unmentioned", "absent", "unmatched",
                   "not_searched"]
# The fates that leave a term unanswered: a PASS needs none of them (``verifier.term_unaccounted``).
UNACCOUNTED_FATES: tuple[TermFate, ...] = ("unmatched", "not_searched")
# How each fate reads after the term, in an answer's language; ``absent_together``: an absence
# searched only with the question's other words (``accounting.NOT_EXHAUSTIVE``). The one wording
# the answer text, the CLI's terms line and the Investigate table share.
FATE_WORDS: dict[str, dict[str, str]] = {
    "en": {"matched": "in the cited evidence", "filter": "applied as a filter",
           "relaxed": "relaxed to another form", "unmentioned": "the data never mentions it",
           "absent": "searched, verified absent", "absent_together": "searched only together with other words",
           "unmatched": "not in the lines found", "not_searched": "not searched"},
    "zh": {"matched": "见于引用的证据", "filter": "作为过滤条件应用", "relaxed": "以其他形式匹配",
           "unmentioned": "数据中从未出现", "absent": "已检索，核验为不存在",
           "absent_together": "只与其他词一起检索过", "unmatched": "找到的记录中没有", "not_searched": "未检索"},
}


class QuestionTerm(_Read):
    """One content term of the question: its text as read, its kind and, after the run, its
    fate and what says so (``detail``: the form it was relaxed to, the call that was empty)."""

    text: str
    kind: TermKind
    fate: TermFate | None = None
    detail: str = ""
    # Whether the answer accounts for it (False: a rule of ``core.verifier.accounting`` named it).
    accounted: bool | None = None


class QuestionReading(_Read):
    """What a question's words ask the data for (docs/design.md, the plan).

    ``services`` and ``alert_names`` are the names it asks about (the data's, and those it
    lacks when they are searched); ``topics`` are lexicon topics (with those of the alerts it
    names); ``concepts`` are diagnosis concepts (``core.language.concepts``); ``compounds`` are
    topics/concepts asked together ("会话过期": session and expiry in one line); ``terms`` are
    exact phrases (quoted text, exception and class names, ids, hosts, paths); ``keywords`` are
    other words a matching line must all hold, each as its alternative stems (searched as word
    parts: ``finish`` is in "Finished"); ``level`` is a minimum log level; ``alert_states`` are
    the states asked about ("is X firing?" -> ["firing"]: an alert in another state does not
    answer "yes"); ``wants_alerts`` whether it asks about alerts at all (告警, alert, firing);
    ``unknown_subjects`` are services and alert names it names that the data lacks;
    ``entities`` the hosts, users, pods, namespaces, jobs and components it names (each also an
    exact search term in ``terms``: a line's search text holds its host and source);
    ``searchable`` is False when nothing in it can be searched (then nothing is);
    ``since``/``until`` are the time window it names, as query_logs takes them (ISO 8601,
    inclusive: "in the last hour" is since an hour before the data's clock); ``exclusions`` is
    what it forbids; ``scope_markers`` the words that narrow it ("只确认", an exclusion's
    trigger).
    """

    services: list[str] = Field(default_factory=_empty)
    alert_names: list[str] = Field(default_factory=_empty)
    topics: list[str] = Field(default_factory=_empty)
    concepts: list[str] = Field(default_factory=_empty)
    compounds: list[list[str]] = Field(default_factory=_empty)
    terms: list[str] = Field(default_factory=_empty)
    keywords: list[list[str]] = Field(default_factory=_empty)
    level: str | None = None
    alert_states: list[str] = Field(default_factory=_empty)
    wants_alerts: bool = False
    unknown_subjects: list[str] = Field(default_factory=_empty)
    entities: list[Entity] = Field(default_factory=_empty)
    searchable: bool = True
    since: str | None = None
    until: str | None = None
    exclusions: Exclusions = Field(default_factory=Exclusions)
    scope_markers: list[str] = Field(default_factory=_empty)
    # Every content term with its kind (``core.language.terms``); fates are set after the run.
    question_terms: list[QuestionTerm] = Field(default_factory=_empty)
