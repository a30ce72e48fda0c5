"""The ClickHouse log source (core.sources.clickhouse) on the real engine, embedded (chdb).

It must answer ``query_logs`` as the log store does: the same lines, totals and groups on the
loghub samples and on the mixed Chinese/English and spacing packs of the store's own
differential test; an ``otel_logs`` table written by the OpenTelemetry Collector (its DDL, rows
inserted with SQL, not by our importer) is asked through a sources file; the recorded SQL uses
the primary key and the token index (``EXPLAIN indexes = 1``: granules skipped); an answer cut
by ``max_rows_to_read`` fails the call instead of reading as an absence; and the real-data eval
questions get the same verdicts and answers on both.

One chdb engine runs per process, on one folder: the module shares one (each case its table).
A ClickHouse server runs the same agreement test where ``SUPERBIZ_TEST_CLICKHOUSE_URL`` names
one (skipped otherwise: no server is installed here, and Debian's clickhouse-server 18.16 is too
old for the token index).
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from core.contracts import LogsResult
from core.errors import SourceError
from core.sources.logimport import import_files
from core.sources.logstore import LogStore
from core.tools.args import QueryLogsArgs
from tests.test_logstore_differential import HAND_WRITTEN, LOGHUB, SPACING_LINES, _chinese_pack, _drawn, _loghub_pack

pytest.importorskip("chdb")

from core.sources.clickhouse import ChdbClient, ClickHouseLogs, Client
from core.sources.clickhouse.writer import import_into, write_store

SERVER_URL = os.environ.get("SUPERBIZ_TEST_CLICKHOUSE_URL", "")
NO_SERVER = ("no ClickHouse server to test against: set SUPERBIZ_TEST_CLICKHOUSE_URL to one (22.8 or newer; "
             "Debian's clickhouse-server 18.16 is too old for the token index)")


@pytest.fixture(scope="module")
def chdb(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ChdbClient]:
    ChdbClient.close_all()
    yield ChdbClient(str(tmp_path_factory.mktemp("chdb")))
    ChdbClient.close_all()


def _table(client: Client, name: str, store: LogStore) -> ClickHouseLogs:
    with store.connection() as connection:
        write_store(connection, client, "otel", name)
    return ClickHouseLogs(client, "otel", name, kind="chdb")


def _key(result: LogsResult) -> tuple[int, list[tuple[Any, ...]]]:
    return result.total, sorted((g.template, g.count, g.service, g.level, g.first_timestamp, g.last_timestamp)
                                for g in result.groups)


def _agree(store: LogStore, table: ClickHouseLogs, queries: list[dict[str, Any]], services: list[str]) -> int:
    """Every query: the same total and groups, and (when every match is shown) the same lines;
    newest first in ClickHouse. How many queries found something."""
    found = 0
    for arguments in queries:
        args = QueryLogsArgs(**{**arguments, "limit": 200})
        expected, _ = store.query_logs(args, services)
        got, request = table.query_logs(args, services)
        assert _key(got) == _key(expected), arguments
        lines = [(e.timestamp, e.level, e.service, e.message, e.source, e.host) for e in got.logs]
        if expected.total <= 200:
            assert sorted(lines) == sorted((e.timestamp, e.level, e.service, e.message, e.source, e.host)
                                           for e in expected.logs), arguments
        assert request["search"]["statements"] or not expected.total, arguments  # what ran is recorded
        found += bool(expected.total)
    return found


def test_chinese_english_and_spacing_lines_agree(chdb: ChdbClient, tmp_path: Path) -> None:
    from core.contracts import LogEntry

    pack = _chinese_pack(tmp_path)
    store = LogStore.from_entries(pack.logs, pack.now.tzinfo or None)  # type: ignore[arg-type]
    queries = HAND_WRITTEN + [{"query": w} for w in ("连接", "超时", "使用率", "张三", "a1b2c3", "12ms")]
    queries += [{"terms": [t]} for t in ("连", "池", "timeout=30s", "使用率过高: 91%")] + _drawn(pack, 2, 30)
    assert _agree(store, _table(chdb, "chinese", store), queries, pack.services) >= len(queries) // 3
    entries = [LogEntry(timestamp=f"2026-03-01T10:{minute:02d}:00+08:00", level="ERROR", service="edge",
                        message=message) for minute, message in enumerate(SPACING_LINES)]
    spacing = LogStore.from_entries(entries)
    queries = [{"terms": ["connection refused"]}, {"terms": ["connection  refused"]}, {"terms": ["a*b?[c]"]},
               {"query": '"connection refused" 10.0.0.8'}, {"query": "a*b?[c]"}, {"terms": ["连接 超时"]},
               {"query": "/api/v1/*users*"}, {"exclude": ["connection refused"]},
               {"terms": ["connection refused", "twice spaced"], "match": "any"}]
    assert _agree(spacing, _table(chdb, "spacing", spacing), queries, ["edge"]) >= 6


CORPORA = Path(__file__).resolve().parents[1].parent / "shared" / "corpora"


@pytest.fixture(scope="module")
def loghub(chdb: ChdbClient, tmp_path_factory: pytest.TempPathFactory) -> tuple[LogStore, ClickHouseLogs, Any]:
    """The five samples imported into a store and, by ``logs import --to-chdb``'s writer, a table."""
    if not (CORPORA / "loghub").is_dir():
        pytest.skip(f"the loghub samples are not at {CORPORA}/loghub")
    corpora_dir = CORPORA
    folder = tmp_path_factory.mktemp("loghub")
    files = [corpora_dir / "loghub" / name / f"{name}_2k.log" for name in LOGHUB]
    _, written = import_into(files, chdb, "otel", "otel_logs")
    assert written == 10_000
    pack = _loghub_pack(corpora_dir, folder)  # imports loghub.db with the same files
    return LogStore.open(folder / "loghub.db"), ClickHouseLogs(chdb, kind="chdb"), pack


def test_loghub_samples_agree_line_for_line(loghub: tuple[LogStore, ClickHouseLogs, Any]) -> None:
    store, table, pack = loghub
    assert table.services() == store.services()
    queries = HAND_WRITTEN + _drawn(pack, 3, 30) + [
        {"service": "HDFS_2k", "since": "2008-11-09T20:40", "until": "2008-11-09T21:00"}, {"topic": "memory"},
        {"query": "blk_-1608999687919862906"}, {"query": "10.10.34.11", "level": "INFO"}]
    assert _agree(store, table, queries, pack.services) >= len(queries) // 3


def test_the_request_records_each_statement_its_parameters_and_rows_read(
        loghub: tuple[LogStore, ClickHouseLogs, Any]) -> None:
    _, table, _ = loghub
    _, request = table.query_logs(QueryLogsArgs(query="blk_-1608999687919862906", service="HDFS_2k"))
    statements = request["search"]["statements"]
    assert [s["sql"].count("hasToken(Body, {p") for s in statements] == [1, 1]
    assert all("ServiceName IN {p0:Array(String)}" in s["sql"] and s["params"]["p0"] == ["HDFS_2k"]
               for s in statements)
    assert "1608999687919862906" in statements[0]["params"].values()
    assert all(isinstance(s["rows_read"], int) for s in statements)
    assert request["query"] == "blk_-1608999687919862906"  # the validated arguments, as the store records


def test_an_answer_cut_by_the_row_limit_fails_instead_of_reading_as_an_absence(
        loghub: tuple[LogStore, ClickHouseLogs, Any], chdb: ChdbClient) -> None:
    capped = ClickHouseLogs(chdb, max_rows=1000, kind="chdb")
    with pytest.raises(SourceError, match=r"cut at [\d,]+ rows read \(max_rows_to_read 1,000\): partial") as cut:
        capped.query_logs(QueryLogsArgs(query="no-such-word-anywhere"))
    assert cut.value.request is not None and cut.value.request["search"]["statements"][0]["rows_read"] >= 1000


COLLECTOR_DDL = """CREATE TABLE otel.collector_logs (
    Timestamp DateTime64(9) CODEC(Delta(8), ZSTD(1)),
    TimestampTime DateTime DEFAULT toDateTime(Timestamp),
    TraceId String CODEC(ZSTD(1)), SpanId String CODEC(ZSTD(1)), TraceFlags UInt8,
    SeverityText LowCardinality(String) CODEC(ZSTD(1)), SeverityNumber UInt8,
    ServiceName LowCardinality(String) CODEC(ZSTD(1)), Body String CODEC(ZSTD(1)),
    ResourceSchemaUrl LowCardinality(String) CODEC(ZSTD(1)),
    ResourceAttributes Map(LowCardinality(String), String) CODEC(ZSTD(1)),
    ScopeSchemaUrl LowCardinality(String) CODEC(ZSTD(1)), ScopeName String CODEC(ZSTD(1)),
    ScopeVersion LowCardinality(String) CODEC(ZSTD(1)),
    ScopeAttributes Map(LowCardinality(String), String) CODEC(ZSTD(1)),
    LogAttributes Map(LowCardinality(String), String) CODEC(ZSTD(1)),
    EventName String CODEC(ZSTD(1)),
    INDEX idx_trace_id TraceId TYPE bloom_filter(0.001) GRANULARITY 1,
    INDEX idx_res_attr_key mapKeys(ResourceAttributes) TYPE bloom_filter(0.01) GRANULARITY 1,
    INDEX idx_res_attr_value mapValues(ResourceAttributes) TYPE bloom_filter(0.01) GRANULARITY 1,
    INDEX idx_log_attr_key mapKeys(LogAttributes) TYPE bloom_filter(0.01) GRANULARITY 1,
    INDEX idx_log_attr_value mapValues(LogAttributes) TYPE bloom_filter(0.01) GRANULARITY 1,
    INDEX idx_body Body TYPE tokenbf_v1(32768, 3, 0) GRANULARITY 8
) ENGINE = MergeTree PARTITION BY toDate(TimestampTime) PRIMARY KEY (ServiceName, TimestampTime)
ORDER BY (ServiceName, TimestampTime, Timestamp) SETTINGS index_granularity = 8192, ttl_only_drop_parts = 1"""
# The DDL of the OpenTelemetry Collector's ClickHouse exporter (opentelemetry-collector-contrib,
# exporter/clickhouseexporter/internal/sqltemplates/logs_table.sql), database and table filled in.


def _sql_text(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def test_a_table_the_collector_wrote_is_asked_through_a_sources_file(
        loghub: tuple[LogStore, ClickHouseLogs, Any], chdb: ChdbClient, tmp_path: Path) -> None:
    """Rows as a Collector writes them (severity as the receiver read it, lower case; no
    attribute of ours): the same lines and totals as the store, topics checked on the rows SQL
    found, groups by the masked template."""
    from core.sources.config import world_from_file
    from core.tools.spec import call_tool

    store, _, _ = loghub
    chdb.command(COLLECTOR_DDL)
    with store.connection() as connection:
        rows = connection.execute("SELECT e.ts, l.ts_us, e.level, e.service, e.message FROM entries e "
                                  "JOIN lines l ON l.id = e.id WHERE e.service IN ('HDFS_2k', 'Zookeeper_2k')"
                                  ).fetchall()
    numbers = {"INFO": 9, "WARN": 13, "ERROR": 17, "FATAL": 21, "DEBUG": 5}
    values = ", ".join(
        f"(fromUnixTimestamp64Micro({ts_us}), {_sql_text(level.lower())}, {numbers.get(level, 0)}, "
        f"{_sql_text(service)}, {_sql_text(message)}, map('service.name', {_sql_text(service)}), "
        f"map('log.iostream', 'stdout'))" for _, ts_us, level, service, message in rows)
    chdb.command("INSERT INTO otel.collector_logs (Timestamp, SeverityText, SeverityNumber, ServiceName, Body, "
                 f"ResourceAttributes, LogAttributes) VALUES {values}")
    sources = tmp_path / "sources.yaml"
    sources.write_text(f"name: collector\nlogs: {{clickhouse: {{path: {chdb.where}, table: collector_logs}}}}\n")
    world = world_from_file(sources)
    assert world.logs is not None and world.logs.source_id == f"chdb:{chdb.where}/otel.collector_logs"
    assert world.now.isoformat().startswith("2015-08-25")  # the data's clock, as a store's
    table = world.logs
    assert isinstance(table, ClickHouseLogs)
    queries: list[dict[str, Any]] = [{"service": "HDFS_2k", "level": "WARN"}, {"query": "PacketResponder terminating"},
               {"topic": "memory"}, {"query": "connection timeout", "match": "any"}, {"query": "zookeeper"},
               {"service": "Zookeeper_2k", "since": "2015-07-29T19:00", "until": "2015-07-29T20:00"},
               {"terms": ["Received block"], "exclude": ["INFO"]}, {"query": "10.250.19.102"}]
    for arguments in queries:
        args = QueryLogsArgs(**{**arguments, "limit": 200})
        expected, _ = store.query_logs(args, ["HDFS_2k", "Zookeeper_2k"])
        expected_lines = [e for e in expected.logs if e.service in ("HDFS_2k", "Zookeeper_2k")]
        if "service" not in arguments:  # the store holds three more services the table does not
            expected = store.query_logs(QueryLogsArgs(**{**arguments, "limit": 200, "service": "HDFS_2k"}))[0]
            other = store.query_logs(QueryLogsArgs(**{**arguments, "limit": 200, "service": "Zookeeper_2k"}))[0]
            total, expected_lines = expected.total + other.total, expected.logs + other.logs
        else:
            total = expected.total
        got, _ = table.query_logs(args, ["HDFS_2k", "Zookeeper_2k"])
        assert got.total == total, arguments
        assert sum(g.count for g in got.groups) == total or len(got.groups) == 50, arguments
        if total <= 200:
            assert sorted((e.message, e.level) for e in got.logs) == sorted(
                (e.message, e.level) for e in expected_lines), arguments
    answer = call_tool(world, "query_logs", {"service": "HDFS_2k", "level": "WARN"})
    assert answer.source == table.source_id and answer.output["total"] > 0
    assert all(re.fullmatch(r"[^\d]*(<\*>[^\d]*)*", g["template"]) for g in answer.output["groups"])


def _explain(client: Client, sql: str, params: dict[str, Any]) -> str:
    statement = sql.split(" SETTINGS ")[0]
    return "\n".join(str(row[0]) for row in client.query(f"EXPLAIN indexes = 1 {statement}", params).rows)


def _skipped(plan: str, index: str) -> bool:
    """Whether the plan's ``index`` (PrimaryKey, or a skip index by name) kept fewer granules
    than it was given (``Granules: kept/total``)."""
    block = plan.split(index, 1)[1] if index in plan else ""
    found = re.search(r"Granules: (\d+)/(\d+)", block)
    return found is not None and int(found.group(1)) < int(found.group(2))


def test_the_recorded_sql_uses_the_primary_key_and_the_token_index(chdb: ChdbClient) -> None:
    from core.sources.clickhouse.writer import table_ddl

    chdb.command(table_ddl("otel.generated").replace("GRANULARITY 1\n)", "GRANULARITY 1\n)")
                 .replace("index_granularity = 8192", "index_granularity = 1024"))
    chdb.command("INSERT INTO otel.generated (Timestamp, SeverityText, SeverityNumber, ServiceName, Body, "
                 "ResourceAttributes, LogAttributes) SELECT fromUnixTimestamp64Micro(toInt64(1700000000000000 + "
                 "number * 1000000)), if(number % 50 = 0, 'ERROR', 'INFO'), if(number % 50 = 0, 17, 9), "
                 "concat('svc-', toString(number % 4)), concat('request ', toString(number * 7919 % 1000003), "
                 "' served in ', toString(number % 97), ' ms'), map(), map() FROM numbers(200000)")
    table = ClickHouseLogs(chdb, "otel", "generated", kind="chdb")
    _, request = table.query_logs(QueryLogsArgs(service="svc-1", since="2023-11-15T00:00:00Z",
                                                until="2023-11-15T01:00:00Z"))
    window = request["search"]["statements"][0]
    plan = _explain(chdb, window["sql"], window["params"])
    assert _skipped(plan, "PrimaryKey"), plan
    result, request = table.query_logs(QueryLogsArgs(query="request 7919"))
    token = request["search"]["statements"][0]
    plan = _explain(chdb, token["sql"], token["params"])
    assert "idx_body" in plan and _skipped(plan, "idx_body"), plan
    assert token["rows_read"] < 200000 // 4  # the index spared reading most of the table
    assert result.total == 1


def test_the_real_data_questions_get_the_same_answers(chdb: ChdbClient, corpora_dir: Path,
                                                      tmp_path_factory: pytest.TempPathFactory) -> None:
    """A representative subset of evals/loghub's cases (each pack's first two), asked of the
    pack's log store and of the same lines in ClickHouse: same verdict, answer and citations."""
    from core.evals.cases import load_case_file
    from core.packs import load_pack
    from core.pipeline import ask
    from core.sources.pack import load_world
    from evals.loghub.packs import build_packs

    built = build_packs(tmp_path_factory.mktemp("packs"), corpora_dir, serve_from_store=True)
    cases = load_case_file(Path(__file__).resolve().parents[1] / "evals" / "loghub" / "cases.yaml")
    chosen: dict[str, list[Any]] = {}
    for case in cases:
        assert case.pack is not None
        if case.pack in built and len(chosen.setdefault(case.pack, [])) < 2:
            chosen[case.pack].append(case)
    compared = 0
    for name, picked in sorted(chosen.items())[:6]:
        pack = load_pack(str(built[name].path))
        assert pack.log_store is not None
        store = LogStore.open(pack.log_store)
        on_store = load_world(pack)
        on_clickhouse = dataclasses.replace(on_store, logs=_table(chdb, name.replace("-", "_"), store))
        for case in picked:
            a, b = ask(case.question, pack=on_store), ask(case.question, pack=on_clickhouse)
            verdict = (a.verifier_result.verdict if a.verifier_result else None,
                       b.verifier_result.verdict if b.verifier_result else None)
            assert verdict[0] == verdict[1], case.id
            assert a.outcome == b.outcome, case.id
            answers = [d.composer_output.user_facing_answer if d.composer_output else None for d in (a, b)]
            assert answers[0] == answers[1], case.id
            # the same groups cited, and as many lines, all passing (an example line may be another
            # line of its group: newest first here, by bm25 in the store)
            cited = [[(x.tool_name, x.raw_path if "groups" in (x.raw_path or "") else "$.logs",
                       x.evidence_excerpt if "groups" in (x.raw_path or "") else "", x.status)
                      for x in d.gatekeeper_result.checked_bindings] if d.gatekeeper_result else [] for d in (a, b)]
            assert cited[0] == cited[1], case.id
            compared += 1
        store.close()
    assert compared >= 10


@pytest.mark.skipif(not SERVER_URL, reason=NO_SERVER)
def test_a_server_answers_as_the_store(corpora_dir: Path, tmp_path: Path) -> None:
    from core.sources.clickhouse import ConnectClient

    client = ConnectClient(SERVER_URL, "superbiz_test", 30.0)
    client.command("DROP TABLE IF EXISTS `superbiz_test`.`otel_logs`")
    files = [corpora_dir / "loghub" / name / f"{name}_2k.log" for name in LOGHUB]
    import_into(files, client, "superbiz_test", "otel_logs")
    import_files(files, tmp_path / "loghub.db")
    store = LogStore.open(tmp_path / "loghub.db")
    table = ClickHouseLogs(client, "superbiz_test", "otel_logs")
    assert _agree(store, table, HAND_WRITTEN, store.services()) >= len(HAND_WRITTEN) // 3


ONE_TABLE = "logs.clickhouse: Value error, name a url or a path (exactly one)"


@pytest.mark.parametrize(("logs", "message"), [
    ("{clickhouse: {url: 'http://a:8123', path: /x}}", ONE_TABLE), ("{clickhouse: {}}", ONE_TABLE),
    ("{clickhouse: {path: /x}, store: /y.db}",
     "logs: Value error, name a pack, a store or a clickhouse table (exactly one)"),
    ("{clickhouse: {url: 'ftp://a'}}", "must be an http(s) URL"),
    ("{clickhouse: {url: 'http://a:8123', tabel: x}}", "logs.clickhouse.tabel: unknown key"),
])
def test_a_sources_file_names_one_clickhouse_table(tmp_path: Path, logs: str, message: str) -> None:
    from core.errors import SourcesConfigError
    from core.sources.config import world_from_file

    sources = tmp_path / "sources.yaml"
    sources.write_text(f"logs: {logs}\n")
    with pytest.raises(SourcesConfigError, match=re.escape(message)):
        world_from_file(sources)


def test_the_environment_names_a_server_whose_password_is_never_shown() -> None:
    from core.errors import SourcesConfigError
    from core.settings import Settings
    from core.sources.config import env_clickhouse, open_world

    config = env_clickhouse("clickhouse://reader:s3cret@127.0.0.1:1/logs/app_logs")
    assert (config.url, config.database, config.table) == ("http://reader:s3cret@127.0.0.1:1", "logs", "app_logs")
    assert (env_clickhouse("https://h:8443").database, env_clickhouse("https://h:8443").table) == ("otel", "otel_logs")
    with pytest.raises(SourcesConfigError) as refused:
        open_world("demo", settings=Settings(clickhouse_url="http://reader:s3cret@127.0.0.1:1/otel"))
    assert str(refused.value).startswith("SUPERBIZ_CLICKHOUSE_URL: logs.clickhouse: clickhouse:http://127.0.0.1:1/")
    assert "s3cret" not in str(refused.value) and "\n" not in str(refused.value)


def test_the_cli_imports_into_chdb_and_asks_it_through_a_sources_file(corpora_dir: Path, tmp_path: Path) -> None:
    """Each command its own process, as a user runs them (chdb: one engine per process)."""
    import json
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": str(root), "SUPERBIZ_DB": str(tmp_path / "s.db")}
    log = corpora_dir / "loghub" / "HDFS" / "HDFS_2k.log"
    done = subprocess.run([sys.executable, "-m", "core", "logs", "import", str(log), "--to-chdb",
                           str(tmp_path / "chdb"), "--json"], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["rows_written"] == 2000 and report["store"] == f"{tmp_path / 'chdb'}/otel.otel_logs"
    sources = tmp_path / "sources.yaml"
    sources.write_text(f"name: hdfs\nlogs: {{clickhouse: {{path: {tmp_path / 'chdb'}}}}}\n")
    asked = subprocess.run([sys.executable, "-m", "core", "ask", "hdfs 有哪些 WARN 日志?", "--sources", str(sources)],
                           capture_output=True, text=True, env=env, timeout=300)
    assert asked.returncode == 0, asked.stderr
    assert "verdict  PASS" in asked.stdout and "80 条 WARN 日志" in asked.stdout


def test_the_query_logs_contract_of_the_small_pack(chdb: ChdbClient) -> None:
    """tests/test_logquery.py's arguments (levels, exclusions, words, terms, identifiers, topics,
    match any, windows; a window's times with their zone: naive times read in UTC here). Levels
    as ``logs import`` writes them, canonical: the table reads ``SeverityText`` so (``WARNING``
    is WARN), where a pack's in-memory store keeps a level as the pack spells it."""
    from datetime import timedelta, timezone

    from core.contracts import LogEntry
    from core.logfields import canonical_level
    from tests.test_logquery import LINES

    entries = [LogEntry(timestamp=ts, level=canonical_level(level) or level, service=service, message=message)
               for ts, level, service, message in LINES]
    store = LogStore.from_entries(entries, timezone(timedelta(hours=8)))
    queries: list[dict[str, Any]] = [
        {"level": "ERROR"}, {"level": "fatal"}, {"level": "warning"}, {"level": "ERROR", "exclude": ["error"]},
        {"service": "worker", "exclude": ["heartbeat"]}, {"query": "connection", "exclude": ["connection reset"]},
        {"query": "connect"}, {"terms": ["connection"]}, {"terms": ["Connection  Refused"]}, {"query": '"refused by"'},
        {"terms": ["refused db"]}, {"query": "db-1:5432"}, {"query": "543"}, {"query": "/orders"},
        {"query": "broker reset"}, {"query": "broker reset", "match": "any"}, {"query": "oom disk"},
        {"terms": ["heartbeat", "broker"], "match": "any"}, {"topic": "memory"}, {"service": "API"},
        {"since": "2026-07-08T10:07+08:00", "until": "2026-07-08T10:08+08:00"},
        {"until": "2026-07-08T02:00:00Z"}, {"since": "2026-07-08T00:00Z"}]
    assert _agree(store, _table(chdb, "small", store), queries, ["api", "worker"]) >= 15
