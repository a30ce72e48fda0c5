"""A compiled ``query_logs`` query as SQL over the log store's schema (``core.sources.logstore``).

``build_plan`` turns a ``CompiledQuery`` (what matches, ``core.tools.logquery``) into one
``FROM ... WHERE ...`` core and the selects the store runs on it: the top lines ranked by
FTS5 ``bm25`` (newest first on ties) and the groups (``GROUP BY`` template, service, level).
Filters use the indexes (service, level rank, time); units use FTS5 where it can find them,
the ``line_topics`` table for topics, and two SQL functions the store registers where FTS5
cannot decide alone: ``sb_regex(pattern, text)`` (the unit's exact regex) and ``instr``.
The ranked and grouped selects read only the narrow ``lines`` table; a line's text (in
``entries``) is read for the lines returned, and for the candidates a regex or scan checks.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from core.sources.logtext import UnitSearch, needle_search, needs_terms, word_search
from core.tools.logquery import CompiledQuery, SearchUnit

# The search text of a line in SQL: equal to ``logquery.search_text`` (ASCII lines compute it
# with ``lower``; the others keep it in ``folded``, since NFKC is not ``lower``).
SEARCH_TEXT_SQL = ("(SELECT coalesce(e.folded, lower(e.message || char(31) || e.level || ' ' || e.service"
                   " || ' ' || ifnull(e.source, '') || ' ' || ifnull(e.host, ''))) FROM entries e WHERE e.id = l.id)")
# Column weights of bm25: the message counts most; level/service/source/host and word parts less.
BM25 = "bm25(lines_fts, 1.0, 0.5, 0.5)"
LINE_COLUMNS = "l.id, l.group_id"


@dataclass
class _Where:
    clauses: list[str] = field(default_factory=list)
    params: list[Any] = field(default_factory=list)

    def add(self, clause: str, *params: Any) -> None:
        self.clauses.append(clause)
        self.params.extend(params)

    def sql(self) -> str:
        return " AND ".join(self.clauses) if self.clauses else "1"


@dataclass(frozen=True)
class QueryPlan:
    """The SQL of one query: ``lines_sql`` (ids and group ids of the top lines, ``?`` for the
    limit last), ``groups_sql`` (group id, count, first and last µs of every group), their
    parameters, and the FTS5 expression used."""

    lines_sql: str
    lines_params: tuple[Any, ...]
    groups_sql: str
    groups_params: tuple[Any, ...]
    fts: str | None
    empty: bool = False

    @property
    def ids_sql(self) -> str:
        """Every matching line's id (the groups' core, without the grouping)."""
        return self.groups_sql.replace(_GROUP_SELECT, "SELECT l.id ", 1).rsplit(" GROUP BY ", 1)[0]

    def describe(self) -> dict[str, Any]:
        """The SQL and parameters, as JSON (the request a source records)."""
        return {"fts": self.fts, "lines_sql": self.lines_sql, "lines_params": list(self.lines_params),
                "groups_sql": self.groups_sql, "groups_params": list(self.groups_params)}


def _search(unit: SearchUnit, terms_of: Callable[[str], list[str]]) -> UnitSearch:
    if unit.kind == "topics":
        return UnitSearch()  # found through line_topics, not FTS5
    if unit.kind == "word":
        return word_search(unit.text, terms_of(unit.text))
    return needle_search(unit, {token: terms_of(token) for token in needs_terms(unit)})


def _topics_clause(topics: tuple[str, ...]) -> tuple[str, list[Any]]:
    marks = ", ".join("?" for _ in topics)
    return f"l.id IN (SELECT line_id FROM line_topics WHERE topic IN ({marks}))", list(topics)


_FTS_IN = "l.id IN (SELECT rowid FROM lines_fts WHERE lines_fts MATCH ?)"


def _unit_condition(unit: SearchUnit, search: UnitSearch) -> tuple[str, list[Any]]:
    """A row condition exactly equivalent to "the line holds the unit"."""
    if unit.kind == "topics":
        return _topics_clause(unit.topics)
    if search.impossible:
        return "0", []
    parts: list[str] = []
    params: list[Any] = []
    if search.fts is not None:
        parts.append(_FTS_IN)
        params.append(search.fts)
    if search.scan is not None:
        parts.append(f"instr({SEARCH_TEXT_SQL}, ?) > 0")
        params.append(search.scan)
    if search.regex is not None and not search.exact:
        parts.append(f"sb_regex(?, {SEARCH_TEXT_SQL})")
        params.append(search.regex)
    return "(" + " AND ".join(parts) + ")", params


def _filters(query: CompiledQuery, where: _Where) -> None:
    if query.service is not None:
        where.add("l.service_key = ?", query.service)
    if query.min_rank is not None:
        where.add("l.level_rank >= ?", query.min_rank)
    if query.exclude_ranks:
        marks = ", ".join("?" for _ in query.exclude_ranks)
        where.add(f"(l.level_rank IS NULL OR l.level_rank NOT IN ({marks}))", *query.exclude_ranks)
    if query.since_us is not None:
        where.add("l.ts_us >= ?", query.since_us)
    if query.until_us is not None:
        where.add("l.ts_us < ?", query.until_us)
    if query.topic_filter:
        clause, params = _topics_clause(query.topic_filter)
        where.add(clause, *params)


def _exclusions(query: CompiledQuery, terms_of: Callable[[str], list[str]], where: _Where) -> None:
    for unit in query.excludes:
        search = _search(unit, terms_of)
        if search.impossible:
            continue  # no line holds it: nothing to leave out
        clause, params = _unit_condition(unit, search)
        where.add(f"NOT {clause}", *params)


def build_plan(query: CompiledQuery, terms_of: Callable[[str], list[str]]) -> QueryPlan:
    """The SQL of ``query``. ``terms_of(text)`` lists the vocabulary terms containing ``text``
    (at most ``CANDIDATE_TERMS + 1``)."""
    searches = [(unit, _search(unit, terms_of)) for unit in query.units]
    where = _Where()
    _filters(query, where)
    _exclusions(query, terms_of, where)
    order = "l.ts_us DESC, l.id DESC"
    if not query.match_any:
        if any(unit.kind != "topics" and search.impossible for unit, search in searches):
            return QueryPlan("", (), "", (), None, empty=True)
        fts_parts = [search.fts for _, search in searches if search.fts is not None]
        for unit, search in searches:
            if unit.kind == "topics":
                clause, params = _topics_clause(unit.topics)
                where.add(clause, *params)
                continue
            if search.scan is not None:
                where.add(f"instr({SEARCH_TEXT_SQL}, ?) > 0", search.scan)
            if search.regex is not None and not search.exact:
                where.add(f"sb_regex(?, {SEARCH_TEXT_SQL})", search.regex)
        if fts_parts:
            fts = " AND ".join(fts_parts)
            core = "FROM lines_fts JOIN lines l ON l.id = lines_fts.rowid WHERE lines_fts MATCH ? AND "
            lines_sql = (f"SELECT {LINE_COLUMNS} {core}{where.sql()} "
                         f"ORDER BY {BM25}, {order} LIMIT ?")
            with_fts: tuple[Any, ...] = (fts, *where.params)
            return QueryPlan(lines_sql, with_fts, _groups_sql(core + where.sql()), with_fts, fts)
        core = "FROM lines l WHERE "
        lines_sql = f"SELECT {LINE_COLUMNS} {core}{where.sql()} ORDER BY {order} LIMIT ?"
        plain = tuple(where.params)
        return QueryPlan(lines_sql, plain, _groups_sql(core + where.sql()), plain, None)
    # match="any": a line holds at least one unit; ranked by bm25 of the units FTS5 can see.
    possible = [(unit, search) for unit, search in searches
                if unit.kind == "topics" or not search.impossible]
    if query.units and not possible:
        return QueryPlan("", (), "", (), None, empty=True)
    if possible:
        conditions = [_unit_condition(unit, search) for unit, search in possible]
        where.add("(" + " OR ".join(clause for clause, _ in conditions) + ")",
                  *[param for _, params in conditions for param in params])
    any_parts = [search.fts for _, search in possible if search.fts is not None]
    any_fts = " OR ".join(f"({part})" for part in any_parts) if any_parts else None
    core = "FROM lines l WHERE "
    if any_fts is None:
        lines_sql = f"SELECT {LINE_COLUMNS} {core}{where.sql()} ORDER BY {order} LIMIT ?"
        lines_params: tuple[Any, ...] = tuple(where.params)
    else:
        lines_sql = (f"SELECT {LINE_COLUMNS} FROM lines l LEFT JOIN (SELECT rowid AS id, {BM25} AS score "
                     f"FROM lines_fts WHERE lines_fts MATCH ?) h ON h.id = l.id WHERE {where.sql()} "
                     f"ORDER BY coalesce(h.score, 0.0), {order} LIMIT ?")
        lines_params = (any_fts, *where.params)
    return QueryPlan(lines_sql, lines_params, _groups_sql(core + where.sql()), tuple(where.params), any_fts)


_GROUP_SELECT = "SELECT l.group_id, count(*), min(l.ts_us), max(l.ts_us) "


def _groups_sql(core: str) -> str:
    return f"{_GROUP_SELECT}{core} GROUP BY l.group_id"
