"""The log store answers query_logs: ranking, groups, the request it ran, stats, lexicon changes."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from core.contracts import LogEntry
from core.errors import LogStoreError
from core.sources.logfile import SCHEMA_VERSION, check_store, connect, read_meta, upgrade_schema
from core.sources.logimport import import_files
from core.sources.logstore import LogStore
from core.tools.args import QueryLogsArgs


def _entries() -> list[LogEntry]:
    lines = [("INFO", "api", f"GET /orders/{i} status=200 took {i}ms") for i in range(40)]
    lines += [("ERROR", "api", f"timeout calling db-{i % 3} after 30000ms") for i in range(12)]
    lines += [("ERROR", "worker", "timeout timeout: queue timeout while draining")]
    lines += [("FATAL", "worker", "out of memory, worker killed")]
    lines += [("WARN", "worker", f"retry {i} of job 7") for i in range(5)]
    return [LogEntry(timestamp=f"2026-07-08T10:{i // 60:02d}:{i % 60:02d}+08:00", level=level, service=service,
                     message=message) for i, (level, service, message) in enumerate(lines)]


@pytest.fixture
def store() -> LogStore:
    return LogStore.from_entries(_entries())


def test_ranked_by_relevance_newest_first_on_ties(store: LogStore) -> None:
    result, _ = store.query_logs(QueryLogsArgs(query="timeout", limit=5))
    assert result.total == 13
    assert result.logs[0].message == "timeout timeout: queue timeout while draining"  # most relevant
    tied = [entry.timestamp for entry in result.logs[1:]]
    assert tied == sorted(tied, reverse=True)  # the same text: newest first
    plain, _ = store.query_logs(QueryLogsArgs(service="api", limit=3))
    assert [entry.message for entry in plain.logs] == [
        "timeout calling db-2 after 30000ms", "timeout calling db-1 after 30000ms",
        "timeout calling db-0 after 30000ms"]  # no search units: newest first


def test_groups_cover_every_matching_line(store: LogStore) -> None:
    result, _ = store.query_logs(QueryLogsArgs(level="WARN", limit=3))
    assert result.total == 19 and sum(group.count for group in result.groups) == 19
    first = result.groups[0]
    assert (first.template, first.count, first.service, first.level) == (
        "timeout calling <*> after <*>", 12, "api", "ERROR")
    assert first.first_timestamp == "2026-07-08T10:00:40+08:00"
    assert first.last_timestamp == "2026-07-08T10:00:51+08:00"
    shown = [index for group in result.groups for index in group.sample_indexes]
    assert sorted(shown) == [0, 1, 2]  # every shown line belongs to exactly one group
    for group in result.groups:
        for index in group.sample_indexes:
            assert (result.logs[index].service, result.logs[index].level) == (group.service, group.level)


def test_the_request_says_what_ran(store: LogStore) -> None:
    result, request = store.query_logs(QueryLogsArgs(query="/orders/7", exclude=["debug"]))
    assert result.total == 1
    # the validated arguments (what a cited invocation's arguments are held to), then what ran
    assert request["query"] == "/orders/7" and request["limit"] == 20 and request["exclude"] == ["debug"]
    search = request["search"]
    assert search["query"]["units"] == [{"kind": "identifier", "text": "/orders/7"}]
    assert search["query"]["exclude_level_ranks"] == [1]
    assert search["fts"] == '{body meta}: "orders 7"' and "sb_match" in search["lines_sql"]


def test_no_match_and_impossible_words(store: LogStore) -> None:
    for arguments in ({"query": "zzzqqq"}, {"terms": ["memory killed"]}, {"service": "nobody"}):
        result, _ = store.query_logs(QueryLogsArgs(**arguments))
        assert (result.total, result.logs, result.groups) == (0, [], [])
        assert result.message == "未找到匹配的日志"


def test_a_store_is_a_log_source_of_a_world(store: LogStore) -> None:
    from datetime import UTC, datetime

    from core.sources.base import LogSource, World
    from core.tools.spec import call_tool

    source: LogSource = store  # structurally a LogSource (mypy checks this line)
    world = World(name="imported", now=datetime(2026, 7, 8, tzinfo=UTC), logs=source)
    answer = call_tool(world, "query_logs", {"query": "timeout", "service": "api"})
    assert answer.source == store.source_id and answer.request["service"] == "api"
    assert answer.request["search"]["query"]["service"] == "api"
    assert answer.output["total"] == 12 and answer.output["groups"][0]["count"] == 12
    assert world.vocabulary.log_services == ("api", "worker")
    description = store.describe()
    assert (description.kind, description.capability, description.holds["lines"]) == ("logstore", "logs", 59)


def test_stats(store: LogStore) -> None:
    stats = store.stats()
    assert stats["lines"] == 59 and stats["services"] == {"api": 52, "worker": 7}
    assert list(stats["levels"]) == ["FATAL", "ERROR", "WARN", "INFO"]
    assert stats["first_timestamp"] == "2026-07-08T10:00:00+08:00"


def test_concurrent_queries(store: LogStore) -> None:
    totals: list[int] = []

    def ask() -> None:
        for _ in range(20):
            totals.append(store.query_logs(QueryLogsArgs(query="timeout"))[0].total)

    threads = [threading.Thread(target=ask) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert totals == [13] * 80


def _imported_then_changed(tmp_path: Path, *statements: str) -> tuple[Path, Path]:
    """(the log file, a store of it) with ``statements`` then run on the store."""
    log = tmp_path / "app.log"
    log.write_text("2024-03-01 10:00:00,000 WARN [m] a.B: HikariPool-1 - Connection is not available\n")
    path = tmp_path / "s.db"
    import_files([log], path)
    connection = sqlite3.connect(path)
    with connection:
        for statement in statements:
            connection.execute(statement)
    connection.close()
    return log, path


def test_a_changed_lexicon_retags_the_topics(tmp_path: Path) -> None:
    _, path = _imported_then_changed(tmp_path, "DELETE FROM line_topics",
                                     "UPDATE meta SET value = 'old' WHERE key = 'lexicon'")
    assert LogStore.open(path).query_logs(QueryLogsArgs(topic="connection_pool"))[0].total == 1


def test_opening_what_is_not_a_store(tmp_path: Path) -> None:
    assert check_store(tmp_path / "none.db") == "log store not found"
    assert check_store(tmp_path) == "log store is not a file"
    other = tmp_path / "other.db"
    sqlite3.connect(other).execute("CREATE TABLE t (x)").connection.close()
    assert check_store(other) is not None and "not a log store" in (check_store(other) or "")
    with pytest.raises(LogStoreError, match="not a log store"):
        LogStore.open(other)


_SCHEMA_2_TOPICS = ("CREATE TABLE old_topics (topic TEXT NOT NULL, line_id INTEGER NOT NULL, "
                    "PRIMARY KEY (topic, line_id)) WITHOUT ROWID",
                    "INSERT INTO old_topics SELECT topic, line_id FROM line_topics",
                    "DROP TABLE line_topics", "ALTER TABLE old_topics RENAME TO line_topics")


_SCHEMA_3_TALLIES = ("DROP TABLE group_spans", "DROP TABLE run_sets", "DROP TABLE run_terms", "DROP TABLE group_runs")


def _schema_1(tmp_path: Path) -> tuple[Path, Path]:
    """A store as version 1 wrote it: no service spans, topics not keyed by service, no tallies."""
    return _imported_then_changed(tmp_path, "DROP TABLE service_spans", *_SCHEMA_2_TOPICS, *_SCHEMA_3_TALLIES,
                                  "DROP TABLE file_marks", "UPDATE meta SET value = '1' WHERE key = 'schema'")


def test_a_store_of_schema_2_gets_its_topics_keyed_by_service(tmp_path: Path) -> None:
    _, path = _imported_then_changed(tmp_path, *_SCHEMA_2_TOPICS, *_SCHEMA_3_TALLIES,
                                     "UPDATE meta SET value = '2' WHERE key = 'schema'")
    store = LogStore.open(path)
    result, request = store.query_logs(QueryLogsArgs(service="app", topic="connection_pool"))
    assert result.total == 1
    assert "FROM line_topics WHERE topic IN (?) AND service_key = ?)" in request["search"]["lines_sql"]
    assert store.query_logs(QueryLogsArgs(service="other", topic="connection_pool"))[0].total == 0
    with store.connection() as connection:
        assert read_meta(connection)["schema"] == SCHEMA_VERSION
        assert connection.execute("SELECT topic, service_key, line_id FROM line_topics").fetchall() == [
            ("connection_pool", "app", 1)]


def test_a_store_of_schema_1_is_brought_up_to_date_when_opened(tmp_path: Path) -> None:
    _, path = _schema_1(tmp_path)
    assert check_store(path) is None
    store = LogStore.open(path)
    assert store.query_logs(QueryLogsArgs(service="app", query="connection"))[0].total == 1
    with store.connection() as connection:
        assert read_meta(connection)["schema"] == SCHEMA_VERSION
        spans = connection.execute("SELECT service_key, first_id, last_id FROM service_spans").fetchall()
        expected = connection.execute("SELECT service_key, min(id), max(id) FROM lines GROUP BY service_key")
        assert sorted(spans) == sorted(expected.fetchall())


def test_a_store_of_schema_1_is_brought_up_to_date_before_an_append(tmp_path: Path) -> None:
    log, path = _schema_1(tmp_path)
    other = tmp_path / "other" / log.name  # the same service's lines, another file
    other.parent.mkdir()
    other.write_bytes(log.read_bytes())
    import_files([other], path)
    store = LogStore.open(path)
    with store.connection() as connection:
        assert read_meta(connection)["schema"] == SCHEMA_VERSION
    assert store.line_count() == 2
    assert store.query_logs(QueryLogsArgs(service="app", query="connection"))[0].total == 2


def test_a_store_of_schema_1_that_cannot_be_written_says_what_to_do(tmp_path: Path) -> None:
    _, path = _schema_1(tmp_path)
    connection = connect(path, readonly=True)  # as a read-only file would be, even for root
    expected = rf"schema '1' cannot be brought to '{SCHEMA_VERSION}' .*; import the files again"
    with pytest.raises(LogStoreError, match=expected):
        upgrade_schema(connection)
    connection.close()
    assert check_store(path) is None  # left as it was: a writable open upgrades it


def test_a_store_of_an_unknown_schema_is_refused_with_what_to_do(tmp_path: Path) -> None:
    log, path = _imported_then_changed(tmp_path, "UPDATE meta SET value = '0' WHERE key = 'schema'")
    expected = f"log store schema '0' is not the supported '{SCHEMA_VERSION}'; import the files again"
    assert check_store(path) == expected
    with pytest.raises(LogStoreError, match=expected):
        LogStore.open(path)
    with pytest.raises(LogStoreError, match=expected):  # nor appended to
        import_files([log], path)


QUERIES: list[dict[str, object]] = [
    {"query": "timeout"}, {"query": "timeout", "limit": 3}, {"query": "/orders/7"}, {"query": "orders"},
    {"service": "api"}, {"level": "WARN"}, {"query": "timeout calling"}, {"query": "retry killed", "match": "any"},
    {"terms": ["timeout calling"]}, {"query": "job", "service": "worker"}, {"exclude": ["timeout"]},
    {"query": "took", "service": "api", "limit": 7}]


@pytest.mark.parametrize("arguments", QUERIES)
def test_few_matches_are_ranked_and_grouped_as_sqlite_does(store: LogStore, arguments: dict[str, object],
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """A query matching few lines is ranked and grouped in Python from one select; SQLite does
    it past ``FEW_MATCHES``. Both give the same lines in the same order and the same groups."""
    import core.sources.logstore as logstore

    args = QueryLogsArgs.model_validate(arguments)
    few, _ = store.query_logs(args)
    monkeypatch.setattr(logstore, "FEW_MATCHES", 0)
    many, _ = store.query_logs(args)
    assert few.total > 0
    assert few.model_dump() == many.model_dump()


def _spans(path: Path) -> list[tuple[str, int, int]]:
    connection = sqlite3.connect(path)
    try:
        return connection.execute("SELECT service_key, first_id, last_id FROM service_spans ORDER BY 1").fetchall()
    finally:
        connection.close()


def test_a_service_filter_bounds_the_full_text_search_by_the_services_line_ids(tmp_path: Path) -> None:
    """Each service's first and last line id bound its FTS5 search (rowid BETWEEN); appends and
    services interleaved in one file widen the span, and every line of the service is still found."""
    def write(name: str, start: int, services: list[str]) -> Path:
        path = tmp_path / name
        path.write_text("".join(f'{{"timestamp": "2024-03-01T10:{(start + i) // 60:02d}:{(start + i) % 60:02d}Z", '
                                f'"level": "INFO", "service": "{service}", "message": "job {start + i} done"}}\n'
                                for i, service in enumerate(services)))
        return path

    path = tmp_path / "s.db"
    import_files([write("a.jsonl", 0, ["pay"] * 10), write("b.jsonl", 10, ["ship"] * 10)], path)
    assert _spans(path) == [("pay", 1, 10), ("ship", 11, 20)]
    import_files([write("c.jsonl", 20, ["ship", "Pay"] * 5)], path)
    assert _spans(path) == [("pay", 1, 30), ("ship", 11, 29)]
    store = LogStore.open(path)
    result, request = store.query_logs(QueryLogsArgs(query="done", service="pay", limit=200))
    assert result.total == 15
    search = request["search"]
    assert "lines_fts.rowid BETWEEN ? AND ?" in search["lines_sql"] and search["lines_params"][1:3] == [1, 30]
    assert store.query_logs(QueryLogsArgs(query="done", service="ship"))[0].total == 15
    assert store.query_logs(QueryLogsArgs(query="done", service="nobody"))[0].total == 0


def test_a_word_held_whole_ranks_before_the_word_inside_longer_terms(monkeypatch: pytest.MonkeyPatch) -> None:
    """``container`` is found inside ``rmcontainerallocator`` too (words are substrings), but
    the lines holding it as a word of its own come first, though the rarer longer term scores
    higher by bm25; past ``FEW_MATCHES`` SQLite gives the same order."""
    import core.sources.logstore as logstore

    messages = ["rmcontainerallocator assigned", "container started", "containers released",
                "container started", "container01 ready", "job done"]
    store = LogStore.from_entries([LogEntry(timestamp=f"2026-07-08T10:00:{i:02d}Z", level="INFO", service="rm",
                                            message=message) for i, message in enumerate(messages)])
    args = QueryLogsArgs(query="container")
    few, request = store.query_logs(args)
    assert few.total == 5
    assert [entry.message for entry in few.logs[:2]] == ["container started"] * 2
    assert [entry.timestamp for entry in few.logs[:2]] == ["2026-07-08T10:00:03Z", "2026-07-08T10:00:01Z"]
    assert {entry.message for entry in few.logs[2:]} == {"rmcontainerallocator assigned", "containers released",
                                                         "container01 ready"}
    assert request["search"]["whole_words_params"][0] == '{body meta}: "container"'
    monkeypatch.setattr(logstore, "FEW_MATCHES", 0)
    many, _ = store.query_logs(args)
    assert many.model_dump() == few.model_dump()
    narrow, _ = store.query_logs(QueryLogsArgs(query="container", limit=1))
    assert [entry.timestamp for entry in narrow.logs] == ["2026-07-08T10:00:03Z"] and narrow.total == 5


def test_many_candidates_and_few_matches_give_what_few_candidates_give(store: LogStore,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Past ``FEW_MATCHES`` candidates (FTS5 and filters, before the text checks) the select of
    a few matches returns nothing and SQLite ranks and groups: the same lines, order and groups
    as when the candidates are few, also when the checks leave few or no lines."""
    import core.sources.logstore as logstore

    cases = [QueryLogsArgs(query="timeout", exclude=["calling"]),  # 13 candidates, 1 match
             QueryLogsArgs(terms=["db 1"]),  # 4 candidates (FTS5 finds db-1), no match
             QueryLogsArgs(query="calling", exclude=["db-1", "db-2"]),  # 12 candidates, 4 matches
             QueryLogsArgs(terms=["calling db"]),  # 12 and 12
             QueryLogsArgs(terms=["after 30000ms"], since="2026-07-08T10:00:50+08:00")]  # 2 and 2
    answers = [store.query_logs(args)[0].model_dump() for args in cases]
    assert [answer["total"] for answer in answers] == [1, 0, 4, 12, 2]
    monkeypatch.setattr(logstore, "FEW_MATCHES", 2)
    assert [store.query_logs(args)[0].model_dump() for args in cases] == answers


def test_the_request_states_the_glob_the_store_runs_with_a_unary_plus(store: LogStore) -> None:
    """A GLOB's pattern is bound as ``+?`` (SQLite would re-prepare a statement for every
    binding of ``GLOB ?``); the request states the SQL that ran, and ``+?`` selects what ``?`` does."""
    from core.sources.logsql import GLOB_SQL, build_plan
    from core.tools.logquery import compile_query

    assert GLOB_SQL.endswith("GLOB +?")
    _, request = store.query_logs(QueryLogsArgs(terms=["calling db"]))
    assert GLOB_SQL in request["search"]["lines_sql"]
    query = compile_query(QueryLogsArgs(terms=["calling db"]), store.services(), store.zone)
    plain = GLOB_SQL.removesuffix("+?") + "?"
    with store.connection() as connection:
        plan = build_plan(query, lambda _: [], None)
        assert all(GLOB_SQL in sql for sql in (plan.lines_sql, plan.groups_sql, plan.matches(10)[0],
                                               plan.hits_sql, plan.ids_sql))
        for stated in (plan.lines_sql, plan.groups_sql):
            params = (*plan.lines_params, 100) if "LIMIT" in stated else plan.params
            ran = connection.execute(stated, params).fetchall()
            assert ran and ran == connection.execute(stated.replace(GLOB_SQL, plain), params).fetchall()
