"""A compiled ``query_logs`` query as SQL over the log store's schema (``core.sources.logstore``).

``build_plan`` turns a ``CompiledQuery`` (what matches, ``core.tools.logquery``) into one
``FROM ... WHERE ...`` core and the selects the store runs on it: the top lines ranked by
FTS5 ``bm25`` (newest first on ties) and the groups (``GROUP BY`` template, service, level).
Filters use the indexes (service, level rank, time); units use FTS5 where it can find them,
the ``line_topics`` table for topics, and two SQL functions the store registers where FTS5
cannot decide alone: ``sb_match`` (the unit's exact regex on the line's search text) and
``sb_contains`` (a substring). The ranked and grouped selects read only the narrow ``lines``
table; a line's text (in ``entries``) is read for the lines returned, and for the candidates
a regex or scan checks -- then once, into a temporary table both selects read.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from core.sources.logtally import countable
from core.sources.logtext import UnitSearch, needle_search, needs_terms, quote, word_search
from core.tools.logquery import CompiledQuery, SearchUnit

# A line's search text is checked by the store's Python functions (``logquery.search_text``
# semantics, from the entry's fields): ``sb_match`` a regex, ``sb_contains`` a substring.
_TEXT_ARGS = "e.message, e.level, e.service, e.source, e.host, e.folded"
MATCH_SQL = f"sb_match(?, {_TEXT_ARGS})"
CONTAINS_SQL = f"sb_contains(?, {_TEXT_ARGS})"
# A line's search text in SQL, where it can be: the stored folded text (non-ASCII lines), else
# the ASCII message lower-cased (a prefix of the search text: NFKC leaves ASCII as it is),
# between spaces so that the GLOBs of ``logtext.sufficient_glob`` see word edges at both ends.
# The pattern is bound as ``+?`` (a no-op on text): SQLite reads a GLOB's bound pattern when it
# plans (for an index it could use), so a plain ``?`` there makes every new binding re-prepare
# the statement (~0.1 ms, a rare id's whole search).
GLOB_SQL = "(' ' || coalesce(e.folded, lower(e.message)) || ' ') GLOB +?"
# Column weights of bm25: the message counts most; level/service/source/host and word parts less.
BM25 = "bm25(lines_fts, 1.0, 0.5, 0.5)"
_ORDER = "l.ts_us DESC, l.id DESC"
_NO_SCORE = "0.0"  # every line scores alike: newest first
_FTS_IN = "l.id IN (SELECT rowid FROM lines_fts WHERE lines_fts MATCH ?)"


@dataclass
class _Where:
    """The clauses a plan's WHERE joins with AND, each with its parameters and whether it reads
    only indexes (FTS5, filters, topics), not a line's text: those are the candidates' condition."""

    parts: list[tuple[str, tuple[Any, ...], bool]] = field(default_factory=list)

    def add(self, clause: str, *params: Any, indexed: bool = True) -> None:
        self.parts.append((clause, params, indexed))

    def sql(self, *, indexed_only: bool = False) -> str:
        clauses = [clause for clause, _, indexed in self.parts if indexed or not indexed_only]
        return " AND ".join(clauses) if clauses else "1"

    def params(self, *, indexed_only: bool = False) -> tuple[Any, ...]:
        return tuple(param for _, params, indexed in self.parts if indexed or not indexed_only for param in params)


@dataclass(frozen=True)
class QueryPlan:
    """The SQL of one query, in parts: the tables (``lines l``, joined with ``lines_fts`` when
    FTS5 filters, with ``entries e`` when a line's text must be checked), the WHERE clause and
    its parameters, how a line scores (lower is better), and for ``match="any"`` the join that
    scores FTS5 hits. ``lines_sql``/``groups_sql``/``hits_sql`` assemble them."""

    tables: str = "lines l"
    where: str = "1"
    params: tuple[Any, ...] = ()
    score: str = _NO_SCORE
    rank_join: str = ""
    rank_params: tuple[Any, ...] = ()
    fts: str | None = None
    checks_text: bool = False
    empty: bool = False
    whole_words: str | None = None
    # The WHERE clause without the checks of a line's text or the exclusions (a superset of the
    # matches, read from the indexes alone), when the MATCH filters: see ``matches``.
    candidates: str | None = None
    candidates_params: tuple[Any, ...] = ()
    # When every unit is a word and every other condition holds for whole groups (service,
    # level): each word's terms, and the filters over ``group_spans l``; the groups are then
    # counted from the store's tallies (``core.sources.logtally``, ``tally_sql``).
    tally_words: tuple[tuple[str, ...], ...] | None = None
    group_where: str = "1"
    group_params: tuple[Any, ...] = ()

    @property
    def whole_words_params(self) -> tuple[Any, ...]:
        """``lines_sql``'s parameters with ``whole_words`` as the FTS5 expression (ranked by
        its own ``bm25``): the lines holding each word as a whole token, a subset of the
        matches. Only when ``whole_words`` is set (the MATCH is then the first clause)."""
        assert self.whole_words is not None and self.params[:1] == (self.fts,)
        return (self.whole_words, *self.params[1:])

    @property
    def lines_sql(self) -> str:
        """Ids and group ids of the top lines; parameters: ``lines_params`` then the limit."""
        # Without a score, newest first alone: a constant first term would keep SQLite from
        # reading the (service, time) or time index in order and stopping at the limit.
        order = _ORDER if self.score == _NO_SCORE else f"{self.score}, {_ORDER}"
        return (f"SELECT l.id, l.group_id FROM {self.tables} {self.rank_join} WHERE {self.where} "
                f"ORDER BY {order} LIMIT ?")

    @property
    def lines_params(self) -> tuple[Any, ...]:
        return (*self.rank_params, *self.params)

    @property
    def groups_sql(self) -> str:
        """Group id, count, first and last µs of every group; parameters: ``params``."""
        return (f"SELECT l.group_id, count(*), min(l.ts_us), max(l.ts_us) FROM {self.tables} "
                f"WHERE {self.where} GROUP BY l.group_id")

    @property
    def ids_sql(self) -> str:
        """Every matching line's id; parameters: ``params``."""
        return f"SELECT l.id FROM {self.tables} WHERE {self.where}"

    def matches(self, few: int) -> tuple[str, tuple[Any, ...]]:
        """SQL and parameters of the id, group id, µs and score of every matching line,
        unordered, when at most ``few`` match (the store ranks and groups those itself: see
        ``LogStore._run``); else at most ``few + 1`` lines, or none at all when more than
        ``few`` lines are candidates (``candidates_sql``): the first bm25 of a statement counts
        every line its MATCH finds (for the IDF), 20-50 ms that a query of many lines would
        spend here only to learn that it matches many."""
        sql = (f"SELECT l.id, l.group_id, l.ts_us, {self.score} FROM {self.tables} {self.rank_join} "
               f"WHERE {self.where} LIMIT ")
        if self.candidates is None:
            return sql + "?", (*self.lines_params, few + 1)
        gate = f"(SELECT CASE WHEN count(*) > ? THEN 0 ELSE ? END FROM ({self._candidates_select}))"
        return sql + gate, (*self.lines_params, few, few + 1, *self.candidates_params, few + 1)

    def candidates_sql(self, few: int) -> tuple[str, tuple[Any, ...]] | None:
        """SQL and parameters of how many lines are candidates, counted up to ``few + 1`` (None
        when ``matches`` is not gated by them)."""
        if self.candidates is None:
            return None
        return f"SELECT count(*) FROM ({self._candidates_select})", (*self.candidates_params, few + 1)

    @property
    def _candidates_select(self) -> str:
        return f"SELECT 1 FROM {_tables(True, False)} WHERE {self.candidates} LIMIT ?"

    @property
    def hits_sql(self) -> str:
        """The matching lines into ``temp.hits`` (id, group_id, ts_us, score), each line's text
        checked once; parameters: ``lines_params``."""
        return (f"INSERT INTO temp.hits (id, group_id, ts_us, score) SELECT l.id, l.group_id, l.ts_us, "
                f"{self.score} FROM {self.tables} {self.rank_join} WHERE {self.where}")

    @property
    def tally_sql(self) -> str:
        """Each group passing the filters whose lines are all tallied and some hold every word:
        (group id, lines, first µs, last µs), summed over the run sets holding a term of each
        word (``core.sources.logtally``); then each group passing the filters with untallied
        lines, its counts NULL (it is counted line by line). Parameters: ``tally_params``."""
        holding = " AND ".join(
            f"r.run_set IN (SELECT run_set FROM run_terms WHERE term IN ({', '.join('?' for _ in terms)}))"
            for terms in self.tally_words or ())
        return (f"SELECT r.group_id, sum(r.lines), min(r.first_us), max(r.last_us) FROM group_runs r "
                f"JOIN group_spans l ON l.group_id = r.group_id WHERE {holding} AND l.untallied = 0 AND "
                f"{self.group_where} GROUP BY r.group_id UNION ALL SELECT l.group_id, NULL, NULL, NULL "
                f"FROM group_spans l WHERE l.untallied > 0 AND {self.group_where}")

    @property
    def tally_params(self) -> tuple[Any, ...]:
        terms = tuple(term for words in self.tally_words or () for term in words)
        return (*terms, *self.group_params, *self.group_params)

    def describe(self) -> dict[str, Any]:
        """The SQL and parameters, as JSON (the request a source records)."""
        described = {"fts": self.fts, "lines_sql": self.lines_sql, "lines_params": list(self.lines_params),
                     "groups_sql": self.groups_sql, "groups_params": list(self.params)}
        if self.whole_words is not None:
            described["whole_words_params"] = list(self.whole_words_params)
        if self.tally_words is not None:
            described |= {"tally_sql": self.tally_sql, "tally_params": list(self.tally_params)}
        return described


def _search(unit: SearchUnit, terms_of: Callable[[str], list[str]]) -> UnitSearch:
    if unit.kind == "topics":
        return UnitSearch()  # found through line_topics, not FTS5
    if unit.kind == "word":
        return word_search(unit.text, terms_of(unit.text))
    return needle_search(unit, {token: terms_of(token) for token in needs_terms(unit)})


def _topics_clause(topics: tuple[str, ...], service: str | None) -> tuple[str, list[Any]]:
    """Lines tagged with one of ``topics``; with the query's service, only that service's tags
    are read (``line_topics`` is keyed by topic, then service)."""
    marks = ", ".join("?" for _ in topics)
    if service is None:
        return f"l.id IN (SELECT line_id FROM line_topics WHERE topic IN ({marks}))", list(topics)
    return (f"l.id IN (SELECT line_id FROM line_topics WHERE topic IN ({marks}) AND service_key = ?)",
            [*topics, service])


def _checks_text(search: UnitSearch) -> bool:
    return search.scan is not None or (search.regex is not None and not search.exact)


def _text_checks(search: UnitSearch) -> tuple[list[str], list[Any]]:
    """The checks of a line's text a unit needs beyond FTS5 (exact substring, exact regex).
    A regex is tried after the unit's GLOB, a sufficient condition checked in C: most lines
    FTS5 proposes hold the unit with single spaces, and skip the Python call."""
    clauses: list[str] = []
    params: list[Any] = []
    if search.scan is not None:
        clauses.append(f"{CONTAINS_SQL}")
        params.append(search.scan)
    if search.regex is not None and not search.exact:
        if search.glob is not None:
            clauses.append(f"({GLOB_SQL} OR {MATCH_SQL})")
            params += [search.glob, search.regex]
        else:
            clauses.append(MATCH_SQL)
            params.append(search.regex)
    return clauses, params


def _unit_condition(unit: SearchUnit, search: UnitSearch, service: str | None) -> tuple[str, list[Any]]:
    """A row condition exactly equivalent to "the line holds the unit" (among the lines of
    ``service``, when the query has one)."""
    if unit.kind == "topics":
        return _topics_clause(unit.topics, service)
    if search.impossible:
        return "0", []
    clauses, params = ([_FTS_IN], [search.fts]) if search.fts is not None else ([], [])
    checks, check_params = _text_checks(search)
    return "(" + " AND ".join(clauses + checks) + ")", params + check_params


def _group_filters(query: CompiledQuery, where: _Where) -> None:
    """The filters a whole group passes or fails (its lines share service and level): over
    ``l.service_key`` and ``l.level_rank``, columns of ``lines`` and of ``group_spans``."""
    if query.service is not None:
        where.add("l.service_key = ?", query.service)
    if query.min_rank is not None:
        where.add("l.level_rank >= ?", query.min_rank)
    if query.exclude_ranks:
        marks = ", ".join("?" for _ in query.exclude_ranks)
        where.add(f"(l.level_rank IS NULL OR l.level_rank NOT IN ({marks}))", *query.exclude_ranks)


def _filters(query: CompiledQuery, where: _Where) -> None:
    _group_filters(query, where)
    if query.since_us is not None:
        where.add("l.ts_us >= ?", query.since_us)
    if query.until_us is not None:
        where.add("l.ts_us < ?", query.until_us)
    if query.topic_filter:
        clause, params = _topics_clause(query.topic_filter, query.service)
        where.add(clause, *params)


def _exclusions(query: CompiledQuery, terms_of: Callable[[str], list[str]], where: _Where) -> bool:
    """Add the exclusions; whether any checks a line's text."""
    checks = False
    for unit in query.excludes:
        search = _search(unit, terms_of)
        if search.impossible:
            continue  # no line holds it: nothing to leave out
        clause, params = _unit_condition(unit, search, query.service)
        where.add(f"NOT {clause}", *params, indexed=False)  # leaving it out only adds candidates
        checks = checks or _checks_text(search)
    return checks


def _tables(fts: bool, checks_text: bool) -> str:
    tables = "lines_fts JOIN lines l ON l.id = lines_fts.rowid" if fts else "lines l"
    return tables + (" JOIN entries e ON e.id = l.id" if checks_text else "")


SpanOf = Callable[[str], tuple[int, int] | None]


def build_plan(query: CompiledQuery, terms_of: Callable[[str], list[str]], span_of: SpanOf | None = None,
               groups: Sequence[int] = ()) -> QueryPlan:
    """The SQL of ``query``. ``terms_of(text)`` lists the vocabulary terms containing ``text``
    (at most ``CANDIDATE_TERMS + 1``); ``span_of(service_key)`` the first and last line id of a
    service (None: it has no lines), which bounds an FTS5 search by rowid: FTS5 then skips the
    other services' hits instead of handing each to the join that drops it (a file per service
    makes the span tight; interleaved services make it wide, never wrong). ``groups``, when
    given, keeps only the lines of those groups (a recount: ``core.sources.logtally``)."""
    searches = [(unit, _search(unit, terms_of)) for unit in query.units]
    where = _Where()
    if query.match_any:
        assert not groups, "a recount is of a query of words that must all match"
        return _any_plan(query, searches, terms_of, where)
    if any(unit.kind != "topics" and search.impossible for unit, search in searches):
        return QueryPlan(empty=True)
    fts_parts = [search.fts for _, search in searches if search.fts is not None]
    fts = " AND ".join(fts_parts) if fts_parts else None
    whole_parts = [_whole_word(unit, search) or search.fts for unit, search in searches if search.fts is not None]
    if fts is not None:
        where.add("lines_fts MATCH ?", fts)
        span = span_of(query.service) if span_of is not None and query.service is not None else None
        if span is not None:
            where.add("lines_fts.rowid BETWEEN ? AND ?", *span)
    _filters(query, where)
    if groups:
        where.add(f"l.group_id IN ({', '.join('?' for _ in groups)})", *groups)
    checks = _exclusions(query, terms_of, where)
    for unit, search in searches:
        if unit.kind == "topics":
            clause, params = _topics_clause(unit.topics, query.service)
            where.add(clause, *params)
            continue
        clauses, params = _text_checks(search)
        if clauses:
            where.add(" AND ".join(clauses), *params, indexed=False)
        checks = checks or _checks_text(search)
    tally = _tally_words(query, searches)
    group_where = _Where()
    if tally is not None:
        _group_filters(query, group_where)
    return QueryPlan(tables=_tables(fts is not None, checks), where=where.sql(), params=where.params(),
                     score=BM25 if fts is not None else _NO_SCORE, fts=fts, checks_text=checks,
                     whole_words=" AND ".join(whole_parts) if whole_parts != fts_parts else None,
                     candidates=where.sql(indexed_only=True) if fts is not None else None,
                     candidates_params=where.params(indexed_only=True),
                     tally_words=tally, group_where=group_where.sql(), group_params=group_where.params())


def _tally_words(query: CompiledQuery, searches: list[tuple[SearchUnit, UnitSearch]]
                 ) -> tuple[tuple[str, ...], ...] | None:
    """Each word's terms, when the query's groups can be counted from the tallies: its units are
    words found exactly by their terms, and nothing else asks about single lines (time, topics,
    exclusions). None otherwise."""
    if (not searches or query.excludes or query.topic_filter or query.since_us is not None
            or query.until_us is not None):
        return None
    if not all(unit.kind == "word" and search.exact and search.terms and countable(unit.text)
               for unit, search in searches):
        return None
    return tuple(search.terms for _, search in searches)


def _whole_word(unit: SearchUnit, search: UnitSearch) -> str | None:
    """An ASCII word also found inside longer terms, narrowed to its own term (``container``,
    not ``rmcontainerallocator``): the plan's ``whole_words``, the lines ranked first (None:
    nothing to narrow)."""
    if unit.kind == "word" and unit.text.isascii() and unit.text in search.terms and len(search.terms) > 1:
        return "{body meta}: " + quote(unit.text)
    return None


def _any_plan(query: CompiledQuery, searches: list[tuple[SearchUnit, UnitSearch]],
              terms_of: Callable[[str], list[str]], where: _Where) -> QueryPlan:
    """``match="any"``: a line holds at least one unit; ranked by bm25 of the units FTS5 sees."""
    possible = [(unit, search) for unit, search in searches if unit.kind == "topics" or not search.impossible]
    if query.units and not possible:
        return QueryPlan(empty=True)
    _filters(query, where)
    checks = _exclusions(query, terms_of, where)
    if possible:
        conditions = [_unit_condition(unit, search, query.service) for unit, search in possible]
        where.add("(" + " OR ".join(clause for clause, _ in conditions) + ")",
                  *[param for _, params in conditions for param in params])
        checks = checks or any(_checks_text(search) for _, search in possible)
    parts = [search.fts for _, search in possible if search.fts is not None]
    fts = " OR ".join(f"({part})" for part in parts) if parts else None
    if fts is None:
        return QueryPlan(tables=_tables(False, checks), where=where.sql(), params=where.params(),
                         checks_text=checks)
    rank_join = (f"LEFT JOIN (SELECT rowid AS id, {BM25} AS score FROM lines_fts WHERE lines_fts MATCH ?) h "
                 "ON h.id = l.id")
    return QueryPlan(tables=_tables(False, checks), where=where.sql(), params=where.params(),
                     score="coalesce(h.score, 0.0)", rank_join=rank_join, rank_params=(fts,), fts=fts,
                     checks_text=checks)
