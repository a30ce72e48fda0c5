"""Which ``query_logs`` calls a plan needs: the question's own words as search terms.

One ``LogSearch`` per thing the question asks the logs about, in priority order:

- each exact term (a quoted phrase, an exception or class name, an id, a host, a path):
  ``terms=[term]``, first with a qualifier's stems when the question has one ("what
  exceptions did the DataNode hit?": ``terms=[DataNode], query=exception``); when the question
  has exact terms, they and its lexicon topics are what it asks about;
- otherwise the keywords, all of them in one line (``query`` words are matched as word parts:
  ``finish`` is in "Finished"), with a qualifier's stem ("fail to renew the lease" -> fail,
  renew, lease); a Chinese keyword with several English stems is tried with each in turn;
- each compound ("会话过期", "因为内存超限被杀掉"): a lexicon topic as the ``topic`` filter and the
  concepts' log phrases as ``terms`` (``match="any"``); two concepts: the phrases of one that
  name the other ("session expired"), else both, with the line required to hold one of each;
- each lexicon topic (the demo world's door: ``topic=...``) and each concept on its own
  (``terms`` = its log phrases, ``match="any"``);
- a qualifier asked on its own ("any errors?", "有什么异常"): its level (ERROR) or its stems and
  phrases;
- a level on its own ("ERROR logs"): ``level``;
- nothing but a service (or a broad qualifier, "有什么问题"): ``service_search``, its lines at
  WARN or above, read like the demo world's broad questions (one subject per topic) and, when no
  line has a topic, quoted as they are.

A question naming an entity the data has or a kind word names (a host, a user ...:
``reading.entities``) and asking something of it has each of those searches made among the
lines naming it (``core.agents.rules.entity_searches``); the entity alone, or with a
qualifier ("did host web-01 log errors?"), is an exact term.

Every search carries the question's minimum level (``level``), its time window (``since``,
``until``) and its exclusions (``exclude``: excluded phrases, levels and the phrases of excluded
concepts).
"""

from __future__ import annotations

from dataclasses import replace
from itertools import product
from typing import Any

from core.agents.rules.entity_searches import entity_names, narrowed_to
from core.agents.rules.logsearch import COMMON_ARGUMENTS, MAX_TERMS, SEARCH_LIMIT, LogSearch
from core.contracts import Plan
from core.language.concepts import CONCEPTS, concept_label, concept_stems, concept_terms, holds_term
from core.language.levels import asks_about_health, http_statuses
from core.language.lexicon import TOPICS
from core.logfields import level_rank

MAX_EXACT_TERMS = 3
MAX_KEYWORD_TRIES = 4


def _common(plan: Plan) -> dict[str, Any]:
    """Arguments every search of the plan carries: its minimum level, its time window and its
    exclusions."""
    exclude = [*plan.exclusions.terms, *plan.exclusions.levels,
               *concept_terms(plan.exclusions.concepts)]
    values = {"since": plan.reading.since, "until": plan.reading.until, "level": plan.reading.level,
              "exclude": list(dict.fromkeys(exclude))[:MAX_TERMS]}
    return {key: values[key] for key in COMMON_ARGUMENTS if values[key]}


def _args(common: dict[str, Any], **arguments: Any) -> dict[str, Any]:
    merged = {**arguments, **common}
    if arguments.get("level"):
        merged["level"] = _stricter(arguments["level"], common.get("level"))
    return {key: value for key, value in merged.items() if value not in (None, [], "")}


def _stricter(first: str, second: str | None) -> str:
    if second is None:
        return first
    return first if (level_rank(first) or 0) >= (level_rank(second) or 0) else second


def _quoted(term: str) -> str:
    return f"「{term}」"


def _qualifiers(plan: Plan) -> list[str]:
    return [c for c in plan.reading.concepts if c in CONCEPTS and CONCEPTS[c].qualifier]


def _topical(plan: Plan) -> list[str]:
    return [c for c in plan.reading.concepts if c in CONCEPTS and not CONCEPTS[c].qualifier]


def _trouble_level(qualifiers: list[str]) -> str:
    """The level whose lines say a qualifier without its word: its own (ERROR), else WARN."""
    return next((CONCEPTS[q].level for q in qualifiers if CONCEPTS[q].level), None) or "WARN"


def _exact_searches(plan: Plan, common: dict[str, Any]) -> list[LogSearch]:
    """Each exact term; with a qualifier ("what exceptions did the DataNode hit?"), first its
    lines that also hold the qualifier's stems (``terms=[DataNode], query=exception``), then,
    when none does, the term's lines at the qualifier's level, else WARN, or above (their level
    says the trouble; an INFO line holding the term does not answer "any errors about it?")."""
    qualifiers = [name for name in _qualifiers(plan) if not CONCEPTS[name].broad]
    stems = concept_stems(qualifiers)
    statuses = http_statuses(plan.question)
    searches = []
    for term in plan.reading.terms[:MAX_EXACT_TERMS]:
        if not stems:
            attempts = (_args(common, terms=[term], limit=SEARCH_LIMIT),)
            searches.append(LogSearch("term", _as_status(term, statuses, attempts),
                                      f"包含{_quoted(term)}的", f'matching "{term}"'))
            continue
        alone = _args(common, terms=[term], level=_trouble_level(qualifiers), limit=SEARCH_LIMIT)
        narrowed = _args(common, terms=[term], query=" ".join(stems), match="all", limit=SEARCH_LIMIT)
        shown = " ".join(stems)
        searches.append(LogSearch("term", _as_status(term, statuses, (narrowed, alone)),
                                  f"包含{_quoted(term)}及 {shown} 的",
                                  f'matching "{term}" with "{shown}"', concepts=tuple(qualifiers)))
    return searches


def _as_status(term: str, statuses: set[str], attempts: tuple[dict[str, Any], ...]
               ) -> tuple[dict[str, Any], ...]:
    """A 5xx code the question asks about as an HTTP status: first among the lines that say an
    HTTP error (the first attempt with ``topic=http_error``: an access log line whose status it
    is, not one whose response size or port is 502), then, when none holds it, wherever it is
    written (``attempts``). The first widened by the second: an absence names the wider."""
    if term not in statuses:
        return attempts
    return ({**attempts[0], "topic": "http_error"}, *attempts)


def _keyword_search(plan: Plan, common: dict[str, Any]) -> LogSearch:
    """The keywords all in one line, with each qualifier's stem ("errors contacting the RM":
    ``contact rm error``; a line's level is part of its search text, so ``error`` holds for an
    ERROR line and for "parity error corrected" at INFO alike); a qualifier with no stem adds
    its level instead. When no line holds a qualifier's stem, the keywords' lines at its level
    (ERROR for an error; else WARN) or above: their level says the trouble ("failed to contact
    the RM": ``ERROR IN CONTACTING RM``), while an INFO line ("Starting ...") would not answer
    "did it fail to start?"."""
    qualifiers = _qualifiers(plan)
    stems = concept_stems(qualifiers)
    # A broad qualifier qualifies the keywords too: "RM 通信有什么问题" asks for RM lines at WARN+.
    level = next((CONCEPTS[q].level for q in qualifiers if CONCEPTS[q].level and not CONCEPTS[q].stems), None)
    choices = [keyword[:MAX_KEYWORD_TRIES] for keyword in plan.reading.keywords if keyword]
    combinations = list(product(*choices))[:MAX_KEYWORD_TRIES]
    attempts = []
    for combination in combinations:
        words = list(dict.fromkeys([*combination, *stems]))
        attempts.append(_args(common, query=" ".join(words), match="all", level=level,
                              limit=SEARCH_LIMIT))
    if stems and choices:
        attempts += [_args(common, query=" ".join(dict.fromkeys(combination)), match="all",
                           level=level or _trouble_level(qualifiers), limit=SEARCH_LIMIT)
                     for combination in combinations]
    shown = " ".join(dict.fromkeys([keyword[0] for keyword in choices] + stems))
    at_zh, at_en = (f" {level} 级别及以上的", f" at level {level} or above") if level else ("", "")
    asked = tuple(k[0] for k in choices)
    return LogSearch("keywords", tuple(attempts), f"包含 {shown} 的{at_zh}", f'with "{shown}"{at_en}',
                     concepts=tuple(qualifiers), keywords=asked, ladder_words=asked, ladder="full")


def _concept_phrases(name: str) -> tuple[str, ...]:
    concept = CONCEPTS[name]
    return (*concept.terms, *concept.stems)


def _names(member: str) -> list[str]:
    """Words naming a compound member: a concept's asks, a topic's synonyms."""
    if member in CONCEPTS:
        return [word for word in CONCEPTS[member].asks if word.isascii()]
    return list(TOPICS[member].synonyms) if member in TOPICS else []


def _compound_search(group: list[str], common: dict[str, Any], language_labels: tuple[str, str]
                     ) -> LogSearch:
    topics = [m for m in group if m in TOPICS]
    concepts = [m for m in group if m in CONCEPTS]
    label_zh, label_en = language_labels
    if topics:
        # The topic filter already narrows the lines: a concept's plain words are enough here
        # ("Redis timeout" is a timeout line among Redis lines).
        terms = ([*concept_terms(concepts), *[w for c in concepts for w in _names(c)]] if concepts
                 else list(TOPICS[topics[1]].synonyms) if len(topics) > 1 else [])
        terms = list(dict.fromkeys(terms))
        arguments = _args(common, topic=topics[0], terms=terms[:MAX_TERMS],
                          match="any", limit=SEARCH_LIMIT)
        return LogSearch("compound", (arguments,), label_zh, label_en, topics=tuple(topics[:1]),
                         concepts=tuple(concepts), focus=(tuple(terms),) if terms else ())
    first, second = concepts[0], concepts[1]
    joint = [term for term in CONCEPTS[first].terms
             if any(holds_term(term, word) for word in _names(second) + list(CONCEPTS[second].terms))]
    joint += [term for term in CONCEPTS[second].terms
              if any(holds_term(term, word) for word in _names(first) + list(CONCEPTS[first].terms))]
    joint = list(dict.fromkeys(joint))
    if joint:
        # Named by its phrases: an absence of "connection refused" is not one of every
        # connection problem (the gatekeeper refuses a label wider than what was searched).
        shown = joint[:MAX_TERMS]
        arguments = _args(common, terms=shown, match="any", limit=SEARCH_LIMIT)
        return LogSearch("compound", (arguments,), f"包含{'或'.join(map(_quoted, shown))}的",
                         "matching " + " or ".join(f'"{term}"' for term in shown), concepts=(first, second))
    union = list(dict.fromkeys([*CONCEPTS[first].terms, *CONCEPTS[second].terms]))
    arguments = _args(common, terms=union[:MAX_TERMS], match="any", limit=200)
    return LogSearch("compound", (arguments,), label_zh, label_en, concepts=(first, second),
                     focus=(_concept_phrases(first), _concept_phrases(second)))


def concept_word(name: str) -> str | None:
    """The word a concept is searched by on the recall ladder: its first one-word English ask
    ("refuse" of refused, "connection"), as questions name it."""
    return next((ask for ask in CONCEPTS[name].asks if ask.isascii() and " " not in ask), None)


def _with_ladder(search: LogSearch, concepts: list[str], keywords: tuple[str, ...]) -> LogSearch:
    """A concept's (or compound's) search with a meaning-keeping ladder over its concepts' words
    and the question's keywords: "refused connection" where its phrase is "connection refused",
    "retried" where it is "retries"."""
    words = [word for name in concepts if (word := concept_word(name)) is not None]
    if not words and not keywords:
        return search
    return replace(search, keywords=keywords, ladder_words=tuple(dict.fromkeys([*words, *keywords])),
                   ladder="meaning")


def compound_labels(group: list[str]) -> tuple[str, str]:
    """How a compound's members are named in a claim: (zh, en) labels."""
    def label(member: str, language: str) -> str:
        if member in TOPICS:
            topic = TOPICS[member]
            return topic.label_zh if language == "zh" else topic.label_en
        return concept_label(member, language)
    return ("、".join(label(m, "zh") for m in group) + "相关的",
            "about " + " and ".join(label(m, "en") for m in group))


def _concept_search(name: str, common: dict[str, Any], keywords: tuple[str, ...] = ()) -> LogSearch:
    """Lines saying the concept in its log phrases; when none does, lines at WARN or above
    naming it as a question does ("upstream timeout calling bank-gateway": a bare ``timeout``,
    which at INFO is mostly a setting, ``timeout=30s``)."""
    concept = CONCEPTS[name]
    arguments = _args(common, terms=list(concept.terms[:MAX_TERMS]),
                      query=" ".join(concept.stems) or None, match="any", limit=SEARCH_LIMIT)
    words = [ask for ask in concept.asks if ask.isascii() and " " not in ask and ask not in concept.terms]
    attempts: tuple[dict[str, Any], ...] = (arguments,)
    if words:
        attempts += (_args(common, terms=words[:MAX_TERMS], match="any", level=_trouble_level([name]),
                           limit=SEARCH_LIMIT),)
    return _with_ladder(LogSearch("concept", attempts, f"{concept.label_zh}相关的",
                                  f"about {concept.label_en}", concepts=(name,)), [name], keywords)


def _qualifier_searches(names: list[str], common: dict[str, Any]) -> list[LogSearch]:
    """A qualifier asked on its own: lines at its level ("any errors?"), or lines holding its
    words ("any exceptions?"). A broad one ("有什么问题") is the service's broad search."""
    searches: list[LogSearch] = []
    for name in names:
        concept = CONCEPTS[name]
        if concept.broad:
            continue
        if concept.level:
            searches.append(_level_search(concept.level, common, (name,)))
        elif concept.terms or concept.stems:
            arguments = _args(common, terms=list(concept.terms), query=" ".join(concept.stems) or None,
                              match="any", limit=SEARCH_LIMIT)
            # "Why did payments fail?": when no line says so, its lines whose level reports it.
            fallback = _level_search(concept.reported_at, common) if concept.reported_at else None
            searches.append(LogSearch("qualifier", (arguments,), f"{concept.label_zh}相关的",
                                      f"about {concept.label_en}", concepts=(name,), fallback=fallback))
    return searches


def _level_search(level: str, common: dict[str, Any], concepts: tuple[str, ...] = ()) -> LogSearch:
    arguments = _args(common, level=level, limit=SEARCH_LIMIT)
    shown = arguments["level"]
    return LogSearch("level", (arguments,), f"{shown} 级别及以上的", f"at level {shown} or above",
                     concepts=concepts)


def leaves_words_unsearched(plan: Plan) -> bool:
    """Whether some of the question's words are searched by no call: next to exact terms, its
    keywords and concepts are not ("Did order 1002 go through?" searches ``1002`` only, so what
    is found neither says it went through nor that it did not). An entity's name is no such
    term: the other words are searched among its lines (``log_searches``)."""
    names = _entity_terms(plan)
    others = [term for term in plan.reading.terms if term not in names]
    return bool(others) and bool(plan.reading.keywords or _topical(plan))


def _entity_terms(plan: Plan) -> list[str]:
    return entity_names(plan.reading.terms, [entity.name for entity in plan.reading.entities])


def log_searches(plan: Plan) -> list[LogSearch]:
    """The searches the plan's question needs, in priority order (see the module doc). When it
    names an entity (a host, a user ...) and asks something of it, each search its other words
    need is made among the entity's lines (``core.agents.rules.entity_searches``)."""
    names = _entity_terms(plan)
    others = [term for term in plan.reading.terms if term not in names]
    asked = others or plan.topics or _topical(plan) or plan.reading.keywords or plan.reading.compounds
    if not names or not asked:  # an entity alone, or with a qualifier: its exact-term searches
        return _word_searches(plan)
    without = plan.model_copy(update={"reading": plan.reading.model_copy(update={"terms": others})})
    return [narrowed_to(search, names) for search in _word_searches(without)] or _word_searches(plan)


def _word_searches(plan: Plan) -> list[LogSearch]:
    """The searches of the question's words, each exact term on its own (the module doc)."""
    common = _common(plan)
    searches: list[LogSearch] = _exact_searches(plan, common)
    if plan.reading.terms:
        # Exact terms are what the question asks about; its lexicon topics are still looked at
        # (the demo world's door), its concepts and other words are not searched on their own.
        return searches + [LogSearch("topic", (_args(common, topic=topic),), "", "", topics=(topic,))
                           for topic in plan.topics]
    if plan.reading.keywords and not (plan.topics or _topical(plan)):
        # Keywords are the subject only when no topic or concept is: next to one they are
        # mostly its modifiers ("containers killed for exceeding memory").
        searches.append(_keyword_search(plan, common))
    in_compounds = {member for group in plan.reading.compounds for member in group}
    keywords = tuple(keyword[0] for keyword in plan.reading.keywords if keyword)
    for group in plan.reading.compounds:
        if len(group) > 1:
            searches.append(_with_ladder(_compound_search(group, common, compound_labels(group)),
                                         [m for m in group if m in CONCEPTS], keywords))
    for topic in plan.topics:
        if topic not in in_compounds:
            searches.append(LogSearch("topic", (_args(common, topic=topic),), "", "",
                                      topics=(topic,)))
    for name in _topical(plan):
        if name not in in_compounds:
            searches.append(_concept_search(name, common, keywords))
    if not searches:
        qualifiers = _qualifiers(plan)
        if qualifiers and not plan.reading.level:
            searches += _qualifier_searches(qualifiers, common)
        elif plan.reading.level:
            searches.append(_level_search(plan.reading.level, common, tuple(qualifiers)))
    return searches


def service_search(plan: Plan) -> LogSearch:
    """What a question naming nothing but a service ("payment-service 现在有什么问题？") reads of
    its logs: its lines at WARN or above (the plan's level, if stricter). A question asking
    neither about trouble nor health ("What did Spark log?", "Spark 在做什么？"), when there are
    none: its lines at any level (most common kinds first), not "no records"."""
    search = _level_search(plan.reading.level or "WARN", _common(plan))
    attempts = search.attempts
    if not (plan.reading.level or plan.reading.concepts or asks_about_health(plan.question)):
        attempts += (_args(_common(plan), limit=SEARCH_LIMIT),)
    return LogSearch("service", attempts, search.label_zh, search.label_en)
